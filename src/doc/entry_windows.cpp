// Reading a long block list in windows (see the header).
#include "small/doc/entry_windows.hpp"

#include <algorithm>
#include <cstring>

#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"
#include "yaml_internal.hpp"

namespace small {

namespace {

bool blank_byte(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace

bool has_lone_cr(std::string_view text) {
    for (std::size_t at = text.find('\r'); at != std::string_view::npos; at = text.find('\r', at + 1)) {
        if (at + 1 >= text.size() || text[at + 1] != '\n') return true;
    }
    return false;
}

// A `*` where an alias may start. Verified bytes without aliases spend none
// of the reader's alias budget, and appended bytes without them cannot reach
// an anchor the header or a verified entry defines (the latest one wins).
bool has_alias(std::string_view text) {
    for (std::size_t at = text.find('*'); at != std::string_view::npos; at = text.find('*', at + 1)) {
        if (at == 0 || std::strchr(" \t\n[{,", text[at - 1])) return true;
    }
    return false;
}

// What could end the document early (`---`/`...`), or put the first
// `small_version:` line FMT-1 reads outside the header.
bool has_marker_or_version(std::string_view text) {
    // One pass over the line breaks, and memmem for the version key: three
    // finds would each stop at every line break or every 's'.
    for (std::size_t at = text.find('\n'); at != std::string_view::npos; at = text.find('\n', at + 1)) {
        const std::string_view next = text.substr(at + 1, 3);
        if (next == "---" || next == "...") return true;
    }
    constexpr std::string_view kVersionKey = "small_version:";
    return memmem(text.data(), text.size(), kVersionKey.data(), kVersionKey.size()) != nullptr;
}

// Blank bytes at the end of `text`: a run the reader's cost budget counts
// goes on into appended bytes.
std::size_t trailing_blanks(std::string_view text) {
    std::size_t n = 0;
    while (n < text.size() && blank_byte(text[text.size() - 1 - n])) ++n;
    return n;
}


// Spaces before the first non-space byte of the line at `at`.
std::size_t indent_at(std::string_view text, std::size_t at) {
    std::size_t n = 0;
    while (at + n < text.size() && text[at + n] == ' ') ++n;
    return n;
}

bool item_start(std::string_view text, std::size_t at) {
    if (at >= text.size() || text[at] != '-') return false;
    return at + 1 == text.size() || text[at + 1] == ' ' || text[at + 1] == '\n' || text[at + 1] == '\r';
}

namespace {

// A run of kMaxBlankRun blanks or more. Such a run covers a position one
// less than a multiple of kMaxBlankRun, so only those are looked at, and the
// run is measured around each blank one.
bool has_long_blank_run(std::string_view text) {
    for (std::size_t at = kMaxBlankRun - 1; at < text.size(); at += kMaxBlankRun) {
        if (!blank_byte(text[at])) continue;
        std::size_t from = at, to = at + 1;
        while (from > 0 && blank_byte(text[from - 1])) --from;
        while (to < text.size() && blank_byte(text[to])) ++to;
        if (to - from >= kMaxBlankRun) return true;
    }
    return false;
}

}  // namespace

// Whole entries at `indent`, ending with a line break: the first line starts
// one, no line is less indented (blank and comment lines aside), every other line at
// `indent` starts one, and no long run of blanks (which the YAML reader's cost budget would count).
bool whole_entries(std::string_view suffix, std::size_t indent) {
    // Without a final line break, the next bytes appended would continue its last line.
    if (suffix.empty() || suffix.back() != '\n') return false;
    if (has_lone_cr(suffix) || indent_at(suffix, 0) != indent || !item_start(suffix, indent)) return false;
    if (has_alias(suffix) || has_marker_or_version(suffix) || has_long_blank_run(suffix)) return false;
    for (std::size_t at = 0; at < suffix.size();) {
        std::size_t end = suffix.find('\n', at);
        if (end == std::string_view::npos) end = suffix.size();
        const std::size_t n = indent_at(suffix, at);
        const bool in_entry = n > indent || (n == indent && item_start(suffix, at + n));
        // A comment line this far left ends any block scalar before it, and
        // windows are never cut at one: it reads the same in a window.
        const bool comment = at + n < end && suffix[at + n] == '#';
        if (!in_entry && !comment && !trim(suffix.substr(at, end - at)).empty()) return false;
        at = end + 1;
    }
    return true;
}


namespace {

// Offset of the last line of `text` that starts an entry at `indent`.
std::optional<std::size_t> last_entry_start(std::string_view text, std::size_t indent) {
    for (std::size_t end = text.size(); end > 0;) {
        const std::size_t nl = end >= 2 ? text.rfind('\n', end - 2) : std::string_view::npos;
        const std::size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
        if (indent_at(text, begin) == indent && item_start(text, begin + indent)) return begin;
        end = begin;
    }
    return std::nullopt;
}

}  // namespace

std::string last_entry_of(std::string_view entries, std::size_t indent) {
    const std::optional<std::size_t> last = last_entry_start(entries, indent);
    return last ? std::string(entries.substr(*last)) : std::string();
}

bool last_entry_reads_the_same_before(std::string_view entries, std::size_t indent, std::string_view next_line) {
    const std::optional<std::size_t> last = last_entry_start(entries, indent);
    if (!last) return false;
    const std::string_view entry = entries.substr(*last);
    const YamlLimits limits;
    if (!next_line.empty()) return item_reads_the_same_before(entry, next_line, indent, "", limits);
    const std::string pad(indent, ' ');
    // (Not a bare `-`: libfyaml refuses an empty last item at column 0 on its own.)
    for (const std::string& line : {pad + "- a: b\n", pad + "- \"x\"\n"}) {
        if (!item_reads_the_same_before(entry, line, indent, "", limits)) return false;
    }
    return true;
}


// Reads the log front to back in windows of whole entries: each one ends
// just before a line that starts an entry at `indent`, or at the file's end.
class EntryWindowReader::Impl {
public:
    using RangeReader = EntryWindowReader::RangeReader;
    Impl(RangeReader read, std::uint64_t size, std::size_t window_bytes, std::size_t max_window_bytes)
        : read_(std::move(read)),
          size_(size),
          window_bytes_(std::max<std::size_t>(window_bytes, 1)),
          max_carry_(std::max(max_window_bytes, window_bytes_)) {}

    // The lines up to `entries:` and the first window of entries after
    // them; fixes the entries' indentation. nullopt: not a layout to stream.
    std::optional<std::string> first() {
        if (!fill()) return std::nullopt;
        std::size_t key = std::string::npos, item = std::string::npos, searched = 0;
        for (;;) {  // the header may be longer than a window, not than max_carry_
            if (key == std::string::npos) {
                key = carry_.rfind("entries:", 0) == 0 ? 0 : carry_.find("\nentries:", searched);
                searched = carry_.size() < 9 ? 0 : carry_.size() - 9;  // only new bytes next time
            }
            item = key == std::string::npos ? key : carry_.find('\n', key + 1);
            // The first entry's line, whole, decides its indentation.
            if (item != std::string::npos && carry_.find('\n', item + 1) != std::string::npos) break;
            const std::size_t had = carry_.size();
            if (offset_ >= size_ || !fill_more() || carry_.size() == had) return std::nullopt;
        }
        header_ = item + 1;
        indent_ = indent_at(carry_, header_);
        if (!item_start(carry_, header_ + indent_)) return std::nullopt;  // a comment, a flow list, ...
        return cut(header_);
    }

    // The next window; nullopt at the end or when it cannot be cut (failed()).
    std::optional<std::string> next() {
        if (carry_.empty() && offset_ >= size_) return std::nullopt;
        if (!fill()) return std::nullopt;
        return cut(0);
    }

    bool failed() const { return failed_; }
    std::size_t header() const { return header_; }
    std::size_t indent() const { return indent_; }

private:
    bool fill() {
        if (offset_ >= size_ || carry_.size() >= window_bytes_) return true;
        Result<FileRange> range = read_(offset_, window_bytes_);
        if (!range || range->file_size != size_ || (range->bytes.empty() && offset_ < size_)) {
            failed_ = true;
            return false;
        }
        offset_ += range->bytes.size();
        carry_ += range->bytes;
        return true;
    }

    // Up to the last entry start in the carried bytes after `from` (all of
    // them at the file's end); an entry longer than a window grows it.
    std::optional<std::string> cut(std::size_t from) {
        for (;;) {
            const std::size_t at = offset_ >= size_ ? carry_.size() : last_item_line(from);
            if (at != std::string::npos) {
                std::string window = carry_.substr(0, at);
                carry_.erase(0, at);
                return window;
            }
            const std::size_t had = carry_.size();
            if (!fill_more() || carry_.size() == had) {
                failed_ = true;
                return std::nullopt;
            }
        }
    }

    bool fill_more() {
        if (carry_.size() >= max_carry_) return false;  // one entry, or the header, longer than a window may be
        Result<FileRange> range = read_(offset_, window_bytes_);
        if (!range || range->file_size != size_) return false;
        offset_ += range->bytes.size();
        carry_ += range->bytes;
        return true;
    }

    std::size_t last_item_line(std::size_t from) const {
        for (std::size_t nl = carry_.rfind('\n'); nl != std::string::npos && nl + 1 > from;
             nl = nl == 0 ? std::string::npos : carry_.rfind('\n', nl - 1)) {
            const std::size_t at = nl + 1;
            if (at > from && at < carry_.size() && indent_at(carry_, at) == indent_ &&
                item_start(carry_, at + indent_)) {
                return at;
            }
        }
        return std::string::npos;
    }

    RangeReader read_;
    std::uint64_t size_;
    std::size_t window_bytes_;
    std::size_t max_carry_;
    std::uint64_t offset_ = 0;
    std::string carry_;
    std::size_t header_ = 0;
    std::size_t indent_ = 0;
    bool failed_ = false;
};


EntryWindowReader::EntryWindowReader(const FileSystem& fs, std::string path, std::uint64_t size, std::size_t window_bytes,
                                     std::size_t max_window_bytes)
    : EntryWindowReader([&fs, path = std::move(path)](std::uint64_t offset,
                                                      std::size_t length) { return fs.read_range(path, offset, length); },
                        size, window_bytes, max_window_bytes) {}
EntryWindowReader::EntryWindowReader(RangeReader read, std::uint64_t size, std::size_t window_bytes,
                                     std::size_t max_window_bytes)
    : impl_(std::make_unique<Impl>(std::move(read), size, window_bytes, max_window_bytes)) {}
EntryWindowReader::~EntryWindowReader() = default;
std::optional<std::string> EntryWindowReader::first() { return impl_->first(); }
std::optional<std::string> EntryWindowReader::next() { return impl_->next(); }
bool EntryWindowReader::failed() const { return impl_->failed(); }
std::size_t EntryWindowReader::header() const { return impl_->header(); }
std::size_t EntryWindowReader::indent() const { return impl_->indent(); }

namespace {

// The header a window is read behind: nothing in it may read differently
// when other entries follow it (an alias, a document marker, a lone CR, a
// line break the marks might count differently).
bool plain_header(std::string_view header) {
    if (has_lone_cr(header) || has_alias(header)) return false;
    for (const char* odd : {"\n---", "\n...", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xc2\x85"}) {
        if (header.find(odd) != std::string_view::npos) return false;
    }
    return true;
}

// The seam between two windows: the first one's last entry was read at the
// end of its input; in the file, the next window's first line follows it.
bool reads_the_same_across(std::string_view before, std::string_view after, std::size_t indent) {
    const std::size_t end = after.find('\n');
    return last_entry_reads_the_same_before(before, indent, after.substr(0, end == std::string_view::npos ? end : end + 1));
}


}  // namespace

std::optional<WindowedLog> for_each_window_text(const FileSystem& fs, const std::string& path,
                                                const LogWindows& windows,
                                                const std::function<bool(EntryWindowText window)>& take) {
    const std::optional<FileInfo> before = fs.stat(path);
    const std::optional<FileStamp> stamp = before ? stamp_of(*before) : std::nullopt;
    // No upper bound: a window at a time is held, whatever the log's length
    // (kMaxFileBytes bounds whole reads only).
    if (!stamp || stamp->size < windows.stream_from_bytes) return std::nullopt;
    EntryWindowReader reader(fs, path, stamp->size, windows.window_bytes, windows.max_window_bytes);
    std::optional<std::string> first = reader.first();
    if (!first) return std::nullopt;
    const std::size_t indent = reader.indent();
    const std::string header = first->substr(0, reader.header());
    const std::string_view first_entries = std::string_view(*first).substr(header.size());
    if (!plain_header(header) || !whole_entries(first_entries, indent)) return std::nullopt;
    WindowedLog out{last_entry_of(first_entries, indent)};
    // The next window's first byte and line in the file.
    WindowPlace next{header.size(), header.size(), first->size(), count_line_breaks(header) + 1, 1 + count_line_breaks(*first)};
    if (!take(EntryWindowText{std::move(*first), WindowPlace{header.size(), 0, 0, 1, 1}, indent, true})) {
        return std::nullopt;
    }
    while (std::optional<std::string> window = reader.next()) {
        if (!whole_entries(*window, indent) || !reads_the_same_across(out.last_entry, *window, indent)) {
            return std::nullopt;
        }
        out.last_entry = last_entry_of(*window, indent);
        const WindowPlace place = next;
        next.file_start += window->size();
        next.file_line += count_line_breaks(*window);
        if (!take(EntryWindowText{header + *window, place, indent, false})) return std::nullopt;
    }
    if (reader.failed()) return std::nullopt;
    const std::optional<FileInfo> after = fs.stat(path);
    if (!after || stamp_of(*after) != stamp) return std::nullopt;  // written meanwhile
    return out;
}

bool for_each_entry_window(const FileSystem& fs, const std::string& path, const std::string& display,
                           const LogWindows& windows,
                           const std::function<void(const Document& window, const WindowPlace& place)>& take) {
    return for_each_window_text(fs, path, windows, [&](EntryWindowText window) {
               Result<Document> doc = parse_yaml(std::move(window.text), display);
               if (!doc || !doc->root().is_mapping() || doc->root().size() == 0) return false;
               const NodeRef root = doc->root();
               if (root.key(root.size() - 1) != "entries" || !root.value(root.size() - 1).is_sequence()) return false;
               take(*doc, window.place);
               return true;
           }).has_value();
}

bool for_each_entry_window(const FileSystem& fs, const std::string& path, const std::string& display,
                           const LogWindows& windows, const std::function<void(const Document& window)>& take) {
    return for_each_entry_window(fs, path, display, windows, [&](const Document& window, const WindowPlace&) { take(window); });
}

}  // namespace small
