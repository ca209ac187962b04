// The run store, `.small-runs/`: copies of a run's human and plan artifacts
// made before a command replaces them (D10 reset, D15 init --force).
//
// A snapshot folder only ever exists complete: the copy is made in a side
// folder (`.small-runs/.<key>.partial`) and renamed into place. Nothing in it
// is ever overwritten: when `.small-runs/<key>/` already holds other bytes,
// the snapshot goes to `<key>.2/`, `<key>.3/`, ...; a folder that already
// holds exactly these bytes is reused.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/git.hpp"
#include "small/base/timestamp.hpp"
#include "small/base/result.hpp"
#include "small/model/layout.hpp"

namespace small {

// Copies intent, constraints, plan and handoff (those that exist) into the
// store under `key`, a replay id (64 hex: validated before it names a path).
// Returns the folder's absolute path, or "" when there was nothing to copy.
// A failed snapshot leaves no folder behind.
//
// `made` (when given) receives what this call created, for
// discard_unused_snapshot: nothing when an identical folder was reused.
struct SnapshotMade {
    std::string dir;            // the snapshot folder, "" when none was created
    bool runs_created = false;  // .small-runs/ itself was created too
};
Result<std::string> snapshot_run(const FileSystem& fs, const WorkspacePaths& ws, const std::string& key,
                                 SnapshotMade* made = nullptr);

// What a command that replaces artifacts does first (D15): the snapshot
// under the run's id, or, when there is none, under the replay-id-shaped
// hash of the artifacts' bytes (sha256 of "SMALL|1.0.0|snapshot|" + files).
Result<std::string> snapshot_before_replace(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id,
                                            SnapshotMade* made = nullptr);

// For a command that made a snapshot and then failed: removes what it made,
// unless a change journal is pending (its roll-forward still replaces the
// artifacts the snapshot keeps). Best effort.
void discard_unused_snapshot(const FileSystem& fs, const WorkspacePaths& ws, const SnapshotMade& made);

// ---- The `small run` commands' view of the store ----
//
// A snapshot folder is named by a replay id (64 lower-case hex), or by one
// followed by `.N` (N >= 2: a later copy of the same run kept by reset or
// init --force). Every name taken from an argument, a handoff or a folder
// listing is checked by is_snapshot_name before it names a path. The store
// folder and everything in it must be plain folders and files: a symbolic
// link is refused, for reads too (a planted link would make `checkout` copy
// another tree into .small/).

bool is_snapshot_name(std::string_view name);
// The replay id a snapshot name stands for (the name without `.N`).
std::string snapshot_run_id(std::string_view name);

// The store folder: `store_flag` empty -> <root>/.small-runs; absolute ->
// as is; relative -> joined to the workspace root (as the reference does).
std::string run_store_dir(const WorkspacePaths& ws, const std::string& store_flag);

// meta.json of a snapshot (all keys always written).
struct SnapshotMeta {
    std::string replay_id, created_at, git_sha, branch, cli_version, workspace_kind, source_dir;
    // Whether the work tree had changes; unknown (JSON null) when not computed.
    std::optional<bool> git_dirty;
};

struct SnapshotInfo {
    std::string name;  // folder name (is_snapshot_name)
    std::string dir;   // absolute folder
    SnapshotMeta meta;
    bool has_meta = false;        // meta.json present (snapshots made by reset have none)
    Instant created;              // meta created_at, else the folder's mtime
    std::string summary;          // the snapshot's handoff summary
    std::vector<std::string> next_steps;
    std::vector<std::string> files;  // artifact file names present, canonical order (intent .. handoff)
    std::string problem;             // why the folder could not be read completely ("" when fine)
};

// One snapshot. Errors: a bad name (Usage), no such folder ("run snapshot
// not found: <name>", Invalid), a link (Invalid), an unreadable or
// unparsable meta.json / handoff (Invalid, file:line:column).
Result<SnapshotInfo> load_snapshot(const FileSystem& fs, const std::string& store, const std::string& name);

// Every snapshot folder of the store, newest first by created time, ties by
// name ascending (a deterministic order). A folder that cannot be read is
// listed with its `problem` instead of failing the whole list; folders whose
// names are not snapshot names (the index, `.partial` leftovers) are skipped.
// A missing store is an empty list; a linked store is refused.
Result<std::vector<SnapshotInfo>> list_snapshots(const FileSystem& fs, const std::string& store);

// What `small run snapshot` stores: the five artifacts (progress as of now,
// constraints when present) and meta.json, in `<store>/<name>/`. The folder
// is built beside the store as a side folder and renamed into place; with
// `force` an existing snapshot is swapped out by one atomic exchange and
// then removed, so readers always see a complete folder. Without `force` an
// existing folder is refused ("run snapshot exists, pass --force to
// overwrite", Invalid). Under the workspace lock.
struct RunSnapshotRequest {
    std::string store;  // run_store_dir
    std::string name;   // is_snapshot_name
    SnapshotMeta meta;
    bool force = false;
};
struct RunSnapshotWritten {
    std::string dir;
    bool replaced = false;  // an older folder of that name was replaced (--force)
};
Result<RunSnapshotWritten> write_run_snapshot(const FileSystem& fs, const WorkspacePaths& ws, const RunSnapshotRequest& req);

// meta.json text (2-space JSON, keys in the reference's order).
std::string snapshot_meta_json(const SnapshotMeta& meta);

// The run a snapshot or an archive is filed under: the pinned id (`pinned`,
// from workspace.small.yml) when set, else the handoff's replayId.value
// (lower-cased). The handoff must carry a replayId (as in the reference);
// one that is not 64 hex digits is refused even when a pinned id exists, so
// a planted id can never name a path. Errors say to run `small handoff`.
struct RunIdentity {
    std::string id;
    std::string summary;  // the handoff's summary ("" when none)
};
Result<RunIdentity> current_run_identity(const FileSystem& fs, const WorkspacePaths& ws, const std::string& pinned);

}  // namespace small
