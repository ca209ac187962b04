// `small plan` (D4, D6, D7, D8 in docs/design.md). The CLI parses flags and
// renders; this layer does the work under the workspace lock.
//
// Plan and checkpoint (checkpoint.hpp) both rewrite plan.small.yml from its parsed value (unknown task fields and
// top-level keys kept, D6) and append their progress entries in the same
// crash-safe change (workspace_change.hpp): the plan and its entries land
// together or not at all. The new plan is validated (schema and plan
// invariants, cycles included) before anything is written. The first plan
// write of a workspace without a pinned run pins one (D3).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/store/plan_cache.hpp"
#include "small/base/result.hpp"
#include "small/model/workspace.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small {

struct PlanRequest {
    std::optional<std::string> add;          // title of a new task
    std::optional<std::string> done;         // task id -> completed
    std::optional<std::string> pending;      // task id -> pending
    std::optional<std::string> blocked;      // task id -> blocked
    std::optional<std::string> in_progress;  // task id -> in_progress
    std::optional<std::string> cancel;       // task id -> cancelled
    std::optional<std::pair<std::string, std::string>> retitle;  // task id, new title
    std::optional<std::string> depends;      // "<task-id>:<dep-id>"
    std::optional<std::string> remove;       // task id to remove (refused while the run's entries name it)
    bool reset = false;                      // replace with the template plan
    bool yes = false;                        // confirms --reset
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

struct PlanResult {
    std::vector<std::string> messages;  // "Added task task-2: Design widget", ...
    std::vector<YamlValue> entries;     // progress entries as written
    bool changed = false;               // plan.small.yml was written
    bool created = false;               // it did not exist before
    std::string added_task_id;          // --add
    std::string replay_id;              // the run's pinned id
    bool pinned_run = false;            // this call pinned it
};

// Flags apply in the order add, title, done, pending, blocked, in-progress,
// cancel, depends, remove. Error kinds: Usage (bad flag value: blank title,
// --depends without ':', --reset without --yes), Invalid (unknown task,
// with the closest ids (D14); duplicate dependency, cycle; --remove of a
// task that entries of the current run or other tasks name; a plan that
// does not parse or validate), System, Busy.
Result<PlanResult> plan_command(const FileSystem& fs, const WorkspacePaths& ws, const PlanRequest& req);

}  // namespace small
