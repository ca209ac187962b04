// The invariant engine: rules beyond the schemas. Every rule has a stable id shown in reports.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/timestamp.hpp"
#include "small/check/finding.hpp"
#include "small/check/schema.hpp"
#include "small/model/workspace.hpp"

namespace small {

struct VerifiedPrefix;

struct InvariantOptions {
    bool strict = false;
    // workspace.small.yml run.replay_id: scopes strict rule S2 (D9).
    std::string run_replay_id;
    // The clock INV-R8 compares timestamps with (nullopt: the system clock).
    std::optional<Instant> now;
    // The log's verified prefix (check/verified_prefix) when the progress
    // artifact holds only the entries after it: S1, S2 and the handoff's
    // freshness add what it carries. `undecided` is set when a rule needs the
    // verified entries themselves (the verdict then reads the whole log).
    const VerifiedPrefix* before = nullptr;
    bool* undecided = nullptr;
};

// Canonical file order index of an artifact (intent = 0 ... handoff = 4);
// workspace.small.yml is 5 and the .small/ directory itself 6.
int file_order(ArtifactType type);
inline constexpr int kWorkspaceFileOrder = 5;
inline constexpr int kSmallDirOrder = 6;

// Per-artifact rules, and in strict mode secrets, insecure links and the
// cross-artifact rules S1-S3. Artifacts that failed to load are skipped.
std::vector<Finding> check_invariants(const ArtifactSet& set, const InvariantOptions& options);

// Schema violations of every loaded artifact (rule "SCHEMA").
std::vector<Finding> check_schemas(const SchemaSet& schemas, const ArtifactSet& set);

// What .small/ holds beyond the six canonical files and ext/ (sorted, shown
// as ".small/name" with a trailing "/" for folders), and which of those are
// the legacy runtime folders archive/ and runs/.
struct LayoutScan {
    std::vector<std::string> unexpected;  // legacy ones included
    std::vector<std::string> legacy;
};
Result<LayoutScan> scan_layout(const FileSystem& fs, const WorkspacePaths& ws);
// S4's finding for a scan (none when nothing is unexpected).
std::vector<Finding> layout_findings(const LayoutScan& scan, const WorkspacePaths& ws);

// Strict rule S4: nothing but the six canonical files (and ext/) in .small/.
Result<std::vector<Finding>> check_layout(const FileSystem& fs, const WorkspacePaths& ws);

// Warnings for small_version values that are not double-quoted (FMT-1);
// `as_errors` turns them into errors (--format-strict). Loaded artifacts
// are inspected from memory; workspace.small.yml is read from disk.
std::vector<Finding> check_version_quoting(const FileSystem& fs, const WorkspacePaths& ws, const ArtifactSet& set,
                                           bool as_errors);

// Rules only `verify` applies: handoff replayId shape (VER-1..5) and the
// current task against the plan (VER-6/7).
std::vector<Finding> check_verify_rules(const ArtifactSet& set);

}  // namespace small
