// The workspace's resume point as it is now (model/resume_point) and whether
// the handoff still says the same (D18): what `status`, `status --brief`,
// `doctor`, MCP `resume` and `handoff` read.
//
// The per-task facts need the whole progress log (a blocker's reason may be
// old); they are cached in `.small-cache/progress.facts` under the log's
// version stamp and the run id, so a reader pays one full parse per log
// version, and none while the log is unchanged.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/resume_point.hpp"
#include "small/model/workspace.hpp"

namespace small {

struct ResumeState {
    std::vector<PlanTaskOutline> plan;
    LogFacts facts;
    ResumePoint point;
    HandoffSource now;                      // what a handoff written now records
    bool handoff_exists = false;
    std::optional<HandoffSource> recorded;  // what the handoff records (nullopt: nothing)
    std::string stale;                      // why it is stale; "" when fresh or unknown
};

// What the log says of each task for run `run_id` (model/resume_point
// log_facts), from the cache when the log is unchanged, else by one full read
// (then cached). Errors: the log does not parse (Invalid, positioned), System.
Result<LogFacts> cached_log_facts(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id);

// After an append (progress_log, under the workspace lock): the facts cached
// for the log as it was (`stamp_before`) advanced by the appended entries and
// stored under `stamp_after`, so the next reader needs no full read of the
// log. Best effort: nothing happens when no cache matches `stamp_before`.
void advance_log_facts(const FileSystem& fs, const WorkspacePaths& ws, const std::string& stamp_before,
                       const std::string& stamp_after, const std::vector<YamlValue>& appended);

// Errors: the plan or the log does not parse (Invalid, positioned), System.
// A missing plan or log reads as empty.
Result<ResumeState> load_resume_state(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id);

}  // namespace small
