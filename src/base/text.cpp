// Edit distance and "did you mean" suggestions (see text.hpp).
#include "small/base/text.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <utility>

#include "small/base/utf8.hpp"

namespace small {

std::string excerpt(std::string_view text, std::size_t max) {
    std::size_t chars = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // continuation byte
        if (chars++ == max) return std::string(text.substr(0, i)) + "\u2026";
    }
    return std::string(text);
}

namespace {

std::size_t code_points(std::string_view text) {
    std::size_t n = 0;
    for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}

// The byte length of the first `chars` code points of `text`.
std::size_t prefix_bytes(std::string_view text, std::size_t chars) {
    std::size_t i = 0;
    for (std::size_t seen = 0; i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && seen++ == chars) break;
    }
    return i;
}

}  // namespace

std::vector<std::string> wrap_words(std::string_view text, std::size_t width, std::size_t first_width) {
    width = std::max<std::size_t>(width, 1);
    first_width = first_width ? first_width : width;
    std::vector<std::string> lines;
    std::string line;
    std::size_t used = 0;  // code points in `line`
    const auto room = [&] { return lines.empty() ? first_width : width; };
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t space = std::min(text.find(' ', start), text.size());
        std::string_view word = text.substr(start, space - start);
        start = space + 1;
        while (!word.empty()) {
            const std::size_t chars = code_points(word);
            if (used > 0 && used + 1 + chars <= room()) {
                line += ' ';
                line += word;
                used += 1 + chars;
                break;
            }
            if (used > 0) lines.push_back(std::exchange(line, {}));
            const std::size_t take = prefix_bytes(word, room());  // the whole word when it fits
            line.assign(word.substr(0, take));
            used = std::min(chars, room());
            word.remove_prefix(take);
        }
    }
    if (used > 0) lines.push_back(std::move(line));
    return lines;
}

namespace {

void escape_into(std::string& out, std::string_view text, bool keep_newlines) {
    static const char digits[] = "0123456789abcdef";
    bool line_start = true;
    for (std::size_t pos = 0; pos < text.size();) {
        if (line_start) {
            std::size_t first = pos;
            while (first < text.size() && (text[first] == ' ' || text[first] == '\t')) ++first;
            if (text.substr(first, 2) == "::") out += '\\';
            line_start = false;
        }
        char32_t cp = 0;
        const std::size_t len = decode_utf8(text, pos, cp);
        if (len == 0) {
            const auto b = static_cast<unsigned char>(text[pos++]);
            out.append("\\x").append(1, digits[b >> 4]).append(1, digits[b & 15]);
            continue;
        }
        const std::string_view piece = text.substr(pos, len);
        pos += len;
        if (cp == '\n' && keep_newlines) {
            out += '\n';
            line_start = true;
        } else if (cp == '\n') {
            out += "\\n";
        } else if (cp == '\r') {
            out += "\\r";
        } else if (cp == '\t') {
            out += keep_newlines ? "\t" : "\\t";
        } else if (cp == 0x1B) {
            out += "\\e";
        } else if (cp < 0x20 || cp == 0x7F) {
            out.append("\\x").append(1, digits[cp >> 4]).append(1, digits[cp & 15]);
        } else if ((cp >= 0x80 && cp < 0xA0) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
                   (cp >= 0x2066 && cp <= 0x2069)) {
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4) out += digits[(cp >> shift) & 15];
        } else {
            out += piece;
        }
    }
}

bool plain(std::string_view text, bool keep_newlines) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80 || c == 0x7F || (c < 0x20 && !(keep_newlines && (c == '\n' || c == '\t')))) return false;
        if (c == ':' && i + 1 < text.size() && text[i + 1] == ':') return false;
    }
    return true;
}

std::string escaped(std::string_view text, bool keep_newlines) {
    if (plain(text, keep_newlines)) return std::string(text);
    std::string out;
    out.reserve(text.size() + 8);
    escape_into(out, text, keep_newlines);
    return out;
}

}  // namespace

std::string visible(std::string_view text) { return escaped(text, false); }

std::string visible_lines(std::string_view text) { return escaped(text, true); }

std::string quoted_excerpt(std::string_view text, std::size_t max) {
    std::string out = "\"";  // append, not operator+: GCC 12 warns (falsely) on "x" + string&&
    return out.append(excerpt(text, max)).append("\"");
}

std::string one_line(std::string_view text, std::size_t max_bytes) {
    static constexpr std::string_view kEllipsis = "\u2026", kReplacement = "\uFFFD";
    std::string out;
    std::size_t last_fit = 0;  // out's size while "…" still fits after it
    bool cut = false;
    for (std::size_t pos = 0; pos < text.size() && !cut;) {
        char32_t cp = 0;
        const std::size_t len = decode_utf8(text, pos, cp);
        std::string_view piece = len ? text.substr(pos, len) : kReplacement;
        pos += len ? len : 1;
        if (len && (cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || cp == 0x2028 || cp == 0x2029 || cp == ' ')) {
            if (out.empty() || out.back() == ' ') continue;
            piece = " ";
        }
        if (out.size() + kEllipsis.size() <= max_bytes) last_fit = out.size();
        if (out.size() + piece.size() > max_bytes) cut = true;
        else out += piece;
    }
    if (cut) out.resize(last_fit);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    if (cut) out += kEllipsis;
    return out;
}

std::string shell_quote(std::string_view word) {
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
    });
    if (plain) return std::string(word);
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

bool one_typo_apart(std::string_view a, std::string_view b) {
    if (a.size() == b.size()) {
        std::size_t first = 0;
        while (first < a.size() && a[first] == b[first]) ++first;
        if (first == a.size()) return false;
        const bool swapped = first + 1 < a.size() && a[first] == b[first + 1] && a[first + 1] == b[first] &&
                             a.substr(first + 2) == b.substr(first + 2);
        if (swapped) return true;
    }
    return edit_distance(a, b) == 1;
}

std::vector<std::string> closest_matches(std::string_view word, const std::vector<std::string>& candidates,
                                         std::size_t limit) {
    const std::size_t budget = std::max<std::size_t>(2, word.size() / 3);
    std::vector<std::pair<std::size_t, std::size_t>> scored;  // distance, index
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        // Lengths that differ by more than the budget cannot be close enough.
        const std::size_t n = candidates[i].size();
        if ((n > word.size() ? n - word.size() : word.size() - n) > budget) continue;
        const std::size_t d = edit_distance(word, candidates[i]);
        if (d <= budget && d > 0) scored.emplace_back(d, i);
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    // Only the nearest: "task-2" for "task-22", not every task-N two edits away.
    std::vector<std::string> out;
    for (std::size_t k = 0; k < scored.size() && out.size() < limit && scored[k].first == scored[0].first; ++k) {
        out.push_back(candidates[scored[k].second]);
    }
    return out;
}

std::vector<std::string_view> split_lines(std::string_view text, bool strip_cr) {
    std::vector<std::string_view> lines;
    for (std::size_t pos = 0; pos <= text.size();) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        if (strip_cr && !line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        pos = end + 1;
    }
    return lines;
}

std::size_t count_line_breaks(std::string_view text) {
    std::size_t n = 0;
    for (const char *at = text.data(), *end = at + text.size();
         (at = static_cast<const char*>(std::memchr(at, '\n', static_cast<std::size_t>(end - at)))) != nullptr; ++at) {
        ++n;
    }
    return n;
}

namespace {

std::string_view digit_run(std::string_view s, std::size_t from) {
    std::size_t end = from;
    while (end < s.size() && is_ascii_digit(s[end])) ++end;
    return s.substr(from, end - from);
}

// Compares two digit runs by value: leading zeros dropped, then length, then digits.
int compare_numbers(std::string_view x, std::string_view y) {
    while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
    while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
    if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
    return x.compare(y);
}

}  // namespace

bool natural_less(std::string_view a, std::string_view b) {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (is_ascii_digit(a[i]) && is_ascii_digit(b[j])) {
            const std::string_view x = digit_run(a, i), y = digit_run(b, j);
            if (const int c = compare_numbers(x, y); c != 0) return c < 0;
            i += x.size();
            j += y.size();
            continue;
        }
        if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
        ++i;
        ++j;
    }
    if (i < a.size() || j < b.size()) return i == a.size();  // the shorter one first
    return a < b;
}

bool json_nesting_deeper_than(std::string_view text, std::size_t max_depth) {
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_depth) return true;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return false;
}

}  // namespace small
