// `small apply`: run one shell command bounded by the workspace, and record
// it (authoring.md §8, §0.14; DECISIONS D4, D8, D14).
//
// Phases (the workspace lock is NOT held while the command runs, so the
// command may itself call `small progress add` or `small checkpoint`):
//   1. under the lock: checks (D14 task, replay id for the log, the entries
//      the command would produce), the command log created, the audit-mode
//      start entry appended; lock released;
//   2. `/bin/sh -c CMD` in the workspace root, its own process group, stdin
//      from /dev/null, output streamed and captured (base/process.hpp),
//      optional time limit, SIGINT/SIGTERM/SIGHUP/SIGUSR1 and the other
//      catchable ending signals forwarded (the list: base/process.hpp);
//   3. under the lock again: the captured output saved, the completion entry
//      (+ the --auto-checkpoint entry and plan status, as one change), then
//      the --handoff handoff.
// Progress modes (SMALL_PROGRESS_MODE): signal (default) records the
// completion (and a dry-run) only when --task is given; audit records a
// start entry too and, without --task, uses the task id `meta/apply` (D8).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/process.hpp"
#include "small/base/result.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/task_status.hpp"
#include "small/model/workspace.hpp"
#include "small/store/command_log.hpp"
#include "small/domain/handoff_file.hpp"

namespace small {

enum class ProgressMode { Signal, Audit };

// SMALL_PROGRESS_MODE: "audit" (trimmed, any case) is audit; anything else signal.
ProgressMode progress_mode_from(const char* env_value);
const char* progress_mode_name(ProgressMode mode);

// The task id of audit-mode entries without --task (D8: a meta/ id).
inline constexpr const char* kApplyMetaTask = "meta/apply";
// How much of the output --auto-progress puts into the evidence (its end).
inline constexpr std::size_t kEvidenceOutputBytes = 4000;
// How much output the command log keeps (first and last halves).
inline constexpr std::size_t kOutputCaptureBytes = 1 << 20;

struct ApplyRequest {
    std::string cmd;                  // blank: a dry run
    std::optional<std::string> task;  // --task
    bool dry_run = false;
    bool auto_progress = false;
    bool auto_checkpoint = false;
    bool handoff = false;
    bool force = false;  // run although --task's dependencies are not completed (D18) or another agent holds it (D19)
    std::optional<std::string> agent;  // D19: who writes (claim_context: --agent, $SMALL_AGENT, user@host:<root>)
    std::optional<std::chrono::milliseconds> timeout;
    std::chrono::milliseconds kill_grace{5000};
    ProgressMode mode = ProgressMode::Signal;
    int stdout_sink = -1;  // where the command's output is streamed
    int stderr_sink = -1;
    bool forward_signals = true;
    std::function<void()> before_run;  // called just before the command starts
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

struct ApplyResult {
    bool dry_run = false;
    std::string cmd;
    std::string task;        // as given ("" when none)
    std::string entry_task;  // task id of the entries ("" when none are written)
    ProgressMode mode = ProgressMode::Signal;
    std::optional<CommandLog> log;  // absent when there is no run id to file it under
    std::optional<ProcessResult> process;
    std::optional<TaskStatus> status;  // completed or blocked, once the command ran (with `process`)
    int exit_code = 0;   // the command's (128 + signal when killed); see apply_exit_code
    std::vector<YamlValue> entries;  // written, timestamps first, in order
    bool checkpointed = false;
    std::optional<HandoffResult> handoff;
    std::vector<std::string> warnings;  // output withheld from evidence, handoff failure, ...
    std::optional<Error> record_error;  // the run could not be recorded after it ran
};

// Error kinds (nothing was run): Usage (flag combinations, blank --task),
// Invalid (--task not in the plan (D14), --task's dependencies not all
// completed without force (D18: a run records the task completed when the
// command succeeds), no replay id for the command log,
// an entry that would not validate, e.g. a secret in the command), System
// (no .small/, no progress log, /bin/sh cannot run, I/O), Busy.
// Failures after the command ran are in record_error (report/apply.hpp's
// apply_exit_code: the command's code, or the error's when it succeeded).
Result<ApplyResult> apply_command(const FileSystem& fs, const WorkspacePaths& ws, const ApplyRequest& req);

}  // namespace small
