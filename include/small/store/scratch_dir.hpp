// A directory a command makes for its own use and removes again (selftest).
// The rule that keeps it safe: only what this command created is ever
// removed, named by the command (ScratchContents). A named directory must be new or empty; an existing one is kept
// (only its new contents go), a symbolic link or a non-empty directory is
// refused before anything is touched.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "small/base/result.hpp"

namespace small {

struct ScratchDir {
    std::string path;                          // absolute
    bool existed = false;                      // it was there (empty) before: keep the folder itself
    std::vector<std::string> created;          // folders this call made, outermost first (path last)
    unsigned long long device = 0, inode = 0;  // what `path` was when made (guards the removal)
};

// `requested` absent: a fresh `<tmp>/<prefix>XXXXXX` (mkdtemp; $TMPDIR or
// /tmp). Present (relative to `cwd`): made with its missing parents, or used
// when it is an empty directory. Errors (nothing touched): Invalid for a
// non-empty directory, a file, a symbolic link, or a parent that is not a
// directory; System when the disk refuses.
Result<ScratchDir> make_scratch_dir(const std::optional<std::string>& requested, const std::string& cwd,
                                    const std::string& prefix);

// What the caller's work made inside the directory, relative to it: only
// these are removed, so a file another process put there meanwhile stays
// (issue 24). `trees` go with everything below them (links are removed,
// never followed); then `folders`, in the order given, only while empty.
struct ScratchContents {
    std::vector<std::string> trees;
    std::vector<std::string> folders;
};

// Removes `made` from the directory, then the folders make_scratch_dir
// created, innermost first, each only while empty: a directory that holds
// anything else stays, and the error (System) names what is in it. Refuses
// (System, nothing removed) when `path` is no longer the folder that was
// made (replaced by a link or another folder).
Status remove_scratch_dir(const ScratchDir& dir, const ScratchContents& made);

}  // namespace small
