// The workspace's resume point and the handoff's freshness (see the header).
#include "small/store/resume_state.hpp"

#include <algorithm>

#include "small/store/local_work.hpp"
#include "small/store/plan_cache.hpp"

namespace small {

namespace {

// Cache body: "<run id> <work entries> <newest work> <entries>", then one
// line a task: id, last status, seq, blocked reason.
std::string encode(const std::string& run_id, const LogFacts& f) {
    std::string out;
    append_cache_field(out, run_id);
    out += ' ' + std::to_string(f.work_entries) + ' ';
    append_cache_field(out, f.newest_work);
    out += ' ' + std::to_string(f.entries) + '\n';
    for (const auto& [id, w] : f.tasks) {
        for (const std::string* field : {&id, &w.last_status}) {
            append_cache_field(out, *field);
            out += ' ';
        }
        out += std::to_string(w.last_seq) + ' ';
        append_cache_field(out, w.blocked_reason);
        out += '\n';
    }
    return out;
}

bool is_count(const std::string& s) {
    return !s.empty() && s.size() <= 18 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The facts and the run id they were computed for.
std::optional<std::pair<std::string, LogFacts>> decode(std::string_view body) {
    LogFacts f;
    std::string run_id;
    bool first = true;
    const bool ok = decode_cache_lines(body, [&](std::vector<std::string>& fields) {
        if (first) {
            first = false;
            if (fields.size() != 4 || !is_count(fields[1]) || !is_count(fields[3])) return false;
            run_id = fields[0];
            f.work_entries = std::stoull(fields[1]);
            f.newest_work = fields[2];
            f.entries = std::stoull(fields[3]);
            return true;
        }
        if (fields.size() != 4 || !is_count(fields[2])) return false;
        f.tasks[fields[0]] = {fields[1], std::stoull(fields[2]), fields[3]};
        return true;
    });
    if (!ok || first) return std::nullopt;
    return std::make_pair(std::move(run_id), std::move(f));
}

}  // namespace

Result<LogFacts> cached_log_facts(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id) {
    const std::string name = artifact_file_name(ArtifactType::Progress);
    const std::string path = ws.path_of(name);
    if (!fs.file_exists(path)) return LogFacts{};
    const std::optional<std::string> before = fs.version_stamp(path);
    if (before) {
        if (std::optional<std::string> body = read_stamped_cache(fs, ws, kProgressFactsName, *before)) {
            if (auto cached = decode(*body); cached && cached->first == run_id) return std::move(cached->second);
        }
    }
    Result<Document> doc = load_yaml_file(fs, path, ws.display_of(name));
    if (!doc) return doc.error();
    LogFacts facts = log_facts(doc->root(), run_id);
    if (before && fs.version_stamp(path) == before) {
        write_stamped_cache(ws, kProgressFactsName, *before, encode(run_id, facts));
    }
    return facts;
}

void advance_log_facts(const FileSystem& fs, const WorkspacePaths& ws, const std::string& stamp_before,
                       const std::string& stamp_after, const std::vector<YamlValue>& appended) {
    const std::optional<std::string> body = read_stamped_cache(fs, ws, kProgressFactsName, stamp_before);
    if (!body) return;
    auto cached = decode(*body);
    if (!cached) return;
    auto& [run_id, facts] = *cached;
    for (const YamlValue& e : appended) add_entry_facts(facts, entry_text(e), ++facts.entries, run_id);
    write_stamped_cache(ws, kProgressFactsName, stamp_after, encode(run_id, facts));
}

Result<ResumeState> load_resume_state(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id) {
    ResumeState s;
    Result<std::optional<std::vector<PlanTaskOutline>>> plan = load_plan_outline(fs, ws);
    if (!plan) return plan.error();
    if (*plan) s.plan = std::move(**plan);
    Result<LogFacts> facts = cached_log_facts(fs, ws, run_id);
    if (!facts) return facts.error();
    s.facts = std::move(*facts);
    const WorkFacts mine = with_local_work(fs, ws, run_id, s.facts.tasks);
    s.point = resume_point(s.plan, mine);
    s.now = handoff_source(s.plan, s.facts, mine);
    const std::string handoff = ws.path_of(artifact_file_name(ArtifactType::Handoff));
    s.handoff_exists = fs.file_exists(handoff);
    if (s.handoff_exists) {
        if (Result<FileRange> head = fs.read_range(handoff, 0, 512)) {
            s.recorded = parse_source_comment(head->bytes);
            s.stale = staleness(s.recorded, s.now);
        }
    }
    return s;
}

}  // namespace small
