// The files of a git hooks folder that `small hooks install|uninstall git`
// looks at and moves. The folder lies outside the workspace (in .git/, or
// wherever core.hooksPath points), so these work on one folder by name and
// never follow a symbolic link at the file itself.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

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

// A second name `to` for the file `from` (a hard link: same bytes, same mode,
// same inode), made durable. Where the filesystem has no hard links, `from`
// is renamed to `to` instead (the caller then writes `from` again).
Status link_hook_file(const std::string& dir, const std::string& from, const std::string& to);

// rename(2) of `from` over `to` in `dir`, made durable.
Status rename_hook_file(const std::string& dir, const std::string& from, const std::string& to);

// unlink(2) of `name` in `dir`, made durable.
Status remove_hook_file(const std::string& dir, const std::string& name);

}  // namespace small
