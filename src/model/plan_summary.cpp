// Plan counts and the task queue for status and emit (see the header).
#include "small/model/plan_summary.hpp"

#include <algorithm>

#include "small/base/text.hpp"
#include "small/model/plan_model.hpp"

namespace small {

namespace {

std::string id_of(const YamlValue& task) {
    if (!task.is_object() || !task.contains("id") || !task["id"].is_string()) return {};
    return task["id"].get<std::string>();
}

}  // namespace

PlanSummary summarize_plan(const YamlValue& plan, std::size_t actionable_limit) {
    PlanSummary s;
    for (const char* known : {"pending", "in_progress", "blocked", "completed"}) s.tasks_by_status[known] = 0;
    if (!plan.is_object() || !plan.contains("tasks") || !plan["tasks"].is_array()) return s;
    const YamlValue& tasks = plan["tasks"];
    std::map<std::string, std::string> status_of;
    for (const YamlValue& t : tasks) status_of.emplace(id_of(t), task_status(t));
    std::string first_in_progress, first_blocked, first_pending, first_actionable;
    for (const YamlValue& t : tasks) {
        const std::string status = task_status(t);
        const std::string id = id_of(t);
        ++s.total_tasks;
        ++s.tasks_by_status[status];
        if (status == "in_progress" && first_in_progress.empty()) first_in_progress = id;
        if (status == "blocked" && first_blocked.empty()) first_blocked = id;
        if (status != "pending") continue;
        if (first_pending.empty()) first_pending = id;
        const std::vector<std::string> deps = task_dependencies(t);
        const bool ready = std::all_of(deps.begin(), deps.end(), [&](const std::string& d) {
            const auto it = status_of.find(d);
            return it != status_of.end() && it->second == "completed";
        });
        if (!ready || id.empty()) continue;
        if (first_actionable.empty()) first_actionable = id;
        if (!actionable_limit || s.next_actionable.size() < actionable_limit) s.next_actionable.push_back(id);
    }
    for (const std::string* pick : {&first_in_progress, &first_actionable, &first_blocked, &first_pending}) {
        if (!pick->empty()) {
            s.first_incomplete = *pick;
            break;
        }
    }
    s.all_done = all_tasks_done(plan);
    return s;
}

std::string resolve_next_task(const PlanSummary* plan, std::string_view handoff_current_task) {
    const std::string current(trim(handoff_current_task));
    if (!plan) return current;
    if (!plan->next_actionable.empty()) return plan->next_actionable.front();
    if (!plan->first_incomplete.empty()) return plan->first_incomplete;
    if (!current.empty()) return current;
    return plan->all_done ? std::string(kRunCompleteText) : std::string();
}

}  // namespace small
