// The handoff (the one place an agent resumes from) and the run lifecycle:
// `small handoff`, `small start`, `small reset` (D3, D7, D8, D10).
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

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/workspace.hpp"
#include "small/domain/handoff_file.hpp"

namespace small {

struct HandoffRequest {
    std::optional<std::string> summary;
    bool require_settled = false;          // refuse while tasks are unsettled (the reference's rule)
    std::vector<std::string> next;         // --next: the session's own next steps, after the computed ones
    std::optional<std::string> replay_id;  // manual id: 64 hex digits, any case
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

// Error kinds: Usage (--replay-id not 64 hex), Invalid (unsettled tasks
// with require_settled, unreadable plan/progress, examples workspace),
// System, Busy.
Result<HandoffResult> handoff_command(const FileSystem& fs, const WorkspacePaths& ws, const HandoffRequest& req);

}  // namespace small
