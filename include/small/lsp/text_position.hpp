// Positions as LSP counts them and as small's findings name them. LSP:
// 0-based lines, columns in UTF-16 code units. Findings: 1-based lines,
// columns in characters (code points), as the YAML reader marks nodes. And
// the file:// URIs a client names documents by.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace small::lsp {

struct Position {
    std::size_t line = 0;       // 0-based
    std::size_t character = 0;  // UTF-16 code units from the line's start
    bool operator==(const Position&) const = default;
};

struct Range {
    Position start, end;
    bool operator==(const Range&) const = default;
};

// A text's lines, for moving between byte offsets and positions.
class LineIndex {
public:
    explicit LineIndex(std::string_view text);
    std::size_t line_count() const { return starts_.size(); }
    // The line's bytes without its line break ("" past the end).
    std::string_view line(std::size_t n) const;
    // The byte offset of `p`, clamped to its line (a column past its end is
    // its end; a line past the text is the text's end).
    std::size_t offset_of(Position p) const;
    Position position_of(std::size_t offset) const;
    // A finding's 1-based line and code-point column as a position (0:0
    // for "the whole file"; a column past the line's end is its end).
    Position from_mark(std::size_t line, std::size_t column) const;

private:
    std::string_view text_;
    std::vector<std::size_t> starts_;
};

// The extent of the YAML scalar or key that starts at `offset` in `line`: a
// quoted one to its closing quote, a plain one to a `: `, ` #`, `,`, `]`,
// `}` or the line's end (trailing blanks left out).
std::size_t token_end(std::string_view line, std::size_t offset);
// Where the token marked at `offset` starts: the YAML reader marks a quoted
// scalar's first character, so its opening quote, when there is one, is
// taken in.
std::size_t token_start(std::string_view line, std::size_t offset);

// The task-id-like word around byte `offset` of `line` (letters, digits and
// `-_.:/`), as its [begin, end) bytes; begin == end when there is none.
std::pair<std::size_t, std::size_t> word_at(std::string_view line, std::size_t offset);

// file:///a%20b -> /a b; nullopt for another scheme or a bad escape.
std::optional<std::string> path_of_uri(std::string_view uri);
// /a b -> file:///a%20b
std::string uri_of_path(std::string_view path);

}  // namespace small::lsp
