// The --json bodies of `small run ...` and `small archive` (the envelope is
// added by the caller). Keys of the reference kept (D11), new ones snake_case.
#pragma once

#include <nlohmann/json.hpp>

#include "small/ops/maintenance/archive.hpp"
#include "small/ops/maintenance/run.hpp"

namespace small {

nlohmann::json run_snapshot_json(const RunSnapshotResult& r);
nlohmann::json run_list_json(const RunListResult& r);
nlohmann::json run_show_json(const RunShowResult& r);
nlohmann::json run_diff_json(const RunDiffResult& r);
nlohmann::json run_checkout_json(const RunCheckoutResult& r);
nlohmann::json archive_json(const ArchiveResult& r);
nlohmann::json archive_verify_json(const ArchiveVerifyResult& r);

// The artifacts of a snapshot as `run show` lists them (absolute paths):
// meta.json, then intent, plan, progress, handoff, constraints (the
// reference's order), those present.
std::vector<std::string> snapshot_artifact_paths(const SnapshotInfo& s);

}  // namespace small
