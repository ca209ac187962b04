// The handoff (the one place an agent resumes from) and the run lifecycle:
// `small handoff`, `small start`, `small reset` (authoring.md §0.11, §9-§11
// as amended by DECISIONS D3, D7, D8, D10).
//
// Handoff state machine (plan statuses trimmed and lower-cased; a blank
// status is pending):
//   blocked      strict checks fail, or a task is blocked and none is
//                runnable: current task = first blocked (else meta/blocker),
//                next steps say what to unblock / which check failed;
//   complete     strict checks pass and every task is completed/cancelled:
//                no current task, no next steps;
//   in progress  otherwise: current task = next runnable task (first
//                in_progress, else first pending with all dependencies
//                completed), next step "Continue with <id>"; with nothing
//                runnable the next step says the dependencies are unmet.
// The strict readiness check is `check --strict` on the workspace, ignoring
// findings about the handoff file being replaced; its first failure (in the
// deterministic D9 order) is quoted in the next steps.
//
// D13: unsettled tasks (progress in the current run, but neither completed,
// blocked nor cancelled) never stop a handoff. They come first in the next
// steps, one line each with the last recorded status, and the current task
// is the first in_progress one (plan status or last entry), else the state
// machine's pick. `--require-settled` refuses instead (the reference's rule).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "small/filesystem.hpp"
#include "small/gitignore.hpp"
#include "small/result.hpp"
#include "small/workspace.hpp"
#include "small/yaml_writer.hpp"

namespace small {

struct Readiness {
    bool strict_ok = true;
    std::string first_failure;  // "file:line:column: message [RULE]" of the first error
};

// `small check --strict` as the handoff sees it (see above).
Readiness strict_readiness(const FileSystem& fs, const WorkspacePaths& ws);

// A plan task with progress in the current run that is not settled (D13).
struct UnsettledTask {
    std::string id;
    std::string title;
    std::string plan_status;
    std::string last_status;  // status of the task's last entry in the run
};

struct HandoffInputs {
    YamlValue plan;
    std::vector<UnsettledTask> unsettled;
    Readiness readiness;
    std::optional<std::string> summary;  // --summary (D10); blank = computed
    std::string replay_id;
    std::string source = "auto";         // auto or manual
    YamlValue links = YamlValue::array();
    YamlValue run;                       // the `run` block, or null
};

// The handoff document (house order: small_version, owner, summary, resume,
// links, replayId, run).
YamlValue build_handoff(const HandoffInputs& in);

// Plan tasks that are neither completed, blocked nor cancelled but have
// progress entries of the current run (`run_id`; every entry when empty),
// `meta/` ids ignored (D10). In plan order.
std::vector<UnsettledTask> unsettled_tasks(const YamlValue& plan, NodeRef progress_root, const std::string& run_id);

// "task-2: Design widget (plan: pending, last recorded: in_progress)".
std::string describe_unsettled(const UnsettledTask& t);

struct HandoffRequest {
    std::optional<std::string> summary;
    bool require_settled = false;          // refuse while tasks are unsettled (the reference's rule)
    std::optional<std::string> replay_id;  // manual id: 64 hex digits, any case
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

struct HandoffResult {
    YamlValue handoff;        // as written
    std::string text;         // the file's bytes
    std::string replay_id;
    std::string source;
    bool pinned_run = false;  // workspace.small.yml run.replay_id changed
    std::vector<YamlValue> entries;  // progress entries written with it (start, reset)
    std::vector<UnsettledTask> unsettled;  // named in the handoff (D13)
};

// Error kinds: Usage (--replay-id not 64 hex), Invalid (unsettled tasks
// with require_settled, unreadable plan/progress, examples workspace),
// System, Busy.
Result<HandoffResult> handoff_command(const FileSystem& fs, const WorkspacePaths& ws, const HandoffRequest& req);

struct StartRequest {
    std::optional<std::string> summary;
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

struct StartResult {
    HandoffResult handoff;
    std::vector<std::string> created;  // file names written from templates
    bool self_heal = false;            // no run id existed: one was computed and pinned
    std::optional<YamlValue> entry;    // meta/replayid-self-heal
    std::optional<GitignoreUpdate> gitignore;  // when start created .small/: the runtime lines, as init adds them
};

// Creates missing artifacts from templates (`.small/` itself only with scope
// any; then the runtime lines are added to .gitignore as init adds them), pins the run (the existing run id, else the old handoff's, else the
// manifest's: self-heal) and writes a handoff with a `run` block. The caller
// then runs `check --strict`.
Result<StartResult> start_command(const FileSystem& fs, const WorkspacePaths& ws, const StartRequest& req);

struct ResetRequest {
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

struct ResetResult {
    std::vector<std::string> reset_files;  // file names replaced by templates
    std::string replay_id;                 // the new run's id
    std::string previous_replay_id;        // the old run's id ("" when none)
    std::string snapshot_dir;              // where the old state was copied ("" when nothing to copy)
    YamlValue entry;                       // meta/reset
    YamlValue handoff;
};

// D10: a new run. The old intent, plan, constraints and handoff are copied
// to `.small-runs/<previous id>/` (never overwritten), the plan is replaced
// by the template (intent and constraints are human-owned and kept, D7),
// the new run's id is
// pinned, the handoff records `run.transition_reason: reset` and
// `run.previous_replay_id`, and `meta/reset` is appended. Progress history
// is kept. The new id is the manifest's replay id, unless an earlier run of
// this log already used it (resetting twice to the same templates); then it
// is sha256("SMALL|1.0.0|reset|" + previous id + "|" + manifest id), so
// every run's entries stay in their own scope.
Result<ResetResult> reset_command(const FileSystem& fs, const WorkspacePaths& ws, const ResetRequest& req);

}  // namespace small
