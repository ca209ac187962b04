// `small accept`: installs a draft that parses, passes the artifact's schema
// and its invariants (owner "human", no secrets or insecure links) as
// .small/<kind>.small.yml, together with a `meta/accept-<kind>` progress
// entry, as ONE crash-safe change (workspace_change.hpp). A refused draft
// changes nothing; the draft itself is kept. See draft.hpp for saving one.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/check/draft_check.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/workspace.hpp"

namespace small {

struct AcceptRequest {
    DraftKind kind = DraftKind::Intent;
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

struct AcceptResult {
    bool accepted = false;          // false: refused for `problems`, nothing written
    std::vector<Finding> problems;  // check_draft's findings
    std::string draft_path, draft_display;    // the draft (absolute / for messages)
    std::string target_path, target_display; // .small/<kind>.small.yml
    YamlValue entry;                // the progress entry as written, `timestamp` first
};

// Error kinds: Invalid (no draft: "draft not found: ... (run: small draft
// <kind> --from <path|stdin>)"; no progress log; workspace metadata; a log
// that cannot be appended to), System (no .small/, I/O, e.g. a read-only
// .small/), Busy (lock held). On error the change was not made, or, when a
// write failed half-way, it is journaled and the next write completes it
// (commit_workspace_change).
Result<AcceptResult> accept_command(const FileSystem& fs, const WorkspacePaths& ws, const AcceptRequest& req);

}  // namespace small
