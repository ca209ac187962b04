// The logic behind `small progress add` (D4, D7, D8, D9 of docs/design.md).
// The CLI only parses flags and renders; everything that touches the
// workspace is here. One entry is appended under the workspace lock with
// append_progress_entry (O(1), existing bytes never rewritten, D7). Only the
// NEW entry is validated (schema + per-entry invariants) before the append;
// the existing log is neither re-validated nor rewritten.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/base/timestamp.hpp"
#include "small/model/workspace.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/domain/progress_entry.hpp"
#include "small/model/task_status.hpp"

namespace small {

// The --status value (any of the five), trimmed and case-insensitive; a
// Usage error names the five. A blank --task is refused first, as
// progress_add_command refuses it: the flags are checked in one order.
Result<TaskStatus> parse_progress_status(std::string_view task, std::string_view text);

struct ProgressAddRequest {
    std::string task;  // trimmed when stored; blank is a usage error
    TaskStatus status = TaskStatus::Pending;
    // Evidence fields (D9) and notes, stored verbatim when not blank.
    std::optional<std::string> evidence, verification, command, test, link, commit, notes;
    std::optional<std::string> at;     // exact instant (strictly after the last entry)
    std::optional<std::string> after;  // max(after, last) + 1 ns
    bool force = false;  // record `completed` although the task's dependencies are not (D18), or another agent claims it (D19); notes say so
    std::optional<std::string> agent;  // who writes (D19 claims); default_agent_name() when absent
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

struct ProgressAddResult {
    YamlValue entry;             // as written, `timestamp` first
    std::string timestamp;       // 9-digit UTC
    bool task_exists_in_plan = false;
    WrittenStatus plan_status;   // the task's status in the plan after the write (empty for meta/ ids)
    bool meta_task = false;      // task id starts with "meta/"
    bool created_log = false;    // progress.small.yml did not exist and was created
    bool plan_updated = false;   // this write set the plan's status to the entry's
    // e.g. a task started before its dependencies (D18), an entry stamped
    // after a future-dated one (D8)
    std::vector<std::string> warnings;
};

// Error kinds: Usage (bad flag value: --at/--after, both given, blank
// task, a field the schema rejects), System (no .small/, I/O),
// Busy (lock held), Invalid (a non-meta/ task the plan does not have, D14,
// with the closest ids; a plan that does not parse; `completed` for a task
// whose dependencies are not, without force (D18); --at not after the last
// entry, unusable log or workspace metadata, run replay id malformed).
Result<ProgressAddResult> progress_add_command(const FileSystem& fs, const WorkspacePaths& ws, const ProgressAddRequest& req);

}  // namespace small
