#include "small/doc/jcs.hpp"
#include "small/base/text.hpp"

#include "small/base/utf8.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

namespace small {

namespace {

// Deeper trees are refused rather than risking the stack; real SMALL
// artifacts are a handful of levels deep.
constexpr std::size_t kMaxDepth = 1000;

// ---------------------------------------------------------------- UTF-8

// Decodes the code point at `pos` and advances `pos` (nothing if invalid).
std::optional<char32_t> next_code_point(std::string_view s, std::size_t& pos) {
    char32_t cp = 0;
    const std::size_t len = decode_utf8(s, pos, cp);
    if (len == 0) return std::nullopt;
    pos += len;
    return cp;
}

std::optional<std::u16string> utf8_to_utf16(std::string_view s) {
    std::u16string out;
    out.reserve(s.size());
    std::size_t pos = 0;
    while (pos < s.size()) {
        const auto cp = next_code_point(s, pos);
        if (!cp) return std::nullopt;
        if (*cp < 0x10000) {
            out.push_back(static_cast<char16_t>(*cp));
        } else {
            const char32_t v = *cp - 0x10000;
            out.push_back(static_cast<char16_t>(0xD800 + (v >> 10)));
            out.push_back(static_cast<char16_t>(0xDC00 + (v & 0x3FF)));
        }
    }
    return out;
}

Error error_at(NodeRef node, std::string message) {
    Error e = Error::invalid(std::move(message));
    const Mark m = node.mark();
    e.line = m.line;
    e.column = m.column;
    return e;
}

Error invalid_utf8(NodeRef node) {
    return error_at(node, "string is not valid UTF-8 and cannot be canonicalized");
}

// ---------------------------------------------------------------- strings

// Bytes a JSON string carries as they are: printable ASCII but '"' and '\\'.
constexpr bool plain_ascii(unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; }

// JSON.stringify escaping: only '"', '\\' and C0 controls are escaped;
// everything else (DEL, U+2028, non-ASCII) is copied as UTF-8.
bool append_string(std::string_view s, std::string& out) {
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    std::size_t pos = 0;
    while (pos < s.size()) {
        // Runs of plain ASCII (nearly all text) are copied whole.
        std::size_t run = pos;
        while (run < s.size() && plain_ascii(static_cast<unsigned char>(s[run]))) ++run;
        out.append(s.data() + pos, run - pos);
        if ((pos = run) == s.size()) break;
        const std::size_t start = pos;
        const auto cp = next_code_point(s, pos);
        if (!cp) return false;
        switch (*cp) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (*cp < 0x20) {
                    out += "\\u00";
                    out.push_back(kHex[*cp >> 4]);
                    out.push_back(kHex[*cp & 0xF]);
                } else {
                    out.append(s.substr(start, pos - start));  // valid UTF-8, kept as is
                }
        }
    }
    out.push_back('"');
    return true;
}

// ---------------------------------------------------------------- numbers

struct ShortestDigits {
    std::string digits;  // significant digits, no leading/trailing zeros
    int exponent = 0;    // value = 0.d1d2d3... * 10^exponent (ECMA-262's n)
};

// Shortest round-trip digits of a positive finite double. to_chars in
// scientific form without a precision yields exactly those digits.
ShortestDigits shortest_digits(double positive) {
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, positive, std::chars_format::scientific);
    const std::string_view text(buffer, static_cast<std::size_t>(result.ptr - buffer));
    const std::size_t e = text.find('e');
    ShortestDigits out;
    for (char c : text.substr(0, e)) {
        if (c != '.') out.digits.push_back(c);
    }
    while (out.digits.size() > 1 && out.digits.back() == '0') out.digits.pop_back();
    out.exponent = std::atoi(std::string(text.substr(e + 1)).c_str()) + 1;
    return out;
}

// ECMA-262 Number::toString layout of the digits (section 7.1.12.1).
std::string layout_number(const ShortestDigits& d) {
    const int k = static_cast<int>(d.digits.size());
    const int n = d.exponent;
    if (k <= n && n <= 21) {
        return d.digits + std::string(static_cast<std::size_t>(n - k), '0');
    }
    if (0 < n && n <= 21) {
        return d.digits.substr(0, static_cast<std::size_t>(n)) + '.' + d.digits.substr(static_cast<std::size_t>(n));
    }
    if (-6 < n && n <= 0) {
        return "0." + std::string(static_cast<std::size_t>(-n), '0') + d.digits;
    }
    std::string out = d.digits.substr(0, 1);
    if (k > 1) out += '.' + d.digits.substr(1);
    out += (n - 1 >= 0) ? "e+" : "e-";
    out += std::to_string(std::abs(n - 1));
    return out;
}

// ---------------------------------------------------------------- tree

class Canonicalizer {
public:
    std::optional<Error> write(NodeRef node, std::size_t depth) {
        if (depth > kMaxDepth) return error_at(node, "document is nested too deeply to canonicalize");
        switch (node.kind()) {
            case NodeKind::Null: out_ += "null"; return std::nullopt;
            case NodeKind::Bool: out_ += node.as_bool() ? "true" : "false"; return std::nullopt;
            case NodeKind::Int:
            case NodeKind::Float: return write_number(node);
            case NodeKind::String:
                if (!append_string(node.as_string(), out_)) return invalid_utf8(node);
                return std::nullopt;
            case NodeKind::Sequence: return write_sequence(node, depth);
            case NodeKind::Mapping: return write_mapping(node, depth);
        }
        return error_at(node, "unknown node kind");
    }

    std::string take() { return std::move(out_); }

private:
    std::optional<Error> write_number(NodeRef node) {
        const double value = node.as_double();
        if (!std::isfinite(value)) {
            Error e = error_at(node, "number '" + excerpt(node.scalar_text()) +
                                         "' cannot be represented in canonical JSON (not finite)");
            e.hint = "write a finite number, or quote the value to make it text";
            return e;
        }
        out_ += format_ecmascript_number(value);
        return std::nullopt;
    }

    std::optional<Error> write_sequence(NodeRef node, std::size_t depth) {
        out_.push_back('[');
        for (std::size_t i = 0; i < node.size(); ++i) {
            if (i > 0) out_.push_back(',');
            if (auto err = write(node.item(i), depth + 1)) return err;
        }
        out_.push_back(']');
        return std::nullopt;
    }

    std::optional<Error> write_mapping(NodeRef node, std::size_t depth) {
        struct Member {
            std::string_view key;
            std::u16string sort_key;  // only when some key is not ASCII
            std::size_t index;
        };
        std::vector<Member> members;
        members.reserve(node.size());
        bool ascii = true;
        for (std::size_t i = 0; i < node.size(); ++i) {
            const std::string_view key = node.key(i);
            ascii = ascii && std::all_of(key.begin(), key.end(), [](char c) { return (c & 0x80) == 0; });
            members.push_back({key, {}, i});
        }
        if (ascii) {
            // ASCII bytes are their own UTF-16 code units: byte order is RFC 8785's order.
            std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) { return a.key < b.key; });
        } else {
            for (Member& m : members) {
                auto utf16 = utf8_to_utf16(m.key);
                if (!utf16) return invalid_utf8(node.key_node(m.index));
                m.sort_key = std::move(*utf16);
            }
            // u16string compares code unit by code unit, which is what RFC 8785 asks.
            std::sort(members.begin(), members.end(),
                      [](const Member& a, const Member& b) { return a.sort_key < b.sort_key; });
        }
        out_.push_back('{');
        for (std::size_t i = 0; i < members.size(); ++i) {
            if (i > 0) out_.push_back(',');
            append_string(members[i].key, out_);  // validated above
            out_.push_back(':');
            if (auto err = write(node.value(members[i].index), depth + 1)) return err;
        }
        out_.push_back('}');
        return std::nullopt;
    }

    std::string out_;
};

}  // namespace

std::string format_ecmascript_number(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
    if (value == 0) return "0";  // also -0
    const std::string magnitude = layout_number(shortest_digits(std::fabs(value)));
    return value < 0 ? "-" + magnitude : magnitude;
}

Result<std::string> canonical_json(NodeRef node) {
    if (!node.valid()) return Error::invalid("cannot canonicalize an absent document");
    Canonicalizer canonicalizer;
    if (auto err = canonicalizer.write(node, 0)) return std::move(*err);
    return canonicalizer.take();
}

}  // namespace small
