// Writing YAML: whole artifacts (templates, plan and handoff rewrites) and
// single progress entries appended to progress.small.yml (D7, D8).
//
// House style (as in the reference's own files): block style, two-space
// indentation, keys plain when safe, every string VALUE double-quoted,
// `[]` / `{}` for empty collections, never block scalars or line folding.
// Everything emitted re-reads through parse_yaml as exactly the values given.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "small/doc/document.hpp"
#include "small/base/utf8.hpp"  // is_valid_utf8, for callers that refuse bad input
#include "small/base/result.hpp"

namespace small {

// The value model for writing. nlohmann::ordered_json keeps members in
// insertion order (the order they are written in), has every kind we need
// (null, bool, int, double, string, list, mapping), is already a public
// dependency of libsmall and doubles as the --json output model.
using YamlValue = nlohmann::ordered_json;

// A parsed node as a writable value, member order kept (plan and handoff
// rewrites keep fields they do not know, D6).
YamlValue to_yaml_value(NodeRef node);

// Equal as data: mappings compare without regard to key order (YAML's
// meaning), so a task written with its keys in another order is the same.
bool same_yaml_data(const YamlValue& a, const YamlValue& b);

// A string as a YAML scalar that re-reads as exactly `s`: plain when that is
// unambiguous for YAML 1.2 core readers and YAML 1.1 readers alike, else
// double-quoted. Used for keys. Invalid UTF-8 becomes U+FFFD (a file with
// invalid UTF-8 could not be read back); check is_valid_utf8 first to refuse it.
std::string yaml_scalar(std::string_view s);

// Always double-quoted: \\ \" \n \t \r, \uXXXX for other control characters
// (C0, DEL, C1, U+2028, U+2029, U+FEFF); other UTF-8 is kept as is.
std::string yaml_quoted(std::string_view s);

// How a scalar is written where it stands: '"', '\'' or 0 (plain), from
// its first byte.
char scalar_quote(std::string_view written);

// `value` (a scalar) written with `quote` when that re-reads as it (D20:
// a new value keeps the old one's quoting): single-quoted when it has no
// quote or control character, plain when plain-safe even inside a flow
// collection; else double-quoted. Non-strings as JSON writes them.
std::string scalar_styled(const YamlValue& value, char quote);

// One block-sequence item, `indent` spaces before its '-', ending in "\n":
//   <indent>- key: "value"
//   <indent+2>key: "value"
// Nested collections are indented two more columns per level.
std::string emit_sequence_item(const YamlValue& value, int indent);

// A whole file in the same style; `small_version` is written first when present.
std::string emit_document(const YamlValue& mapping);

// Issue 41: `text` (house style, LF) with what of `original`'s layout a
// rewrite can keep: its UTF-8 byte order mark and CRLF line breaks (when
// every line break of `original` is CRLF). `kept` (optional) gets what was
// kept, for the write's note ("a byte order mark", "CRLF line breaks").
std::string with_layout_of(std::string text, std::string_view original, std::vector<std::string>* kept = nullptr);

// Where a new progress entry goes so that it becomes the next item of the
// top-level `entries` list without touching existing bytes.
struct AppendPoint {
    std::size_t offset = 0;          // where the item's bytes go (end of file, or the '[' of `[]`)
    int indent = 0;                  // spaces before the item's '-'
    bool needs_newline = false;      // the file does not end with a line break (never set when inline)
    bool inline_empty_list = false;  // `entries: []`: those bytes must be REPLACED, see below
    std::size_t inline_size = 0;     // length of the `[]` text (`[ ]` is 3)
    bool crlf = false;               // the file uses CRLF line breaks
};

// Works out the append point from the file bytes and their parse. Appendable
// shapes: `entries` is the last top-level key and is
//   - a block sequence (any indentation, indentless included) followed only by
//     its own items, blank lines and comments;
//   - an empty flow list `entries: []` followed only by blanks and comments:
//     reported as inline_empty_list. Turning `[]` into a block list cannot be
//     done by appending: it rewrites those bytes, so the caller must decide
//     whether that counts as the append-only write D7 asks for;
//   - an empty value (`entries:` then nothing; schema-invalid null) which a
//     block item appended below turns into a list.
// Anything else (another key after `entries`, a non-empty flow list, a
// second YAML document, an alias, ...) is an Invalid error: the file needs an
// explicitly confirmed repair first. Also refused: a file without a final
// line break whose last entry would change value if one were added (a
// keep-chomping block scalar `|+` running to the end of the file).
// Cost: a few memchr scans of the bytes for line offsets, plus one re-parse
// when the file lacks its final line break (to check the last entry).
Result<AppendPoint> progress_append_point(std::string_view file_bytes, const Document& doc);

// The edit that appends `item` (from emit_sequence_item with at.indent):
// replace `erase` bytes at `offset` with `text`. `erase` is 0 (a pure append
// at the end of the file) except for inline_empty_list, where `[]` becomes
// "\n  - ..." and whatever followed it (comment, line break) stays after the
// item. Adds a missing final line break; uses CRLF in a CRLF file.
struct AppendEdit {
    std::size_t offset = 0;
    std::size_t erase = 0;
    std::string text;
};
AppendEdit append_edit(const AppendPoint& at, std::string_view item, std::string_view file_bytes);

// Whether a file uses CRLF line breaks (judged by its last one), and `text`
// with each "\n" written "\r\n": what an edit inserts into such a file.
bool uses_crlf(std::string_view text);
std::string with_crlf(std::string_view text);

// Where a one-line scalar sits in the source text it was parsed from, so that
// an edit can replace just its bytes (keeping comments and formatting).
struct SourceRange {
    std::size_t offset = 0;
    std::size_t length = 0;
};

class ScalarLocator {
public:
    explicit ScalarLocator(std::string_view source);  // indexes line starts once
    // The bytes of the scalar whose node is marked at `mark` and whose value is
    // `value`, written plain or quoted without escapes on one line; nothing
    // otherwise (the caller then re-emits the whole document).
    std::optional<SourceRange> find(Mark mark, std::string_view value) const;

private:
    std::string_view source_;
    std::vector<std::size_t> line_starts_;
};

}  // namespace small
