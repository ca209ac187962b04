// The reader of small's own canonical items (see yaml_internal.hpp). It
// accepts only lines of the form its writer emits for a progress entry,
//     <indent>- key: "text"
//     <indent>  key: "text"
// (a simple key; double-quoted text on one line whose escapes are at most
// \" \\ \n \t \r, and no character the writer would escape; "\n" or "\r\n"
// line ends) and builds the nodes libfyaml's loader builds from them: same
// kinds, texts, lines and columns. Any other item is parsed by libfyaml as
// it stands in its file and its nodes copied in; whatever could read
// differently declines the whole piece, which libfyaml then parses as
// before. libfyaml stays the authority (D2).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "small/base/text.hpp"
#include "small/base/utf8.hpp"
#include "yaml_internal.hpp"

namespace small {

namespace {

// Bytes that end the plain run of a quoted text: the closing quote, an
// escape, C0 controls, DEL and the first byte of any non-ASCII character.
constexpr std::array<bool, 256> kStopsText = [] {
    std::array<bool, 256> table{};
    for (int c = 0; c < 256; ++c) table[c] = c < 0x20 || c >= 0x7F || c == '"' || c == '\\';
    return table;
}();

// The first byte at or after i that kStopsText, eight bytes at a time
// where none of them does.
std::size_t plain_text_end(std::string_view s, std::size_t i) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHighBits = 0x8080808080808080ULL;
    const auto has_byte = [](std::uint64_t word, unsigned char c) {
        const std::uint64_t t = word ^ (kOnes * c);
        return (t - kOnes) & ~t & kHighBits;
    };
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t word = 0;
        std::memcpy(&word, s.data() + i, 8);
        const std::uint64_t control_or_high = (word | ((word - kOnes * 0x20) & ~word)) & kHighBits;
        if (control_or_high | has_byte(word, '"') | has_byte(word, '\\') | has_byte(word, 0x7F)) break;
    }
    while (i < s.size() && !kStopsText[static_cast<unsigned char>(s[i])]) ++i;
    return i;
}

bool is_key_start(char c) { return is_ascii_alpha(c) || c == '_'; }
constexpr std::array<bool, 256> kKeyChar = [] {
    std::array<bool, 256> table{};
    for (int c = 0; c < 256; ++c) table[c] = is_ascii_alnum(static_cast<char>(c)) || c == '_' || c == '-';
    return table;
}();

// Non-ASCII characters YAML does not print raw or that a YAML 1.1 reader
// takes for a line break (C1, NEL, LS, PS, BOM, U+FFFE/FFFF): the writer
// escapes them, so they are left to libfyaml.
bool is_plain_multibyte(char32_t cp) {
    if (cp >= 0x80 && cp <= 0x9F) return false;
    return cp != 0x2028 && cp != 0x2029 && cp != 0xFEFF && cp != 0xFFFE && cp != 0xFFFF;
}

char unescaped(char c) {
    switch (c) {
        case '"': return '"';
        case '\\': return '\\';
        case 'n': return '\n';
        case 't': return '\t';
        case 'r': return '\r';
        default: return 0;
    }
}

// parse_item_in_context puts an item under this key, as a log's items are
// under `entries:`.
constexpr std::string_view kContextKey = "k:\n";
constexpr std::int64_t kContextLines = 1;

// A line at `indent` that starts an item: the cut rule of yaml_split.
bool starts_item(std::string_view text, std::size_t indent) {
    if (text.size() <= indent || text[indent] != '-') return false;
    for (std::size_t i = 0; i < indent; ++i) {
        if (text[i] != ' ') return false;
    }
    const std::string_view after = text.substr(indent + 1);
    return after.empty() || after[0] == ' ' || after[0] == '\n' || after == "\r" || after.starts_with("\r\n");
}

// A line that may end the document (`---`, `...`) or hold a directive.
bool is_document_line(std::string_view rest) {
    return rest.starts_with("---") || rest.starts_with("...") || rest.starts_with("%");
}

// A line break other than '\n' and "\r\n" (a lone CR, or NEL, LS, PS).
bool has_other_line_breaks(std::string_view text) {
    for (std::size_t cr = text.find('\r'); cr != std::string_view::npos; cr = text.find('\r', cr + 1)) {
        if (cr + 1 < text.size() && text[cr + 1] != '\n') return true;
    }
    return text.find("\xC2\x85") != std::string_view::npos || text.find("\xE2\x80\xA8") != std::string_view::npos ||
           text.find("\xE2\x80\xA9") != std::string_view::npos;
}

NodeRef item_in_context(const Document& parsed) { return parsed.root().value(0).item(0); }

// A graft parses its item alone, setting libfyaml up for it: when more
// than a quarter of the items need one (a log written by hand, CRLF line
// ends), one parse of the whole piece costs less.
bool mostly_grafted(std::size_t read, std::size_t grafted) {
    constexpr std::size_t kFreeGrafts = 16;
    return grafted > kFreeGrafts && grafted * 4 > read + grafted;
}

// An empty item has no token: the loader places it at the end of the token
// before it, which differs when the item is read apart from what precedes it.
bool has_own_token(NodeRef item) { return item.is_mapping() || item.is_sequence() || !item.scalar_text().empty(); }

// One `key: "text"` of an item, found before any node is built.
struct ItemMember {
    std::string_view key;
    std::size_t text_begin;   // in the source, after the opening quote
    std::size_t text_end;     // at the closing quote
    std::uint32_t line;
    std::uint32_t text_column;
    bool escaped;
};

class CanonicalReader {
public:
    CanonicalReader(std::string_view following, const std::string& file, const YamlLimits& limits, CanonicalStats* stats)
        : following_(following), file_(file), limits_(limits), stats_(stats) {}

    std::optional<Document> run(std::string piece, ParseStats* parse_stats);

private:
    bool item_at(std::size_t pos) const;
    std::size_t next_line(std::size_t pos) const {
        const void* nl = std::memchr(src_.data() + pos, '\n', src_.size() - pos);
        return nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - src_.data()) + 1 : src_.size();
    }
    bool scan_item(std::size_t pos, std::uint32_t line, std::size_t& end, std::uint32_t& end_line);
    std::size_t scan_member(std::size_t line_start, std::size_t key_start, std::uint32_t line);
    bool scan_rest_of_text(std::size_t from, std::size_t& close, bool& escaped) const;
    bool is_string_key(std::string_view key) const;
    void emit_item(std::uint32_t line);
    std::string_view text_of(const ItemMember& m);
    bool graft_item(std::size_t pos, std::uint32_t line, std::size_t& end, std::uint32_t& end_line);
    void copy_node(NodeRef node, std::int64_t line_shift, std::int64_t source_shift);

    std::string_view following_;
    const std::string& file_;
    const YamlLimits& limits_;
    CanonicalStats* stats_;
    DocumentBuilder builder_;
    std::string_view src_;
    std::size_t indent_ = 0;
    std::vector<ItemMember> members_;
    std::string decoded_;
};

bool CanonicalReader::item_at(std::size_t pos) const {
    return starts_item(src_.substr(pos, indent_ + 3), indent_);
}

// Plain keys resolve like plain values: null, true, false (4 or 5 letters)
// are not strings.
bool CanonicalReader::is_string_key(std::string_view key) const {
    if (key.size() != 4 && key.size() != 5) return true;
    return resolve_plain_scalar(key).kind == NodeKind::String;
}

// Text from its first escape or non-ASCII character on: where it closes,
// if it is canonical.
bool CanonicalReader::scan_rest_of_text(std::size_t from, std::size_t& close, bool& escaped) const {
    std::size_t i = from;
    while (i < src_.size()) {
        const auto c = static_cast<unsigned char>(src_[i]);
        if (!kStopsText[c]) {
            ++i;
        } else if (c == '"') {
            close = i;
            return true;
        } else if (c == '\\') {
            if (i + 1 >= src_.size() || unescaped(src_[i + 1]) == 0) return false;
            escaped = true;
            i += 2;
        } else if (c < 0x80) {
            return false;  // a control character or a line break
        } else {
            char32_t cp = 0;
            const std::size_t width = decode_utf8(src_, i, cp);
            if (width == 0 || !is_plain_multibyte(cp)) return false;
            i += width;
        }
    }
    return false;
}

// `key: "text"` at key_start, ending its line: where the next line
// starts, or npos when the line is not canonical.
std::size_t CanonicalReader::scan_member(std::size_t line_start, std::size_t key_start, std::uint32_t line) {
    constexpr std::size_t kNo = std::string_view::npos;
    const char* const data = src_.data();
    const std::size_t size = src_.size();
    std::size_t i = key_start;
    if (i >= size || !is_key_start(data[i])) return kNo;
    while (i < size && kKeyChar[static_cast<unsigned char>(data[i])]) ++i;
    const std::string_view key(data + key_start, i - key_start);
    if (size - i < 3 || data[i] != ':' || data[i + 1] != ' ' || data[i + 2] != '"' || !is_string_key(key)) return kNo;
    const std::size_t text_begin = i + 3;
    std::size_t close = plain_text_end(src_, text_begin);
    bool escaped = false;
    if (close < src_.size() && src_[close] != '"' && !scan_rest_of_text(close, close, escaped)) return kNo;
    if (close >= src_.size()) return kNo;
    // The line ends at the quote: "\n", "\r\n" (one line break) or the end.
    std::size_t next = close + 1;
    if (next < size && data[next] == '\r') ++next;
    if (next < size && data[next] != '\n') return kNo;  // a comment, blanks, a lone CR
    if (next == size && next != close + 1) return kNo;      // a CR that ends the text
    for (const ItemMember& m : members_) {
        if (m.key.size() == key.size() && m.key == key) return kNo;  // libfyaml's loader reports it
    }
    members_.push_back({key, text_begin, close, line, static_cast<std::uint32_t>(text_begin - line_start + 1), escaped});
    return std::min(next + 1, size);
}

// The item at pos, if every line of it is canonical; `end` is where the
// next item starts.
bool CanonicalReader::scan_item(std::size_t pos, std::uint32_t line, std::size_t& end, std::uint32_t& end_line) {
    members_.clear();
    if (src_.size() - pos < indent_ + 2 || src_[pos + indent_ + 1] != ' ') return false;
    std::size_t at = scan_member(pos, pos + indent_ + 2, line);
    ++line;
    while (at < src_.size() && !item_at(at)) {
        if (src_.size() - at < indent_ + 2 || std::memcmp(src_.data() + at, src_.data() + pos, indent_) != 0 ||
            src_[at + indent_] != ' ' || src_[at + indent_ + 1] != ' ') {
            return false;
        }
        at = scan_member(at, at + indent_ + 2, line);
        ++line;
    }
    if (at == std::string_view::npos) return false;
    end = at;
    end_line = line;
    return true;
}

std::string_view CanonicalReader::text_of(const ItemMember& m) {
    const std::string_view raw = src_.substr(m.text_begin, m.text_end - m.text_begin);
    if (!m.escaped) return raw;
    decoded_.clear();
    for (std::size_t i = 0; i < raw.size(); ++i) {
        decoded_ += raw[i] == '\\' ? unescaped(raw[++i]) : raw[i];
    }
    return decoded_;  // add_string copies it before the next member reuses the buffer
}

// The events libfyaml's loader turns the item into, in its order.
void CanonicalReader::emit_item(std::uint32_t line) {
    const auto key_column = static_cast<std::uint32_t>(indent_ + 3);
    builder_.begin_mapping({line, key_column});
    for (const ItemMember& m : members_) {
        builder_.add_string(m.key, {m.line, key_column});
        builder_.add_string(text_of(m), {m.line, m.text_column});
    }
    builder_.end();
}

void CanonicalReader::copy_node(NodeRef node, std::int64_t line_shift, std::int64_t source_shift) {
    const Document& doc = *node.document();
    const Document::Node& raw = doc.node(node.index());
    const Mark mark{static_cast<std::uint32_t>(raw.mark.line + line_shift), raw.mark.column};
    // Text libfyaml left in the chunk is the same bytes of this source.
    const std::string_view text =
        raw.in_source ? src_.substr(static_cast<std::size_t>(raw.text_offset + source_shift), raw.text_size) : doc.text(raw);
    switch (raw.kind) {
        case NodeKind::Mapping:
            builder_.begin_mapping(mark);
            for (std::size_t i = 0; i < node.size(); ++i) {
                copy_node(node.key_node(i), line_shift, source_shift);
                copy_node(node.value(i), line_shift, source_shift);
            }
            builder_.end();
            return;
        case NodeKind::Sequence:
            builder_.begin_sequence(mark);
            for (std::size_t i = 0; i < node.size(); ++i) copy_node(node.item(i), line_shift, source_shift);
            builder_.end();
            return;
        case NodeKind::String: builder_.add_string(text, mark); return;
        case NodeKind::Null: builder_.add_null(mark, text); return;
        case NodeKind::Bool: builder_.add_bool(raw.boolean, mark, text); return;
        case NodeKind::Int: builder_.add_int(raw.integer, mark, text); return;
        case NodeKind::Float: builder_.add_float(raw.real, mark, text); return;
    }
}

// An item in any other form: libfyaml parses it as it stands in its file
// (item_in_context). Lines that may end the document, and line breaks
// '\n' does not make (lines are counted by '\n'), decline the piece.
bool CanonicalReader::graft_item(std::size_t pos, std::uint32_t line, std::size_t& end, std::uint32_t& end_line) {
    end = next_line(pos);
    end_line = line + 1;
    while (end < src_.size() && !item_at(end)) {
        if (is_document_line(src_.substr(end, 3))) return false;
        end = next_line(end);
        ++end_line;
    }
    const std::string_view chunk = src_.substr(pos, end - pos);
    if (has_other_line_breaks(chunk)) return false;
    const std::string_view following = end < src_.size() ? src_.substr(end, next_line(end) - end) : following_;
    const std::optional<Document> parsed = parse_item_in_context(chunk, following, indent_, file_, limits_);
    if (!parsed) return false;
    copy_node(item_in_context(*parsed), std::int64_t{line} - 1 - kContextLines,
              static_cast<std::int64_t>(pos) - static_cast<std::int64_t>(kContextKey.size()));
    return true;
}

std::optional<Document> CanonicalReader::run(std::string piece, ParseStats* parse_stats) {
    if (limits_.max_depth < 2 || piece.size() >= UINT32_MAX) return std::nullopt;
    indent_ = piece.find_first_not_of(' ');
    const std::size_t expected_nodes = piece.size() / 16 + 16;
    builder_.set_source(std::move(piece), expected_nodes);
    src_ = builder_.source();
    if (indent_ == std::string::npos || !item_at(0)) return std::nullopt;
    builder_.begin_sequence({1, static_cast<std::uint32_t>(indent_ + 1)});
    std::size_t pos = 0;
    std::uint32_t line = 1;
    std::size_t read = 0, grafted = 0;
    while (pos < src_.size()) {
        std::size_t end = 0;
        std::uint32_t end_line = 0;
        if (scan_item(pos, line, end, end_line)) {
            emit_item(line);
            ++read;
        } else if (!mostly_grafted(read, grafted + 1) && graft_item(pos, line, end, end_line)) {
            ++grafted;
        } else {
            return std::nullopt;
        }
        pos = end;
        line = end_line;
    }
    builder_.end();
    if (builder_.overflowed()) return std::nullopt;
    if (stats_) {
        stats_->items_read += read;
        stats_->items_grafted += grafted;
    }
    if (parse_stats) *parse_stats = ParseStats{};
    return builder_.finish();
}

}  // namespace

std::optional<Document> read_canonical_items(std::string piece, std::string_view following, const std::string& file,
                                             const YamlLimits& limits, ParseStats* parse_stats, CanonicalStats* stats) {
    return CanonicalReader(following, file, limits, stats).run(std::move(piece), parse_stats);
}

std::optional<Document> parse_item_in_context(std::string_view item, std::string_view following, std::size_t indent,
                                              const std::string& file, const YamlLimits& piece_limits) {
    std::string text;
    text.reserve(kContextKey.size() + item.size() + following.size());
    text.append(kContextKey).append(item).append(following);
    YamlLimits limits = piece_limits;
    limits.max_depth += 1;  // the key's mapping
    ParseStats stats;
    Result<Document> parsed = parse_yaml_events(std::move(text), file, limits, &stats);
    if (!parsed || stats.alias_nodes != 0 || stats.alias_bytes != 0) return std::nullopt;
    const NodeRef root = parsed->root();
    if (!root.is_mapping() || root.size() == 0 || root.key(0) != kContextKey.substr(0, 1)) return std::nullopt;
    const NodeRef items = root.value(0);
    if (!items.is_sequence() || items.size() != (starts_item(following, indent) ? 2u : 1u)) return std::nullopt;
    if (!has_own_token(items.item(0))) return std::nullopt;
    return std::move(*parsed);
}

namespace {

bool same_node(NodeRef a, NodeRef b, std::int64_t line_shift) {
    if (a.kind() != b.kind() || a.mark().line != b.mark().line + line_shift || a.mark().column != b.mark().column ||
        a.scalar_text() != b.scalar_text() || a.as_bool() != b.as_bool() || a.as_int() != b.as_int() ||
        std::bit_cast<std::uint64_t>(a.as_double()) != std::bit_cast<std::uint64_t>(b.as_double()) || a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        const bool same = a.is_mapping() ? same_node(a.key_node(i), b.key_node(i), line_shift) &&
                                               same_node(a.value(i), b.value(i), line_shift)
                                         : same_node(a.item(i), b.item(i), line_shift);
        if (!same) return false;
    }
    return true;
}

}  // namespace

bool piece_reads_in_context(const Document& piece, std::string_view last_item, std::uint32_t last_item_line,
                            std::string_view following, const std::string& file, const YamlLimits& piece_limits) {
    const NodeRef items = piece.root();
    if (!items.is_sequence() || items.size() == 0) return false;
    if (!has_own_token(items.item(0))) return false;
    const std::size_t indent = last_item.find('-');
    const std::optional<Document> parsed = parse_item_in_context(last_item, following, indent, file, piece_limits);
    return parsed && same_node(items.item(items.size() - 1), item_in_context(*parsed),
                               std::int64_t{last_item_line} - 1 - kContextLines);
}

bool item_reads_the_same_before(std::string_view item, std::string_view following, std::size_t indent,
                                const std::string& file, const YamlLimits& limits) {
    const std::optional<Document> alone = parse_item_in_context(item, {}, indent, file, limits);
    if (!alone) return false;
    const std::optional<Document> before = parse_item_in_context(item, following, indent, file, limits);
    return before && same_node(item_in_context(*alone), item_in_context(*before), 0);
}

}  // namespace small
