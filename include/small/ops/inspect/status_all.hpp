// `small status --all`: every work tree and every local branch of the
// workspace's repository side by side (D19). Read-only, no lock: work trees
// are read from their folders (with their caches), branches that no work
// tree has checked out from their tip commits (no checkout). What differs
// is model/work_sides.
#pragma once

#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/claims.hpp"
#include "small/model/work_sides.hpp"
#include "small/model/workspace.hpp"

namespace small {

struct StatusAllReport {
    std::string workspace;         // the workspace's folder in each work tree ("" at the top)
    std::vector<WorkSide> sides;   // the work trees (the main one first), then the other branches
    SidesComparison comparison;
    std::vector<Claim> claims;     // live claims, by task (one table for the repository)
    std::string claims_problem;    // why the claims could not be read ("" when they could)
    Instant now;                   // when the leases were judged
};

// Errors: no workspace (Usage, with its hint), not in a git work tree
// (Usage), the repository cannot be read (System). A side that cannot be
// read keeps its `problem` and the rest is still reported.
Result<StatusAllReport> status_all_command(const FileSystem& fs, const WorkspacePaths& ws);

// What a side's log (at `side_path`) says beside the current side's (at
// `current_path`; "" when it has none), as status_all_command reads them: the
// side's newest entry, and unless `side.current`, how many of its entries
// after the two logs' common prefix the current one lacks. Both logs are read
// a range at a time (their common prefix is never held), so memory follows
// the entries after it, not the logs' length. Exposed for tests.
void resolve_side_log(const FileSystem& fs, const std::string& side_path, const std::string& current_path,
                      const std::string& display, WorkSide& side);

}  // namespace small
