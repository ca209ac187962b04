// The work of one repository side by side (`small status --all`, D19): each
// work tree and each local branch is a side; what differs between them is
// computed here, from facts the caller gathered. Pure.
//
// A side's status of a task is the plan's, or, while the plan leaves the
// task open, the status of the task's newest work entry (D18): an agent that
// only logged `in_progress` has started it on that side.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "small/model/plan_summary.hpp"
#include "small/model/resume_point.hpp"

namespace small {

struct SideEntry {
    std::string timestamp, task_id, status, evidence;
};

struct SideTask {
    std::string id, title, status;
    // The task as canonical JSON where a collision must be judged (a task
    // this side added, or the current side's copy of one); "" elsewhere.
    std::string content;
};

struct WorkSide {
    std::string name;      // the branch, or "HEAD (<folder>)" for a detached work tree
    std::string worktree;  // its checkout's folder; "" when read from the branch's commit
    std::string head;      // commit id ("" when none yet)
    bool current = false;  // the checkout the command runs in
    bool has_workspace = false;          // it has the workspace's plan
    std::vector<SideTask> tasks;         // plan order
    std::optional<SideEntry> newest;     // the log's last entry
    std::size_t unmerged = 0;            // its entries the current side's log lacks
    std::vector<std::string> added;      // task ids its merge base with the current side lacks
    std::string problem;                 // why it could not be read ("" when it was)
};

// A task whose status is not the same on every side that has the workspace.
struct TaskDifference {
    std::string id, title;
    std::vector<std::string> statuses;  // one per side, "" where the side's plan lacks it
};

// A task id two sides added with different content: the merge of the two
// would conflict on it (or keep the wrong one).
struct IdCollision {
    std::string id;
    struct Holder {
        std::size_t side;
        std::string title;
    };
    std::vector<Holder> holders;  // side order
};

struct SidesComparison {
    std::vector<TaskDifference> differences;  // first side's plan order, then the others' new ids
    std::vector<IdCollision> collisions;      // by id
};

// `sides` in display order, the current one among them (at most one).
SidesComparison compare_sides(const std::vector<WorkSide>& sides);

// A plan's tasks with the status a side shows (see above).
std::vector<SideTask> side_tasks(const std::vector<PlanTaskOutline>& plan, const WorkFacts& facts);

// What identifies an entry across sides when counting unmerged ones: its
// fields but the timestamp (a merge may move a timestamp by 1 ns), in order.
std::string entry_identity(NodeRef entry);

}  // namespace small
