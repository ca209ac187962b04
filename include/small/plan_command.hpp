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
#include "small/result.hpp"
#include "small/workspace.hpp"
#include "small/yaml_writer.hpp"

namespace small {

// plan.small.yml as a value (parse errors carry file:line:column).
Result<YamlValue> load_plan_value(const FileSystem& fs, const WorkspacePaths& ws);

// The plan as house-style text, refused (Invalid, nothing written) when it
// would not pass the plan schema or the plan invariants (cycles, unknown
// dependencies, duplicate ids).
Result<std::string> checked_plan_text(const YamlValue& plan, const WorkspacePaths& ws);

struct PlanRequest {
    std::optional<std::string> add;          // title of a new task
    std::optional<std::string> done;         // task id -> completed
    std::optional<std::string> pending;      // task id -> pending
    std::optional<std::string> blocked;      // task id -> blocked
    std::optional<std::string> in_progress;  // task id -> in_progress
    std::optional<std::string> depends;      // "<task-id>:<dep-id>"
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

// Error kinds: Usage (bad flag value: blank title, --depends without ':',
// --reset without --yes), Invalid (unknown task, duplicate dependency,
// cycle, a plan that does not parse or validate), System, Busy.
Result<PlanResult> plan_command(const FileSystem& fs, const WorkspacePaths& ws, const PlanRequest& req);

struct CheckpointRequest {
    std::string task;
    std::string status;  // completed or blocked
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

// Error kinds: Usage (status not completed/blocked, bad --at/--after, both
// given, blank task, a field the schema rejects), Invalid (task not in the
// plan, plan or log unusable, --at not after the last entry), System (no
// .small/, no progress log, I/O), Busy.
Result<CheckpointResult> checkpoint_command(const FileSystem& fs, const WorkspacePaths& ws,
                                            const CheckpointRequest& req);

}  // namespace small
