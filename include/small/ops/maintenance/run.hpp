// `small run snapshot|list|show|diff|checkout`: the run store's history
// (inspection.md §4.2, D3, D7, D15). The store itself is store/run_store.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/workspace.hpp"
#include "small/domain/progress_digest.hpp"
#include "small/store/run_store.hpp"

namespace small {

struct RunOptions {
    std::string store;  // --store ("" = <root>/.small-runs)
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

// ---- snapshot ----
struct RunSnapshotResult {
    std::string replay_id;
    std::string dir;
    bool replaced = false;  // --force replaced an older snapshot of this run
    SnapshotMeta meta;
};
// Copies the five artifacts (progress as of now) and meta.json to
// `<store>/<run id>/` under the lock and appends an index entry. The run id
// is the pinned one (workspace.small.yml run.replay_id), else the
// handoff's; every id found is checked to be 64 hex before it names a path.
Result<RunSnapshotResult> run_snapshot_command(const FileSystem& fs, const WorkspacePaths& ws, const RunOptions& opts, bool force);

// ---- list / show ----
// Snapshots newest first by created time, ties by folder name; `limit` 0 = all.
struct RunListResult {
    std::vector<SnapshotInfo> runs;
    std::string store;
    std::size_t total = 0;  // before the limit
};
Result<RunListResult> run_list_command(const FileSystem& fs, const WorkspacePaths& ws, const RunOptions& opts, std::size_t limit);

struct RunShowResult {
    SnapshotInfo info;
    ProgressDigest progress;     // of the snapshot's own copy of the log
    std::size_t run_entries = 0; // entries of that copy carrying the snapshot's run id
    bool has_progress = false;
};
Result<RunShowResult> run_show_command(const FileSystem& fs, const WorkspacePaths& ws, const RunOptions& opts,
                               const std::string& name);

// ---- diff ----
struct RunFileDiff {
    std::string name;
    bool changed = false;
    std::size_t added = 0, removed = 0;
    std::string diff;  // unified diff, "" when unchanged
};
struct RunProgressDiff {
    std::size_t entries_before = 0, entries_after = 0;
    std::vector<std::string> completed_delta;  // completed in `to`, not in `from`, sorted
    std::string latest_before, latest_after;
    bool changed = false;
    std::size_t added = 0, removed = 0;
    std::string diff;  // with `full` and a changed log only
};
struct RunDiffResult {
    std::string from, to;
    std::vector<RunFileDiff> files;  // intent, constraints, plan, handoff (skipped when absent from both)
    RunProgressDiff progress;
};
// Unified diffs (3 lines of context, `a/<file>` / `b/<file>`, /dev/null for
// a side without the file) that `patch -p1` applies in a copy of `from`.
Result<RunDiffResult> run_diff_command(const FileSystem& fs, const WorkspacePaths& ws, const RunOptions& opts,
                               const std::string& from, const std::string& to, bool full);

// ---- checkout ----
struct RunCheckoutResult {
    std::string name;                   // the snapshot folder
    std::string replay_id;              // now pinned
    std::string previous_replay_id;     // pinned before ("" when none)
    std::vector<std::string> restored;  // files written from the snapshot
    std::vector<std::string> unchanged; // snapshot files equal to the live ones
    std::vector<std::string> kept;      // live files the snapshot does not have (left as they are)
    std::string backup_dir;             // copies of what was replaced ("" when nothing was)
    std::string warning;                // workspace.small.yml could not keep its formatting (D20); "" when it did
    YamlValue entry;                    // the meta/checkout entry as appended
};
// Restores intent, constraints, plan and handoff from a snapshot, pins its
// run id and appends `meta/checkout`, as one journaled change under the
// lock. progress.small.yml is never rewritten (the snapshot's own entries
// stay readable with `run show`). Without `force`, a live file that differs
// from the snapshot refuses (Invalid, names the files). Replaced files are
// first copied to .small-cache/backups/.
Result<RunCheckoutResult> run_checkout_command(const FileSystem& fs, const WorkspacePaths& ws, const RunOptions& opts,
                                       const std::string& name, bool force);

}  // namespace small
