// `small status --brief` (see the header).
#include "small/ops/inspect/status_brief.hpp"

#include <algorithm>

#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/plan_summary.hpp"
#include "small/store/plan_cache.hpp"
#include "small/domain/progress_query.hpp"
#include "small/domain/resume_state.hpp"
#include "small/domain/progress_entry.hpp"

namespace small {

namespace {

// The parsed artifact, or nothing (a missing file says nothing; a broken one
// becomes a problem with its position).
std::optional<Document> load_if_present(const FileSystem& fs, const WorkspacePaths& ws, ArtifactType t,
                                        ResumeBrief& b) {
    const std::string name = artifact_file_name(t);
    if (!fs.file_exists(ws.path_of(name))) return std::nullopt;
    Result<Document> doc = load_yaml_file(fs, ws.path_of(name), ws.display_of(name));
    if (!doc) {
        b.problems.push_back(doc.error().describe());
        return std::nullopt;
    }
    return std::move(*doc);
}

BriefTask task_of(const PlanTaskOutline& t) { return {t.id, t.title, t.status, "", {}, {}}; }

// The current task's steps and acceptance criteria: the agent sees its work
// (from the plan cache's checklists: no parse of the plan while it is unchanged).
void read_current_work(const FileSystem& fs, const WorkspacePaths& ws, BriefTask& current, ResumeBrief& b) {
    Result<TaskChecklist> list = load_task_checklist(fs, ws, current.id);
    if (!list) {
        b.problems.push_back(list.error().describe());
        return;
    }
    current.steps = std::move(list->steps);
    current.acceptance = std::move(list->acceptance);
}

// Current, next and blocked tasks from the resume point (D18), so the primer
// names the step the handoff would name now, stale handoff or not. A blocked
// reason is shown once: in the Blocked list, or in the stop line when the
// current task waits on a human.
void read_plan(const FileSystem& fs, const WorkspacePaths& ws, const ResumeState& state, ResumeBrief& b) {
    const std::vector<PlanTaskOutline>& plan = state.plan;
    const PlanSummary summary = summarize_plan(plan, 0);
    b.total_tasks = summary.total_tasks;
    b.completed_tasks = summary.count(TaskStatus::Completed);
    const auto find = [&](const std::string& id) {
        return std::find_if(plan.begin(), plan.end(), [&](const PlanTaskOutline& t) { return t.id == id; });
    };
    const std::vector<BlockedTask> blocked = blocked_tasks(plan, state.facts.tasks);
    const auto is_blocked = [&](const std::string& id) {
        return std::any_of(blocked.begin(), blocked.end(), [&](const BlockedTask& t) { return t.id == id; });
    };
    const ResumePoint& point = state.point;
    if (!point.current.empty()) {
        b.current = task_of(*find(point.current));
        if (point.kind == ResumeKind::Work) read_current_work(fs, ws, *b.current, b);
    }
    for (const std::string& id : summary.next_actionable) {
        const bool taken = state.taken.count(id) > 0;
        if ((!b.current || b.current->id != id) && !is_blocked(id) && !taken) b.next.push_back(task_of(*find(id)));
    }
    b.claims = state.claims;
    for (const BlockedTask& t : blocked) {
        b.shown_reasons.push_back(t.reason);
        if (b.current && b.current->id == t.id) continue;
        b.blocked.push_back({t.id, t.title, find(t.id)->status, t.reason.empty() ? "no reason recorded" : t.reason, {}, {}});
    }
}

// The handoff's summary and steps (its current task is the resume point's, D18).
void read_handoff(const FileSystem& fs, const WorkspacePaths& ws, ResumeBrief& b) {
    const std::optional<Document> doc = load_if_present(fs, ws, ArtifactType::Handoff, b);
    if (!doc) return;
    b.handoff_summary = std::string(trim(doc->root().find("summary").as_string()));
    const NodeRef steps = doc->root().find("resume").find("next_steps");
    for (std::size_t i = 0; steps.is_sequence() && i < steps.size(); ++i) {
        const std::string step(trim(steps.item(i).as_string()));
        if (!step.empty()) b.handoff_next_steps.push_back(step);
    }
}

void read_human_files(const FileSystem& fs, const WorkspacePaths& ws, ResumeBrief& b) {
    if (const std::optional<Document> intent = load_if_present(fs, ws, ArtifactType::Intent, b)) {
        b.intent = std::string(trim(intent->root().find("intent").as_string()));
    }
    if (const std::optional<Document> constraints = load_if_present(fs, ws, ArtifactType::Constraints, b)) {
        const NodeRef list = constraints->root().find("constraints");
        for (std::size_t i = 0; list.is_sequence() && i < list.size(); ++i) {
            const std::string id(trim(list.item(i).find("id").as_string()));
            if (!id.empty()) b.constraint_ids.push_back(id);
        }
    }
}

// Work, not bookkeeping: plan edits and claims are left out, an entry's
// default text ("Recorded checkpoint via small checkpoint") says nothing, and
// a blocked reason already shown is not repeated.
void read_recent(const FileSystem& fs, const WorkspacePaths& ws, const BriefOptions& o, ResumeBrief& b) {
    if (!fs.file_exists(ws.artifact_path(ArtifactType::Progress))) return;
    EntryQuery q;
    q.limit = o.recent;
    q.signal_only = true;
    q.work_only = true;
    Result<EntryList> list = query_entries(fs, ws, q);
    if (!list) {
        b.problems.push_back(list.error().describe());
        return;
    }
    for (const YamlValue& e : list->entries) {
        const ProgressItem item = progress_item_of(e);
        std::string text(trim(item.evidence.empty() ? item.notes : item.evidence));
        const bool shown = std::find(b.shown_reasons.begin(), b.shown_reasons.end(), text) != b.shown_reasons.end();
        if (text == kDefaultCheckpointEvidence || text == kDefaultProgressEvidence || shown) text.clear();
        b.recent.push_back({item.timestamp, item.task_id, item.status, std::move(text)});
    }
}

NextAction action(std::string tool, std::vector<NextAction::Arg> args = {}) {
    return NextAction{std::move(tool), std::move(args), "", ""};
}

}  // namespace

Result<ResumeBrief> status_brief_command(const FileSystem& fs, const WorkspacePaths& ws, const BriefOptions& o) {
    if (Status s = require_small_dir(fs, ws); !s) return s.error();
    ResumeBrief b;
    read_human_files(fs, ws, b);
    if (fs.file_exists(ws.path_of(kWorkspaceFileName))) {
        Result<WorkspaceMetadata> meta = load_workspace_metadata(fs, ws);
        if (!meta) b.problems.push_back(meta.error().describe());
        else if (meta->run_id_error) b.problems.push_back(meta->run_id_error->describe());
        else b.run_id = meta->run_replay_id;
    }
    read_handoff(fs, ws, b);
    Result<ResumeState> state = load_resume_state(fs, ws, b.run_id);
    if (!state) {
        b.problems.push_back(state.error().describe());
    } else {
        read_plan(fs, ws, *state, b);
        b.handoff_stale = state->stale;
        if (!state->stale.empty()) b.handoff_next_steps = state->point.steps;  // the handoff's are out of date
        // The Blocked list and the stop line show those already, each reason once.
        std::erase_if(b.handoff_next_steps, [](const std::string& step) { return step.starts_with(kWaitsOnHumanStep); });
    }
    read_recent(fs, ws, o, b);
    // Broken files come first.
    b.next_action = !b.problems.empty() ? action("check", {{"strict", ""}}) : next_step(*state);
    b.next_command = cli_line(b.next_action);
    if (b.next_action.tool == "claim" && !b.next_action.args.empty()) {
        // D19 in team mode: the step beside `Run next: small claim X` says
        // the same (the handoff, shared by every side, says "Start X").
        const std::string start = "Start " + b.next_action.args.front().value;
        for (std::string& step : b.handoff_next_steps) {
            const bool same_task = step.starts_with(start) && (step.size() == start.size() || step[start.size()] == ':' ||
                                                               step[start.size()] == ' ');
            if (same_task) step = "Claim " + step.substr(6) + ", then start it";
        }
    }
    return b;
}

ResumeBrief brief_for_missing_workspace() {
    ResumeBrief b;
    b.has_workspace = false;
    b.problems.push_back("no .small/ workspace here");
    b.next_action = action("init", {{"intent", "<what this run is for>", true}});
    b.next_command = cli_line(b.next_action);
    return b;
}

}  // namespace small
