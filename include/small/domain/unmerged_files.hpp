// `.small/` files git's index holds in conflict after a merge, rebase or
// cherry-pick stopped on them: the three stages merged again by the merge
// driver's rule (nothing is written) to say what collides. For
// `small merge --explain FILE` and `small doctor`.
#pragma once

#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/layout.hpp"
#include "small/domain/artifact_merge.hpp"

namespace small {

struct UnmergedFile {
    std::string path;  // repository-relative, as git names it
    std::string rule;  // merge_rule_name
    // The conflicts that remain, or none when the driver merges the file
    // cleanly (git merged it without the driver). A side that cannot be
    // merged, or a file deleted on one side, is a conflict too.
    MergeOutcome outcome;
};

// The workspace's own conflicted `.small/` files (empty outside a
// repository or when there are none).
Result<std::vector<UnmergedFile>> unmerged_workspace_files(const WorkspacePaths& ws);

// One file: `path` from `cwd` (absolute), else, when relative, from the top
// of the repository holding `cwd` (the way git prints paths). Invalid when
// git's index holds no conflict for it, Usage when `cwd` is in no repository.
Result<UnmergedFile> unmerged_file(const FileSystem& fs, const std::string& path, const std::string& cwd);

}  // namespace small
