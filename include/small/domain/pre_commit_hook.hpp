// The git pre-commit hook of `small hooks install|uninstall|print git`:
// small's hook (model/agent_hooks.hpp has its text) in the hooks folder git
// uses, chained with an existing one, which is kept as
// pre-commit.small-chained and still runs first. The decision table is in
// docs/commands.md; ops/authoring/hooks runs it in one transaction with
// the merge driver (domain/merge_driver.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "small/base/fd.hpp"
#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/domain/hook_install.hpp"
#include "small/store/hook_files.hpp"

namespace small {

// The hook and its chained original as they are in the hooks folder.
struct PreCommitFiles {
    HookFileState pre;
    HookFileState chained;
};
Result<PreCommitFiles> read_pre_commit_files(const GitPlace& place);

// The hook text install writes: small's hook keeps the workspaces it
// checks and adds this one.
std::string wanted_pre_commit_hook(const GitPlace& place, const HookFileState& pre);
std::string pre_commit_path(const GitPlace& place);

// What install or uninstall changes in the hooks folder, decided from the
// two files; `driver_by_hand` (install) is how to register the merge driver
// by hand, named when a foreign hook in a core.hooksPath folder is refused.
Result<std::vector<HookFileChange>> plan_pre_commit_install(const FileSystem& fs, const GitPlace& place, const PreCommitFiles& now,
                                                            const std::string& driver_by_hand,
                                                            std::vector<std::string>& notes);
Result<std::vector<HookFileChange>> plan_pre_commit_uninstall(const GitPlace& place, const PreCommitFiles& now,
                                                              std::vector<std::string>& notes);
// Makes the planned changes, each durable.
Status apply_pre_commit_changes(const FileSystem& fs, const std::string& hooks_dir, const std::vector<HookFileChange>& files);

// Refuses a hooks folder that is a symbolic link: small does not write
// hooks through a link.
Status refuse_linked_hooks_folder(const FileSystem& fs, const std::string& dir);

// The hooks folder's lock, when this run writes (install creates the folder
// first, undone by `rollback`; an uninstall with no folder has nothing to
// change).
Result<std::optional<Fd>> lock_hooks_for_write(const FileSystem& fs, const HooksRequest& req, const GitPlace& place,
                                               HooksResult& result, Rollback& rollback);

}  // namespace small
