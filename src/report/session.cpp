// The session commands' JSON bodies (see the header).
#include "small/report/session.hpp"

#include "small/model/replay_id.hpp"

namespace small {

nlohmann::json sorted_json(const YamlValue& v) { return nlohmann::json::parse(v.dump()); }

namespace {

nlohmann::json sorted_list(const std::vector<YamlValue>& values) {
    nlohmann::json out = nlohmann::json::array();
    for (const YamlValue& v : values) out.push_back(sorted_json(v));
    return out;
}

nlohmann::json summary_json(const TaskSummary& t) {
    return {{"id", t.id}, {"title", t.title}, {"status", t.status.word()}, {"depends_on", t.depends_on}};
}

}  // namespace

nlohmann::json gitignore_json(const GitignoreUpdate& update) {
    return {{"file", update.path}, {"created", update.created()}, {"added", update.added}};
}

nlohmann::json init_json(const InitResult& r) {
    nlohmann::json written = nlohmann::json::array();
    for (const std::string& name : r.written) written.push_back(small_relative(name));
    nlohmann::json doc = {
        {"workspace", r.root},
        {"small_dir", r.small_dir},
        {"written", written},
        {"progress_kept", r.progress_kept},
        {"replay_id", r.replay_id},
        {"progress_entry", sorted_json(r.progress_entry)},
        {"agents", {{"file", r.agents_path}, {"action", std::string(agents_action_name(r.agents))}}},
        {"gitignore", gitignore_json(r.gitignore)},
    };
    doc["warnings"] = r.warnings;
    if (!r.outer_workspace.empty()) doc["outer_workspace"] = r.outer_workspace;
    if (!r.previous_replay_id.empty()) doc["previous_replay_id"] = r.previous_replay_id;
    if (!r.snapshot_dir.empty()) doc["snapshot"] = r.snapshot_dir;
    return doc;
}

nlohmann::json plan_json(const PlanResult& r, const WorkspacePaths& ws) {
    nlohmann::json doc = {{"workspace", ws.root},   {"changed", r.changed},
                          {"created", r.created}, {"messages", r.messages}, {"entries", sorted_list(r.entries)},
                          {"replay_id", r.replay_id}, {"pinned_run", r.pinned_run}};
    if (!r.added_task_id.empty()) doc["added_task_id"] = r.added_task_id;
    if (!r.added_task_ids.empty()) doc["added_task_ids"] = r.added_task_ids;
    doc["warnings"] = r.warnings;
    return doc;
}

nlohmann::json progress_add_json(const ProgressAddResult& r, const WorkspacePaths& ws) {
    return {{"workspace", ws.root},
            {"entry", sorted_json(r.entry)},  // keys sorted, as the reference prints them
            {"task_exists_in_plan", r.task_exists_in_plan},
            {"plan_status", r.meta_task ? nlohmann::json() : nlohmann::json(r.plan_status.word())},
            {"plan_updated", r.plan_updated},
            {"warnings", r.warnings}};
}

nlohmann::json progress_migrate_json(const ProgressMigrateResult& r, bool dry_run) {
    nlohmann::json changes = nlohmann::json::array();
    for (const TimestampChange& c : r.changes) changes.push_back({{"index", c.index}, {"before", c.before}, {"after", c.after}});
    return {{"file", r.file},       {"entries", r.entries}, {"changed", r.changes.size()},
            {"changes", changes},   {"written", r.written}, {"dry_run", dry_run}};
}

nlohmann::json checkpoint_json(const CheckpointResult& r, const WorkspacePaths& ws) {
    const std::string task = r.entry["task_id"].get<std::string>();
    const std::string status = r.entry["status"].get<std::string>();
    return {{"task_id", task},
            {"status", status},
            {"progress_entry", sorted_json(r.entry)},
            {"files", {"plan.small.yml", "progress.small.yml"}},
            {"validated", true},
            {"workspace", ws.root},
            {"plan_status", status},
            {"previous_status", r.previous_status.word()},
            {"checkpoint", "checkpoint: " + task + " -> " + status + " at " + r.timestamp},
            {"checkpoint_at", r.timestamp},
            {"replay_id", r.replay_id},
            {"warnings", r.warnings}};
}

std::string unsettled_warning(const std::vector<UnsettledTask>& unsettled) {
    const std::size_t n = unsettled.size();
    if (n == 0) return "";
    return std::to_string(n) + " task" + (n == 1 ? "" : "s") + " of the current run " + (n == 1 ? "has" : "have") +
           " progress but " + (n == 1 ? "is" : "are") + " not completed, blocked or cancelled; the handoff names " +
           (n == 1 ? "it" : "them") + " as next steps";
}

nlohmann::json handoff_json(const HandoffResult& r, const WorkspacePaths& ws) {
    nlohmann::json unsettled = nlohmann::json::array();
    for (const UnsettledTask& t : r.unsettled) {
        unsettled.push_back({{"id", t.id}, {"title", t.title}, {"plan_status", t.plan_status.word()},
                             {"last_status", t.last_status.word()}});
    }
    std::vector<std::string> warnings = r.warnings;
    if (const std::string warning = unsettled_warning(r.unsettled); !warning.empty()) warnings.insert(warnings.begin(), warning);
    return {{"workspace", ws.root},
            {"file", ws.path_of(kHandoffFileName)},
            {"replay_id", r.replay_id},
            {"source", r.source},
            {"pinned_run", r.pinned_run},
            {"unsettled_tasks", unsettled},
            {"warnings", warnings},
            {"handoff", sorted_json(r.handoff)}};
}

nlohmann::json reset_json(const ResetResult& r, const WorkspacePaths& ws) {
    return {{"workspace", ws.root},
            {"reset", r.reset_files},
            {"replay_id", r.replay_id},
            {"previous_replay_id", r.previous_replay_id},
            {"snapshot", r.snapshot_dir},
            {"entry", sorted_json(r.entry)},
            {"handoff", sorted_json(r.handoff)}};
}

nlohmann::json plan_view_json(const PlanView& v) {
    nlohmann::json tasks = nlohmann::json::array();
    for (const TaskSummary& t : v.tasks) tasks.push_back(summary_json(t));
    return {{"tasks", tasks}, {"next_task", v.next_task ? nlohmann::json(*v.next_task) : nullptr}};
}

nlohmann::json task_detail_json(const TaskDetail& d) {
    nlohmann::json deps = nlohmann::json::array();
    for (const TaskDependency& dep : d.dependencies) deps.push_back({{"id", dep.id}, {"status", dep.status.word()}});
    nlohmann::json task = sorted_json(d.task);
    task["status"] = d.summary.status.word();
    return {{"tasks", nlohmann::json::array({task})},
            {"dependencies", deps},
            {"dependents", d.dependents},
            {"run_id", d.run_id},
            {"entries", sorted_list(d.entries.entries)},
            {"more_entries", d.entries.more}};
}

nlohmann::json entry_list_json(const EntryList& list, const WorkspacePaths& ws) {
    return {{"entries", sorted_list(list.entries)}, {"more", list.more}, {"workspace", ws.root}};
}

nlohmann::json replay_id_json(const ReplayIdReport& r) {
    return {{"replay_id", r.manifest_id},
            {"protocol_version", std::string(kProtocolVersion)},
            {"run_replay_id", r.run_id.empty() ? nlohmann::json() : nlohmann::json(r.run_id)},
            {"warnings", r.explanation.empty() ? std::vector<std::string>{} : std::vector<std::string>{r.explanation}}};
}

}  // namespace small
