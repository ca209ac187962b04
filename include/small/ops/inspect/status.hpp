// `small status`: where the run stands. Read-only, no lock. Reads the plan,
// the handoff and workspace.small.yml, and only the end of the progress log
// (domain/progress_query), so its cost does not grow with the log.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/plan_summary.hpp"
#include "small/model/workspace.hpp"
#include "small/domain/progress_query.hpp"

namespace small {

struct StatusOptions {
    std::size_t recent = 5;  // newest progress entries; 0 = all
    std::size_t tasks = 3;   // next actionable tasks; 0 = all
    bool audit = false;      // SMALL_PROGRESS_MODE=audit: every entry, not only signal ones
};

struct StatusReport {
    bool small_dir_exists = false;
    std::array<bool, 5> artifacts{};     // canonical order (kArtifactTypes)
    std::optional<PlanSummary> plan;     // when the plan parsed
    std::string next_task;               // the resume point's task to work on, or kRunCompleteText ("" when nothing to say)
    std::string stop;                    // "stop: task-3 waits on a human (…); …" when only a human or other agents can move the run
    std::string stop_task;               // the task that stop line names as waiting on a human ("" none)
    struct Blocked {
        std::string id, reason;          // reason: the evidence of the entry that blocked it (D18)
    };
    std::vector<Blocked> blocked;        // plan order
    bool handoff_recorded = false;       // the handoff says what it was computed from
    std::string handoff_stale;           // why it is stale ("" fresh or not recorded)
    std::string replay_id;               // workspace.small.yml run.replay_id ("" when none)
    std::vector<ProgressItem> recent;    // newest first
    bool more_progress = false;          // older matching entries exist beyond `recent`
    // Parts that could not be read (file:line:column, with a hint); the
    // rest of the report is still given.
    std::vector<Error> problems;
};

// Without .small/ the report says so (small_dir_exists false, nothing else);
// a .small that is not a folder (a file, a dangling link) is a System error
// (the caller still reports small_dir_exists: false); every other problem
// lands in `problems`.
Result<StatusReport> status_command(const FileSystem& fs, const WorkspacePaths& ws, const StatusOptions& options);

}  // namespace small
