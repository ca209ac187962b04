// JSON of the run and archive commands (see run.hpp).
#include "small/report/run.hpp"

#include <algorithm>

namespace small {

namespace {

using nlohmann::json;

json dirty_json(const SnapshotMeta& m) { return m.git_dirty ? json(*m.git_dirty) : json(); }

json meta_json(const SnapshotMeta& m) {
    return {{"replayId", m.replay_id},       {"created_at", m.created_at}, {"git_sha", m.git_sha},
            {"git_dirty", dirty_json(m)},      {"branch", m.branch},         {"cli_version", m.cli_version},
            {"workspace_kind", m.workspace_kind}, {"source_dir", m.source_dir}};
}

void put_if(json& j, const char* key, const std::string& value) {
    if (!value.empty()) j[key] = value;
}

}  // namespace

std::vector<std::string> snapshot_artifact_paths(const SnapshotInfo& s) {
    std::vector<std::string> out;
    if (s.has_meta) out.push_back(s.dir + "/meta.json");
    for (ArtifactType t : {ArtifactType::Intent, ArtifactType::Plan, ArtifactType::Progress, ArtifactType::Handoff,
                           ArtifactType::Constraints}) {
        const std::string name = artifact_file_name(t);
        if (std::find(s.files.begin(), s.files.end(), name) != s.files.end()) out.push_back(s.dir + "/" + name);
    }
    return out;
}

json run_snapshot_json(const RunSnapshotResult& r) {
    return {{"replayId", r.replay_id}, {"dir", r.dir}, {"replaced", r.replaced}, {"meta", meta_json(r.meta)}};
}

json run_list_json(const RunListResult& r) {
    json runs = json::array();
    for (const SnapshotInfo& s : r.runs) {
        json j = {{"created_at", s.meta.created_at}, {"replayId", s.name}};
        put_if(j, "summary", s.summary);
        put_if(j, "git_sha", s.meta.git_sha);
        j["git_dirty"] = dirty_json(s.meta);
        put_if(j, "branch", s.meta.branch);
        put_if(j, "problem", s.problem);
        runs.push_back(std::move(j));
    }
    return {{"runs", std::move(runs)}, {"store", r.store}, {"total", r.total}};
}

json run_show_json(const RunShowResult& r) {
    const SnapshotInfo& s = r.info;
    json j = {{"replayId", s.name}, {"meta", meta_json(s.meta)}, {"artifacts", snapshot_artifact_paths(s)}};
    put_if(j, "summary", s.summary);
    if (!s.next_steps.empty()) j["next_steps"] = s.next_steps;
    j["dir"] = s.dir;
    if (r.has_progress) {
        json p = {{"entries", r.progress.entries}, {"run_entries", r.run_entries}};
        put_if(p, "latest", r.progress.latest);
        j["progress"] = std::move(p);
    }
    return j;
}

json run_diff_json(const RunDiffResult& r) {
    json files = json::array();
    for (const RunFileDiff& f : r.files) {
        json j = {{"name", f.name}, {"changed", f.changed}, {"added", f.added}, {"removed", f.removed}};
        put_if(j, "diff", f.diff);
        files.push_back(std::move(j));
    }
    const RunProgressDiff& p = r.progress;
    json progress = {{"entries_before", p.entries_before},
                     {"entries_after", p.entries_after},
                     {"entry_delta", static_cast<long long>(p.entries_after) - static_cast<long long>(p.entries_before)},
                     {"changed", p.changed}};
    if (!p.completed_delta.empty()) progress["completed_delta"] = p.completed_delta;
    put_if(progress, "latest_before", p.latest_before);
    put_if(progress, "latest_after", p.latest_after);
    put_if(progress, "diff", p.diff);
    return {{"from", r.from}, {"to", r.to}, {"files", std::move(files)}, {"progress", std::move(progress)}};
}

json run_checkout_json(const RunCheckoutResult& r) {
    return {{"replayId", r.replay_id},     {"snapshot", r.name},   {"previous_replay_id", r.previous_replay_id},
            {"restored", r.restored},      {"unchanged", r.unchanged}, {"kept", r.kept},
            {"backup", r.backup_dir},      {"entry", r.entry}};
}

json archive_json(const ArchiveResult& r) {
    json files = json::array();
    for (const ArchivedFile& f : r.files) files.push_back({{"name", f.name}, {"sha256", f.sha256}, {"bytes", f.bytes}});
    return {{"dir", r.dir},       {"replayId", r.replay_id}, {"archived_at", r.archived_at},
            {"files", std::move(files)}, {"replaced", r.replaced}};
}

json archive_verify_json(const ArchiveVerifyResult& r) {
    json files = json::array();
    for (const ArchiveCheck& c : r.files) {
        json j = {{"name", c.name}, {"status", c.status}};
        put_if(j, "expected", c.expected);
        put_if(j, "actual", c.actual);
        files.push_back(std::move(j));
    }
    return {{"dir", r.dir}, {"replayId", r.replay_id}, {"verified", r.ok()}, {"files", std::move(files)}};
}

}  // namespace small
