// HEAD's commit and branch, read from the repository's own files (no
// `git` process, no libgit2): cheap enough for every snapshot and archive,
// where loading libgit2 would cost more than the command. Beside
// base/git_repo, the library's only way to git.
#pragma once

#include <optional>
#include <string>

#include "small/base/filesystem.hpp"

namespace small {

// Empty fields when there is no repository or HEAD cannot be read: a
// worktree's or submodule's `.git` file is followed, a ref is looked up
// loose, then in packed-refs (also in the common folder of a linked
// worktree). Whether the tree is dirty comes from git_repo.
struct GitFacts {
    std::string sha, branch;
};
GitFacts read_git_facts(const FileSystem& fs, const std::string& root);

// Where git keeps the repository holding `root`: its git folder (a linked
// worktree's own), the folder all worktrees share (refs, config, hooks) and
// the work tree's top. nullopt outside a repository.
struct GitDirs {
    std::string git_dir, common_dir, work_tree;
};
std::optional<GitDirs> find_git_dirs(const FileSystem& fs, const std::string& root);

}  // namespace small
