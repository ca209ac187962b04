// `small checkpoint`: one task's status set in the plan and a progress entry
// recording it, as one crash-safe change (workspace_change.hpp).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/task_status.hpp"
#include "small/model/workspace.hpp"
#include "small/domain/plan_status_edit.hpp"
#include "small/domain/progress_entry.hpp"

namespace small {

// The statuses checkpoint sets (in the plan and in the entry).
inline constexpr TaskStatus kCheckpointStatuses[] = {TaskStatus::Completed, TaskStatus::Blocked, TaskStatus::Cancelled,
                                                     TaskStatus::InProgress};

// The --status value, trimmed and case-insensitive; a Usage error names
// kCheckpointStatuses. A blank --task is refused first, as
// checkpoint_command refuses it: the flags are checked in one order.
Result<TaskStatus> parse_checkpoint_status(std::string_view task, std::string_view text);

struct CheckpointRequest {
    std::string task;
    TaskStatus status = TaskStatus::Completed;  // one of kCheckpointStatuses
    std::optional<std::string> evidence, verification, command, test, link, commit, notes;
    std::optional<std::string> at, after;
    bool force = false;  // complete the task although its dependencies are not (D18), or another agent claims it (D19); the entry's notes say so
    std::optional<std::string> agent;  // who writes (D19 claims); default_agent_name() when absent
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

// The entry as written, the plan's previous status, the run and the
// warnings (started before its dependencies, D18; after a future-dated
// entry, D8): what the one status write gives (domain/plan_status_edit).
using CheckpointResult = StatusChangeWritten;

// Error kinds: Usage (status not in kCheckpointStatuses, bad --at/--after, both
// given, blank task, a field the schema rejects), Invalid (task not in the
// plan, completing it before its dependencies without force (D18), plan or
// log unusable, --at not after the last entry), System (no
// .small/, no progress log, I/O), Busy.
Result<CheckpointResult> checkpoint_command(const FileSystem& fs, const WorkspacePaths& ws,
                                            const CheckpointRequest& req);

}  // namespace small
