#include "small/lsp/text_position.hpp"

#include <algorithm>

namespace small::lsp {

namespace {

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The UTF-16 units of the code point whose lead byte is `c`.
std::size_t utf16_units(unsigned char c) { return c >= 0xF0 ? 2 : 1; }

bool id_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.' || c == ':' || c == '/';
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

LineIndex::LineIndex(std::string_view text) : text_(text) {
    starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') starts_.push_back(i + 1);
    }
}

std::string_view LineIndex::line(std::size_t n) const {
    if (n >= starts_.size()) return {};
    const std::size_t begin = starts_[n];
    std::size_t end = n + 1 < starts_.size() ? starts_[n + 1] - 1 : text_.size();
    if (end > begin && text_[end - 1] == '\r') --end;
    return text_.substr(begin, end - begin);
}

std::size_t LineIndex::offset_of(Position p) const {
    if (p.line >= starts_.size()) return text_.size();
    const std::string_view l = line(p.line);
    std::size_t units = 0, i = 0;
    while (i < l.size() && units < p.character) {
        units += utf16_units(static_cast<unsigned char>(l[i]));
        ++i;
        while (i < l.size() && is_continuation(static_cast<unsigned char>(l[i]))) ++i;
    }
    return starts_[p.line] + i;
}

Position LineIndex::position_of(std::size_t offset) const {
    offset = std::min(offset, text_.size());
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
    const std::size_t n = static_cast<std::size_t>(it - starts_.begin()) - 1;
    const std::string_view l = line(n);
    const std::size_t bytes = std::min(offset - starts_[n], l.size());
    std::size_t units = 0;
    for (std::size_t i = 0; i < bytes; ++i) {
        const auto c = static_cast<unsigned char>(l[i]);
        if (!is_continuation(c)) units += utf16_units(c);
    }
    return {n, units};
}

Position LineIndex::from_mark(std::size_t line_1, std::size_t column_1) const {
    if (line_1 == 0) return {};
    const std::size_t n = std::min(line_1 - 1, starts_.size() - 1);
    const std::string_view l = line(n);
    std::size_t points = 0, i = 0;
    while (i < l.size() && points + 1 < column_1) {
        ++i;
        while (i < l.size() && is_continuation(static_cast<unsigned char>(l[i]))) ++i;
        ++points;
    }
    return position_of(starts_[n] + i);
}

std::size_t token_end(std::string_view line, std::size_t offset) {
    if (offset >= line.size()) return line.size();
    const char open = line[offset];
    if (open == '"' || open == '\'') {
        for (std::size_t i = offset + 1; i < line.size(); ++i) {
            if (open == '"' && line[i] == '\\') {
                ++i;
            } else if (line[i] == open) {
                if (open == '\'' && i + 1 < line.size() && line[i + 1] == '\'') {
                    ++i;  // '' is an escaped quote
                    continue;
                }
                return i + 1;
            }
        }
        return line.size();
    }
    std::size_t i = offset;
    for (; i < line.size(); ++i) {
        const char c = line[i];
        if (c == ',' || c == ']' || c == '}') break;
        if (c == ':' && (i + 1 == line.size() || line[i + 1] == ' ')) break;
        if (c == '#' && i > offset && line[i - 1] == ' ') break;
    }
    while (i > offset && (line[i - 1] == ' ' || line[i - 1] == '\t')) --i;
    return i;
}

std::size_t token_start(std::string_view line, std::size_t offset) {
    if (offset == 0 || offset > line.size()) return std::min(offset, line.size());
    const char before = line[offset - 1];
    if (before != '"' && before != '\'') return offset;
    // The quote opens this token only when it is not the closing quote of
    // an empty string before it: count the quotes up to it.
    const std::size_t quotes = static_cast<std::size_t>(std::count(line.begin(), line.begin() + static_cast<long>(offset), before));
    return quotes % 2 == 1 ? offset - 1 : offset;
}

std::pair<std::size_t, std::size_t> word_at(std::string_view line, std::size_t offset) {
    offset = std::min(offset, line.size());
    std::size_t begin = offset, end = offset;
    while (begin > 0 && id_char(line[begin - 1])) --begin;
    while (end < line.size() && id_char(line[end])) ++end;
    // A key's colon is not part of the word: `task_id:` names no task.
    while (end > begin && line[end - 1] == ':') --end;
    return {begin, end};
}

std::optional<std::string> path_of_uri(std::string_view uri) {
    constexpr std::string_view kScheme = "file://";
    if (uri.substr(0, kScheme.size()) != kScheme) return std::nullopt;
    std::string_view rest = uri.substr(kScheme.size());
    // file://host/path: only the local host (empty or "localhost") is a path here.
    const std::size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    const std::string_view host = rest.substr(0, slash);
    if (!host.empty() && host != "localhost") return std::nullopt;
    rest.remove_prefix(slash);
    std::string path;
    for (std::size_t i = 0; i < rest.size(); ++i) {
        if (rest[i] == '?' || rest[i] == '#') break;
        if (rest[i] != '%') {
            path += rest[i];
            continue;
        }
        if (i + 2 >= rest.size()) return std::nullopt;
        const int hi = hex_value(rest[i + 1]), lo = hex_value(rest[i + 2]);
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) return std::nullopt;
        path += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return path;
}

std::string uri_of_path(std::string_view path) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string uri = "file://";
    for (const char ch : path) {
        const auto c = static_cast<unsigned char>(ch);
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
                           c == '-' || c == '_' || c == '.' || c == '~';
        if (plain) {
            uri += ch;
        } else {
            uri += '%';
            uri += kHex[c >> 4];
            uri += kHex[c & 15];
        }
    }
    return uri;
}

}  // namespace small::lsp
