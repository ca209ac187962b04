// plan show and progress list (see plan_view.hpp).
#include "small/ops/inspect/plan_show.hpp"

#include <algorithm>

#include "small/store/plan_cache.hpp"
#include "small/model/plan_model.hpp"
#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"

namespace small {

namespace {

Result<YamlValue> load_plan_value(const FileSystem& fs, const WorkspacePaths& ws) {
    if (Status s = require_small_dir(fs, ws); !s) return s.error();
    const std::string name = artifact_file_name(ArtifactType::Plan);
    if (!fs.file_exists(ws.path_of(name))) {
        return Error::system(ws.display_of(name) + " is missing; create it with `small plan --add \"<title>\"`");
    }
    Result<Document> doc = load_yaml_file(fs, ws.path_of(name), ws.display_of(name));
    if (!doc) return doc.error();
    return to_yaml_value(doc->root());
}

TaskSummary summary_of(const YamlValue& task) {
    TaskSummary s;
    if (task.contains("id") && task["id"].is_string()) s.id = task["id"].get<std::string>();
    if (task.contains("title") && task["title"].is_string()) s.title = task["title"].get<std::string>();
    s.status = task_status(task);
    s.depends_on = task_dependencies(task);
    return s;
}

std::vector<YamlValue> tasks_of(const YamlValue& plan) {
    std::vector<YamlValue> out;
    if (!plan.contains("tasks") || !plan["tasks"].is_array()) return out;
    for (const YamlValue& t : plan["tasks"])
        if (t.is_object()) out.push_back(t);
    return out;
}

std::string pinned_run_id(const FileSystem& fs, const WorkspacePaths& ws) {
    Result<WorkspaceMetadata> meta = load_workspace_metadata(fs, ws);
    return meta ? lower_ascii(meta->run_replay_id) : std::string();
}

}  // namespace

Result<PlanView> plan_show_command(const FileSystem& fs, const WorkspacePaths& ws) {
    Result<YamlValue> plan = load_plan_value(fs, ws);
    if (!plan) return plan.error();
    PlanView view;
    for (const YamlValue& t : tasks_of(*plan)) view.tasks.push_back(summary_of(t));
    view.next_task = next_runnable_task(*plan);
    return view;
}

Result<TaskDetail> plan_show_task_command(const FileSystem& fs, const WorkspacePaths& ws, const std::string& raw_id,
                                  std::size_t entry_limit) {
    Result<YamlValue> plan = load_plan_value(fs, ws);
    if (!plan) return plan.error();
    const std::string id(trim(raw_id));
    const std::optional<std::size_t> at = find_task(*plan, id);
    if (!at) return unknown_task_error(plan_index_of(*plan), id, ws, false);

    TaskDetail d;
    d.task = (*plan)["tasks"][*at];
    d.summary = summary_of(d.task);
    d.steps = task_strings(d.task, "steps");
    d.acceptance = task_strings(d.task, "acceptance");
    for (const std::string& dep : d.summary.depends_on) {
        const std::optional<std::size_t> dep_at = find_task(*plan, dep);
        d.dependencies.push_back({dep, dep_at ? task_status((*plan)["tasks"][*dep_at]) : WrittenStatus()});
    }
    for (const YamlValue& t : tasks_of(*plan)) {
        const TaskSummary s = summary_of(t);
        if (std::find(s.depends_on.begin(), s.depends_on.end(), id) != s.depends_on.end()) d.dependents.push_back(s.id);
    }
    d.run_id = pinned_run_id(fs, ws);
    if (fs.file_exists(ws.artifact_path(ArtifactType::Progress))) {
        EntryQuery q;
        q.task = id;
        q.run_id = d.run_id;
        q.limit = entry_limit;
        Result<EntryList> entries = query_entries(fs, ws, q);
        if (!entries) return entries.error();
        d.entries = std::move(*entries);
    }
    return d;
}

}  // namespace small
