// Whether git can run `git merge -s small` (D17): git looks for the
// strategy NAME as the program git-merge-NAME, in its exec-path and then on
// PATH. small answers as git-merge-small when called by that name (a link
// beside the binary, which `cmake --install`, the .deb and the build tree
// make); a copy of small alone on PATH has none. `small hooks install git`
// and `small doctor` look, and say exactly what to run when it is missing;
// neither writes outside the workspace (D7), so neither makes the link.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"

namespace small {

// The program git runs for `git merge -s small`.
inline constexpr std::string_view kMergeStrategyProgram = "git-merge-small";

struct MergeStrategyReach {
    std::string found;  // the git-merge-small git would run ("" when none)
    std::string small;  // the first small on PATH ("" when none)
    // When not found: what is wrong (one sentence), and the command that
    // makes git find it (one line to paste).
    std::string problem;
    std::string fix;
};

// Looks where git looks: each folder of `exec_path` (git's own programs),
// then each folder of `path` (a PATH value; only absolute folders count: a
// relative one depends on where git runs). An executable regular file, or a
// link to one, named git-merge-small is the strategy. `self` is the running
// small (its real path), named in the fix when no small is on PATH.
MergeStrategyReach find_merge_strategy(const FileSystem& fs, std::string_view path,
                                       const std::vector<std::string>& exec_path, const std::string& self);

// The same for this process: $PATH; $GIT_EXEC_PATH, else the folders where
// git keeps its own programs on Debian and most other builds
// (/usr/lib/git-core, /usr/libexec/git-core); /proc/self/exe.
MergeStrategyReach find_merge_strategy(const FileSystem& fs);

}  // namespace small
