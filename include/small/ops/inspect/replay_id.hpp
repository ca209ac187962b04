// `small replay-id`: the id the current manifest gets, and why the run's
// pinned id differs when it does. Reads only; no lock.
#pragma once

#include <string>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/workspace.hpp"

namespace small {

// What `small replay-id` reports (D3): the id the current manifest gets,
// and the run's pinned id, which differs once intent, plan or constraints
// were edited after the run started.
struct ReplayIdReport {
    std::string manifest_id;
    std::string run_id;       // workspace.small.yml run.replay_id; "" when none (or the file is unusable)
    std::string explanation;  // why run_id differs from manifest_id; "" when it does not
};

// Only intent, plan and constraints are read (loadable YAML mappings, not
// necessarily schema-valid). Errors: no .small/ (System), intent or plan
// missing or not YAML (Invalid), unreadable (System), a value JCS cannot
// canonicalise (Invalid).
Result<ReplayIdReport> replay_id_command(const FileSystem& fs, const WorkspacePaths& ws);

}  // namespace small
