// A progress log's digest by a line scan (see progress_digest.hpp).
#include "small/domain/progress_digest.hpp"

#include <array>
#include <cstring>
#include <optional>

#include "small/base/text.hpp"
#include "small/base/timestamp.hpp"
#include "small/doc/entry_windows.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/task_status.hpp"
#include "small/domain/progress_query.hpp"

namespace small {

namespace {

struct Fields {
    std::optional<std::string> task_id, status, timestamp, replay_id;
};

// The 9-digit UTC form small writes (D8): for these, text order is time order.
bool canonical_utc(std::string_view t) {
    return t.size() == 30 && t[4] == '-' && t[10] == 'T' && t[19] == '.' && t[29] == 'Z';
}

class Collector {
public:
    explicit Collector(ProgressDigest& d) : d_(d) {}
    void add(const Fields& f) {
        ++d_.entries;
        if (f.status && parse_task_status(*f.status) == TaskStatus::Completed && f.task_id && !f.task_id->empty() &&
            d_.completed_tasks.find(*f.task_id) == d_.completed_tasks.end()) {
            d_.completed_tasks.insert(*f.task_id);
        }
        const std::string_view run = f.replay_id ? std::string_view(*f.replay_id) : std::string_view();
        if (!last_run_ || last_run_->first != run) last_run_ = &*d_.runs.try_emplace(std::string(run), 0).first;
        ++last_run_->second;
        if (f.timestamp) add_time(*f.timestamp);
    }

private:
    void add_time(const std::string& ts) {
        const bool canonical = canonical_utc(ts);
        // Both in small's own form: text order is time order, no parse needed to skip.
        if (best_ && best_canonical_ && canonical && ts <= d_.latest) return;
        Result<Instant> at = parse_progress_timestamp(ts);
        if (at && (!best_ || *at > *best_)) {
            best_ = *at, d_.latest = ts, best_canonical_ = canonical;
            return;
        }
        if (!at && !best_ && d_.latest.empty()) d_.latest = ts;
    }

    ProgressDigest& d_;
    std::optional<Instant> best_;
    bool best_canonical_ = false;
    std::pair<const std::string, std::size_t>* last_run_ = nullptr;
};

// A string-valued entry field as the loader sees it (non-strings count as absent).
Fields fields_of(NodeRef e) {
    Fields f;
    auto get = [&e](std::string_view key) -> std::optional<std::string> {
        const NodeRef v = e.find(key);
        if (!v.is_string()) return std::nullopt;
        return std::string(trim(v.as_string()));
    };
    f.task_id = get("task_id"), f.status = get("status"), f.timestamp = get("timestamp"), f.replay_id = get("replayId");
    return f;
}

bool is_number_like(std::string_view v) {
    // YAML 1.2 core: null, booleans, ints, floats, .inf/.nan resolve to non-strings.
    static constexpr std::array<std::string_view, 10> words = {"~", "null", "Null", "NULL", "true",
                                                               "True", "TRUE", "false", "False", "FALSE"};
    for (std::string_view w : words)
        if (v == w) return true;
    std::size_t i = (v[0] == '+' || v[0] == '-') ? 1 : 0;
    if (i < v.size() && v[i] == '.') return true;  // .5, .inf, .nan: let the loader decide
    const std::size_t digits_at = i;
    while (i < v.size() && (std::isdigit(static_cast<unsigned char>(v[i])) || v[i] == '.' || v[i] == 'e' ||
                            v[i] == 'E' || v[i] == 'x' || v[i] == 'o' || v[i] == '+' || v[i] == '-' ||
                            std::isxdigit(static_cast<unsigned char>(v[i]))))
        ++i;
    return i == v.size() && i > digits_at;  // only number characters: maybe a number
}

// The scalar after `key:` when it is simple; nullopt when unsure.
std::optional<std::string> simple_scalar(std::string_view v) {
    v = trim(v);
    if (v.empty()) return std::nullopt;
    const char c = v[0];
    if (c == '"' || c == '\'') {
        const std::size_t end = v.find(c, 1);
        if (end == std::string_view::npos) return std::nullopt;
        const std::string_view inner = v.substr(1, end - 1);
        if ((c == '"' && inner.find('\\') != std::string_view::npos) || (end + 1 < v.size() && v[end + 1] == c)) {
            return std::nullopt;
        }
        const std::string_view rest = trim(v.substr(end + 1));
        if (!rest.empty() && rest[0] != '#') return std::nullopt;
        return std::string(trim(inner));
    }
    if (std::strchr("|>&*!{[@`%?,#-:", c) != nullptr) return std::nullopt;
    const std::size_t hash = v.find(" #");
    const std::string_view plain = trim(v.substr(0, hash));
    if (plain.find(": ") != std::string_view::npos || plain.back() == ':' || plain.find('\t') != std::string_view::npos ||
        is_number_like(plain)) {
        return std::nullopt;
    }
    return std::string(plain);
}

// Reads one item's fields from its lines; false when unsure.
bool scan_item(std::string_view item, std::size_t indent, Fields& f) {
    const std::size_t key_indent = indent + 2;
    bool first = true;
    for (std::size_t pos = 0; pos < item.size();) {
        const std::size_t eol = std::min(item.find('\n', pos), item.size());
        std::string_view line = item.substr(pos, eol - pos);
        pos = eol + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        std::string_view content;
        if (first) {
            first = false;
            if (line.size() <= indent + 1) return false;  // "-" alone: the value is on the next lines
            if (line.size() > key_indent && line[key_indent] == ' ') return false;
            content = line.substr(key_indent);
        } else {
            const std::size_t spaces = line.find_first_not_of(' ');
            if (spaces == std::string_view::npos || line[spaces] == '#') continue;
            if (spaces > key_indent) continue;  // inside another key's value (nested or block scalar)
            if (spaces < key_indent || line[spaces] == '\t') return false;
            content = line.substr(spaces);
        }
        if (std::strchr("\"'?{[&!*|>-#", content[0]) != nullptr) return false;
        const std::size_t colon = content.find(':');
        if (colon == std::string_view::npos || (colon + 1 < content.size() && content[colon + 1] != ' ')) return false;
        const std::string_view key = content.substr(0, colon);
        const std::string_view value = content.substr(colon + 1);
        std::optional<std::string>* slot = key == "task_id"     ? &f.task_id
                                           : key == "status"    ? &f.status
                                           : key == "timestamp" ? &f.timestamp
                                           : key == "replayId"  ? &f.replay_id
                                                                : nullptr;
        if (slot == nullptr) {
            const std::string_view v = trim(value);  // an unclosed quote may span lines
            if (!v.empty() && (v[0] == '"' || v[0] == '\'') && v.find(v[0], 1) == std::string_view::npos) return false;
            continue;
        }
        if (slot->has_value()) return false;  // duplicate key: the loader reports it
        *slot = simple_scalar(value);
        if (!slot->has_value()) return false;
    }
    return true;
}

Result<ProgressDigest> digest_by_parse(std::string_view text, const std::string& display) {
    Result<Document> doc = parse_yaml(std::string(text), display);
    if (!doc) return doc.error();
    ProgressDigest d;
    Collector c(d);
    const NodeRef entries = doc->root().find("entries");
    for (std::size_t i = 0; entries.is_sequence() && i < entries.size(); ++i) c.add(fields_of(entries.item(i)));
    return d;
}

// Parses one item alone; false when it does not parse on its own.
bool parse_item(std::string_view item, Collector& c) {
    Result<Document> doc = parse_yaml("entries:\n" + std::string(item), "item");
    if (!doc) return false;
    const NodeRef entries = doc->root().find("entries");
    if (!entries.is_sequence() || entries.size() != 1) return false;
    c.add(fields_of(entries.item(0)));
    return true;
}

}  // namespace

Result<ProgressDigest> digest_progress(std::string_view text, const std::string& display) {
    const std::optional<SequenceStart> seq = find_sequence(text.substr(0, 64 * 1024), text.size() <= 64 * 1024);
    if (!seq) return digest_by_parse(text, display);
    ProgressDigest d;
    Collector c(d);
    std::size_t item = seq->offset;
    for (std::size_t pos = seq->offset; item < text.size();) {
        // The next line that starts an item, a top-level key, or the end.
        std::size_t next = text.size();
        bool top_level = false;
        for (std::size_t p = text.find('\n', pos); p != std::string_view::npos && p + 1 < text.size();
             p = text.find('\n', p + 1)) {
            const std::string_view rest = text.substr(p + 1, seq->indent + 2);
            if (starts_item(rest, seq->indent)) {
                next = p + 1;
                break;
            }
            if (seq->indent == 0 ? (rest[0] != ' ' && rest[0] != '#' && rest[0] != '\n' && rest[0] != '\r' && rest[0] != '-')
                                 : (rest[0] != ' ' && rest[0] != '#' && rest[0] != '\n' && rest[0] != '\r')) {
                next = p + 1;  // the mapping goes on after the sequence
                top_level = true;
                break;
            }
        }
        const std::string_view body = text.substr(item, next - item);
        Fields f;
        if (scan_item(body, seq->indent, f)) c.add(f);
        else if (!parse_item(body, c)) return digest_by_parse(text, display);  // exact error position
        if (top_level) {
            // Keys after the sequence: the loader checks the rest (rare shape).
            if (Result<Document> doc = parse_yaml(std::string(text), display); !doc) return doc.error();
            break;
        }
        item = pos = next;
    }
    return d;
}

namespace {

// `tail` (the digest of items after those `into` digests) merged into `into`.
void merge_digest(ProgressDigest& into, const ProgressDigest& tail) {
    into.entries += tail.entries;
    into.completed_tasks.insert(tail.completed_tasks.begin(), tail.completed_tasks.end());
    for (const auto& [id, n] : tail.runs) into.runs[id] += n;
    Result<Instant> a = parse_progress_timestamp(into.latest), b = parse_progress_timestamp(tail.latest);
    if (b && (!a || *b > *a)) into.latest = tail.latest;
    else if (!a && !b && into.latest.empty()) into.latest = tail.latest;
}

}  // namespace

std::optional<ProgressDigest> digest_appended(const ProgressDigest& before_digest, std::string_view before,
                                              std::string_view after) {
    if (before.empty() || before.back() != '\n' || after.size() < before.size() ||
        after.compare(0, before.size(), before) != 0) {
        return std::nullopt;
    }
    const std::optional<SequenceStart> seq = find_sequence(before.substr(0, 64 * 1024), before.size() <= 64 * 1024);
    if (!seq || seq->indent == 0) return std::nullopt;
    const std::string_view added = after.substr(before.size());
    if (added.empty()) return before_digest;
    // The appended bytes must be whole items of the same sequence, and the
    // sequence must be what `before` ends with (no keys after it).
    const std::size_t first_eol = std::min(added.find('\n'), added.size());
    if (!starts_item(added.substr(0, first_eol), seq->indent)) return std::nullopt;
    const std::size_t last_item = before.rfind("\n" + std::string(seq->indent, ' ') + "- ");
    if (last_item == std::string_view::npos || last_item + 1 < seq->offset) return std::nullopt;
    for (std::size_t p = before.find('\n', last_item + 1); p + 1 < before.size(); p = before.find('\n', p + 1)) {
        const char c = before[p + 1];
        if (c != ' ' && c != '\n' && c != '\r' && c != '#') return std::nullopt;  // a key after the sequence
    }
    Result<ProgressDigest> tail = digest_progress("entries:\n" + std::string(added), "appended");
    if (!tail) return std::nullopt;
    ProgressDigest out = before_digest;
    merge_digest(out, *tail);
    return out;
}

namespace {

// The log in windows of whole items at an indentation other than 0 (as
// digest_appended takes appended items); nullopt when windows cannot follow it.
std::optional<ProgressDigest> digest_in_windows(const FileSystem& fs, const std::string& dir, const std::string& name,
                                                std::uint64_t size, const LogWindows& windows) {
    EntryWindowReader reader(
        [&](std::uint64_t offset, std::size_t length) { return fs.read_range_no_follow(dir, name, offset, length); },
        size, windows.window_bytes, windows.max_window_bytes);
    std::optional<std::string> first = reader.first();
    if (!first || reader.indent() == 0) return std::nullopt;
    const std::string_view items = std::string_view(*first).substr(reader.header());
    if (!whole_entries(items, reader.indent())) return std::nullopt;
    Result<ProgressDigest> out = digest_progress(*first, "window");
    if (!out) return std::nullopt;
    while (std::optional<std::string> window = reader.next()) {
        if (!whole_entries(*window, reader.indent())) return std::nullopt;
        Result<ProgressDigest> tail = digest_progress("entries:\n" + *window, "window");
        if (!tail) return std::nullopt;
        merge_digest(*out, *tail);
    }
    if (reader.failed()) return std::nullopt;
    return std::move(*out);
}

}  // namespace

Result<ProgressDigest> digest_progress_file(const FileSystem& fs, const std::string& dir, const std::string& name,
                                            const std::string& display, const LogWindows& windows) {
    const std::string path = dir + "/" + name;
    const std::optional<FileInfo> info = fs.stat(path);
    const std::optional<FileStamp> stamp = info ? stamp_of(*info) : std::nullopt;
    if (stamp && stamp->size >= windows.stream_from_bytes) {
        std::optional<ProgressDigest> d = digest_in_windows(fs, dir, name, stamp->size, windows);
        const std::optional<FileInfo> after = fs.stat(path);
        if (d && after && stamp_of(*after) == stamp) return std::move(*d);  // not written meanwhile
    }
    Result<std::string> text = fs.read_file_no_follow(dir, name);
    if (!text) return text.error();
    return digest_progress(*text, display);
}

}  // namespace small
