// When the workspace's current run started, for `drift` and
// `verify --evidence` (docs/git.md "The run's start").
#pragma once

#include <optional>
#include <string>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/base/timestamp.hpp"
#include "small/model/layout.hpp"

namespace small {

struct RunStart {
    std::optional<Instant> at;  // nullopt: the log has no timestamped entry
    std::string run_id;         // the pinned run id ("" when none)
    bool from_run_entry = false;  // an entry of the pinned run (else the log's first)
};

// The timestamp of the first progress entry carrying the pinned run id
// (workspace.small.yml run.replay_id; `small start` writes that entry), else
// of the log's first timestamped entry. A missing log means no start.
Result<RunStart> find_run_start(const FileSystem& fs, const WorkspacePaths& ws);

}  // namespace small
