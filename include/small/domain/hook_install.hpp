// What the three jobs of `small hooks` share (ops/authoring/hooks runs
// them): the request and result, the targets' names, the diff of a change,
// where git keeps the repository's hooks and config, the undo list of a
// transaction, and the install record's logic: install records what it
// added (store/hook_files.hpp, .small-cache/hooks/), and uninstall removes
// exactly that, so a user's identical entry stays.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/git.hpp"
#include "small/base/result.hpp"
#include "small/model/layout.hpp"
#include "small/store/hook_files.hpp"
#include "small/store/workspace_lock.hpp"

namespace small {

enum class HookTarget { Git, Claude, Codex, VSCode };
enum class HooksAction { Install, Uninstall, Print };

inline constexpr std::string_view kHookTargetNames[] = {"git", "claude", "codex", "vscode"};
// "git", "claude", "codex" or "vscode"; anything else is a Usage error.
Result<HookTarget> parse_hook_target(std::string_view text);
std::string_view hook_target_name(HookTarget target);
std::string_view hooks_action_name(HooksAction action);  // "install", ...

struct HooksRequest {
    HookTarget target = HookTarget::Git;
    HooksAction action = HooksAction::Install;
    bool dry_run = false;             // decide and show, write nothing (print implies it)
    bool claim = false;               // claude, codex: the session start runs `small claim --next` too (D19)
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
    // What does not stop the command but needs the user (one line each):
    // install git when git cannot find the `git merge -s small` strategy.
    std::vector<std::string> warnings;

    bool changed() const;
};

// The unified diff of one change ("" when unchanged).
std::string hook_change_diff(const HookFileChange& change);

// The workspace lock, when the request writes next to a .small/ folder.
Result<std::optional<WorkspaceLock>> lock_workspace_for_hooks(const FileSystem& fs, const WorkspacePaths& ws,
                                                              const HooksRequest& req);

// Where git keeps what `small hooks install git` changes, for the
// repository holding the workspace root.
struct GitPlace {
    GitRepo repo;
    std::string hooks_dir;    // absolute, lexically normal (`git rev-parse --git-path hooks`)
    std::string prefix;       // the workspace root below the top level ("" or "sub/")
    std::string config_path;  // the repository's own config file (.git/config), absolute
    std::string hooks_path;   // core.hooksPath as configured ("" when unset)
    std::string driver;       // merge.small.driver as git sees it, from any config file ("" when unset)
};
// System error when `root` is not inside a git work tree.
Result<GitPlace> find_git_place(const std::string& root);

// The undo steps of the writes made so far: when a later write fails they
// run in reverse, so a failed command changes nothing.
class Rollback {
public:
    void add(std::function<Status()> undo) { steps_.push_back(std::move(undo)); }
    // `failure`, saying whether the earlier writes were undone.
    Error undo(Error failure);

private:
    std::vector<std::function<Status()>> steps_;
};

// ---------------------------------------------------------------- what install added

// The record at `path`, or an empty one; `had` tells whether there was one.
Result<HookRecord> load_hook_record(const std::string& path, std::optional<HookRecord>& had);
// Whether `now` is what was on disk (`had`, nullopt: no record).
bool same_hook_record(const std::optional<HookRecord>& had, const HookRecord& now);
// Writes `now` as the record at `path` (after `before`), undone by `rollback`.
Status apply_hook_record(const FileSystem& fs, const WorkspacePaths& ws, const std::string& path, const std::optional<HookRecord>& before,
                         const HookRecord& now, Rollback& rollback);

// Records that install changed `rel` from `old` (`existed`) to `now`,
// adding `added`. A second install keeps the first one's bytes-before while
// the file was not changed in between, and adds its entries to the list.
void record_install(HookRecord& record, const std::string& rel, bool existed, const std::string& old,
                    const std::string& now, const std::vector<std::string>& added);
void forget_recorded_file(HookRecord& record, const std::string& rel);

// A recorded file as it reads after uninstall: its bytes from before install
// while it is exactly as install left it, else with the entries install
// added taken out by `remove` (which returns the text and whether nothing
// else is left). nullopt: the file goes (install created it, and nothing
// else is in it).
using RemoveEntries = std::function<Result<std::pair<std::string, bool>>(const std::string& now,
                                                                         const std::vector<std::string>& entries)>;
Result<std::optional<std::string>> uninstalled_content(const HookRecordFile& rec, const std::string& now,
                                                       const RemoveEntries& remove);

}  // namespace small
