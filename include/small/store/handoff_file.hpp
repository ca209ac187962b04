// The handoff file (the one place an agent resumes from), as handoff, start
// and reset write it (D3, D7, D8, D10, D13 in docs/design.md).
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

#include <initializer_list>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/workspace.hpp"
#include "small/store/workspace_change.hpp"

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

struct HandoffResult {
    YamlValue handoff;        // as written
    std::string text;         // the file's bytes
    std::string replay_id;
    std::string source;
    bool pinned_run = false;  // workspace.small.yml run.replay_id changed
    std::vector<YamlValue> entries;  // progress entries written with it (start, reset)
    std::vector<UnsettledTask> unsettled;  // named in the handoff (D13)
};

// The existing handoff as a value (null when absent or unreadable: it is
// being replaced), and what a new one keeps of it.
YamlValue old_handoff(const FileSystem& fs, const WorkspacePaths& ws);
std::string old_replay_id(const YamlValue& handoff);  // a valid id, or ""
std::string old_source(const YamlValue& handoff);     // "auto" or "manual"
YamlValue old_links(const YamlValue& handoff);

// The handoff's `run` block: created now, with the reason and previous id.
YamlValue run_block(const std::string& reason, const std::string& previous);

// An artifact that must exist (System error naming init/start otherwise).
Result<Document> load_artifact(const FileSystem& fs, const WorkspacePaths& ws, ArtifactType t);

// The handoff built from `in`, refused when it would not validate, written
// with `change` (entries, other files) and, when not empty, the workspace
// metadata `workspace_text`, as one crash-safe change.
Result<HandoffResult> write_handoff(const WorkspacePaths& ws, const HandoffInputs& in, WorkspaceChange change,
                                    const std::string& workspace_text);

// A handoff is never written over artifacts that do not even parse.
Status require_parseable(const FileSystem& fs, const WorkspacePaths& ws, std::initializer_list<ArtifactType> types);

// workspace.small.yml with `id` pinned, or "" when it is pinned already.
std::string pinned_workspace_text(const MutationSession& s, const std::string& id);

// What `small handoff` (and `apply --handoff`) asks for.
struct HandoffOptions {
    std::optional<std::string> summary;          // --summary (D10)
    std::optional<std::string> manual_replay_id; // validated, lower-case
    bool require_settled = false;                // refuse while tasks are unsettled
};

// The handoff rebuilt from the workspace as it is and written (plan,
// progress, strict readiness, unsettled tasks named per D13; the run id
// pinned when none was). Under the lock of `session`. Errors: Invalid
// (unsettled tasks with require_settled, artifacts that do not parse),
// System.
Result<HandoffResult> regenerate_handoff(const FileSystem& fs, const WorkspacePaths& ws, const MutationSession& session,
                                         const HandoffOptions& opts);

}  // namespace small
