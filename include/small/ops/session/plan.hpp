// `small plan` (D4, D6, D7, D8 in docs/design.md). The CLI parses flags and
// renders; this layer does the work under the workspace lock.
//
// Plan and checkpoint (checkpoint.hpp) write plan.small.yml as the smallest
// edit of its bytes (D20, model/plan_text_edit): comments, quoting and layout
// elsewhere are kept, unknown task fields and top-level keys too (D6). One
// status flag alone is checkpoint's edit from the plan's caches, without a
// parse (domain/plan_status_edit). The plan and its progress entries are one
// crash-safe change (workspace_change.hpp): they land together or not at
// all. The new plan is validated (schema and plan invariants, cycles
// included) before anything is written. The first plan write of a workspace
// without a pinned run pins one (D3).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/store/plan_cache.hpp"
#include "small/base/result.hpp"
#include "small/model/task_status.hpp"
#include "small/model/workspace.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small {

// A list of tasks to merge (`small plan --from FILE|-`, the MCP plan tool's
// `tasks`): YAML or JSON text, a sequence of task mappings (or a mapping
// with a `tasks` sequence, such as a whole plan file). `name` labels errors
// (file:line:column).
struct PlanInput {
    std::string text;
    std::string name;
};

// Who asks for a plan change, and so how its progress entries say it: the
// CLI names its flag ("Added task task-8 via small plan --add"), the MCP
// server its tool ("Added task task-8 via the MCP plan tool"; both are
// bookkeeping to is_bookkeeping_entry).
enum class PlanOrigin { Cli, McpPlanTool, Board };

// Every list repeats (one item per flag given), applied in the order given.
struct PlanRequest {
    std::optional<PlanInput> from;                            // tasks merged by id
    std::vector<std::string> add;                             // titles of new tasks
    std::vector<std::pair<std::string, std::string>> retitle;  // task id, new title
    std::vector<std::string> steps;                           // "<task-id>:<text>" appends a step
    std::vector<std::string> acceptance;                      // "<task-id>:<text>" appends a criterion
    std::vector<std::string> done;                            // task ids -> completed
    std::vector<std::string> pending;                         // task ids -> pending
    std::vector<std::string> blocked;                         // task ids -> blocked
    std::vector<std::string> in_progress;                     // task ids -> in_progress
    std::vector<std::string> cancel;                          // task ids -> cancelled
    std::vector<std::string> depends;                         // "<task-id>:<dep-id>[,<dep-id>...]"
    std::vector<std::string> undepend;                        // "<task-id>:<dep-id>[,<dep-id>...]"
    std::vector<std::string> remove;                          // task ids (refused while the run's entries name them)
    // The steps, acceptance criteria and dependency ids of the task the last
    // `add` title adds (the MCP plan tool's add with steps, acceptance,
    // depends_on), applied with the step, acceptance and depends edits.
    std::vector<std::string> added_steps, added_acceptance, added_depends;
    PlanOrigin origin = PlanOrigin::Cli;
    bool force = false;   // D18/D19: complete a task whose dependencies are not all completed, or that another agent holds (recorded)
    std::optional<std::string> agent;  // D19: who writes (claim_context: --agent, $SMALL_AGENT, user@host:<root>)
    std::string actor;  // PlanOrigin::Board: the person acting, named in the entries ("" unnamed)
    bool reset = false;   // replace with the template plan
    bool yes = false;     // confirms --reset
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

// The status flags: the ids each names and the status it sets, in the order they apply.
struct PlanStatusFlag {
    std::vector<std::string> PlanRequest::*ids;
    TaskStatus status;
    const char* flag;
};
inline constexpr PlanStatusFlag kPlanStatusFlags[] = {
    {&PlanRequest::done, TaskStatus::Completed, "--done"},
    {&PlanRequest::pending, TaskStatus::Pending, "--pending"},
    {&PlanRequest::blocked, TaskStatus::Blocked, "--blocked"},
    {&PlanRequest::in_progress, TaskStatus::InProgress, "--in-progress"},
    {&PlanRequest::cancel, TaskStatus::Cancelled, "--cancel"}};

struct PlanResult {
    std::vector<std::string> messages;  // "Added task task-2: Design widget", ...
    std::vector<std::string> warnings;  // D18: a task started before its dependencies completed, a forced completion
    std::vector<YamlValue> entries;     // progress entries as written
    bool changed = false;               // plan.small.yml was written
    bool created = false;               // it did not exist before
    std::string added_task_id;          // the last task --add or --from added
    std::vector<std::string> added_task_ids;  // every task this call added, in order
    std::string replay_id;              // the run's pinned id
    bool pinned_run = false;            // this call pinned it
};

// Edits apply in memory in the order from, add, title, step, acceptance,
// done, pending, blocked, in-progress, cancel, depends, undepend, remove
// (each list in the order given), then D18 is checked on the result: a task
// this call completes whose dependencies are not all completed is refused
// unless `force` (its entry's notes then say so); a task it starts so gets
// a warning. Any error aborts before a write; the plan and all entries are
// one crash-safe change. Errors never name a task this call would have
// added ("did you mean" lists the plan's tasks as they were).
// Error kinds: Usage (bad flag value: blank title, --depends without ':',
// --reset without --yes, added_* without add, or blank), Invalid (unknown task, with the closest ids (D14);
// duplicate dependency, cycle; --remove of a task that entries of the
// current run or other tasks name; a --from list that does not parse or
// validate, with its file:line:column; unmet dependencies of a completed
// task (D18); a plan that does not parse or validate), System, Busy.
Result<PlanResult> plan_command(const FileSystem& fs, const WorkspacePaths& ws, const PlanRequest& req);

}  // namespace small
