// A directory a command makes for its own use and removes again (selftest).
// The rule that keeps it safe: only what this command created is ever
// removed. A named directory must be new or empty; an existing one is kept
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

// Removes what make_scratch_dir made: the folder's contents, then the
// folders it created, innermost first (a created parent that is no longer
// empty stays). Refuses (System, nothing removed) when `path` is no longer
// the folder that was made (replaced by a link or another folder).
Status remove_scratch_dir(const ScratchDir& dir);

}  // namespace small
