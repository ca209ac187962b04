// small's one way to git (docs/design.md "Git access"). Three mechanisms sit
// behind this header, each where it is the cheapest that does the job:
//
// * git's own files, read as text (git_files.cpp): HEAD, branch tips, the
//   work trees. No process, no libgit2: cheap enough for every snapshot,
//   archive and `plan --add`, where loading libgit2 costs more than the command.
// * libgit2 (git.cpp), loaded with dlopen by the first question that needs it:
//   history, the index, diffs, configuration. Read-only, except the
//   repository's own configuration file, which `small hooks` edits.
// * a spawned `git` (git_remote.cpp), only to fetch and push a ref on a remote:
//   the user's credential helpers, SSH configuration, insteadOf rules and
//   proxies are known to git alone.
//
// Failures are Result values; nothing throws or prints.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"

struct git_repository;

namespace small {

// ---- From git's own files (git_files.cpp) ----

// Empty fields when there is no repository or HEAD cannot be read: a
// worktree's or submodule's `.git` file is followed, a ref is looked up
// loose, then in packed-refs (also in the common folder of a linked
// worktree). Whether the tree is dirty is GitRepo::dirty.
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

// Each work tree of the repository whose shared folder is `common_dir`: the
// main one (when `common_dir` is a work tree's `.git`) and every linked
// worktree git lists, with the ref its HEAD names ("refs/heads/x"; "" when
// detached or unreadable). Best effort: what cannot be read is left out.
struct GitWorkTreeHead {
    std::string root;      // the work tree's top
    std::string head_ref;  // "refs/heads/topic"
};
std::vector<GitWorkTreeHead> read_work_tree_heads(const FileSystem& fs, const std::string& common_dir);

// refs/heads/* -> tip (40 hex) from the loose refs and packed-refs of
// `common_dir` (a loose ref wins, as in git).
std::map<std::string, std::string> read_branch_tips(const FileSystem& fs, const std::string& common_dir);

// ---- Through libgit2 (git.cpp) ----

// A path git's index holds in conflict (an unfinished merge, rebase or
// cherry-pick): the blob of each stage, nullopt where the stage is absent
// (added on one side only, or deleted on one).
struct GitIndexConflict {
    std::string path;  // work-tree-relative, '/' separated
    std::optional<std::string> ancestor;  // stage 1
    std::optional<std::string> ours;      // stage 2
    std::optional<std::string> theirs;    // stage 3
};

// A work tree of the repository: the main one or a linked worktree.
struct GitCheckout {
    std::string path;    // absolute, no trailing '/'
    std::string branch;  // "topic"; "" when HEAD is detached (or, in a linked worktree, on a branch with no commit)
    std::string head;    // commit id (40 hex); "" when there is none yet
};

struct GitBranch {
    std::string name;  // "topic" (refs/heads/topic)
    std::string tip;   // commit id (40 hex)
};

// A file of a commit read as libgit2 inflates it, front to back, without
// holding it whole (issue 39). Only a loose object streams: libgit2 inflates
// a packed one whole (a deltified one with its base), and it is then read
// from libgit2's buffer, not copied. Reads go forward; one before the last
// megabyte read starts the blob again.
class GitBlobStream {
public:
    ~GitBlobStream();
    GitBlobStream(const GitBlobStream&) = delete;
    GitBlobStream& operator=(const GitBlobStream&) = delete;
    std::uint64_t size() const;
    // Bytes [offset, offset + length) (fewer at the end).
    Result<std::string> read(std::uint64_t offset, std::size_t length);

private:
    friend class GitRepo;
    struct Impl;
    explicit GitBlobStream(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// A blob's stream as a read-only file system holding one file, `path`: read
// in windows as a work tree's file is (forward; a read behind starts the blob again).
std::shared_ptr<const FileSystem> blob_file_system(std::string path, std::unique_ptr<GitBlobStream> blob);

class GitRepo {
public:
    // The repository containing `path` (a work tree, a linked worktree, a
    // bare-less shallow clone...): nullopt when `path` is in none. Errors
    // only when a repository is found but cannot be opened.
    static Result<std::optional<GitRepo>> discover(const std::string& path);

    GitRepo(GitRepo&&) noexcept;
    GitRepo& operator=(GitRepo&&) noexcept;
    ~GitRepo();

    // The work tree's root with a trailing '/' ("" for a bare repository).
    std::string workdir() const;
    bool head_unborn() const;    // a repository with no commits yet
    bool head_detached() const;  // HEAD names a commit, not a branch
    bool shallow() const;
    // HEAD's commit id (40 hex), nullopt when there are no commits.
    Result<std::optional<std::string>> head() const;

    // A revision (commit id, abbreviated id, branch, tag, HEAD~2...) as the
    // full id of the commit it names; Invalid "unknown revision" when none.
    Result<std::string> resolve_commit(const std::string& rev) const;
    // Whether `oid` (full id) is HEAD or one of its ancestors.
    Result<bool> is_ancestor_of_head(const std::string& oid) const;
    // Every commit reachable from HEAD, in one revision walk (empty when
    // there are no commits): for checking many ids at once.
    Result<std::unordered_set<std::string>> head_ancestors() const;
    // Committer time of a commit, in seconds since the epoch.
    Result<std::int64_t> commit_time(const std::string& oid) const;

    // The newest commit on HEAD's first-parent line committed at or before
    // `seconds` (epoch): where a run that started then began. nullopt when
    // there are no commits or all are newer.
    Result<std::optional<std::string>> first_parent_at_or_before(std::int64_t seconds) const;

    // Files changed from commit `since` (full id; "" = from nothing, every
    // file) to the working tree: committed, staged, unstaged, and untracked
    // files git does not ignore. Work-tree-relative '/' paths, sorted, unique.
    Result<std::vector<std::string>> changed_files(const std::string& since) const;
    // Conflicted index entries whose path starts with `prefix` (work-tree
    // relative, e.g. ".small/"), in index order; empty when none.
    Result<std::vector<GitIndexConflict>> index_conflicts(const std::string& prefix) const;
    // Whether the work tree differs from HEAD (staged, unstaged, or untracked
    // not ignored).
    Result<bool> dirty() const;
    // The text of the file `path` (work-tree relative, '/' separated) in
    // commit `commit` (full id; "" = the empty tree): nullopt when the
    // commit has no file there.
    Result<std::optional<std::string>> file_at(const std::string& commit, const std::string& path) const;
    // The same file as a stream (GitBlobStream); nullptr when the commit has
    // none there.
    Result<std::unique_ptr<GitBlobStream>> stream_file_at(const std::string& commit, const std::string& path) const;
    // Every work tree of the repository: the main one first (none when it is
    // bare), then the linked worktrees by path; a pruned one (its folder
    // gone) is left out. The same list from any of them.
    Result<std::vector<GitCheckout>> checkouts() const;
    // The local branches (refs/heads/*) by name, with their tips.
    Result<std::vector<GitBranch>> local_branches() const;
    // The best common ancestor of two commits (full ids); nullopt when they
    // share no history.
    Result<std::optional<std::string>> merge_base(const std::string& a, const std::string& b) const;
    // The commits a merge that git stopped in is merging (MERGE_HEAD: one
    // per branch, several for an octopus `git merge A B`), in git's order;
    // empty when no merge is under way.
    Result<std::vector<std::string>> merge_heads() const;
    // The message git prepared for the commit that ends it (MERGE_MSG, as
    // "Merge branches 'a' and 'b'"); nullopt when there is none.
    Result<std::optional<std::string>> prepared_message() const;

    // The repository's own configuration file (.git/config, shared by its
    // linked worktrees): what `git config --local` reads and writes, never
    // the global or system files. The value of `key` ("merge.small.driver")
    // there, nullopt when it is not set there (the last one of a multi-valued
    // key).
    Result<std::optional<std::string>> local_config(const std::string& key) const;
    // Sets `key` there (libgit2 writes the file through a lock file and a
    // rename, as git does).
    Status set_local_config(const std::string& key, const std::string& value) const;
    // Removes `key` from there (its section header stays, empty): false when
    // it was not set there. A multi-valued key is an error.
    Result<bool> unset_local_config(const std::string& key) const;

    // The value of `key` as `git config --get` reads it, from every level:
    // the system file (unless GIT_CONFIG_NOSYSTEM; GIT_CONFIG_SYSTEM names
    // it), the global ones (GIT_CONFIG_GLOBAL, else XDG and ~/.gitconfig),
    // the repository's own and, with extensions.worktreeConfig, the
    // worktree's. nullopt when unset everywhere. (libgit2 1.5's own view
    // ignores those variables; this one follows git.)
    Result<std::optional<std::string>> effective_config(const std::string& key) const;

    // The folder shared by a repository and its linked worktrees (.git),
    // absolute, without a trailing '/'.
    std::string commondir() const;
    // The repository's own config file: `git rev-parse --git-path config`.
    std::string config_path() const;
    // The folder git runs hooks from, as `git rev-parse --git-path hooks`
    // names it: core.hooksPath (a relative one from the work tree's top,
    // `~/` from HOME), else <commondir>/hooks; absolute, lexically normal.
    Result<std::string> hooks_dir() const;

private:
    explicit GitRepo(git_repository* repo);
    struct Deleter {
        void operator()(git_repository* r) const;
    };
    std::unique_ptr<git_repository, Deleter> repo_;
};

// The repository holding a workspace, for commands that need one: a Usage
// error (exit 2) naming `what` ("small drift") when `root` is in none.
Result<GitRepo> open_workspace_repo(const std::string& root, const std::string& what);

// Whether the work tree holding `root` is dirty (GitRepo::dirty); nullopt
// outside a repository or when git cannot tell: the run store's git_dirty.
std::optional<bool> work_tree_dirty(const std::string& root);

// `path` (absolute) relative to `workdir` ('/' separated, no trailing '/'),
// both resolved through symbolic links; nullopt when it lies outside.
std::optional<std::string> path_in_workdir(const std::string& workdir, const std::string& path);

// ---- Through a spawned git: a ref on a remote (git_remote.cpp) ----
//
// A ref on a git remote used as a compare-and-swap register of text (the
// claims of D19 travel this way). The text is the message of the ref's tip
// commit, whose tree is empty (nothing to check out; `git log REF` is the
// history of every change). A change is a new commit on the tip that was
// read, pushed with --force-with-lease naming that tip: the push fails when
// anyone moved the ref meanwhile, and the caller reads and decides again.
//
// `git` is spawned for every step, so the user's credential helpers, SSH
// configuration and insteadOf rules apply as for any fetch or push.

struct RemoteRef {
    std::string remote;     // "origin"
    std::string ref;        // "refs/small/claims"
    std::string tracking;   // where the last fetched tip is kept: "refs/small-remotes/origin/claims"
    std::string work_tree;  // where git runs
};

// The remote to use: the value of environment variable `env`, else git
// config `key`, else `origin` when the repository has it. nullopt when none
// is set up or the value is "none"; Usage error when a named one is not a
// remote of the repository. `work_tree` must be in a repository.
Result<std::optional<std::string>> configured_remote(const std::string& work_tree, const char* env, const std::string& key);

// The ref's tip ("" when the remote has no such ref) and its message.
// A failed fetch (network, authentication) is a System error with git's words.
struct RefText {
    std::string tip, message;
};
Result<RefText> fetch_ref_text(const RemoteRef& ref);

// Pushes `message` as the new tip on top of `expected_tip` (what
// fetch_ref_text returned). true: accepted; false: the ref moved meanwhile
// (nothing changed). `author` names the commit's author and committer.
Result<bool> push_ref_text(const RemoteRef& ref, const std::string& expected_tip, const std::string& message,
                           const std::string& author);

}  // namespace small
