// Hints for YAML syntax errors that hand edits typically cause (see
// yaml_internal.hpp): they look at the text around the error, not at the
// parser's state, so they only speak when the text makes the cause plain.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/text.hpp"
#include "yaml_internal.hpp"

namespace small {

namespace {

std::size_t indent_of(std::string_view line) {
    const std::size_t first = line.find_first_not_of(" \t");
    return first == std::string_view::npos ? line.size() : first;
}

bool is_significant(std::string_view line) {
    const std::string_view t = trim(line);
    return !t.empty() && t.front() != '#';
}

// Columns (1-based) where `line` opens something: each "- " and the content after them.
std::vector<std::size_t> opening_columns(std::string_view line) {
    std::vector<std::size_t> cols;
    std::size_t i = indent_of(line);
    while (i + 1 < line.size() && line[i] == '-' && line[i + 1] == ' ') {
        cols.push_back(i + 1);
        i = line.find_first_not_of(' ', i + 1);
        if (i == std::string_view::npos) return cols;
    }
    if (i < line.size()) cols.push_back(i + 1);
    return cols;
}

// `key: |` or `- >-` and the like: the lines below it, indented deeper, are text.
bool opens_block_scalar(std::string_view line) {
    std::string_view t = trim(line);
    if (const std::size_t hash = t.find(" #"); hash != std::string_view::npos) t = trim(t.substr(0, hash));
    const std::size_t at = t.find_last_of("|>");
    if (at == std::string_view::npos || at == 0 || (t[at - 1] != ' ')) return false;
    if (t.find_first_not_of("+-0123456789", at + 1) != std::string_view::npos) return false;
    const std::string_view before = trim(t.substr(0, at));
    return before == "-" || (!before.empty() && before.back() == ':');
}

// Whether each line is content of a block scalar (and so says nothing about structure).
std::vector<bool> block_scalar_lines(const std::vector<std::string_view>& lines) {
    std::vector<bool> inside(lines.size(), false);
    constexpr std::size_t kNone = SIZE_MAX;
    std::size_t header_indent = kNone;  // of the block scalar's header line
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (header_indent != kNone && (!is_significant(lines[i]) || indent_of(lines[i]) > header_indent)) {
            inside[i] = true;
            continue;
        }
        header_indent = opens_block_scalar(lines[i]) ? indent_of(lines[i]) : kNone;
    }
    return inside;
}

std::string tab_hint(std::string_view line, std::uint32_t number) {
    if (line.substr(0, indent_of(line)).find('\t') == std::string_view::npos) return {};
    return "line " + std::to_string(number) + " is indented with a tab; YAML indents with spaces only: replace the tab with spaces";
}

// `key: some text: more` with the value unquoted: YAML reads the second ": " as another key.
std::string colon_hint(std::string_view line) {
    std::string_view rest = line.substr(indent_of(line));
    while (rest.size() >= 2 && rest[0] == '-' && rest[1] == ' ') rest = trim(rest.substr(2));
    const std::size_t sep = rest.find(": ");
    if (sep == std::string_view::npos || sep == 0) return {};
    const std::string_view key = rest.substr(0, sep);
    const std::string_view value = trim(rest.substr(sep + 2));
    if (value.empty() || std::string_view("\"'[{|>&*!#").find(value.front()) != std::string_view::npos) return {};
    if (value.find(": ") == std::string_view::npos && value.back() != ':') return {};
    std::string quoted;
    for (char c : value) {
        if (c == '"' || c == '\\') quoted += '\\';
        quoted += c;
    }
    return "the value of " + quoted_excerpt(key) + " contains \": \", which YAML reads as another key; quote the value: " +
           excerpt(key) + ": " + quoted_excerpt(quoted);
}

// The key or "-" that starts at `column` of `line`, in backquotes.
std::string word_at(std::string_view line, std::size_t column) {
    std::string_view rest = line.substr(column - 1);
    if (rest.front() == '-') return "`-`";
    rest = rest.substr(0, std::min(rest.find(": "), rest.size()));
    if (!rest.empty() && rest.back() == ':') rest.remove_suffix(1);
    std::string out = "`";  // append: GCC 12 warns (falsely) on "x" + string&&
    return out.append(excerpt(rest, 40)).append("`");
}

struct Opening {
    std::size_t column;
    std::uint32_t line;
};

// Where the lines above `index` open blocks that a line could continue:
// walking up, every line indented less than all below it.
std::vector<Opening> enclosing_openings(const std::vector<std::string_view>& lines, std::size_t index) {
    const std::vector<bool> text = block_scalar_lines(lines);
    std::vector<Opening> out;
    std::size_t limit = SIZE_MAX;
    for (std::size_t i = index; i-- > 0 && limit > 0;) {
        if (!is_significant(lines[i]) || text[i] || indent_of(lines[i]) >= limit) continue;
        for (std::size_t col : opening_columns(lines[i])) out.push_back({col, static_cast<std::uint32_t>(i + 1)});
        limit = indent_of(lines[i]);
    }
    return out;
}

// libfyaml spells it "indentation" and "indendation".
bool about_indentation(std::string_view message) {
    return message.find("inden") != std::string_view::npos || message.find("expected '-'") != std::string_view::npos ||
           message.find("expected key") != std::string_view::npos;
}

std::string indentation_hint(const std::vector<std::string_view>& lines, std::size_t index) {
    const std::size_t column = indent_of(lines[index]) + 1;
    const std::vector<Opening> openings = enclosing_openings(lines, index);
    std::optional<Opening> best;
    for (const Opening& o : openings) {
        if (o.column == column) return {};  // it does line up with something: not the cause
        const auto distance = [column](std::size_t c) { return c > column ? c - column : column - c; };
        if (!best || distance(o.column) < distance(best->column) ||
            (distance(o.column) == distance(best->column) && o.column > best->column)) {
            best = o;
        }
    }
    if (!best) return {};
    return "line " + std::to_string(index + 1) + " starts at column " + std::to_string(column) +
           ", which lines up with nothing above it; indent it to column " + std::to_string(best->column) + " like " +
           word_at(lines[best->line - 1], best->column) + " on line " + std::to_string(best->line) +
           ", if it belongs with that";
}

// git's conflict markers, at a line start: "<<<<<<< " (or alone), the
// diff3 base's "||||||| ", "=======" alone, ">>>>>>> ". A file that holds
// them is a merge left unresolved, not a hand edit of YAML: the YAML hints
// would only send the reader to indent a marker.
bool is_conflict_marker(std::string_view line) {
    for (const std::string_view start : {"<<<<<<<", "|||||||", ">>>>>>>"}) {
        if (line.starts_with(start) && (line.size() == start.size() || line[start.size()] == ' ')) return true;
    }
    return line == "=======";
}

// The 1-based line of the first "<<<<<<<" marker when the text also holds
// the ">>>>>>>" that closes a conflict, else 0.
std::uint32_t conflict_marker_line(const std::vector<std::string_view>& lines) {
    std::uint32_t opening = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (!is_conflict_marker(lines[i])) continue;
        if (lines[i].starts_with('<') && opening == 0) opening = static_cast<std::uint32_t>(i + 1);
        if (lines[i].starts_with('>') && opening != 0) return opening;
    }
    return 0;
}

}  // namespace

namespace {

// When the text does not show the cause: where to look, and how to see the change.
std::string generic_hint(Mark at) {
    return "the YAML reader stopped at line " + std::to_string(at.line) + ", column " + std::to_string(at.column) +
           ": the mistake is there or just before it (an unclosed quote or bracket, a missing space after `:`, "
           "a line indented off its neighbours); `git diff` shows what changed since the last commit";
}

std::string specific_hint(std::string_view bytes, Mark at, std::string_view message) {
    const std::vector<std::string_view> lines = split_lines(bytes, /*strip_cr=*/true);
    if (at.line == 0 || at.line > lines.size()) return {};
    const std::size_t index = at.line - 1;
    if (const std::uint32_t marker = conflict_marker_line(lines); marker != 0) {
        return "line " + std::to_string(marker) +
               " starts git's conflict markers (<<<<<<<, =======, >>>>>>>): a merge left this file unresolved. "
               "`small doctor` says whether small's merge rules settle it and how (a clone where small's merge "
               "driver is not registered merges .small/ as plain text); else resolve the conflict (keep what both "
               "sides added, then delete the marker lines) or restore one side";
    }
    if (std::string hint = tab_hint(lines[index], at.line); !hint.empty()) return hint;
    if (std::string hint = colon_hint(lines[index]); !hint.empty()) return hint;
    if (about_indentation(message)) return indentation_hint(lines, index);
    if (message.find("multiline plain key") != std::string_view::npos) {
        // The value above reads on into the next line, which is indented off its siblings.
        for (std::size_t next = index + 1; next < lines.size(); ++next) {
            if (is_significant(lines[next])) return indentation_hint(lines, next);
        }
    }
    return {};
}

}  // namespace

std::string syntax_error_hint(std::string_view bytes, Mark at, std::string_view message) {
    std::string hint = specific_hint(bytes, at, message);
    return hint.empty() ? generic_hint(at) : hint;
}

}  // namespace small
