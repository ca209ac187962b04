// The tasks this checkout has worked on (D18): which tasks this clone or
// worktree wrote work entries for, per run. The progress log does not say
// who wrote an entry, so after a merge brings in another branch's entries
// only the checkout itself knows which started tasks are its own; the
// resume point then never makes a task that only another branch's entries
// started this checkout's current task.
//
// Kept in `.small-cache/local.work` (never committed: it describes this
// checkout, not the run). Best effort: without it (a fresh clone, a removed
// cache) the resume point reads the log alone.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/resume_point.hpp"
#include "small/model/workspace.hpp"

namespace small {

// Records the work entries among `entries` (as written: task_id, replayId;
// plan-edit lines and meta/ ids are bookkeeping and skipped).
void record_local_work(const FileSystem& fs, const WorkspacePaths& ws, const std::vector<YamlValue>& entries);

// The task ids this checkout recorded work for in run `run_id`.
std::set<std::string, std::less<>> local_work(const FileSystem& fs, const WorkspacePaths& ws,
                                              const std::string& run_id);

// `facts` with this checkout's own tasks of run `run_id` marked `here`: what
// every resume_point call of a workspace reads.
WorkFacts with_local_work(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id, WorkFacts facts);

}  // namespace small
