// Editing a YAML file in place: members of its mappings are
// changed by touching only their own bytes, so comments, key order, quoting
// and blank lines elsewhere survive byte for byte (D7: what a command does
// not need to change is kept; D20). Used by the `fix` repairs and the
// workspace pin.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "small/doc/document.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small {

// The text of `doc` changed to hold `target`, which may differ from the
// parsed value only in members of mappings:
//   - a member whose old and new values are scalars, the old one on one line
//     (or nothing at all, `key:`): its bytes are replaced, quoted as the old
//     value was when that re-reads the same (scalar_styled);
//   - a member whose old and new values are mappings (block or flow): the
//     same, member by member;
//   - a new member of the top-level block mapping: appended at the end of
//     the file; of a nested block mapping of scalars: a line after its last
//     member, at its members' indentation.
// Anything else (a member removed, a list changed, a multi-line scalar, a
// member added to a flow mapping...) is refused with why and the line, as
// is a result that does not re-read as exactly `target`; the caller then
// writes the file whole and says so (D20).
struct MemberEdit {
    std::optional<std::string> text;  // the edited file; nullopt: not possible in place
    std::string why;                  // when not: what could not be kept
    std::uint32_t line = 0;           // and where (1-based)
};
MemberEdit edit_mapping_members(const Document& doc, const YamlValue& target);

// The text of `doc` with the top-level scalar `key` written as `text` (a
// YAML scalar, e.g. yaml_quoted(value)); nullopt when the key is missing,
// not a one-line scalar, or the result does not re-read with the same
// value as a string.
std::optional<std::string> requote_top_level_scalar(const Document& doc, std::string_view key,
                                                    const std::string& text);

}  // namespace small
