// Editing a YAML file in place: top-level members of a block mapping are
// changed by touching only their own bytes, so comments, key order, quoting
// and blank lines elsewhere survive byte for byte (D7: what a command does
// not need to change is kept). Used by the `fix` repairs.
#pragma once

#include <optional>
#include <string>

#include "small/doc/document.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small {

// The text of `doc` changed to hold `target`, which may differ from the
// parsed value only in top-level members:
//   - an existing member whose old and new values are scalars written on
//     one line: its value bytes are replaced (strings double-quoted);
//   - a new member: appended at the end of the file (house style).
// Returns nullopt when that is not enough (a member removed or reordered, a
// nested value changed, a multi-line or empty old scalar, a flow mapping,
// ...) or when the edited text does not re-read as exactly `target`; the
// caller then re-emits the whole file (comments lost) and says so.
std::optional<std::string> edit_top_level_members(const Document& doc, const YamlValue& target);

// The text of `doc` with the top-level scalar `key` written as `text` (a
// YAML scalar, e.g. yaml_quoted(value)); nullopt when the key is missing,
// not a one-line scalar, or the result does not re-read with the same
// value as a string.
std::optional<std::string> requote_top_level_scalar(const Document& doc, std::string_view key,
                                                    const std::string& text);

}  // namespace small
