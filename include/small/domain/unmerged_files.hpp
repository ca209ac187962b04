// `.small/` files git's index holds in conflict after a merge, rebase or
// cherry-pick stopped on them: the three stages merged again by the merge
// driver's rule (nothing is written) to say what collides. For
// `small merge --explain FILE` and `small doctor`.
#pragma once

#include <string>
#include <string_view>
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
    // When git stopped in a merge of several branches at once (git's
    // octopus strategy, a plain `git merge A B`, which never runs merge
    // drivers): the branches, as git's merge message names them, else their
    // commit ids. Empty otherwise.
    std::vector<std::string> octopus;
    bool driver_registered = false;  // git's config sets merge.small.driver (any level)
};

// What to say about a file the driver merges cleanly (no conflicts left):
// why git left it unmerged, and the commands that finish the merge through
// the driver. After an octopus: abort, and merge again with `-s small`
// (small's strategy runs the driver); else register the driver (small hooks
// install git) and redo the file's merge (git checkout -m).
struct CleanMergeAdvice {
    std::string reason;  // why git left it unmerged (no path, no final period)
    std::string fix;     // one line to paste
};
CleanMergeAdvice clean_merge_advice(const UnmergedFile& file);

// The branches git's merge message names ("Merge branches 'a', 'b' and
// 'c'", " into main" after it or not), in order; empty when its first line
// names anything else (a commit, a tag, a remote's branch).
std::vector<std::string> branches_in_merge_message(std::string_view message);

// The workspace's own conflicted `.small/` files (empty outside a
// repository or when there are none).
Result<std::vector<UnmergedFile>> unmerged_workspace_files(const WorkspacePaths& ws);

// One file: `path` from `cwd` (absolute), else, when relative, from the top
// of the repository holding `cwd` (the way git prints paths). Invalid when
// git's index holds no conflict for it, Usage when `cwd` is in no repository.
Result<UnmergedFile> unmerged_file(const FileSystem& fs, const std::string& path, const std::string& cwd);

}  // namespace small
