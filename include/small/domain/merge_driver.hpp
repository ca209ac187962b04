// small's merge driver (D17) as `small hooks install|uninstall git`
// registers it: the line `.small/*.small.yml merge=small` in the workspace
// root's .gitattributes, and merge.small.name / merge.small.driver in the
// repository's own git config (never the global one; a driver already set,
// at any level, is kept). Install records what it added; uninstall removes
// only that (docs/commands.md, "The merge driver").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/domain/hook_install.hpp"
#include "small/model/layout.hpp"
#include "small/store/hook_files.hpp"

namespace small {

// One key of the repository's own git config to set, or to remove (nullopt).
struct ConfigChange {
    std::string key;
    std::optional<std::string> value;
    std::optional<std::string> previous;  // its value before, for an undo
};

// Everything the merge driver part of install or uninstall changes, decided
// before anything is written.
struct DriverPlan {
    std::optional<HookFileChange> attributes;  // .gitattributes
    std::vector<ConfigChange> config;
    std::vector<std::string> notes;
};

// Plans the driver's part of `action` without writing; `record` gets what
// install adds, or loses what uninstall removes. A .gitattributes that is a
// link or not a file is refused (Invalid).
Result<DriverPlan> plan_merge_driver(const FileSystem& fs, const WorkspacePaths& ws, const GitPlace& place,
                                     HooksAction action, bool dry_run, HookRecord& record);

// Refuses, before the first write, what a user without write access could
// not change: the config file and its folder (git's lock file goes there),
// the folders .gitattributes and the record are written in.
Status check_driver_writable(const FileSystem& fs, const WorkspacePaths& ws, const GitPlace& place, const DriverPlan& plan,
                             const std::string& record_path, bool record_changes);

// The plan's changes as steps to take by hand ("" when none).
std::string driver_by_hand(const DriverPlan& plan);

// Writes the git config keys, then .gitattributes, each undone by
// `rollback`; the config file keeps its permission bits.
Status apply_merge_driver(const FileSystem& fs, const WorkspacePaths& ws, const GitPlace& place, const DriverPlan& plan,
                          Rollback& rollback);

}  // namespace small
