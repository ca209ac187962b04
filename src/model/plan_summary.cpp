// Plan counts and the task queue for status and emit (see the header).
#include "small/model/plan_summary.hpp"

#include <algorithm>

#include "small/base/text.hpp"

namespace small {

namespace {

// The rules of plan_model.hpp (task_status, task_dependencies), on a node.
std::string status_of(NodeRef task) {
    const std::string s = lower_ascii(trim(task.find("status").as_string()));
    return s.empty() ? "pending" : s;
}

std::vector<std::string> dependencies_of(NodeRef task) {
    std::vector<std::string> out;
    for (const char* key : {"depends_on", "dependencies"}) {
        const NodeRef list = task.find(key);
        for (std::size_t i = 0; list.is_sequence() && i < list.size(); ++i) {
            if (list.item(i).kind() != NodeKind::String) continue;
            std::string id(list.item(i).as_string());
            if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(std::move(id));
        }
    }
    return out;
}

}  // namespace

PlanSummary summarize_plan(NodeRef plan, std::size_t actionable_limit) {
    PlanSummary s;
    for (const char* known : {"pending", "in_progress", "blocked", "completed"}) s.tasks_by_status[known] = 0;
    const NodeRef tasks = plan.find("tasks");
    if (!tasks.is_sequence()) return s;
    std::map<std::string, std::string, std::less<>> status_by_id;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        status_by_id.emplace(std::string(tasks.item(i).find("id").as_string()), status_of(tasks.item(i)));
    }
    std::string first_in_progress, first_blocked, first_pending, first_actionable;
    bool all_done = tasks.size() > 0;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const NodeRef t = tasks.item(i);
        const std::string status = status_of(t);
        const std::string id(t.find("id").as_string());
        ++s.total_tasks;
        ++s.tasks_by_status[status];
        all_done = all_done && (status == "completed" || status == "cancelled");
        if (status == "in_progress" && first_in_progress.empty()) first_in_progress = id;
        if (status == "blocked" && first_blocked.empty()) first_blocked = id;
        if (status != "pending") continue;
        if (first_pending.empty()) first_pending = id;
        const std::vector<std::string> deps = dependencies_of(t);
        const bool ready = std::all_of(deps.begin(), deps.end(), [&](const std::string& d) {
            const auto it = status_by_id.find(d);
            return it != status_by_id.end() && it->second == "completed";
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
    s.all_done = all_done;
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
