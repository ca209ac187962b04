#include "small/store/progress_log.hpp"
#include "small/doc/entry_windows.hpp"


#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <map>
#include <type_traits>
#include <utility>

#include "small/base/path.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/local_work.hpp"
#include "small/store/log_facts_cache.hpp"
#include "small/model/replay_id.hpp"  // sha256_hex
#include "small/doc/yaml.hpp"

namespace small {

namespace {

constexpr std::string_view kProgressFile = "progress.small.yml";
constexpr std::string_view kTailHeader = "small-progress-tail 1";
constexpr std::string_view kJournalHeader = "small-progress-journal 1";
// The cache also hashes this many trailing bytes of the log, so that an
// outside edit that keeps size and (coarse) mtime is still noticed where it
// matters for appending: at the end.
constexpr std::uint64_t kTailHashBytes = 4096;

std::atomic<std::size_t> g_full_parses{0};

std::string progress_path(const WorkspacePaths& ws) { return ws.path_of(kProgressFile); }
std::string cache_path(const WorkspacePaths& ws, const char* name) { return ws.root + "/" + name; }
std::string cache_dir(const WorkspacePaths& ws) { return runtime_path(ws.root, kCacheDirName); }

// The log's stamp (base/filesystem: what recognises "the same file,
// unchanged"), through the door; a link there is refused, never followed.
Result<FileStamp> log_stamp(const FileSystem& fs, const std::string& path) {
    Result<std::optional<FileInfo>> info = fs.inspect(path);
    if (!info) return info.error();
    if (!*info) return Error::from_errno("cannot open", path, ENOENT);
    const FileInfo& st = **info;
    if (st.kind == FileKind::Symlink) return Error::invalid("refusing to use " + path + ": it is a symbolic link");
    if (st.kind != FileKind::Regular) return Error::invalid(path + " is not a regular file");
    return *stamp_of(st);
}

// `n` bytes at `offset` (fewer only at end of file); a link swapped in
// after the stamp was taken is refused, never read through.
Result<std::string> read_at(const FileSystem& fs, const std::string& path, std::uint64_t offset, std::size_t n) {
    Result<FileRange> range = fs.read_range_no_follow(parent_path(path), file_name(path), offset, n);
    if (!range) return range.error();
    return std::move(range->bytes);
}

Result<std::string> tail_digest(const FileSystem& fs, const std::string& path, std::uint64_t size) {
    const std::uint64_t n = std::min(size, kTailHashBytes);
    Result<std::string> bytes = read_at(fs, path, size - n, static_cast<std::size_t>(n));
    if (!bytes) return bytes.error();
    return sha256_hex(*bytes);
}


// ---- "key value" records (tail cache, journal header) ----

using Record = std::map<std::string, std::string, std::less<>>;

// Lines "key value" between `header` and "end"; nothing if malformed.
std::optional<Record> parse_record(std::string_view text, std::string_view header) {
    Record rec;
    bool ended = false;
    std::size_t pos = 0;
    bool first = true;
    while (pos < text.size() && !ended) {
        const std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) return std::nullopt;
        const std::string_view line = text.substr(pos, nl - pos);
        pos = nl + 1;
        if (first) {
            if (line != header) return std::nullopt;
            first = false;
        } else if (line == "end") {
            ended = true;
        } else {
            const std::size_t sp = line.find(' ');
            if (sp == std::string_view::npos || sp == 0 || !rec.emplace(line.substr(0, sp), line.substr(sp + 1)).second) {
                return std::nullopt;
            }
        }
    }
    if (!ended) return std::nullopt;
    rec.emplace("", std::string(text.substr(pos)));  // what follows "end" (journal bytes)
    return rec;
}

template <typename T>
bool get_number(const Record& rec, std::string_view key, T& out) {
    const auto it = rec.find(key);
    if (it == rec.end() || it->second.empty()) return false;
    const char* end = it->second.data() + it->second.size();
    const auto [p, ec] = std::from_chars(it->second.data(), end, out);
    return ec == std::errc() && p == end;
}

bool get_flag(const Record& rec, std::string_view key, bool& out) {
    int v = 0;
    if (!get_number(rec, key, v) || (v != 0 && v != 1)) return false;
    out = v == 1;
    return true;
}

void put(std::string& out, std::string_view key, const auto& value) {
    out += key;
    out += ' ';
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, bool>) {
        out += value ? "1" : "0";
    } else if constexpr (std::is_arithmetic_v<std::decay_t<decltype(value)>>) {
        out += std::to_string(value);
    } else {
        out += value;
    }
    out += '\n';
}

void put_stamp(std::string& out, const FileStamp& s) {
    put(out, "dev", s.identity.device);
    put(out, "ino", s.identity.inode);
    put(out, "size", s.size);
    put(out, "mtime_ns", s.mtime_ns);
    put(out, "ctime_ns", s.ctime_ns);
}

bool get_stamp(const Record& rec, FileStamp& s) {
    return get_number(rec, "dev", s.identity.device) && get_number(rec, "ino", s.identity.inode) && get_number(rec, "size", s.size) &&
           get_number(rec, "mtime_ns", s.mtime_ns) && get_number(rec, "ctime_ns", s.ctime_ns);
}

// ---- the tail cache ----

struct CachedTail {
    std::string file;
    FileStamp stamp;
    std::string digest;
    ProgressTail tail;
};

std::string render_cache(const CachedTail& c) {
    std::string out = std::string(kTailHeader) + "\n";
    put(out, "file", c.file);
    put_stamp(out, c.stamp);
    put(out, "tail_sha256", c.digest);
    put(out, "has_entries", c.tail.has_entries);
    put(out, "last_seconds", c.tail.last_instant.seconds);
    put(out, "last_nanos", c.tail.last_instant.nanos);
    put(out, "offset", static_cast<std::uint64_t>(c.tail.point.offset));
    put(out, "indent", c.tail.point.indent);
    put(out, "needs_newline", c.tail.point.needs_newline);
    put(out, "inline_empty_list", c.tail.point.inline_empty_list);
    put(out, "inline_size", static_cast<std::uint64_t>(c.tail.point.inline_size));
    put(out, "crlf", c.tail.point.crlf);
    return out + "end\n";
}

// Values that could not come from a real parse make the cache worthless.
bool plausible(const ProgressTail& t) {
    const AppendPoint& p = t.point;
    if (t.last_instant.nanos >= 1'000'000'000 || p.indent < 0 || p.indent > 4096) return false;
    if (p.inline_empty_list) return p.offset + p.inline_size <= t.size && p.inline_size >= 2 && !p.needs_newline;
    return p.offset == t.size;
}

std::optional<CachedTail> parse_cache(std::string_view text) {
    const std::optional<Record> rec = parse_record(text, kTailHeader);
    if (!rec || !rec->at("").empty()) return std::nullopt;
    CachedTail c;
    std::uint64_t offset = 0;
    std::uint64_t inline_size = 0;
    AppendPoint& p = c.tail.point;
    const auto file = rec->find("file");
    const auto digest = rec->find("tail_sha256");
    if (file == rec->end() || digest == rec->end() || !get_stamp(*rec, c.stamp) ||
        !get_flag(*rec, "has_entries", c.tail.has_entries) ||
        !get_number(*rec, "last_seconds", c.tail.last_instant.seconds) ||
        !get_number(*rec, "last_nanos", c.tail.last_instant.nanos) || !get_number(*rec, "offset", offset) ||
        !get_number(*rec, "indent", p.indent) || !get_flag(*rec, "needs_newline", p.needs_newline) ||
        !get_flag(*rec, "inline_empty_list", p.inline_empty_list) ||
        !get_number(*rec, "inline_size", inline_size) || !get_flag(*rec, "crlf", p.crlf)) {
        return std::nullopt;
    }
    c.file = file->second;
    c.digest = digest->second;
    p.offset = static_cast<std::size_t>(offset);
    p.inline_size = static_cast<std::size_t>(inline_size);
    c.tail.size = c.stamp.size;
    if (!plausible(c.tail)) return std::nullopt;
    return c;
}

// The tail cache needs no durability (store/atomic_file, Durability::None):
// whatever a power loss leaves is either rejected by parse_cache or
// describes a stamp the log no longer has, because the cache is only
// written after the log's bytes are fsynced. That saves two fsyncs per
// append. Best effort.
void write_cache(const FileSystem& fs, const WorkspacePaths& ws, const std::string& bytes) {
    (void)write_file_atomic(fs, ws, cache_path(ws, kProgressTailName), bytes, kCacheWrite);  // a failure only costs speed
}

// Best effort: a cache that cannot be written only costs speed. `expect`
// is the stamp the tail was computed from, when known.
void store_cache(const FileSystem& fs, const WorkspacePaths& ws, const std::string& file, const ProgressTail& tail,
                 const std::optional<FileStamp>& expect) {
    if (file.find('\n') != std::string::npos) return;
    Result<FileStamp> stamp = log_stamp(fs, file);
    if (!stamp || stamp->size != tail.size || (expect && !(*expect == *stamp))) return;
    Result<std::string> digest = tail_digest(fs, file, tail.size);
    if (!digest) return;
    write_cache(fs, ws, render_cache({file, *stamp, *digest, tail}));
}

// The cached tail if it describes exactly this file as it is now.
std::optional<ProgressTail> cached_tail(const FileSystem& fs, const WorkspacePaths& ws, const std::string& file,
                                        const FileStamp& now) {
    Result<std::optional<std::string>> text = fs.read_file_if_present(cache_path(ws, kProgressTailName));
    if (!text || !*text) return std::nullopt;
    const std::optional<CachedTail> c = parse_cache(**text);
    if (!c || c->file != file || !(c->stamp == now)) return std::nullopt;
    Result<std::string> digest = tail_digest(fs, file, now.size);
    if (!digest || *digest != c->digest) return std::nullopt;
    return c->tail;
}

// ---- the cold path: parse the whole log once ----

Result<Instant> last_entry_instant(NodeRef entries) {
    const NodeRef last = entries.item(entries.size() - 1);
    const NodeRef stamp = last.find("timestamp");
    Result<Instant> parsed = stamp.is_string() ? parse_progress_timestamp(stamp.as_string())
                                               : Result<Instant>(Error::invalid(
                                                     stamp.valid() ? "timestamp must be a string"
                                                                   : "timestamp is required (RFC3339Nano with fractional seconds)"));
    if (parsed) return parsed;
    Error e = Error::invalid("existing progress timestamps invalid: " + parsed.error().message +
                             " (run 'small progress migrate' to repair)");
    e.line = (stamp.valid() ? stamp : last).mark().line;
    e.column = (stamp.valid() ? stamp : last).mark().column;
    return e;
}

Result<ProgressTail> parse_tail(std::string bytes, const WorkspacePaths& ws) {
    ++g_full_parses;
    const std::string display = ws.display_of(kProgressFile);
    const std::size_t size = bytes.size();
    Result<Document> doc = parse_yaml(std::move(bytes), display);
    if (!doc) return doc.error();
    if (doc->source().size() != size) return Error::internal("the parse of " + display + " lost its bytes");
    Result<AppendPoint> point = progress_append_point(doc->source(), *doc);
    if (!point) {
        Error e = point.error();
        if (e.file.empty()) e.file = display;
        return e;
    }
    ProgressTail tail;
    tail.size = size;
    tail.point = *point;
    const NodeRef entries = doc->root().find("entries");
    if (entries.is_sequence() && entries.size() > 0) {
        Result<Instant> last = last_entry_instant(entries);
        if (!last) {
            Error e = last.error();
            e.file = display;
            return e;
        }
        tail.last_instant = *last;
        tail.has_entries = true;
    }
    return tail;
}

// The tail of a long log read in windows (doc/entry_windows): every window
// parses, the last gives the last entry and where the next goes. nullopt
// when windows cannot follow the log: it is read whole.
std::optional<ProgressTail> windowed_tail(const FileSystem& fs, const WorkspacePaths& ws, const std::string& file,
                                          std::uint64_t size) {
    std::optional<Result<ProgressTail>> last;
    const bool read = for_each_entry_window(fs, file, ws.display_of(kProgressFile), LogWindows{}, [&](const Document& w) {
        Result<AppendPoint> point = progress_append_point(w.source(), w);
        if (!point || point->inline_empty_list || point->needs_newline) return last.reset();
        ProgressTail tail;
        tail.size = size;
        tail.point = *point;
        tail.point.offset = static_cast<std::size_t>(size - (w.source().size() - point->offset));
        const NodeRef entries = w.root().find("entries");
        if (entries.size() == 0) return last.reset();
        Result<Instant> at = last_entry_instant(entries);
        if (at) tail.last_instant = *at, tail.has_entries = true;
        last = at ? Result<ProgressTail>(tail) : Result<ProgressTail>(at.error());
    });
    if (!read || !last || !*last) return std::nullopt;  // an invalid last timestamp: the whole read says where
    ++g_full_parses;  // a read of the whole log all the same, in windows
    return **last;
}

// Reads the whole file, making sure it did not change (nor was replaced) meanwhile.
Result<std::string> read_stable(const FileSystem& fs, const std::string& path, FileStamp& stamp) {
    for (int attempt = 0; attempt < 3; ++attempt) {
        Result<std::string> bytes = read_at(fs, path, 0, static_cast<std::size_t>(stamp.size));
        if (!bytes) return bytes.error();
        Result<FileStamp> after = log_stamp(fs, path);
        if (!after) return after.error();
        if (*after == stamp && bytes->size() == stamp.size) return bytes;
        stamp = *after;
    }
    return Error::system("cannot read " + path + ": it keeps changing while being read");
}

}  // namespace

Result<ProgressTail> read_tail(const FileSystem& fs, const WorkspacePaths& ws) {
    const std::string file = progress_path(ws);
    Result<FileStamp> stamp = log_stamp(fs, file);
    if (!stamp) return stamp.error();
    if (std::optional<ProgressTail> hit = cached_tail(fs, ws, file, *stamp)) return *hit;
    if (std::optional<ProgressTail> tail = windowed_tail(fs, ws, file, stamp->size)) {
        store_cache(fs, ws, file, *tail, *stamp);
        return *tail;
    }
    Result<std::string> bytes = read_stable(fs, file, *stamp);
    if (!bytes) return bytes.error();
    Result<ProgressTail> tail = parse_tail(std::move(*bytes), ws);
    if (tail) store_cache(fs, ws, file, *tail, *stamp);
    return tail;
}

std::size_t progress_full_parses_for_tests() { return g_full_parses.load(); }

Instant next_timestamp(Instant now, const ProgressTail& tail) {
    if (!tail.has_entries || tail.last_instant < now) return now;
    Instant bumped = tail.last_instant;
    if (++bumped.nanos == 1'000'000'000) {
        bumped.nanos = 0;
        ++bumped.seconds;
    }
    return bumped;
}

// ---- the journal and recovery ----

namespace {

std::string render_journal(const AppendRecord& j) {
    std::string out = std::string(kJournalHeader) + "\n";
    put(out, "dev", j.dev);
    put(out, "ino", j.ino);
    put(out, "expected_size", j.expected_size);
    put(out, "length", static_cast<std::uint64_t>(j.bytes.size()));
    put(out, "sha256", sha256_hex(j.bytes));
    out += "end\n";
    return out + j.bytes;
}

std::optional<AppendRecord> parse_journal(std::string_view text) {
    const std::optional<Record> rec = parse_record(text, kJournalHeader);
    if (!rec) return std::nullopt;
    AppendRecord j;
    std::uint64_t length = 0;
    const auto sha = rec->find("sha256");
    if (!get_number(*rec, "dev", j.dev) || !get_number(*rec, "ino", j.ino) ||
        !get_number(*rec, "expected_size", j.expected_size) || !get_number(*rec, "length", length) ||
        sha == rec->end()) {
        return std::nullopt;
    }
    j.bytes = rec->at("");
    if (j.bytes.size() != length || sha256_hex(j.bytes) != sha->second) return std::nullopt;
    return j;
}

// The removal need not be durable: a journal that a power cut brings back
// finds its bytes complete in the log and is dropped then (see the header).
Status remove_append_journal(const FileSystem& fs, const WorkspacePaths& ws) {
    return fs.remove_file(ws.root, cache_path(ws, kProgressJournalName), Durability::None);
}

// A write that stopped part-way: a prefix of the journaled bytes, possibly
// followed by zeros (what a power loss can leave in a grown file).
bool unfinished_copy(std::string_view found, std::string_view journaled) {
    if (found.size() > journaled.size()) return false;
    std::size_t i = 0;
    while (i < found.size() && found[i] == journaled[i]) ++i;
    return found.find_first_not_of('\0', i) == std::string_view::npos;
}

// The log's stamp when it is still the file the record names (device and
// inode); nullopt when it is missing or another file.
std::optional<FileStamp> recorded_log_stamp(const FileSystem& fs, const AppendRecord& record, const std::string& file) {
    Result<FileStamp> st = log_stamp(fs, file);
    if (!st || st->identity.device != record.dev || st->identity.inode != record.ino) return std::nullopt;
    return *st;
}

}  // namespace

Status settle_interrupted_append(const FileSystem& fs, const AppendRecord& j, const std::string& file) {
    const std::optional<FileStamp> log = recorded_log_stamp(fs, j, file);
    if (!log) return ok_status();  // no log to repair: the journal is stale
    const std::uint64_t end = j.expected_size + j.bytes.size();
    if (log->size <= j.expected_size || log->size > end) return ok_status();
    Result<std::string> found =
        read_at(fs, file, j.expected_size, static_cast<std::size_t>(log->size - j.expected_size));
    if (!found) return found.error();
    if (*found == j.bytes) return ok_status();                  // the append completed: keep the entry
    if (!unfinished_copy(*found, j.bytes)) return ok_status();  // not our bytes: leave them alone
    // Cut only if the file is still the recorded one when it is opened to be cut.
    Result<bool> cut = fs.truncate_file(file, j.expected_size, FileIdentity{j.dev, j.ino});
    if (cut) return ok_status();
    Error e = cut.error();
    e.message = "cannot remove an interrupted append from " + file + ": " + e.message;
    return e;
}

std::optional<bool> append_landed(const FileSystem& fs, const AppendRecord& record, const std::string& file) {
    const std::optional<FileStamp> log = recorded_log_stamp(fs, record, file);
    if (!log) return std::nullopt;
    if (log->size < record.expected_size + record.bytes.size()) return false;
    Result<std::string> found = read_at(fs, file, record.expected_size, record.bytes.size());
    return found && *found == record.bytes;
}

Status recover_progress(const FileSystem& fs, const WorkspacePaths& ws) {
    [[maybe_unused]] Result<std::size_t> swept = remove_stale_temp_files(fs, ws);
    Result<std::optional<std::string>> text = fs.read_file_if_present(cache_path(ws, kProgressJournalName));
    if (!text) return text.error();
    if (!*text) return ok_status();
    if (const std::optional<AppendRecord> j = parse_journal(**text)) {
        if (Status st = settle_interrupted_append(fs, *j, progress_path(ws)); !st) return st;
    }
    return remove_append_journal(fs, ws);
}

// ---- the append ----

namespace {

Result<Instant> choose_timestamp(std::optional<Instant> requested, const ProgressTail& tail) {
    if (!requested) return next_timestamp(current_instant(), tail);
    if (tail.has_entries && !(tail.last_instant < *requested)) {
        return Error::invalid("--at timestamp \"" + format_timestamp_short(*requested) +
                              "\" must be after previous entry \"" + format_timestamp_short(tail.last_instant) +
                              "\" (the last progress entry)");
    }
    return *requested;
}

Result<YamlValue> stamped_entry(const YamlValue& entry, const std::string& timestamp) {
    if (!entry.is_object()) return Error::invalid("a progress entry must be a mapping");
    YamlValue out = YamlValue::object();
    out["timestamp"] = timestamp;
    for (const auto& [key, value] : entry.items()) {
        if (key != "timestamp") out[key] = value;
    }
    return out;
}

// `entries: []`: the file has no entries and is small, so it is replaced
// whole and atomically (readers see the old or the new file, never a mix).
Status replace_inline_list(const FileSystem& fs, const WorkspacePaths& ws, const std::string& file, const ProgressTail& tail,
                           const std::string& item, std::uint64_t& new_size) {
    if (Result<FileStamp> st = log_stamp(fs, file); !st) return st.error();  // a link is refused
    Result<std::string> bytes = read_at(fs, file, 0, static_cast<std::size_t>(tail.size) + 1);
    if (!bytes) return bytes.error();
    if (bytes->size() != tail.size) {
        return Error::invalid("cannot append to " + file + ": the file changed since it was read");
    }
    const AppendEdit edit = append_edit(tail.point, item, *bytes);
    bytes->replace(edit.offset, edit.erase, edit.text);
    new_size = bytes->size();
    return write_file_atomic(fs, ws, file, *bytes);
}

// The in-place append, bracketed by its own journal (see the header).
Status journaled_append(const FileSystem& fs, const WorkspacePaths& ws, const AppendRecord& record) {
    if (Status made = ensure_directory(fs, ws, cache_dir(ws)); !made) return made;
    if (Status wrote = write_file_atomic(fs, ws, cache_path(ws, kProgressJournalName), render_journal(record)); !wrote) {
        return wrote;
    }
    Status appended = fs.append_file(progress_path(ws), record.bytes, record.expected_size);
    if (!appended) {
        // append_file rolled back; recovery double-checks and drops the journal.
        [[maybe_unused]] Status again = recover_progress(fs, ws);
        return appended;
    }
    return remove_append_journal(fs, ws);
}

// The log is still the file (device, inode, size) the append was prepared
// for: a hand edit that replaced it meanwhile must not receive the bytes, nor
// let a torn append be judged against another file.
Status still_the_recorded_log(const FileSystem& fs, const AppendRecord& record, const std::string& file) {
    Result<FileStamp> st = log_stamp(fs, file);
    if (!st) return st.error();
    if (st->identity.device == record.dev && st->identity.inode == record.ino && st->size == record.expected_size) return ok_status();
    return Error::invalid("cannot append to " + file + ": the file changed since it was read");
}

ProgressTail tail_after(const ProgressTail& before, Instant ts, std::uint64_t new_size) {
    ProgressTail t;
    t.size = new_size;
    t.last_instant = ts;
    t.has_entries = true;
    t.point.offset = static_cast<std::size_t>(new_size);
    t.point.indent = before.point.indent;
    t.point.crlf = before.point.crlf;
    return t;
}

// The first entry dated too far ahead of `now` (the one that started the
// run of stamps after it), as "progress entry N at FILE:LINE:COLUMN is dated T,
// <span> ahead of the clock". Parses the whole log: only called on that rare path.
std::string first_future_entry(const FileSystem& fs, const WorkspacePaths& ws, Instant now) {
    const std::string display = ws.display_of(kProgressFile);
    Result<std::optional<std::string>> bytes = fs.read_file_if_present(progress_path(ws));
    if (!bytes || !*bytes) return "";
    Result<Document> doc = parse_yaml(std::move(**bytes), display);
    if (!doc) return "";
    const NodeRef entries = doc->root().find("entries");
    for (std::size_t i = 0; entries.is_sequence() && i < entries.size(); ++i) {
        const NodeRef stamp = entries.item(i).find("timestamp");
        if (!stamp.is_string()) continue;
        Result<Instant> at = parse_progress_timestamp(stamp.as_string());
        if (!at || !too_far_ahead(*at, now)) continue;
        return "progress entry " + std::to_string(i) + " at " + display + ":" + std::to_string(stamp.mark().line) +
               ":" + std::to_string(stamp.mark().column) + " is dated " + format_timestamp_short(*at) + ", " +
               duration_text(at->seconds - now.seconds) + " ahead of the clock";
    }
    return "";
}

// D8 keeps timestamps increasing, so an entry after a future-dated one is
// stamped after it. The write goes through (refusing would wedge the log)
// but says loudly why its stamp is not now.
std::string clock_warning(const FileSystem& fs, const WorkspacePaths& ws, const ProgressTail& tail, Instant stamped) {
    const Instant now = current_instant();
    if (!tail.has_entries || !(stamped == plus_one_ns(tail.last_instant)) || !too_far_ahead(stamped, now)) return "";
    std::string culprit = first_future_entry(fs, ws, now);
    if (culprit.empty()) culprit = "the last progress entry is dated " + format_timestamp_short(tail.last_instant);
    return "this entry is stamped " + format_timestamp_utc9(stamped) + ", not now (" + format_timestamp_short(now) +
           "): " + culprit + ", and every entry must be later than the one before (D8). If that date is wrong, " +
           "correct it and the timestamps stamped after it (small lint lists them as INV-R8); if this machine's " +
           "clock is behind, set it right";
}

}  // namespace

Result<PendingAppend> prepare_progress_append(const FileSystem& fs, const WorkspacePaths& ws, const std::vector<YamlValue>& entries,
                                             std::optional<Instant> requested_at) {
    if (Status rec = recover_progress(fs, ws); !rec) return rec.error();
    Result<ProgressTail> tail = read_tail(fs, ws);
    if (!tail) return tail.error();
    Result<Instant> first = choose_timestamp(requested_at, *tail);
    if (!first) return first.error();

    PendingAppend pending;
    pending.tail = *tail;
    Instant ts = *first;
    for (const YamlValue& raw : entries) {
        if (!pending.results.empty()) ts = next_timestamp(current_instant(), tail_after(*tail, ts, tail->size));
        AppendResult r;
        r.timestamp = ts;
        r.timestamp_text = format_timestamp_utc9(ts);
        Result<YamlValue> entry = stamped_entry(raw, r.timestamp_text);
        if (!entry) return entry.error();
        r.entry = std::move(*entry);
        pending.items += emit_sequence_item(r.entry, tail->point.indent);
        pending.results.push_back(std::move(r));
    }
    if (!tail->point.inline_empty_list) {
        const std::string file = progress_path(ws);
        Result<FileStamp> st = log_stamp(fs, file);
        if (!st) return st.error();
        pending.in_place = AppendRecord{st->identity.device, st->identity.inode, tail->size, append_edit(tail->point, pending.items, {}).text};
    }
    return pending;
}

Result<std::vector<AppendResult>> write_progress_append(const FileSystem& fs, const WorkspacePaths& ws, PendingAppend pending,
                                                        TornAppendGuard guard, bool record_local) {
    std::vector<AppendResult>& results = pending.results;
    if (results.empty()) return std::move(results);
    const ProgressTail& tail = pending.tail;
    // All the items go in ONE write: a crash keeps all of them or none.
    const std::string file = progress_path(ws);
    const std::optional<std::string> stamp_before = fs.version_stamp(file);
    std::uint64_t new_size = 0;
    if (!pending.in_place) {
        if (Status st = replace_inline_list(fs, ws, file, tail, pending.items, new_size); !st) return st.error();
    } else if (Status same = still_the_recorded_log(fs, *pending.in_place, file); !same) {
        return same.error();
    } else if (guard == TornAppendGuard::OwnJournal) {
        if (Status st = journaled_append(fs, ws, *pending.in_place); !st) return st.error();
        new_size = tail.size + pending.in_place->bytes.size();
    } else {
        if (Status st = fs.append_file(file, pending.in_place->bytes, tail.size); !st) return st.error();
        new_size = tail.size + pending.in_place->bytes.size();
    }
    for (AppendResult& r : results) r.new_size = new_size;
    results.front().clock_warning = clock_warning(fs, ws, tail, results.front().timestamp);
    store_cache(fs, ws, file, tail_after(tail, results.back().timestamp, new_size), std::nullopt);
    std::vector<YamlValue> written;
    for (const AppendResult& r : results) written.push_back(r.entry);
    if (const std::optional<std::string> stamp_after = fs.version_stamp(file); stamp_before && stamp_after) {
        advance_log_facts(fs, ws, *stamp_before, *stamp_after, written);
    }
    if (record_local) record_local_work(fs, ws, written);  // after: its first record of a run reads the facts
    return std::move(results);
}

Result<std::vector<AppendResult>> append_progress_entries(const FileSystem& fs, const WorkspacePaths& ws,
                                                          const std::vector<YamlValue>& entries,
                                                          std::optional<Instant> requested_at,
                                                          bool record_local) {
    if (entries.empty()) return std::vector<AppendResult>{};
    Result<PendingAppend> pending = prepare_progress_append(fs, ws, entries, requested_at);
    if (!pending) return pending.error();
    return write_progress_append(fs, ws, std::move(*pending), TornAppendGuard::OwnJournal, record_local);
}

Result<AppendResult> append_progress_entry(const FileSystem& fs, const WorkspacePaths& ws, const YamlValue& entry_without_timestamp,
                                           std::optional<Instant> requested_at) {
    Result<std::vector<AppendResult>> r = append_progress_entries(fs, ws, {entry_without_timestamp}, requested_at);
    if (!r) return r.error();
    return std::move(r->front());
}

}  // namespace small
