// The workspace's resume point and the handoff's freshness (see the header).
#include "small/store/log_facts_cache.hpp"

#include <algorithm>
#include <span>

#include "small/base/text.hpp"
#include "small/store/plan_cache.hpp"

namespace small {

namespace {

// Cache body: "<run id> <work entries> <newest work> <entries>", then one
// line a task: id, last status, seq, blocked reason. An append adds, after
// a "+" line, the lines of the tasks it changed (a later line wins), so it
// neither decodes nor re-encodes the other tasks; a full encode compacts.
constexpr std::string_view kAppendedMark = "+";
// The header's last field: the fold's version. "f2": a human's plan status
// decision supersedes the task's work status; a cache an older fold wrote
// (four fields) is recomputed, not read with other meaning.
constexpr std::string_view kFoldVersion = "f2";

std::string encode_header(const std::string& run_id, const LogFacts& f) {
    std::string out;
    append_cache_field(out, run_id);
    out += ' ' + std::to_string(f.work_entries) + ' ';
    append_cache_field(out, f.newest_work);
    out += ' ' + std::to_string(f.entries) + ' ' + std::string(kFoldVersion) + '\n';
    return out;
}

void encode_task(std::string& out, const std::string& id, const TaskWork& w) {
    for (const std::string* field : {&id, &w.last_status.word()}) {
        append_cache_field(out, *field);
        out += ' ';
    }
    out += std::to_string(w.last_seq) + ' ';
    append_cache_field(out, w.blocked_reason);
    out += '\n';
}

std::string encode_facts(const std::string& run_id, const LogFacts& f) {
    std::string out = encode_header(run_id, f);
    for (const auto& [id, w] : f.tasks) encode_task(out, id, w);
    return out;
}

bool is_count(std::string_view s) {
    return !s.empty() && s.size() <= 18 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::uint64_t count_of(std::string_view s) {
    std::uint64_t n = 0;
    for (char c : s) n = n * 10 + static_cast<std::uint64_t>(c - '0');
    return n;
}

// The header's fields (escaped) into `run_id` and `f`; false when malformed.
bool decode_header(std::span<const std::string_view> fields, std::string& run_id, LogFacts& f) {
    if (fields.size() != 5 || !is_count(fields[1]) || !is_count(fields[3]) || fields[4] != kFoldVersion) return false;
    run_id = cache_field_text(fields[0]);
    f.work_entries = count_of(fields[1]);
    f.newest_work = cache_field_text(fields[2]);
    f.entries = count_of(fields[3]);
    return true;
}

bool is_task_line(std::span<const std::string_view> fields) { return fields.size() == 4 && is_count(fields[2]); }

TaskWork task_of(std::span<const std::string_view> fields) {
    TaskWork w;
    w.last_status = WrittenStatus(cache_field_text(fields[1]));
    w.last_seq = count_of(fields[2]);
    w.blocked_reason = cache_field_text(fields[3]);
    return w;
}

// The facts and the run id they were computed for.
std::optional<std::pair<std::string, LogFacts>> decode_facts(std::string_view body) {
    LogFacts f;
    std::string run_id;
    bool first = true, marked = false;
    const bool ok = scan_cache_lines(body, [&](std::span<const std::string_view> fields) {
        if (first) {
            first = false;
            return decode_header(fields, run_id, f);
        }
        if (!marked && fields.size() == 1 && fields[0] == kAppendedMark) return marked = true;
        if (!is_task_line(fields)) return false;
        f.tasks.insert_or_assign(cache_field_text(fields[0]), task_of(fields));
        return true;
    });
    if (!ok || first) return std::nullopt;
    return std::make_pair(std::move(run_id), std::move(f));
}

// What an append needs of a cache body: its header, the newest line of each
// task it touches, and how many lines the "+" part already has.
struct CacheTail {
    std::string run_id;
    LogFacts facts;               // the header's counts; `tasks` only the touched ones
    std::string_view tasks_text;  // every line after the header
    std::size_t lines = 0, appended_lines = 0;
    bool marked = false;
};

std::optional<CacheTail> read_for_append(std::string_view body, const std::vector<std::string>& ids) {
    CacheTail t;
    const std::size_t eol = body.find('\n');
    if (eol == std::string_view::npos) return std::nullopt;
    bool header_ok = false;
    if (!scan_cache_lines(body.substr(0, eol + 1), [&](std::span<const std::string_view> fields) {
            return header_ok = decode_header(fields, t.run_id, t.facts);
        }) || !header_ok) {
        return std::nullopt;
    }
    t.tasks_text = body.substr(eol + 1);
    std::vector<std::string> escaped(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) append_cache_field(escaped[i], ids[i]);
    const bool ok = scan_cache_lines(t.tasks_text, [&](std::span<const std::string_view> fields) {
        ++t.lines;
        if (!t.marked && fields.size() == 1 && fields[0] == kAppendedMark) return t.marked = true;
        if (!is_task_line(fields)) return false;
        t.appended_lines += t.marked;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (fields[0] == escaped[i]) t.facts.tasks.insert_or_assign(ids[i], task_of(fields));
        }
        return true;
    });
    if (!ok) return std::nullopt;
    return t;
}

bool same(const TaskWork& a, const TaskWork& b) {
    return a.last_status == b.last_status && a.last_seq == b.last_seq && a.blocked_reason == b.blocked_reason;
}

// `body` advanced by `appended`: only the header and the touched tasks'
// lines are new. A "+" part grown past half the tasks is compacted by one
// full decode and encode, so the cache stays O(tasks). nullopt: unusable.
std::optional<std::string> advanced(std::string_view body, const std::vector<YamlValue>& appended) {
    std::vector<EntryText> entries;
    std::vector<std::string> ids;
    for (const YamlValue& e : appended) {
        entries.push_back(entry_text(e));
        ids.emplace_back(trim(entries.back().task_id));
    }
    std::optional<CacheTail> t = read_for_append(body, ids);
    if (!t) return std::nullopt;
    if (t->appended_lines + entries.size() > (t->lines - t->appended_lines) / 2 + 64) {
        auto cached = decode_facts(body);
        if (!cached) return std::nullopt;
        auto& [run_id, facts] = *cached;
        for (const EntryText& e : entries) add_entry_facts(facts, e, ++facts.entries, run_id);
        return encode_facts(run_id, facts);
    }
    const WorkFacts before = t->facts.tasks;
    for (const EntryText& e : entries) add_entry_facts(t->facts, e, ++t->facts.entries, t->run_id);
    std::string out = encode_header(t->run_id, t->facts);
    out += t->tasks_text;
    if (!t->marked) out += std::string(kAppendedMark) + '\n';
    for (const auto& [id, w] : t->facts.tasks) {
        const auto was = before.find(id);
        if (was == before.end() || !same(was->second, w)) encode_task(out, id, w);
    }
    return out;
}

}  // namespace

Result<LogFacts> cached_log_facts(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id) {
    const std::string name = artifact_file_name(ArtifactType::Progress);
    const std::string path = ws.path_of(name);
    if (!fs.file_exists(path)) return LogFacts{};
    const std::optional<std::string> before = fs.version_stamp(path);
    if (before) {
        if (std::optional<std::string> body = read_stamped_cache(fs, ws, kProgressFactsName, *before)) {
            if (auto cached = decode_facts(*body); cached && cached->first == run_id) return std::move(cached->second);
        }
    }
    Result<LogFacts> read = read_log_facts(fs, path, ws.display_of(name), run_id);
    if (!read) return read.error();
    LogFacts facts = std::move(*read);
    if (before && fs.version_stamp(path) == before) {
        write_stamped_cache(fs, ws, kProgressFactsName, *before, encode_facts(run_id, facts));
    }
    return facts;
}

void advance_log_facts(const FileSystem& fs, const WorkspacePaths& ws, const std::string& stamp_before,
                       const std::string& stamp_after, const std::vector<YamlValue>& appended) {
    const std::optional<std::string> body = read_stamped_cache(fs, ws, kProgressFactsName, stamp_before);
    if (!body) return;
    if (const std::optional<std::string> next = advanced(*body, appended)) {
        write_stamped_cache(fs, ws, kProgressFactsName, stamp_after, *next);
    }
}

}  // namespace small
