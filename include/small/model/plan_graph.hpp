// The plan as a dependency graph, for the views (`small graph`, `small
// board`, `small report`): each task's status as the work shows it, the
// ready set (D18), the dependency cycles lint refuses (INV-P7, still drawn)
// and the critical path: the longest chain of dependencies among the tasks
// still to do, the order that bounds how soon the plan can be finished.
#pragma once

#include <string>
#include <vector>

#include "small/model/plan_summary.hpp"
#include "small/model/resume_point.hpp"
#include "small/model/task_status.hpp"

namespace small {

struct GraphTask {
    std::string id, title;
    // The plan's status when settled, else the newest work entry's of the
    // run, else the plan's (blank is pending).
    WrittenStatus status;
    bool ready = false;     // may be started now (ready_task_ids: D18), and not already in_progress
    bool critical = false;  // on the critical path
    bool in_cycle = false;  // part of a dependency cycle
    std::string claim;      // a live claim: "alice until 14:05 UTC" ("" none)
    bool mine = false;      // the claim is the asking agent's
    std::string blocked_reason;  // a blocked task's: the newest entry that blocked it gave it ("" none)
};

struct GraphEdge {
    std::string from, to;   // `to` depends on `from`
    bool missing = false;   // `from` is not a task of the plan
    bool critical = false;  // both ends on the critical path, in its order
    bool in_cycle = false;  // both ends in the same cycle
};

struct PlanGraph {
    std::vector<GraphTask> tasks;                   // plan order (tasks without an id left out)
    std::vector<GraphEdge> edges;                   // by dependent (plan order), then its dependencies' order
    std::vector<std::string> critical_path;         // first task to last; empty unless a chain of 2+ open tasks exists
    std::vector<std::vector<std::string>> cycles;   // each cycle's tasks, plan order
    std::vector<std::string> missing;               // dependencies the plan does not have, first mention order
};

// Linear in tasks and dependencies (no recursion: a 100,000-task chain is fine).
PlanGraph plan_graph(const std::vector<PlanTaskOutline>& plan, const WorkFacts& facts);

// The column a task's status puts it in on a board: the five statuses in
// their board order (pending, in_progress, blocked, completed, cancelled),
// then any other word a plan uses, in order of first use.
std::vector<std::string> board_columns(const PlanGraph& graph);

}  // namespace small
