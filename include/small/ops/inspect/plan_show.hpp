// `small plan show [ID]`: a read-only view of the plan (no lock, no write).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/domain/progress_query.hpp"
#include "small/base/result.hpp"
#include "small/model/task_status.hpp"
#include "small/model/workspace.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small {

struct TaskSummary {
    std::string id;
    std::string title;
    WrittenStatus status;                 // trimmed, lower-cased; blank is pending
    std::vector<std::string> depends_on;  // depends_on, then dependencies (D6)
};

struct PlanView {
    std::vector<TaskSummary> tasks;        // plan order
    std::optional<std::string> next_task;  // the next runnable task (as handoff picks it)
};

struct TaskDependency {
    std::string id;
    WrittenStatus status;  // empty when the plan has no such task
};

struct TaskDetail {
    TaskSummary summary;
    YamlValue task;                           // every field, as in the plan
    std::vector<std::string> steps, acceptance;  // its steps and acceptance criteria (strings, in order)
    std::vector<TaskDependency> dependencies;
    std::vector<std::string> dependents;      // tasks that depend on it
    std::string run_id;                       // the pinned run ("" when none)
    EntryList entries;                        // its entries of the current run, newest first
};

// Errors: no .small/ or no plan (System), a plan that does not parse
// (Invalid, file:line:column).
Result<PlanView> plan_show_command(const FileSystem& fs, const WorkspacePaths& ws);

// One task; an unknown id is Invalid and names the closest ids (D14).
// `entry_limit` caps the entries (0 = all).
Result<TaskDetail> plan_show_task_command(const FileSystem& fs, const WorkspacePaths& ws, const std::string& id,
                                  std::size_t entry_limit);

}  // namespace small
