// Parallel parsing of large artifacts. A progress log is one top-level
// block sequence (`entries:`) of many items; every line that starts an item
// at the sequence's indentation is a safe cut point in valid YAML (item
// content, block scalars and multi-line scalars are indented deeper). The
// head (the file with the block cut out) and the pieces are parsed on all
// cores and spliced; a piece of small's canonical items is read without
// libfyaml (yaml_canonical.cpp). libfyaml reads some text at the end of its
// input that it refuses before another line, and places an empty item by the
// token before it: a piece is kept only if its ends read as in the file.
// Anything unusual falls back to one sequential parse.
#include <algorithm>
#include <cctype>
#include <cstring>

#include "small/base/parallel.hpp"
#include "small/base/text.hpp"
#include "yaml_internal.hpp"

namespace small {

namespace {

constexpr std::size_t kMinSplitBytes = 2u << 20;   // smaller files parse fast enough
constexpr std::size_t kMinItemsPerPiece = 1024;

struct Line {
    std::string_view text;  // without the newline (and without a trailing \r)
    std::size_t offset;
    std::size_t next;       // offset of the following line
};

struct SequenceBlock {
    std::string key;
    std::size_t start = 0;            // first byte after the key line
    std::size_t end = 0;              // first byte after the block
    std::uint32_t start_line = 0;     // lines before `start`
    std::vector<std::pair<std::size_t, std::uint32_t>> items;  // (offset, lines before)
};

bool is_item_at(std::string_view l, std::size_t indent) {
    return l.size() > indent && l[indent] == '-' && (l.size() == indent + 1 || l[indent + 1] == ' ');
}

// `key:` alone on a line (optionally followed by a comment).
std::optional<std::string> bare_key(std::string_view l) {
    if (l.empty() || !(std::isalpha(static_cast<unsigned char>(l[0])) || l[0] == '_')) return std::nullopt;
    std::size_t i = 1;
    while (i < l.size() && (std::isalnum(static_cast<unsigned char>(l[i])) || l[i] == '_' || l[i] == '-')) ++i;
    if (i >= l.size() || l[i] != ':') return std::nullopt;
    std::size_t j = i + 1;
    while (j < l.size() && l[j] == ' ') ++j;
    if (j < l.size() && !(l[j] == '#' && j > i + 1)) return std::nullopt;
    return std::string(l.substr(0, i));
}

class BlockFinder {
public:
    explicit BlockFinder(std::string_view text) : text_(text) {}

    // The top-level block sequence with the most items, if the file is
    // plain enough to cut safely.
    std::optional<SequenceBlock> find() {
        std::size_t pos = 0;
        std::uint32_t line = 0;
        while (pos < text_.size()) {
            const Line l = read_line(pos);
            if (!step(l, line)) return std::nullopt;
            pos = l.next;
            ++line;
        }
        close(text_.size());
        return best_;
    }

private:
    Line read_line(std::size_t pos) const {
        const void* nl = std::memchr(text_.data() + pos, '\n', text_.size() - pos);
        const std::size_t end = nl ? static_cast<const char*>(nl) - text_.data() : text_.size();
        std::string_view l = text_.substr(pos, end - pos);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        return {l, pos, nl ? end + 1 : text_.size()};
    }

    bool step(const Line& l, std::uint32_t line) {
        std::size_t first = 0;
        while (first < l.text.size() && l.text[first] == ' ') ++first;
        if (first == l.text.size() || l.text[first] == '#') return true;  // blank or comment
        if (l.text[first] == '\t') return false;
        if (first == 0) return top_level(l, line);
        if (!current_) return true;
        if (indent_ < 0) {
            if (!is_item_at(l.text, first)) {
                current_.reset();  // a mapping or scalar value: not our shape
                return true;
            }
            indent_ = static_cast<int>(first);
        }
        if (first == static_cast<std::size_t>(indent_) && is_item_at(l.text, first)) {
            current_->items.emplace_back(l.offset, line);
        } else if (first < static_cast<std::size_t>(indent_)) {
            return false;  // dedent inside the block: leave it to the real parser
        }
        return true;
    }

    bool top_level(const Line& l, std::uint32_t line) {
        const std::string_view t = l.text;
        if (t.rfind("---", 0) == 0 || t.rfind("...", 0) == 0 || t[0] == '%') return false;
        if (current_ && indent_ <= 0 && is_item_at(t, 0)) {  // an indentless sequence
            indent_ = 0;
            current_->items.emplace_back(l.offset, line);
            return true;
        }
        close(l.offset);
        if (auto key = bare_key(t)) {
            current_ = SequenceBlock{};
            current_->key = *key;
            current_->start = l.next;
            current_->start_line = line + 1;
            indent_ = -1;
        }
        return true;
    }

    void close(std::size_t at) {
        if (!current_) return;
        current_->end = at;
        if (!best_ || current_->items.size() > best_->items.size()) best_ = std::move(current_);
        current_.reset();
    }

    std::string_view text_;
    std::optional<SequenceBlock> current_;
    std::optional<SequenceBlock> best_;
    int indent_ = -1;
};

struct Piece {
    std::size_t begin, end;
    std::uint32_t line_offset;
    std::pair<std::size_t, std::uint32_t> last_item;  // (offset, lines before)
    std::optional<Document> doc;
    ParseStats stats;
};


// The line at `at` (the one after a piece), empty at the end of the text.
std::string_view following_line(std::string_view text, std::size_t at) {
    const std::size_t nl = text.find('\n', at);
    return text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl + 1 - at);
}

// A piece: small's canonical items read directly, else libfyaml's parse of
// it, kept if its ends read as in the file (piece_reads_in_context).
void parse_piece(std::string_view bytes, Piece& p, const std::string& file, const YamlLimits& limits) {
    const std::string_view following = following_line(bytes, p.end);
    if (auto fast = read_canonical_items(std::string(bytes.substr(p.begin, p.end - p.begin)), following, file, limits, &p.stats)) {
        p.doc = std::move(*fast);
        return;
    }
    Result<Document> r = parse_yaml_events(std::string(bytes.substr(p.begin, p.end - p.begin)), file, limits, &p.stats);
    const std::string_view last = bytes.substr(p.last_item.first, p.end - p.last_item.first);
    if (r && piece_reads_in_context(*r, last, p.last_item.second - p.line_offset + 1, following, file, limits)) {
        p.doc = std::move(*r);
    }
}


}  // namespace

std::optional<Document> parse_yaml_split(std::string& bytes, const std::string& file, const YamlLimits& limits) {
    if (bytes.size() < kMinSplitBytes || bytes.size() >= UINT32_MAX) return std::nullopt;
    const std::optional<SequenceBlock> block = BlockFinder(bytes).find();
    if (!block || block->items.size() < 2 * kMinItemsPerPiece) return std::nullopt;

    const unsigned cores = core_count();
    const std::size_t count = std::min<std::size_t>(2 * cores, block->items.size() / kMinItemsPerPiece);
    std::vector<Piece> pieces(count);
    for (std::size_t k = 0; k < count; ++k) {
        const std::size_t a = k * block->items.size() / count;
        const std::size_t b = (k + 1) * block->items.size() / count;
        pieces[k] = {block->items[a].first, b < block->items.size() ? block->items[b].first : block->end,
                     block->items[a].second, block->items[b - 1], std::nullopt, {}};
    }
    // The head keeps the block's line breaks so later lines keep their numbers;
    // with nothing after the block (a log's `entries:` comes last) it needs
    // none, and libfyaml need not scan as many blank lines as a piece has lines.
    const std::size_t newlines = block->end == bytes.size() ? 0
        : count_line_breaks(std::string_view(bytes).substr(block->start, block->end - block->start));
    std::string head_text = bytes.substr(0, block->start) + std::string(newlines, '\n') + bytes.substr(block->end);
    std::optional<Document> head;
    ParseStats head_stats;
    YamlLimits piece_limits = limits;
    piece_limits.max_depth = limits.max_depth > 1 ? limits.max_depth - 1 : 1;

    run_parallel(count + 1, [&](std::size_t job) {
        if (job == count) {
            Result<Document> r = parse_yaml_events(std::move(head_text), file, limits, &head_stats);
            if (r) head = std::move(*r);
            return;
        }
        parse_piece(bytes, pieces[job], file, piece_limits);
    });

    if (!head || !head->root().is_mapping()) return std::nullopt;
    const NodeRef placeholder = head->root().find(block->key);
    if (!placeholder.is_null() || !placeholder.scalar_text().empty()) return std::nullopt;
    std::vector<SplicePart> parts;
    ParseStats total = head_stats;
    for (Piece& p : pieces) {
        if (!p.doc) return std::nullopt;  // the sequential parse reports the error exactly
        parts.push_back({&*p.doc, p.line_offset, static_cast<std::uint32_t>(p.begin)});
        total.alias_nodes += p.stats.alias_nodes;
        total.alias_bytes += p.stats.alias_bytes;
    }
    // The alias budget is the document's, not each piece's.
    if (total.alias_nodes > limits.max_alias_nodes || total.alias_bytes > limits.max_alias_bytes) return std::nullopt;
    const auto shift_from = static_cast<std::uint32_t>(block->start + newlines);
    const auto shift = static_cast<std::int64_t>(block->end) - static_cast<std::int64_t>(shift_from);
    return Document::splice(std::move(*head), std::move(bytes), placeholder.index(), parts, shift_from, shift);
}

}  // namespace small
