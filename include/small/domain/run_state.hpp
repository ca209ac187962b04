// The run a workspace is in (D3, D10): its replay id is pinned in
// workspace.small.yml at run.replay_id when the run starts and not
// recomputed while it lasts.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "small/base/filesystem.hpp"
#include "small/model/replay_id.hpp"
#include "small/base/result.hpp"
#include "small/model/workspace.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

struct RunPin {
    std::string replay_id;
    bool pinned = false;         // newly pinned: workspace_text must be written
    std::string workspace_text;  // workspace.small.yml with the id (when pinned)
    std::string warning;         // its formatting could not be kept (D20): where and why
};

// The run's id: the pinned one, or (no run yet) the replay id of the manifest
// intent + `plan_text` + constraints as on disk, to be pinned by the caller.
// Errors: intent.small.yml missing or unreadable (Invalid/System, file:line).
Result<RunPin> pin_run(const FileSystem& fs, const WorkspacePaths& ws, const MutationSession& session,
                       std::string_view plan_text);

// The replay id of intent + `plan_text` + constraints as on disk (the
// manifest as it now is). Errors as pin_run's.
Result<std::string> manifest_id_on_disk(const FileSystem& fs, const WorkspacePaths& ws, std::string_view plan_text);

// The manifest's files as messages name them (.small/intent.small.yml, ...).
ManifestFiles manifest_files(const WorkspacePaths& ws);

// The replay id of a manifest given as texts (constraints may be absent).
Result<std::string> manifest_replay_id(std::string_view intent_text, std::string_view plan_text,
                                       const std::optional<std::string>& constraints_text, const WorkspacePaths& ws);

// replayId values that entries of progress.small.yml carry (the runs this
// log has seen). A missing log has none; an unreadable one is an error.
Result<std::set<std::string>> used_run_ids(const FileSystem& fs, const WorkspacePaths& ws);

// The id of a NEW run whose manifest hashes to `manifest_id`: that id,
// unless it is `previous` or already `used` (a reset or init --force back to
// the same templates), then sha256("SMALL|1.0.0|reset|" + previous + "|" +
// manifest_id), so every run's entries keep their own S2 scope.
std::string new_run_id(const std::string& manifest_id, const std::string& previous,
                       const std::set<std::string>& used);

}  // namespace small
