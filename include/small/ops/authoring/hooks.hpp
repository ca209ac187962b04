// `small hooks install|uninstall|print git|claude|codex`: the git pre-commit
// hook (chained with an existing one) and the agent session hooks that run
// `small status --brief` (model/agent_hooks.hpp has the texts). These are
// the only files small writes beside D7's list, and only by this explicit
// command: the hook and its chained original in the git hooks folder,
// `.claude/settings.json` and `.codex/hooks.json` in the workspace root.
// `git` also registers small's merge driver (D17): a `.gitattributes` line
// in the workspace root and merge.small.name/driver in the repository's own
// git config (never the global one; a driver already set is kept). Install
// records what it added (store/hook_files.hpp, .small-cache/hooks/), and
// uninstall removes exactly that: a user's identical entry stays.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"

namespace small {

enum class HookTarget { Git, Claude, Codex };
enum class HooksAction { Install, Uninstall, Print };

inline constexpr std::string_view kHookTargetNames[] = {"git", "claude", "codex"};
// "git", "claude" or "codex"; anything else is a Usage error.
Result<HookTarget> parse_hook_target(std::string_view text);
std::string_view hook_target_name(HookTarget target);
std::string_view hooks_action_name(HooksAction action);  // "install", ...

struct HooksRequest {
    HookTarget target = HookTarget::Git;
    HooksAction action = HooksAction::Install;
    bool dry_run = false;             // decide and show, write nothing (print implies it)
    std::optional<std::string> dir;   // --dir: the workspace root (or its .small/)
    std::string cwd;                  // where the workspace search starts
    std::chrono::milliseconds lock_wait{10'000};
};

// One file the command wrote (or, in a dry run, would write).
struct HookFileChange {
    std::string path;     // absolute
    std::string change;   // created, updated, unchanged, removed, restored, chained
    bool existed = false;
    std::string old_content;
    std::string new_content;  // "" when the file goes away
};

struct HooksResult {
    HookTarget target = HookTarget::Git;
    HooksAction action = HooksAction::Install;
    bool dry_run = false;
    bool written = false;                  // something changed on disk
    std::vector<HookFileChange> files;     // in the order they are written
    std::string content;                   // print: what install writes (the hook, or our entries)
    std::vector<std::string> notes;        // things the user should know (one line each)

    bool changed() const;
};

// Decides and (unless dry run or print) applies the change: everything is
// decided before the first write, so a refusal changes nothing, and a write
// that fails undoes the ones before it. Git: the
// hooks folder comes from `git rev-parse --git-path hooks` run in the
// workspace root (core.hooksPath and worktrees included); the decision
// table is in docs/commands.md; the git config changes are notes.
// Claude/Codex: the settings file in the workspace root, merged
// (model/agent_hooks.hpp). Writes run under the workspace lock when the
// root holds .small/, and git's also under the hooks folder's lock (the
// workspaces of a repository share one hook, each adding its own line).
// Errors: Invalid (refusals: a link or a non-file where a hook, the hooks
// folder, settings file or .gitattributes should be, invalid JSON with file:line:column, a
// foreign hook and a chained one both present, a foreign hook in a
// core.hooksPath folder), System (git missing or not a repository, I/O,
// read-only files or folders, a failed write), Busy.
Result<HooksResult> hooks_command(const FileSystem& fs, const HooksRequest& req);

// The unified diff of one change ("" when unchanged).
std::string hook_change_diff(const HookFileChange& change);

}  // namespace small
