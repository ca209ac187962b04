// What the progress log says of each task (model/resume_point log_facts),
// cached in `.small-cache/progress.facts` under the log's version stamp and
// the run id, so a reader pays one full parse per log version, and none while
// the log is unchanged; an append advances the cache instead of dropping it.
// The resume point built on these facts is domain/resume_state.
#pragma once

#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/resume_point.hpp"
#include "small/model/workspace.hpp"

namespace small {

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

}  // namespace small
