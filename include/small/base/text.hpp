// Small text helpers shared by the rules and parsers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace small {

// Without leading and trailing ASCII white space (as Go's TrimSpace does for ASCII):
// " \t\r\n\f\v", which are ' ' and '\t' (9) to '\r' (13).
inline std::string_view trim(std::string_view s) {
    const auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
    std::size_t first = 0, end = s.size();
    while (first < end && space(s[first])) ++first;
    if (first == end) return {};
    while (space(s[end - 1])) --end;
    return s.substr(first, end - first);
}

// The lines of `text` without their '\n' (a last line without one included:
// "a\nb" and "a\nb\n" give {"a", "b"} and {"a", "b", ""}). `strip_cr`: a
// '\r' ending a line goes too (CRLF text).
std::vector<std::string_view> split_lines(std::string_view text, bool strip_cr = false);

// ASCII character classes (ids, hex, schemes and secrets are ASCII).
inline constexpr bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
inline constexpr bool is_ascii_upper(char c) { return c >= 'A' && c <= 'Z'; }
inline constexpr bool is_ascii_lower(char c) { return c >= 'a' && c <= 'z'; }
inline constexpr bool is_ascii_alpha(char c) { return is_ascii_upper(c) || is_ascii_lower(c); }
inline constexpr bool is_ascii_alnum(char c) { return is_ascii_alpha(c) || is_ascii_digit(c); }
inline constexpr bool is_ascii_hex(char c) {
    return is_ascii_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
// Every character a lower-case hex digit (true for "").
inline bool is_lower_hex(std::string_view s) {
    for (const char c : s) {
        if (!is_ascii_digit(c) && (c < 'a' || c > 'f')) return false;
    }
    return true;
}
inline constexpr char ascii_lower(char c) { return is_ascii_upper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

// ASCII lower case (ids, statuses and hex digits are ASCII).
inline std::string lower_ascii(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

// How much of a value from a file a message repeats: a multi-megabyte
// scalar must not be printed whole (and again in every message naming it).
inline constexpr std::size_t kMessageValueChars = 80;

// `text` cut to at most `max` characters (UTF-8 code points, never split),
// with "…" appended when cut.
std::string excerpt(std::string_view text, std::size_t max = kMessageValueChars);
// `text` in lines of at most `width` characters (UTF-8 code points, never
// split; width >= 1), broken at spaces; a word longer than a line is broken
// inside. Nothing is left out: the lines joined by spaces give back the text
// with its runs of spaces as one. "" gives no line. `first_width`, when not
// 0, is the first line's (a hanging indent leaves the later ones narrower).
std::vector<std::string> wrap_words(std::string_view text, std::size_t width, std::size_t first_width = 0);
// excerpt() in double quotes: "value" or "first 80 characters…".
std::string quoted_excerpt(std::string_view text, std::size_t max = kMessageValueChars);

// `text` as one line of at most `max_bytes` bytes (max_bytes >= 3): runs of
// whitespace, control characters (C0 and C1) and U+2028/U+2029 become one space, bytes that are not
// UTF-8 become U+FFFD, and a longer line is cut at a character boundary with
// "…" appended. Always valid UTF-8.
std::string one_line(std::string_view text, std::size_t max_bytes);

// Issue 41: text for a terminal or a log, with every control character shown
// as a visible escape: \n \r \t \e, \xNN for the other C0 bytes, DEL
// and bytes that are not UTF-8, \uNNNN for C1 controls, U+2028/U+2029 and
// the bidirectional overrides. visible() escapes line breaks too (a value);
// visible_lines() keeps them (a block of lines) and puts a backslash before
// a line whose first non-blank characters are "::", so no line of output is
// a GitHub Actions workflow command. Plain text comes back unchanged.
std::string visible(std::string_view text);
std::string visible_lines(std::string_view text);

// `word` for a POSIX shell command line: as is when it holds only
// [A-Za-z0-9_./:=@%+,-] (and is not empty), else in single quotes.
std::string shell_quote(std::string_view word);

}  // namespace small

namespace small {

// Levenshtein distance (insert, delete, substitute: 1 each).
std::size_t edit_distance(std::string_view a, std::string_view b);

// True when `b` is `a` with one typo: a character inserted, deleted or
// replaced, or two neighbours swapped ("stauts" / "status"). Not when equal.
bool one_typo_apart(std::string_view a, std::string_view b);

// The candidates nearest to `word`: those at the smallest distance (at most
// `limit`, in the candidates' order), within max(2, |word| / 3) edits and not
// equal to it: "did you mean".
std::vector<std::string> closest_matches(std::string_view word, const std::vector<std::string>& candidates,
                                         std::size_t limit = 3);

// The '\n' bytes of `text` (memchr leaps from one to the next: long logs are counted).
std::size_t count_line_breaks(std::string_view text);

// Orders names as people count: runs of digits by their value ("task-8"
// before "task-12"), everything else byte by byte; equal values of
// different spellings ("07", "7") fall back to the text, so the order is total.
bool natural_less(std::string_view a, std::string_view b);

// Whether JSON text nests arrays and objects deeper than `max_depth` (strings
// skipped): checked before parsing, since a parsed value is copied and
// destroyed recursively. Not a validation: malformed text may pass.
bool json_nesting_deeper_than(std::string_view text, std::size_t max_depth);

}  // namespace small
