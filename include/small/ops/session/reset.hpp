// `small reset`: a new run on the same intent (D10, D15 in docs/design.md).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/workspace.hpp"
#include "small/domain/handoff_file.hpp"

namespace small {

struct ResetRequest {
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

struct ResetResult {
    std::vector<std::string> reset_files;  // file names replaced by templates
    std::string replay_id;                 // the new run's id
    std::string previous_replay_id;        // the old run's id ("" when none)
    std::string snapshot_dir;              // where the old state was copied ("" when nothing to copy)
    YamlValue entry;                       // meta/reset
    YamlValue handoff;
    std::vector<std::string> warnings;  // workspace.small.yml could not keep its formatting (D20)
};

// D10: a new run. The old intent, plan, constraints and handoff are copied
// to `.small-runs/<previous id>/` (never overwritten), the plan is replaced
// by the template (intent and constraints are human-owned and kept, D7),
// the new run's id is
// pinned, the handoff records `run.transition_reason: reset` and
// `run.previous_replay_id`, and `meta/reset` is appended. Progress history
// is kept. The new id is the manifest's replay id, unless an earlier run of
// this log already used it (resetting twice to the same templates); then it
// is sha256("SMALL|1.0.0|reset|" + previous id + "|" + manifest id), so
// every run's entries stay in their own scope.
Result<ResetResult> reset_command(const FileSystem& fs, const WorkspacePaths& ws, const ResetRequest& req);

}  // namespace small
