// The files of a git hooks folder that `small hooks install|uninstall git`
// looks at and moves. The folder lies outside the workspace (in .git/, or
// wherever core.hooksPath points), so these work on one folder by name and
// never follow a symbolic link at the file itself.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "small/base/fd.hpp"
#include "small/base/result.hpp"

namespace small {

// What is at `dir`/`name` (lstat: a link is reported, not followed).
struct HookFileState {
    enum class Kind { Missing, Regular, Link, Other };
    Kind kind = Kind::Missing;
    std::string content;  // Regular only
    mode_t mode = 0;      // permission bits, Regular only
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
};
Result<HookFileState> read_hook_file(const std::string& dir, const std::string& name);

// mkdir -p `dir` (0755 each); true when something was created.
Result<bool> ensure_hooks_folder(const std::string& dir);

// An exclusive flock() on the hooks folder itself, held while the returned
// descriptor lives: the workspaces of one repository share the folder (and
// one hook), and each holds only its own workspace lock. Polls until `wait`
// has elapsed, then fails with Busy (exit 3).
Result<Fd> lock_hooks_folder(const std::string& dir, std::chrono::milliseconds wait);

enum class HardLinks { IfSupported, Never };  // Never: the fallback, for tests

// Keeps the hook `from` as `to` and writes `content` (mode 0755) as `from`,
// each step durable. `to` is a hard link (same bytes, mode and inode) where
// the filesystem has them, else `from` is renamed to `to`; when the write
// then fails, the rename is undone, so a failure never leaves `from` gone.
Status chain_hook_file(const std::string& dir, const std::string& from, const std::string& to,
                       const std::string& content, HardLinks links = HardLinks::IfSupported);

// rename(2) of `from` over `to` in `dir`, made durable.
Status rename_hook_file(const std::string& dir, const std::string& from, const std::string& to);

// unlink(2) of `name` in `dir`, made durable.
Status remove_hook_file(const std::string& dir, const std::string& name);

}  // namespace small
