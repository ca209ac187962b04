// What `status` and `emit` report about the plan: task counts by status,
// the next actionable tasks and the task to resume. Read-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/doc/document.hpp"
#include "small/model/task_status.hpp"

namespace small {

// What `next_task` says when every task is done.
inline constexpr std::string_view kRunCompleteText = "No active task (run complete)";

// The statuses tasks_by_status always counts, in the order `status` prints them.
inline constexpr TaskStatus kCountedStatuses[] = {TaskStatus::Pending, TaskStatus::InProgress, TaskStatus::Blocked,
                                                  TaskStatus::Completed};

struct PlanSummary {
    std::size_t total_tasks = 0;
    // kCountedStatuses always present; any other status (cancelled, or a
    // hand-written one) gets its own key, its word.
    std::map<std::string, std::size_t> tasks_by_status;
    // Pending tasks whose dependencies (depends_on or dependencies, D6) all
    // exist and are completed, by priority then plan order; at most `limit`.
    std::vector<std::string> next_actionable;
    // First in_progress task, else the first actionable, else first blocked,
    // else first pending; "" when none.
    std::string first_incomplete;
    bool all_done = false;  // tasks exist and every one is completed or cancelled

    std::size_t count(TaskStatus status) const;  // 0 when no task has it
};

// What the summary needs of one task; every task of the plan has one, in
// plan order (a task without a string id has an empty id).
struct PlanTaskOutline {
    std::string id;
    WrittenStatus status;                 // trimmed, lower-cased; blank is pending
    std::vector<std::string> depends_on;  // depends_on then dependencies (D6), no repeats
    std::string title;                    // "" when absent or not a string
    std::string priority;                 // `priority` as written (scalar), "" when absent
    bool operator==(const PlanTaskOutline&) const = default;
};

// A `priority` value as a rank: an integer, or P<integer> (P0 first, as in
// most trackers); nullopt for none or anything else (sorted after ranked tasks).
std::optional<std::int64_t> task_priority(std::string_view written);
// The order work is suggested in (D19): ranked tasks first, lowest rank
// first, then the rest; plan order among equals (a stable sort).
void sort_by_priority(std::vector<const PlanTaskOutline*>& tasks);

// The outline of a parsed plan (its root mapping); empty without a tasks list.
std::vector<PlanTaskOutline> outline_plan(NodeRef plan);

// The summary of a plan's outline. `actionable_limit` 0 means no limit.
PlanSummary summarize_plan(const std::vector<PlanTaskOutline>& tasks, std::size_t actionable_limit);
// The same, of a parsed plan (its root mapping).
PlanSummary summarize_plan(NodeRef plan, std::size_t actionable_limit);

// The task to work on next: the first actionable task, else the first
// incomplete one, else the handoff's current task, else kRunCompleteText
// when every task is done. Without a plan: the handoff's current task.
std::string resolve_next_task(const PlanSummary* plan, std::string_view handoff_current_task);

}  // namespace small
