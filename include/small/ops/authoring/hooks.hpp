// `small hooks install|uninstall|print git|claude|codex|vscode`: the git
// pre-commit hook (chained with an existing one), the agent session hooks
// that run `small status --brief` and the editor's schema map
// (model/agent_hooks.hpp has the texts). These are the only files small
// writes beside D7's list, and only by this explicit command: the hook and
// its chained original in the git hooks folder, `.claude/settings.json`,
// `.codex/hooks.json`, `.vscode/settings.json` and `.vscode/small-schemas/`
// in the workspace root.
// `git` also registers small's merge driver (D17): a `.gitattributes` line
// in the workspace root and merge.small.name/driver in the repository's own
// git config (never the global one; a driver already set is kept). Install
// records what it added (store/hook_files.hpp, .small-cache/hooks/), and
// uninstall removes exactly that: a user's identical entry stays.
#pragma once

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/domain/hook_install.hpp"

namespace small {

// Decides and (unless dry run or print) applies the change: everything is
// decided before the first write, so a refusal changes nothing, and a write
// that fails undoes the ones before it. Git: the hook
// (domain/pre_commit_hook.hpp) in the hooks folder git uses
// (core.hooksPath and worktrees included, GitRepo::hooks_dir) and the merge
// driver (domain/merge_driver.hpp); the git config changes are notes.
// Claude/Codex: the settings file in the workspace root, merged
// (model/agent_hooks.hpp). Writes run under the workspace lock when the
// root holds .small/, and git's also under the hooks folder's lock (the
// workspaces of a repository share one hook, each adding its own line).
// Errors: Invalid (refusals: a link or a non-file where a hook, the hooks
// folder, settings file or .gitattributes should be, invalid JSON with file:line:column, a
// foreign hook and a chained one both present, a foreign hook in a
// core.hooksPath folder), System (not a git work tree, I/O,
// read-only files or folders, a failed write), Busy.
Result<HooksResult> hooks_command(const FileSystem& fs, const HooksRequest& req);

}  // namespace small
