// `small status` (see the header).
#include "small/ops/inspect/status.hpp"

#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"
#include "small/store/plan_cache.hpp"
#include "small/domain/resume_state.hpp"

namespace small {

namespace {

// The handoff's resume.current_task_id ("" when absent or not a string).
std::string handoff_current_task(const Document& handoff) {
    return std::string(trim(handoff.root().find("resume").find("current_task_id").as_string()));
}

// From the plan's cached outline: status runs on every agent turn.
void read_plan(const FileSystem& fs, const WorkspacePaths& ws, const StatusOptions& o, StatusReport& r) {
    Result<std::optional<std::vector<PlanTaskOutline>>> tasks = load_plan_outline(fs, ws);
    if (!tasks) {
        r.problems.push_back(tasks.error());
        return;
    }
    if (*tasks) r.plan = summarize_plan(**tasks, o.tasks);
}

void read_recent(const FileSystem& fs, const WorkspacePaths& ws, const StatusOptions& o, StatusReport& r) {
    EntryQuery q;
    q.limit = o.recent;
    q.signal_only = !o.audit;
    Result<EntryList> list = query_entries(fs, ws, q);
    if (!list) {
        r.problems.push_back(list.error());
        return;
    }
    for (const YamlValue& e : list->entries) r.recent.push_back(progress_item_of(e));
    r.more_progress = list->more;
}

// The next task and blocked reasons from the resume point (D18), never from
// a handoff that may be stale; and whether it is.
// Next actionable: what `small ready` offers (no task another agent holds
// or another side settled), so it never contradicts the next task.
void read_resume(const FileSystem& fs, const WorkspacePaths& ws, const StatusOptions& o, StatusReport& r) {
    Result<ResumeState> state = load_resume_state(fs, ws, r.replay_id);
    if (!state) {
        r.problems.push_back(state.error());
        return;
    }
    const ResumePoint& p = state->point;
    r.next_task = p.kind == ResumeKind::Complete ? std::string(kRunCompleteText)
                  : p.action.stop.empty()        ? p.current
                                                 : std::string();
    if (!p.action.stop.empty()) {
        r.stop = next_step(*state).note;
        r.stop_task = p.current;
    }
    if (r.plan && !state->taken.empty()) {
        std::vector<std::string>& ids = r.plan->next_actionable;
        ids = summarize_plan(state->plan, 0).next_actionable;
        std::erase_if(ids, [&](const std::string& id) { return state->taken.count(id) > 0; });
        if (o.tasks && ids.size() > o.tasks) ids.resize(o.tasks);
    }
    for (const BlockedTask& t : blocked_tasks(state->plan, state->facts.tasks)) r.blocked.push_back({t.id, t.reason});
    r.handoff_recorded = state->recorded.has_value();
    r.handoff_stale = state->stale;
}

}  // namespace

Result<StatusReport> status_command(const FileSystem& fs, const WorkspacePaths& ws, const StatusOptions& o) {
    StatusReport r;
    // No workspace is a report (as the reference gives it), not a failure;
    // a .small that is something else than a folder still is one.
    const bool nothing_there =
        !fs.directory_exists(ws.small_dir) && !fs.file_exists(ws.small_dir) && !fs.is_symlink(ws.small_dir);
    if (nothing_there) return r;
    if (Status s = require_small_dir(fs, ws); !s) return s.error();
    r.small_dir_exists = true;
    for (std::size_t i = 0; i < kArtifactTypes.size(); ++i) {
        r.artifacts[i] = fs.file_exists(ws.artifact_path(kArtifactTypes[i]));
    }
    const auto present = [&](ArtifactType t) { return r.artifacts[static_cast<std::size_t>(t)]; };
    if (present(ArtifactType::Plan)) read_plan(fs, ws, o, r);
    if (present(ArtifactType::Progress)) read_recent(fs, ws, o, r);
    std::string current;
    if (present(ArtifactType::Handoff)) {
        const std::string name = artifact_file_name(ArtifactType::Handoff);
        Result<Document> handoff = load_yaml_file(fs, ws.path_of(name), ws.display_of(name));
        if (handoff) current = handoff_current_task(*handoff);
        else r.problems.push_back(handoff.error());
    }
    if (fs.file_exists(ws.path_of(kWorkspaceFileName))) {
        Result<WorkspaceMetadata> meta = load_workspace_metadata(fs, ws);
        if (!meta) r.problems.push_back(meta.error());
        else if (meta->run_id_error) r.problems.push_back(*meta->run_id_error);
        else r.replay_id = meta->run_replay_id;
    }
    if (!r.plan || !present(ArtifactType::Progress)) {
        r.next_task = resolve_next_task(r.plan ? &*r.plan : nullptr, current);
        return r;
    }
    read_resume(fs, ws, o, r);
    return r;
}

}  // namespace small
