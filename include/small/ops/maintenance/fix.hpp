// `small fix`: explicit, separately confirmed repairs (D7, D15).
//   --versions         small_version written as a double-quoted string
//   --orphan-progress  orphan progress entries of the run superseded by
//                      appended meta/ entries (existing entries untouched)
//   --runtime-layout   .small/archive, .small/runs moved to .small-archive,
//                      .small-runs (nothing overwritten)
//   workspace step     workspace.small.yml created or repaired in place
// `--all` = versions + runtime layout + workspace step. Everything is
// computed first; with `dry_run` nothing more happens. Otherwise, under the
// workspace lock: every file about to be rewritten is copied to
// `.small-cache/backups/<stamp>-fix/`, then the rewrites go through one
// journaled change, then the appended entries and the moves through a
// second one (a progress header rewrite and appends cannot share one).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/workspace.hpp"
#include "small/domain/repairs.hpp"
#include "small/store/runtime_layout.hpp"

namespace small {

struct FixRequest {
    bool versions = false;
    bool orphan_progress = false;
    bool runtime_layout = false;
    bool workspace = false;  // --all, or `small fix workspace`
    WorkspaceScope scope = WorkspaceScope::Root;
    WorkspaceRepairRequest workspace_repair;
    bool dry_run = false;
    std::chrono::milliseconds lock_wait{10'000};
};

struct FixResult {
    bool dry_run = false;
    std::optional<std::vector<VersionFix>> versions;
    std::optional<OrphanFixPlan> orphans;
    std::optional<LayoutPlan> layout;
    std::optional<WorkspaceRepair> workspace;
    std::vector<std::string> rewritten;  // files replaced (names in .small/), in order
    std::vector<std::string> appended;   // task ids of the appended entries, in order
    std::string backup_dir;              // absolute; "" when nothing was rewritten
    std::vector<std::string> warnings;
    bool changed() const { return !rewritten.empty() || !appended.empty() || (layout && !layout->empty()); }
};

// Usage error when no repair is selected.
Result<FixResult> fix_command(const FileSystem& fs, const WorkspacePaths& ws, const FixRequest& req);

}  // namespace small
