// `small plan` and `small checkpoint` (authoring.md §5, §7 as amended by
// DECISIONS D4, D6, D7, D8). The CLI parses flags and renders; this layer
// does the work under the workspace lock.
//
// Both rewrite plan.small.yml from its parsed value (unknown task fields and
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

#include "small/filesystem.hpp"
#include "small/plan_index.hpp"
#include "small/result.hpp"
#include "small/workspace.hpp"
#include "small/yaml_writer.hpp"

namespace small {

// plan.small.yml as an editable value, once the file as it is has passed
// the plan schema and the plan invariants (errors carry file:line:column;
// an invalid plan is never rewritten). The edits plan and checkpoint make (a
// status from the enum, a new task with a fresh id and a title, an acyclic
// dependency on an existing task) keep a valid plan valid, so the result is
// emitted without a second parse. A plan this tool wrote is not validated
// again: `.small-cache/plan.valid` remembers its size, mtime, ctime and inode.
Result<YamlValue> load_valid_plan(const FileSystem& fs, const WorkspacePaths& ws);

// Records that the plan file as it now is on disk is valid and has the
// tasks of `index` (after a write, under the lock).
void remember_valid_plan(const WorkspacePaths& ws, const PlanIndex& index);

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

// The statuses checkpoint sets (in the plan and in the entry).
inline constexpr std::string_view kCheckpointStatuses[] = {"completed", "blocked", "cancelled", "in_progress"};

struct CheckpointRequest {
    std::string task;
    std::string status;  // one of kCheckpointStatuses
    std::optional<std::string> evidence, verification, command, test, link, commit, notes;
    std::optional<std::string> at, after;
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

inline constexpr std::string_view kDefaultCheckpointEvidence = "Recorded checkpoint via small checkpoint";

struct CheckpointResult {
    YamlValue entry;         // as written, `timestamp` first
    std::string timestamp;
    std::string previous_status;
    std::string replay_id;
    bool pinned_run = false;
};

// Error kinds: Usage (status not in kCheckpointStatuses, bad --at/--after, both
// given, blank task, a field the schema rejects), Invalid (task not in the
// plan, plan or log unusable, --at not after the last entry), System (no
// .small/, no progress log, I/O), Busy.
Result<CheckpointResult> checkpoint_command(const FileSystem& fs, const WorkspacePaths& ws,
                                            const CheckpointRequest& req);

}  // namespace small
