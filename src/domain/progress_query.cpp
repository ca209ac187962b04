// Newest progress entries from the end of the log (see progress_query.hpp).
#include "small/domain/progress_query.hpp"

#include "small/model/plan_model.hpp"
#include "small/model/workspace.hpp"

#include <algorithm>
#include <string_view>

#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"

namespace small {

namespace {

constexpr std::size_t kHeadBytes = 64 * 1024;  // where `entries:` must start for the fast path
constexpr std::size_t kFirstWindow = 16 * 1024;  // ~60 house-style entries; widened x4 as needed

std::string log_path(const WorkspacePaths& ws) { return ws.artifact_path(ArtifactType::Progress); }
std::string log_display(const WorkspacePaths& ws) { return ws.artifact_display(ArtifactType::Progress); }

std::string field(const NodeRef& entry, std::string_view key) { return std::string(trim(entry.find(key).as_string())); }

enum class EntryVerdict { Match, Skip, Stop };

EntryVerdict judge(const NodeRef& entry, const EntryQuery& q) {
    if (q.signal_only && !is_signal_entry(entry)) return EntryVerdict::Skip;
    if (q.work_only && is_bookkeeping_entry(field(entry, "task_id"), field(entry, "evidence"), field(entry, "notes"))) {
        return EntryVerdict::Skip;
    }
    if (q.since) {
        Result<Instant> at = parse_progress_timestamp(field(entry, "timestamp"));
        if (at && *at < *q.since) return EntryVerdict::Stop;
    }
    if (q.task && field(entry, "task_id") != trim(*q.task)) return EntryVerdict::Skip;
    if (q.status && lower_ascii(field(entry, "status")) != lower_ascii(trim(*q.status))) return EntryVerdict::Skip;
    if (!q.run_id.empty() && lower_ascii(field(entry, "replayId")) != q.run_id) return EntryVerdict::Skip;
    return EntryVerdict::Match;
}

// Collects matches from the newest item of `entries` backwards. Returns true
// when the answer is complete (limit + 1 found, or an entry before `since`).
bool collect(const NodeRef& entries, const EntryQuery& q, EntryList& out) {
    out.entries.clear();
    for (std::size_t i = entries.size(); i-- > 0;) {
        const NodeRef e = entries.item(i);
        const EntryVerdict v = judge(e, q);
        if (v == EntryVerdict::Stop) return true;
        if (v == EntryVerdict::Skip) continue;
        if (q.limit && out.entries.size() == q.limit) {
            out.more = true;
            return true;
        }
        out.entries.push_back(to_yaml_value(e));
    }
    return false;
}

Result<EntryList> query_whole_log(const FileSystem& fs, const WorkspacePaths& ws, const EntryQuery& q) {
    Result<Document> doc = load_yaml_file(fs, log_path(ws), log_display(ws));
    if (!doc) return doc.error();
    EntryList out;
    out.whole_log_parsed = true;
    const NodeRef entries = doc->root().find("entries");
    if (entries.is_sequence()) collect(entries, q, out);
    return out;
}

// A scalar member as text ("" when absent, null or a collection).
std::string scalar_text(const YamlValue& entry, const char* key) {
    if (!entry.is_object() || !entry.contains(key)) return {};
    const YamlValue& v = entry[key];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean() || v.is_number()) return v.dump();
    return {};
}

std::string string_member(const YamlValue& entry, const char* key) {
    return entry.is_object() && entry.contains(key) && entry[key].is_string() ? entry[key].get<std::string>() : "";
}

}  // namespace

bool is_signal_entry(const NodeRef& entry) {
    const std::string task = field(entry, "task_id");
    if (task.empty() || task == "apply" || task.rfind("meta/apply", 0) == 0) return false;
    return lower_ascii(field(entry, "notes")) != "apply: execution started";
}

ProgressItem progress_item_of(const YamlValue& entry) {
    ProgressItem item;
    item.timestamp = scalar_text(entry, "timestamp");
    item.task_id = scalar_text(entry, "task_id");
    item.status = scalar_text(entry, "status");
    item.evidence = string_member(entry, "evidence");
    item.notes = string_member(entry, "notes");
    item.command_summary = string_member(entry, "command_summary");
    if (item.command_summary.empty()) item.command_summary = string_member(entry, "command");
    item.command_ref = string_member(entry, "command_ref");
    item.command_sha256 = string_member(entry, "command_sha256");
    return item;
}

bool starts_item(std::string_view line, std::size_t indent) {
    if (line.size() <= indent || line[indent] != '-') return false;
    for (std::size_t i = 0; i < indent; ++i)
        if (line[i] != ' ') return false;
    return line.size() == indent + 1 || line[indent + 1] == ' ' || line[indent + 1] == '\r';
}

std::optional<SequenceStart> find_sequence(std::string_view head, bool whole_file) {
    std::size_t pos = 0;
    bool in_entries = false;
    while (pos < head.size()) {
        const std::size_t eol = head.find('\n', pos);
        if (eol == std::string_view::npos && !whole_file) return std::nullopt;  // line cut by the head
        const std::string_view line = head.substr(pos, (eol == std::string_view::npos ? head.size() : eol) - pos);
        const std::string_view bare = trim(line);
        if (!in_entries) {
            if (line.rfind("entries:", 0) == 0) {
                const std::string_view rest = trim(line.substr(8));
                if (!rest.empty() && rest[0] != '#') return std::nullopt;  // flow style, e.g. []
                in_entries = true;
            }
        } else if (!bare.empty() && bare[0] != '#') {
            const std::size_t indent = line.find_first_not_of(' ');
            if (!starts_item(line, indent)) return std::nullopt;
            return SequenceStart{pos, indent};
        }
        if (eol == std::string_view::npos) break;
        pos = eol + 1;
    }
    return std::nullopt;
}

Result<EntryList> query_entries(const FileSystem& fs, const WorkspacePaths& ws, const EntryQuery& q) {
    Result<FileRange> head = fs.read_range(log_path(ws), 0, kHeadBytes);
    if (!head) return head.error();
    const std::uint64_t size = head->file_size;
    const std::optional<SequenceStart> seq = find_sequence(head->bytes, head->bytes.size() == size);
    if (!seq) return query_whole_log(fs, ws, q);

    for (std::uint64_t window = kFirstWindow;; window *= 4) {
        const std::uint64_t start = size - std::min<std::uint64_t>(size - seq->offset, window);
        Result<FileRange> tail = fs.read_range(log_path(ws), start, static_cast<std::size_t>(size - start));
        if (!tail || tail->file_size != size) return query_whole_log(fs, ws, q);  // changed meanwhile
        const std::string& bytes = tail->bytes;
        std::size_t first = std::string::npos;  // the first complete item in the window
        for (std::size_t pos = 0; pos < bytes.size();) {
            const std::size_t eol = std::min(bytes.find('\n', pos), bytes.size());
            const bool line_start = pos > 0 || start == seq->offset;
            if (line_start && starts_item(std::string_view(bytes).substr(pos, eol - pos), seq->indent)) {
                first = pos;
                break;
            }
            pos = eol + 1;
        }
        const bool at_start = start == seq->offset;
        if (first != std::string::npos) {
            Result<Document> doc = parse_yaml("entries:\n" + bytes.substr(first), log_display(ws));
            const NodeRef entries = doc ? doc->root().find("entries") : NodeRef();
            if (!entries.is_sequence()) return query_whole_log(fs, ws, q);
            EntryList out;
            out.whole_log_parsed = at_start;
            if (collect(entries, q, out) || at_start) return out;
        } else if (at_start) {
            return EntryList{{}, false, true};
        }
    }
}

}  // namespace small
