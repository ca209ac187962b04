// `small status --brief` (see the header).
#include "small/ops/status_brief.hpp"

#include <algorithm>

#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/plan_summary.hpp"
#include "small/store/plan_cache.hpp"
#include "small/store/progress_query.hpp"

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

BriefTask task_of(const PlanTaskOutline& t) { return {t.id, t.title, t.status}; }

void read_plan(const FileSystem& fs, const WorkspacePaths& ws, ResumeBrief& b, const std::string& handoff_task) {
    Result<std::optional<std::vector<PlanTaskOutline>>> tasks = load_plan_outline(fs, ws);
    if (!tasks) {
        b.problems.push_back(tasks.error().describe());
        return;
    }
    if (!*tasks) return;
    const std::vector<PlanTaskOutline>& plan = **tasks;
    const PlanSummary summary = summarize_plan(plan, 0);
    b.total_tasks = summary.total_tasks;
    b.completed_tasks = summary.tasks_by_status.at("completed");
    const auto find = [&](const std::string& id) {
        return std::find_if(plan.begin(), plan.end(), [&](const PlanTaskOutline& t) { return t.id == id; });
    };
    auto current = std::find_if(plan.begin(), plan.end(), [](const PlanTaskOutline& t) {
        return t.status == "in_progress" && !t.id.empty();
    });
    if (current == plan.end() && !handoff_task.empty()) {
        current = find(handoff_task);
        if (current != plan.end() && (current->status == "completed" || current->status == "cancelled")) {
            current = plan.end();
        }
    }
    if (current != plan.end()) b.current = task_of(*current);
    for (const std::string& id : summary.next_actionable) {
        if (!b.current || b.current->id != id) b.next.push_back(task_of(*find(id)));
    }
    for (const PlanTaskOutline& t : plan) {
        if (t.status == "blocked" && !t.id.empty()) b.blocked.push_back(task_of(t));
    }
}

// Returns the handoff's current task id.
std::string read_handoff(const FileSystem& fs, const WorkspacePaths& ws, ResumeBrief& b) {
    const std::optional<Document> doc = load_if_present(fs, ws, ArtifactType::Handoff, b);
    if (!doc) return "";
    b.handoff_summary = std::string(trim(doc->root().find("summary").as_string()));
    const NodeRef resume = doc->root().find("resume");
    const NodeRef steps = resume.find("next_steps");
    for (std::size_t i = 0; steps.is_sequence() && i < steps.size(); ++i) {
        const std::string step(trim(steps.item(i).as_string()));
        if (!step.empty()) b.handoff_next_steps.push_back(step);
    }
    return std::string(trim(resume.find("current_task_id").as_string()));
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

void read_recent(const FileSystem& fs, const WorkspacePaths& ws, const BriefOptions& o, ResumeBrief& b) {
    if (!fs.file_exists(ws.path_of(artifact_file_name(ArtifactType::Progress)))) return;
    EntryQuery q;
    q.limit = o.recent;
    q.signal_only = true;
    Result<EntryList> list = query_entries(fs, ws, q);
    if (!list) {
        b.problems.push_back(list.error().describe());
        return;
    }
    for (const YamlValue& e : list->entries) {
        const ProgressItem item = progress_item_of(e);
        b.recent.push_back({item.timestamp, item.task_id, item.status,
                            std::string(trim(item.evidence.empty() ? item.notes : item.evidence))});
    }
}

NextAction action(std::string tool, std::vector<NextAction::Arg> args = {}) {
    return NextAction{std::move(tool), std::move(args), ""};
}

// The one step that moves the run forward from here.
NextAction next_action(const ResumeBrief& b) {
    if (b.current) {
        return action("checkpoint", {{"task", b.current->id},
                                     {"status", "completed"},
                                     {"evidence", "<what proves it is done>", true}});
    }
    if (!b.next.empty()) return action("checkpoint", {{"task", b.next.front().id}, {"status", "in_progress"}});
    if (!b.blocked.empty()) {
        return action("checkpoint", {{"task", b.blocked.front().id},
                                     {"status", "in_progress"},
                                     {"evidence", "<what unblocked it>", true}});
    }
    if (b.total_tasks == 0) return action("plan", {{"add", "<first task>", true}});
    if (b.completed_tasks > 0 || !b.recent.empty()) return action("handoff");
    return action("status");  // tasks exist, none ready: their dependencies need a look
}

}  // namespace

std::string cli_line(const NextAction& a) {
    if (a.tool.empty()) return a.note;
    std::string line = "small " + (a.tool == "progress_add" ? std::string("progress add") : a.tool);
    for (const NextAction::Arg& arg : a.args) {
        std::string flag = arg.name;
        std::replace(flag.begin(), flag.end(), '_', '-');
        line += " --" + flag;
        if (arg.value.empty()) continue;  // a switch (--strict)
        line += ' ';
        if (arg.placeholder) line.append(1, '"').append(arg.value).append(1, '"');
        else line += shell_quote(arg.value);
    }
    return line;
}

Result<ResumeBrief> resume_brief(const FileSystem& fs, const WorkspacePaths& ws, const BriefOptions& o) {
    if (Status s = require_small_dir(fs, ws); !s) return s.error();
    ResumeBrief b;
    read_human_files(fs, ws, b);
    if (fs.file_exists(ws.path_of(kWorkspaceFileName))) {
        Result<WorkspaceMetadata> meta = load_workspace_metadata(fs, ws);
        if (!meta) b.problems.push_back(meta.error().describe());
        else if (meta->run_id_error) b.problems.push_back(meta->run_id_error->describe());
        else b.run_id = meta->run_replay_id;
    }
    const std::string handoff_task = read_handoff(fs, ws, b);
    read_plan(fs, ws, b, handoff_task);
    read_recent(fs, ws, o, b);
    // Broken files come first.
    b.next_action = b.problems.empty() ? next_action(b) : action("check", {{"strict", ""}});
    b.next_command = cli_line(b.next_action);
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
