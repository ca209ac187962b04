// The verified prefix of the progress log (see the header). The appended
// bytes are parsed behind the header (the lines up to `entries:`) as a
// document of their own. That reads them exactly as the whole file would
// only when they are whole new entries: they start with an entry's `-` at
// the entries' indentation and nothing in them is less indented, and the
// last verified entry reads the same before another entry as it did at the
// end of the file (libfyaml accepts some text at the end of its input that it
// refuses before another line: such a prefix is not kept). Anything else, and any
// layout where the two readings could differ (aliases into the verified
// bytes, a document marker, a lone CR), is left to the whole-log verdict.
#include "small/check/verified_prefix.hpp"
#include "small/check/entry_evidence.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "small/base/fast_hash.hpp"
#include "small/base/text.hpp"
#include "small/doc/entry_windows.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/plan_model.hpp"

namespace small {

void fold_entries(VerifiedPrefix& prefix, NodeRef entries) {
    // Collected over views of the document's text first: a 100k-entry log
    // names a few hundred tasks, so only those become strings.
    std::unordered_map<std::string_view, bool> evidence;
    std::unordered_map<std::string_view, std::unordered_set<std::string_view>> task_ids;
    std::string_view newest_work;
    for (std::size_t i = 0; entries.is_sequence() && i < entries.size(); ++i) {
        const NodeRef entry = entries.item(i);
        // Keys as S1 and S2 read them (check/rules_strict, check/orphan_progress).
        const std::string_view id = trim(entry.find("task_id").as_string());
        bool& has = evidence[id];
        has = has || entry_has_evidence(entry);
        if (!id.empty() && id.rfind("meta/", 0) != 0) task_ids[trim(entry.find("replayId").as_string())].insert(id);
        // The work-entry count and newest one, as model/resume_point's log_facts counts them.
        if (!id.empty() && !is_bookkeeping_entry(id, trim(entry.find("evidence").as_string()),
                                                 trim(entry.find("notes").as_string()))) {
            ++prefix.work_entries;
            if (const std::string_view ts = trim(entry.find("timestamp").as_string()); !ts.empty()) newest_work = ts;
        }
        ++prefix.entries;
        if (i + 1 == entries.size()) prefix.last_timestamp = std::string(entry.find("timestamp").as_string());
    }
    for (const auto& [id, has] : evidence) {
        bool& kept = prefix.evidence[std::string(id)];
        kept = kept || has;
    }
    for (const auto& [run, ids] : task_ids) {
        std::set<std::string>& kept = prefix.task_ids[std::string(run)];
        for (std::string_view id : ids) kept.emplace(id);
    }
    if (!newest_work.empty()) prefix.newest_work = std::string(newest_work);
}

namespace {

// Offset of the start of 1-based line `line` ('\n' ends a line).
std::optional<std::size_t> line_start(std::string_view text, std::uint32_t line) {
    std::size_t at = 0;
    for (std::uint32_t l = 1; l < line; ++l) {
        at = text.find('\n', at);
        if (at == std::string_view::npos) return std::nullopt;
        ++at;
    }
    return at;
}

}  // namespace

std::optional<VerifiedPrefix> start_prefix(const Artifact& progress, unsigned checks) {
    const std::string& text = progress.doc.source();
    const NodeRef root = progress.doc.root();
    if (text.empty() || text.back() != '\n' || !root.is_mapping() || root.size() == 0) return std::nullopt;
    if (root.key(root.size() - 1) != "entries") return std::nullopt;
    const NodeRef entries = root.value(root.size() - 1);
    if (!entries.is_sequence() || entries.size() == 0) return std::nullopt;
    const Mark key = root.key_node(root.size() - 1).mark();
    const Mark first = entries.item(0).mark();
    if (key.column != 1 || first.line <= key.line) return std::nullopt;  // a flow sequence, or an odd layout
    const std::optional<std::size_t> header = line_start(text, key.line + 1);
    const std::optional<std::size_t> item = line_start(text, first.line);
    if (!header || !item || *item < *header) return std::nullopt;
    const std::string_view head(text.data(), *item);
    if (has_lone_cr(head) || head.find("\xe2\x80\xa8") != std::string_view::npos ||
        head.find("\xe2\x80\xa9") != std::string_view::npos || head.find("\xc2\x85") != std::string_view::npos) {
        return std::nullopt;  // line breaks the marks might count differently
    }
    const std::size_t indent = indent_at(text, *item);
    if (!item_start(text, *item + indent) || first.column < indent + 2) return std::nullopt;
    const std::string_view verified = std::string_view(text).substr(*header);
    if (has_alias(text) || has_marker_or_version(verified) || trailing_blanks(text) >= kMaxBlankRun) return std::nullopt;
    if (!last_entry_reads_the_same_before(verified, indent)) return std::nullopt;  // an append would change it
    VerifiedPrefix p;
    p.length = text.size();
    p.header_length = *header;
    p.item_indent = static_cast<std::uint32_t>(indent);
    p.hash = fast_hash_hex(text);
    p.checks = checks;
    fold_entries(p, entries);
    return p;
}

StampedFile stamp_file(const FileSystem& fs, const std::string& path) {
    StampedFile out;
    // Read before the stamp (see stamp_proves_unchanged); none where a server stamps the times.
    out.clock_ns = fs.times_from_change_clock(path) ? fs.change_clock_ns().value_or(0) : 0;
    if (const std::optional<FileInfo> info = fs.stat(path)) out.stamp = stamp_of(*info);
    return out;
}

void record_stamp(VerifiedPrefix& prefix, const std::optional<FileStamp>& stamp, std::int64_t clock_ns) {
    const bool whole = stamp && stamp->size == prefix.length && clock_ns != 0;
    prefix.stamp = whole ? stamp : std::nullopt;
    prefix.stamp_clock_ns = whole ? clock_ns : 0;
}

namespace {

bool proved_unchanged(const VerifiedPrefix& prefix, const StampedFile& now) {
    return prefix.stamp && now.stamp && now.clock_ns != 0 &&
           stamp_proves_unchanged(*prefix.stamp, prefix.stamp_clock_ns, *now.stamp, now.clock_ns);
}

// The bytes after the prefix, once the prefix's bytes hash as verified
// (streamed, never held); adds them to `hasher`.
std::optional<std::string> hashed_suffix(const FileSystem& fs, const std::string& path, const VerifiedPrefix& prefix,
                                         std::uint64_t max_suffix, FastHasher& hasher) {
    const Result<std::uint64_t> size =
        fs.stream_prefix(path, prefix.length, [&](std::string_view piece) { hasher.update(piece); });
    // Only the suffix is held: a log of any length is read so, but a suffix
    // too large to read whole is left to the windows (or the whole read's error).
    if (!size || *size < prefix.length || *size - prefix.length > max_suffix || hasher.digest() != prefix.hash) {
        return std::nullopt;
    }
    Result<FileRange> tail = fs.read_range(path, prefix.length, static_cast<std::size_t>(*size - prefix.length));
    if (!tail || tail->bytes.size() != *size - prefix.length) return std::nullopt;
    hasher.update(tail->bytes);
    return std::move(tail->bytes);
}

}  // namespace

std::optional<LogAfterPrefix> load_after_prefix(const FileSystem& fs, const WorkspacePaths& ws,
                                                const VerifiedPrefix& prefix) {
    Artifact log{ArtifactType::Progress, ws.artifact_path(ArtifactType::Progress),
                 ws.artifact_display(ArtifactType::Progress), Document()};
    if (prefix.header_length > prefix.length || fs.directory_exists(log.path)) return std::nullopt;
    // The prefix, the header and the suffix are separate reads: the log must be
    // the same file, unchanged, across them (a writer's rename or append in
    // between would mix two versions).
    const StampedFile before = stamp_file(fs, log.path);
    const bool trusted = proved_unchanged(prefix, before);
    std::string suffix, whole_hash = prefix.hash;
    if (!trusted) {
        FastHasher hasher;
        std::optional<std::string> read = hashed_suffix(fs, log.path, prefix, fs.max_read_bytes(), hasher);
        if (!read) return std::nullopt;
        suffix = std::move(*read);
        whole_hash = hasher.digest();
    }
    Result<FileRange> head = fs.read_range(log.path, 0, static_cast<std::size_t>(prefix.header_length));
    if (!head || head->bytes.size() != prefix.header_length) return std::nullopt;
    if (before.stamp && stamp_file(fs, log.path).stamp != before.stamp) return std::nullopt;
    if (!suffix.empty() && !whole_entries(suffix, prefix.item_indent)) return std::nullopt;
    const std::uint64_t size = prefix.length + suffix.size();
    std::string shown = std::move(head->bytes);
    if (suffix.empty()) {
        shown += std::string(prefix.item_indent + 1, ' ') + "[]\n";  // what is left to check: no entries
    } else {
        shown += suffix;
    }
    Result<Document> doc = parse_yaml(std::move(shown), log.display);
    if (!doc || !doc->root().is_mapping()) return std::nullopt;
    log.doc = std::move(*doc);
    return LogAfterPrefix{std::move(log), size, std::move(whole_hash), before.stamp, before.clock_ns, trusted};
}

bool continues_prefix(const VerifiedPrefix& before, NodeRef entries, Instant now) {
    const Result<Instant> last = parse_progress_timestamp(before.last_timestamp);
    if (!last || too_far_ahead(*last, now)) return false;  // INV-R8 would warn of a verified entry
    if (!entries.is_sequence() || entries.size() == 0) return true;
    const Result<Instant> next = parse_progress_timestamp(entries.item(0).find("timestamp").as_string());
    return !next || *last < *next;  // an unreadable one is the new entries' own finding
}

std::optional<VerifiedPrefix> extend_prefix(const VerifiedPrefix& before, const Document& appended,
                                            const LogAfterPrefix& after) {
    VerifiedPrefix p = before;
    if (after.size == before.length) return p;
    const std::string_view text = appended.source();
    if (text.size() < before.header_length ||
        !last_entry_reads_the_same_before(text.substr(before.header_length), before.item_indent)) {
        return std::nullopt;  // as in start_prefix
    }
    const NodeRef entries = appended.root().find("entries");
    fold_entries(p, entries);
    p.length = after.size;
    p.hash = after.whole_hash;
    record_stamp(p, after.stamp, after.clock_ns);
    return p;
}

}  // namespace small
