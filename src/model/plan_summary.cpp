// Plan counts and the task queue for status and emit (see the header).
#include "small/model/plan_summary.hpp"

#include <algorithm>
#include <charconv>

#include "small/base/text.hpp"
#include "small/model/plan_model.hpp"

namespace small {

namespace {

// The rules of plan_model.hpp (task_status, task_dependencies), on a node.
WrittenStatus status_of(NodeRef task) { return normal_task_status(task.find("status").as_string()); }

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

std::vector<PlanTaskOutline> outline_plan(NodeRef plan) {
    std::vector<PlanTaskOutline> out;
    const NodeRef tasks = plan.find("tasks");
    for (std::size_t i = 0; tasks.is_sequence() && i < tasks.size(); ++i) {
        const NodeRef t = tasks.item(i);
        const NodeRef priority = t.find("priority");
        out.push_back({std::string(t.find("id").as_string()), status_of(t), dependencies_of(t),
                       std::string(t.find("title").as_string()),
                       std::string(priority.scalar_text())});
    }
    return out;
}

std::optional<std::int64_t> task_priority(std::string_view written) {
    std::string_view s = trim(written);
    if (!s.empty() && (s[0] == 'P' || s[0] == 'p')) s.remove_prefix(1);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

void sort_by_priority(std::vector<const PlanTaskOutline*>& tasks) {
    std::stable_sort(tasks.begin(), tasks.end(), [](const PlanTaskOutline* a, const PlanTaskOutline* b) {
        const std::optional<std::int64_t> pa = task_priority(a->priority), pb = task_priority(b->priority);
        if (pa.has_value() != pb.has_value()) return pa.has_value();
        return pa && *pa < *pb;
    });
}

PlanSummary summarize_plan(const std::vector<PlanTaskOutline>& tasks, std::size_t actionable_limit) {
    PlanSummary s;
    for (const TaskStatus counted : kCountedStatuses) s.tasks_by_status[std::string(status_name(counted))] = 0;
    std::map<std::string_view, bool> completed_by_id;
    std::map<std::string_view, int> uses;  // issue 41: an id two tasks share is never the next task
    for (const PlanTaskOutline& t : tasks) {
        completed_by_id.emplace(t.id, t.status.is(TaskStatus::Completed));
        ++uses[t.id];
    }
    std::string first_in_progress, first_blocked, first_pending, first_actionable;
    std::vector<const PlanTaskOutline*> actionable;
    bool all_done = !tasks.empty();
    for (const PlanTaskOutline& t : tasks) {
        ++s.total_tasks;
        ++s.tasks_by_status[t.status.word()];
        all_done = all_done && is_done(t.status);
        if (uses[t.id] > 1) continue;
        if (t.status.is(TaskStatus::InProgress) && first_in_progress.empty()) first_in_progress = t.id;
        if (t.status.is(TaskStatus::Blocked) && first_blocked.empty()) first_blocked = t.id;
        if (!t.status.is(TaskStatus::Pending)) continue;
        if (first_pending.empty()) first_pending = t.id;
        const bool ready = std::all_of(t.depends_on.begin(), t.depends_on.end(), [&](const std::string& d) {
            const auto it = completed_by_id.find(d);
            return it != completed_by_id.end() && it->second;
        });
        if (ready && !t.id.empty()) actionable.push_back(&t);
    }
    sort_by_priority(actionable);
    if (!actionable.empty()) first_actionable = actionable.front()->id;
    for (const PlanTaskOutline* t : actionable) {
        if (actionable_limit && s.next_actionable.size() >= actionable_limit) break;
        s.next_actionable.push_back(t->id);
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

std::size_t PlanSummary::count(TaskStatus status) const {
    const auto it = tasks_by_status.find(std::string(status_name(status)));
    return it == tasks_by_status.end() ? 0 : it->second;
}

PlanSummary summarize_plan(NodeRef plan, std::size_t actionable_limit) {
    return summarize_plan(outline_plan(plan), actionable_limit);
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
