// The run a workspace is in (DECISIONS D3, D10): its replay id is pinned in
// workspace.small.yml at run.replay_id when the run starts and not
// recomputed while it lasts.
#pragma once

#include <string>
#include <string_view>

#include "small/filesystem.hpp"
#include "small/result.hpp"
#include "small/workspace.hpp"
#include "small/workspace_change.hpp"

namespace small {

struct RunPin {
    std::string replay_id;
    bool pinned = false;         // newly pinned: workspace_text must be written
    std::string workspace_text;  // workspace.small.yml with the id (when pinned)
};

// The run's id: the pinned one, or (no run yet) the replay id of the manifest
// intent + `plan_text` + constraints as on disk, to be pinned by the caller.
// Errors: intent.small.yml missing or unreadable (Invalid/System, file:line).
Result<RunPin> pin_run(const FileSystem& fs, const WorkspacePaths& ws, const MutationSession& session,
                       std::string_view plan_text);

// The replay id of a manifest given as texts (constraints may be absent).
Result<std::string> manifest_replay_id(std::string_view intent_text, std::string_view plan_text,
                                       const std::optional<std::string>& constraints_text, const WorkspacePaths& ws);

}  // namespace small
