// The run index, `.small-runs/index.small.yml` (inspection.md §1.12.7): one
// entry per `run snapshot` and `archive`, oldest first.
#pragma once

#include <string>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/layout.hpp"

namespace small {

struct RunIndexEntry {
    std::string replay_id, timestamp, git_sha, summary, reason;  // git_sha, summary optional
};

inline constexpr std::string_view kRunIndexFileName = "index.small.yml";

// Appends `entry` to `<store>/index.small.yml` (created when missing, with
// small_version "1.0.0"); previous_replay_id is the last entry's replayId.
// The file is rewritten atomically (entries and unknown keys kept); the
// caller holds the workspace lock. The index lives in the store the command
// used (the reference always wrote the default store's).
// Errors: an unparsable index (Invalid, file:line:column; the hint says to
// move it aside), a write failure (System).
Status append_run_index(const FileSystem& fs, const WorkspacePaths& ws, const std::string& store,
                        const RunIndexEntry& entry);

}  // namespace small
