// The run store, `.small-runs/`: copies of a run's human and plan artifacts
// made before a command replaces them (D10 reset, D15 init --force).
//
// A snapshot folder only ever exists complete: the copy is made in a side
// folder (`.small-runs/.<key>.partial`) and renamed into place. Nothing in it
// is ever overwritten: when `.small-runs/<key>/` already holds other bytes,
// the snapshot goes to `<key>.2/`, `<key>.3/`, ...; a folder that already
// holds exactly these bytes is reused.
#pragma once

#include <string>

#include "small/base/filesystem.hpp"
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
void discard_unused_snapshot(const WorkspacePaths& ws, const SnapshotMade& made);

}  // namespace small
