#include "small/doc/yaml_writer.hpp"

#include "small/doc/node_json.hpp"
#include "small/base/text.hpp"
#include "small/base/utf8.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

#include "small/doc/yaml.hpp"

namespace small {

namespace {

// ---------------------------------------------------------------- UTF-8

// Code points a YAML file must not carry raw: controls, DEL, C1 (NEL is a
// line break for YAML 1.1 readers), line/paragraph separators, BOM and the
// two non-characters outside YAML's printable set.
bool needs_escape(std::uint32_t cp) {
    if (cp < 0x20 || cp == 0x7F) return true;
    if (cp >= 0x80 && cp <= 0x9F) return true;
    return cp == 0x2028 || cp == 0x2029 || cp == 0xFEFF || cp == 0xFFFE || cp == 0xFFFF;
}

void append_u_escape(std::string& out, std::uint32_t cp) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xF];
}

// ---------------------------------------------------------------- scalars

// Words that YAML 1.1 readers (PyYAML, the Go reference's yaml.v3 in
// places) turn into booleans or null although YAML 1.2 reads strings.
bool is_yaml11_word(std::string_view s) {
    static constexpr std::array<std::string_view, 11> kWords = {"y", "n", "yes", "no", "on", "off",
                                                                 "true", "false", "null", "<<", "="};
    if (s.size() > 5) return false;
    std::string lower(s);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) {
        return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    });
    return std::find(kWords.begin(), kWords.end(), lower) != kWords.end();
}

// Plain only when no reader could see anything but this string. A leading
// digit is always quoted: numbers, versions, dates and timestamps (YAML 1.1
// readers make those dates), sexagesimal 1:20, 1_000.
bool plain_is_safe(std::string_view s) {
    if (s.empty() || s.front() == ' ' || s.back() == ' ' || s.back() == ':') return false;
    if (is_ascii_digit(s.front()) || std::strchr("-?:,[]{}#&*!|>'\"%@`~+.<=", s.front()) != nullptr) return false;
    if (s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos) return false;
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp = 0;
        const std::size_t len = decode_utf8(s, i, cp);
        if (len == 0 || needs_escape(cp)) return false;
        i += len;
    }
    if (is_yaml11_word(s)) return false;
    return resolve_plain_scalar(s).kind == NodeKind::String;
}

std::string format_double(double v) {
    if (std::isnan(v)) return ".nan";
    if (std::isinf(v)) return v < 0 ? "-.inf" : ".inf";
    std::array<char, 32> buf{};
    const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    std::string out(buf.data(), ec == std::errc() ? end : buf.data());
    // "1" would re-read as an integer.
    if (out.find_first_of(".e") == std::string::npos) out += ".0";
    return out;
}

std::string inline_value(const YamlValue& v) {
    switch (v.type()) {
        case YamlValue::value_t::boolean: return v.get<bool>() ? "true" : "false";
        case YamlValue::value_t::number_integer: return std::to_string(v.get<std::int64_t>());
        case YamlValue::value_t::number_unsigned: return std::to_string(v.get<std::uint64_t>());
        case YamlValue::value_t::number_float: return format_double(v.get<double>());
        case YamlValue::value_t::string: return yaml_quoted(v.get_ref<const std::string&>());
        case YamlValue::value_t::array: return "[]";    // only reached when empty
        case YamlValue::value_t::object: return "{}";   // only reached when empty
        default: return "null";  // null, and the binary/discarded kinds YAML has no use for
    }
}

// ---------------------------------------------------------------- block emitter

bool is_block(const YamlValue& v) { return (v.is_object() || v.is_array()) && !v.empty(); }

void emit_members(std::string& out, const YamlValue& map, int indent, bool first_prefixed);
void emit_items(std::string& out, const YamlValue& list, int indent, bool first_prefixed);

void pad(std::string& out, int indent) { out.append(static_cast<std::size_t>(std::max(indent, 0)), ' '); }

// After "key:" — nested collections go below, two columns deeper.
void emit_after_key(std::string& out, const YamlValue& v, int indent) {
    if (!is_block(v)) {
        out += ' ' + inline_value(v) + '\n';
        return;
    }
    out += '\n';
    if (v.is_object()) emit_members(out, v, indent + 2, false);
    else emit_items(out, v, indent + 2, false);
}

// After "-" — a collection starts on the dash's line (compact style).
void emit_after_dash(std::string& out, const YamlValue& v, int indent) {
    out += ' ';
    if (!is_block(v)) out += inline_value(v) + '\n';
    else if (v.is_object()) emit_members(out, v, indent + 2, true);
    else emit_items(out, v, indent + 2, true);
}

void emit_member(std::string& out, const std::string& key, const YamlValue& value, int indent, bool prefixed) {
    if (!prefixed) pad(out, indent);
    out += yaml_scalar(key) + ':';
    emit_after_key(out, value, indent);
}

void emit_members(std::string& out, const YamlValue& map, int indent, bool first_prefixed) {
    bool prefixed = first_prefixed;
    for (const auto& [key, value] : map.items()) {
        emit_member(out, key, value, indent, prefixed);
        prefixed = false;
    }
}

void emit_items(std::string& out, const YamlValue& list, int indent, bool first_prefixed) {
    bool prefixed = first_prefixed;
    for (const YamlValue& item : list) {
        if (!prefixed) pad(out, indent);
        out += '-';
        emit_after_dash(out, item, indent);
        prefixed = false;
    }
}

}  // namespace

// ---------------------------------------------------------------- public: values

YamlValue to_yaml_value(NodeRef node) { return node_to_json<YamlValue>(node); }

char scalar_quote(std::string_view written) {
    return !written.empty() && (written.front() == '"' || written.front() == '\'') ? written.front() : 0;
}

std::string scalar_styled(const YamlValue& value, char quote) {
    if (!value.is_string()) return value.is_null() ? "null" : value.dump();
    const std::string s = value.get<std::string>();
    if (quote == '\'' && s.find_first_of("'\n\r\t") == std::string::npos && is_valid_utf8(s) &&
        std::none_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
        return "'" + s + "'";
    }
    if (quote == 0 && s.find_first_of(",[]{}") == std::string::npos) return yaml_scalar(s);
    return yaml_quoted(s);
}

std::string yaml_quoted(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp = 0;
        const std::size_t len = decode_utf8(s, i, cp);
        if (len == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8
            ++i;
            continue;
        }
        if (cp == '"') out += "\\\"";
        else if (cp == '\\') out += "\\\\";
        else if (cp == '\n') out += "\\n";
        else if (cp == '\t') out += "\\t";
        else if (cp == '\r') out += "\\r";
        else if (needs_escape(cp)) append_u_escape(out, cp);
        else out.append(s.substr(i, len));
        i += len;
    }
    out += '"';
    return out;
}

bool same_yaml_data(const YamlValue& a, const YamlValue& b) {
    if (a.is_object() && b.is_object()) {
        if (a.size() != b.size()) return false;
        for (const auto& [key, value] : a.items()) {
            const auto it = b.find(key);
            if (it == b.end() || !same_yaml_data(value, *it)) return false;
        }
        return true;
    }
    if (a.is_array() && b.is_array()) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (!same_yaml_data(a[i], b[i])) return false;
        }
        return true;
    }
    return a == b;
}

std::string yaml_scalar(std::string_view s) { return plain_is_safe(s) ? std::string(s) : yaml_quoted(s); }

std::string emit_sequence_item(const YamlValue& value, int indent) {
    std::string out;
    pad(out, indent);
    out += '-';
    emit_after_dash(out, value, indent);
    return out;
}

std::string with_layout_of(std::string text, std::string_view original, std::vector<std::string>* kept) {
    static constexpr std::string_view kBom = "\xEF\xBB\xBF";
    const std::size_t breaks = static_cast<std::size_t>(std::count(original.begin(), original.end(), '\n'));
    std::size_t crlf = 0;
    for (std::size_t at = original.find("\r\n"); at != std::string_view::npos; at = original.find("\r\n", at + 2)) ++crlf;
    if (breaks > 0 && crlf == breaks && text.find('\r') == std::string::npos) {
        std::string out;
        out.reserve(text.size() + text.size() / 16);
        for (const char c : text) {
            if (c == '\n') out += '\r';
            out += c;
        }
        text = std::move(out);
        if (kept) kept->push_back("CRLF line breaks");
    }
    if (original.starts_with(kBom) && !std::string_view(text).starts_with(kBom)) {
        text.insert(0, kBom);
        if (kept) kept->push_back("a byte order mark");
    }
    return text;
}

std::string emit_document(const YamlValue& mapping) {
    std::string out;
    if (!is_block(mapping)) return inline_value(mapping) + '\n';
    if (mapping.is_array()) {
        emit_items(out, mapping, 0, false);
        return out;
    }
    // small_version first: readers (and the reference's quoting lint) look for it on top.
    const auto version = mapping.find("small_version");
    if (version != mapping.end()) emit_member(out, "small_version", *version, 0, false);
    for (const auto& [key, value] : mapping.items()) {
        if (key != "small_version") emit_member(out, key, value, 0, false);
    }
    return out;
}

// ---------------------------------------------------------------- append point

namespace {

std::string_view line_at(std::string_view s, std::size_t start) {
    const std::size_t end = s.find('\n', start);
    std::string_view line = s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

std::size_t next_line(std::string_view s, std::size_t start) {
    const std::size_t end = s.find('\n', start);
    return end == std::string_view::npos ? s.size() : end + 1;
}

// Byte offset of the start of 1-based `line`.
std::size_t line_start(std::string_view s, std::uint32_t line) {
    std::size_t pos = 0;
    for (std::uint32_t l = 1; l < line && pos < s.size(); ++l) {
        const void* nl = std::memchr(s.data() + pos, '\n', s.size() - pos);
        if (!nl) return s.size();
        pos = static_cast<std::size_t>(static_cast<const char*>(nl) - s.data()) + 1;
    }
    return pos;
}

// Marks count columns in code points (as the loader does).
std::size_t offset_of_mark(std::string_view s, Mark m) {
    std::size_t pos = line_start(s, m.line);
    for (std::uint32_t c = 1; c < m.column && pos < s.size() && s[pos] != '\n'; ++c) {
        char32_t cp = 0;
        pos += std::max<std::size_t>(1, decode_utf8(s, pos, cp));
    }
    return pos;
}

bool blank_or_comment(std::string_view line) {
    const std::size_t first = line.find_first_not_of(" \t");
    return first == std::string_view::npos || line[first] == '#';
}

bool is_document_marker(std::string_view line) {
    if (line.substr(0, 3) != "---" && line.substr(0, 3) != "...") return false;
    return line.size() == 3 || line[3] == ' ' || line[3] == '\t';
}

// From `pos` to the end: the rest of that line and every later line hold
// nothing but blanks and comments; otherwise an offset on the offending line.
std::optional<std::size_t> first_content_after(std::string_view s, std::size_t pos) {
    for (; pos < s.size(); pos = next_line(s, pos)) {
        if (!blank_or_comment(line_at(s, pos))) return pos;
    }
    return std::nullopt;
}

std::optional<std::size_t> first_marker_after(std::string_view s, std::size_t pos) {
    for (; pos < s.size(); pos = next_line(s, pos)) {
        if (is_document_marker(line_at(s, pos))) return pos;
    }
    return std::nullopt;
}

std::uint32_t line_number(std::string_view s, std::size_t offset) {
    return 1 + static_cast<std::uint32_t>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

Error refuse(const std::string& why, Mark at = {}) {
    Error e = Error::invalid("cannot append to the progress log in place: " + why +
                             "; the file needs an explicitly confirmed repair first");
    e.line = at.line;
    e.column = at.column;
    return e;
}

Error refuse_at(std::string_view s, const std::string& why, std::size_t offset) {
    return refuse(why, Mark{line_number(s, offset), 1});
}

bool same_node(NodeRef a, NodeRef b) {
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
        case NodeKind::Null: return true;
        case NodeKind::Bool: return a.as_bool() == b.as_bool();
        case NodeKind::Int: return a.as_int() == b.as_int();
        case NodeKind::Float: return a.scalar_text() == b.scalar_text();
        case NodeKind::String: return a.as_string() == b.as_string();
        case NodeKind::Sequence:
        case NodeKind::Mapping: break;
    }
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a.is_mapping() && (a.key(i) != b.key(i) || !same_node(a.value(i), b.value(i)))) return false;
        if (a.is_sequence() && !same_node(a.item(i), b.item(i))) return false;
    }
    return true;
}

// A file without a final line break gets one before the new item; that
// must not change the last entry (it would for a `|+` block scalar at EOF).
Status newline_keeps_last_entry(std::string_view s, NodeRef entries) {
    auto reparsed = parse_yaml(std::string(s) + "\n", "progress");
    if (!reparsed) return refuse("adding the missing final line break makes the file unreadable");
    const NodeRef again = reparsed->root().find("entries");
    const std::size_t n = entries.size();
    if (n == 0 || (again.size() == n && same_node(entries.item(n - 1), again.item(n - 1)))) return ok_status();
    return refuse("the file ends inside a value that a final line break would change (a `|+` block scalar?)",
                  entries.item(n - 1).mark());
}

Result<AppendPoint> block_point(std::string_view s, NodeRef entries) {
    const Mark mark = entries.mark();
    const std::size_t dash = offset_of_mark(s, mark);
    const std::size_t start = line_start(s, mark.line);
    if (dash >= s.size() || s[dash] != '-' ||
        s.substr(start, dash - start).find_first_not_of(' ') != std::string_view::npos) {
        return refuse("the `entries` list does not start with a `- ` item on its own line", mark);
    }
    // Only the last item can be followed by anything; scan from there.
    const NodeRef last = entries.item(entries.size() - 1);
    const std::size_t from = std::max(line_start(s, last.mark().line), start);
    if (const auto marker = first_marker_after(s, from)) {
        return refuse_at(s, "the `entries` list is followed by a YAML document marker (---/...)", *marker);
    }
    AppendPoint at;
    at.offset = s.size();
    at.indent = static_cast<int>(dash - start);
    at.needs_newline = !s.empty() && s.back() != '\n';
    at.crlf = uses_crlf(s);
    if (at.needs_newline) {
        if (Status st = newline_keeps_last_entry(s, entries); !st) return st.error();
    }
    return at;
}

// Spaces before the top-level key (its mark skips a quote: use the bytes).
int key_indent(std::string_view s, NodeRef key) {
    const std::string_view line = line_at(s, line_start(s, key.mark().line));
    return static_cast<int>(std::min(line.find_first_not_of(' '), line.size()));
}

Result<AppendPoint> inline_point(std::string_view s, NodeRef key, NodeRef entries) {
    if (entries.size() != 0) return refuse("`entries` is written as a flow list ([...])", entries.mark());
    const std::size_t open = offset_of_mark(s, entries.mark());
    const std::size_t close = s.find_first_not_of(" \t", open + 1);
    if (close == std::string_view::npos || s[close] != ']') {
        return refuse("`entries: []` spans several lines", entries.mark());
    }
    if (const auto bad = first_content_after(s, close + 1)) {
        return refuse_at(s, "the empty `entries: []` is followed by other content", *bad);
    }
    AppendPoint at;
    at.offset = open;
    at.indent = key_indent(s, key) + 2;
    at.inline_empty_list = true;
    at.inline_size = close + 1 - open;
    at.crlf = uses_crlf(s);
    return at;
}

// `entries:` with nothing after it: a block item below makes it a list.
Result<AppendPoint> empty_value_point(std::string_view s, NodeRef key, NodeRef entries) {
    // The empty value's mark is the end of the key (a quoted key's closing quote).
    std::size_t pos = offset_of_mark(s, entries.mark());
    if (pos < s.size() && (s[pos] == '"' || s[pos] == '\'')) ++pos;
    pos = std::min(s.find_first_not_of(" \t", pos), s.size());
    if (pos >= s.size() || s[pos] != ':') return refuse("`entries` has an unexpected shape", entries.mark());
    if (const auto bad = first_content_after(s, pos + 1)) {
        return refuse_at(s, "the empty `entries:` is followed by other content", *bad);
    }
    AppendPoint at;
    at.offset = s.size();
    at.indent = key_indent(s, key) + 2;
    at.needs_newline = !s.empty() && s.back() != '\n';
    at.crlf = uses_crlf(s);
    return at;
}

bool before(Mark a, Mark b) { return a.line < b.line || (a.line == b.line && a.column < b.column); }

// `entries` must be the last top-level key in the text too (a merge key can
// bring members in from earlier lines).
Status entries_is_last(NodeRef root, std::size_t index) {
    const Mark key_mark = root.key_node(index).mark();
    if (index + 1 != root.size()) {
        return refuse("`entries` is not the last top-level key (`" + std::string(root.key(index + 1)) + "` follows)",
                      root.key_node(index + 1).mark());
    }
    for (std::size_t i = 0; i < index; ++i) {
        if (!before(root.key_node(i).mark(), key_mark)) {
            return refuse("`entries` is not the last top-level key in the file", root.key_node(i).mark());
        }
    }
    return ok_status();
}

}  // namespace

Result<AppendPoint> progress_append_point(std::string_view s, const Document& doc) {
    if (!doc.source().empty() && doc.source().size() != s.size()) {
        return Error::invalid("progress_append_point: the document was not parsed from these bytes");
    }
    const NodeRef root = doc.root();
    if (!root.is_mapping()) return refuse("the file has no top-level mapping");
    std::size_t index = root.size();
    for (std::size_t i = 0; i < root.size(); ++i) {
        if (root.key(i) == "entries") index = i;
    }
    if (index == root.size()) return refuse("the file has no `entries` key");
    if (Status st = entries_is_last(root, index); !st) return st.error();
    const NodeRef key = root.key_node(index);
    const NodeRef entries = root.value(index);
    if (entries.is_null() && entries.scalar_text().empty()) return empty_value_point(s, key, entries);
    if (!entries.is_sequence()) {
        return refuse(std::string("`entries` is a ") + kind_name(entries.kind()) + ", not a list", entries.mark());
    }
    if (before(entries.mark(), key.mark())) return refuse("`entries` is an alias of a list written earlier", key.mark());
    const std::size_t at = offset_of_mark(s, entries.mark());
    if (at < s.size() && s[at] == '[') return inline_point(s, key, entries);
    if (entries.size() == 0) return refuse("`entries` has an unexpected shape", entries.mark());
    return block_point(s, entries);
}

AppendEdit append_edit(const AppendPoint& at, std::string_view item, std::string_view file_bytes) {
    AppendEdit edit;
    edit.offset = at.offset;
    if (at.inline_empty_list) {
        // "entries: []" -> "entries:\n  - ...": keep what followed `]` (a
        // comment, the line break) after the item; drop the blanks before `[`
        // so no trailing space is left behind the colon.
        edit.erase = at.inline_size;
        while (edit.offset > 0 && (file_bytes[edit.offset - 1] == ' ' || file_bytes[edit.offset - 1] == '\t')) {
            --edit.offset;
            ++edit.erase;
        }
        const std::size_t after = std::min(at.offset + at.inline_size, file_bytes.size());
        const std::string_view rest = file_bytes.substr(after);
        const bool break_follows = rest.substr(0, 1) == "\n" || rest.substr(0, 2) == "\r\n";
        std::string_view body = item;
        if (break_follows && !body.empty() && body.back() == '\n') body.remove_suffix(1);
        edit.text.reserve(body.size() + 1);
        edit.text += '\n';
        edit.text += body;
    } else {
        edit.text.reserve(item.size() + 1);
        if (at.needs_newline) edit.text += '\n';
        edit.text += item;
    }
    if (at.crlf) edit.text = with_crlf(edit.text);
    return edit;
}

bool uses_crlf(std::string_view s) {
    const std::size_t nl = s.rfind('\n');
    return nl != std::string_view::npos && nl > 0 && s[nl - 1] == '\r';
}

std::string with_crlf(std::string_view text) {
    std::string converted;
    converted.reserve(text.size() + 16);
    for (char c : text) {
        if (c == '\n') converted += '\r';
        converted += c;
    }
    return converted;
}


// ---- locating scalars in source text ----

namespace {

// Byte offsets where a scalar marked at `m` may start: the column read as
// bytes and as code points (the parser's unit is not assumed).
std::vector<std::size_t> candidate_offsets(std::string_view src, const std::vector<std::size_t>& line_starts, Mark m) {
    std::vector<std::size_t> out;
    if (m.line == 0 || m.column == 0 || m.line > line_starts.size()) return out;
    const std::size_t start = line_starts[m.line - 1];
    out.push_back(start + m.column - 1);
    std::size_t pos = start;
    for (std::uint32_t col = 1; col < m.column && pos < src.size() && src[pos] != '\n'; ++col) {
        ++pos;
        while (pos < src.size() && (static_cast<unsigned char>(src[pos]) & 0xC0) == 0x80) ++pos;
    }
    if (pos != out.front()) out.push_back(pos);
    // Quoted scalars may be marked at their first character inside the quotes.
    const std::size_t n = out.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (out[i] > start && out[i] <= src.size() && (src[out[i] - 1] == '"' || src[out[i] - 1] == '\'')) {
            out.push_back(out[i] - 1);
        }
    }
    return out;
}

// The byte length of the scalar `value` written at `offset` as a one-line
// plain, single- or double-quoted scalar without escapes; 0 if it is not.
std::size_t scalar_extent(std::string_view src, std::size_t offset, std::string_view value) {
    if (offset >= src.size() || value.empty()) return 0;
    const char q = src[offset];
    if (q == '"' || q == '\'') {
        if (src.substr(offset + 1, value.size()) == value && offset + 1 + value.size() < src.size() &&
            src[offset + 1 + value.size()] == q) {
            return value.size() + 2;
        }
        return 0;
    }
    if (src.substr(offset, value.size()) != value) return 0;
    const std::size_t end = offset + value.size();
    if (end == src.size()) return value.size();
    const char next = src[end];
    if (next == ' ' || next == '\t' || next == '\n' || next == '\r' || next == ',' || next == '}' || next == ']') {
        return value.size();
    }
    return 0;
}

}  // namespace

ScalarLocator::ScalarLocator(std::string_view source) : source_(source) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < source.size(); ++i) {
        if (source[i] == '\n') line_starts_.push_back(i + 1);
    }
}

std::optional<SourceRange> ScalarLocator::find(Mark mark, std::string_view value) const {
    for (std::size_t offset : candidate_offsets(source_, line_starts_, mark)) {
        if (const std::size_t length = scalar_extent(source_, offset, value); length != 0) {
            return SourceRange{offset, length};
        }
    }
    return std::nullopt;
}

}  // namespace small
