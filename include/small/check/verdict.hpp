// The verdict pipeline behind `validate`, `lint`, `check` and `verify`:
// load once, then schema -> invariants -> verify rules, as findings.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/check/finding.hpp"
#include "small/check/invariants.hpp"
#include "small/check/schema.hpp"
#include "small/check/verified_prefix.hpp"
#include "small/model/workspace.hpp"

namespace small {

// Where a verdict stopped, in the order a user has to fix things.
enum class VerdictOutcome {
    Ok,         // no errors
    Invalid,    // errors in content or workspace state (exit 1)
    SystemError // no .small/, unreadable file, ... (exit 2)
};

struct StageResult {
    std::string name;  // "validate", "lint", "verify"
    enum class Status { Ok, Failed, Error, Skipped } status = Status::Skipped;
    std::vector<Finding> findings;  // errors and warnings of this stage
};
const char* stage_status_name(StageResult::Status status);

struct VerdictOptions {
    bool strict = false;
    bool format_strict = false;       // small_version quoting drift is an error
    std::optional<WorkspaceScope> scope;  // checked when set and not Any
    bool require_metadata = false;    // verify: workspace.small.yml must load
};

struct Verdict {
    VerdictOutcome outcome = VerdictOutcome::Ok;
    std::vector<StageResult> stages;
    // Problems that stop everything (no .small/, bad metadata, load errors).
    std::vector<Finding> blocking;
    std::vector<Finding> all_findings() const;
    // The log's verified prefix as this verdict leaves it, to keep for the
    // next one (nullopt: nothing new to keep, or not asked for), and whether the one given was
    // used (the verdict then read only what was appended after it).
    std::optional<VerifiedPrefix> next_prefix;
    bool used_prefix = false;
    bool read_in_windows = false;  // the log was read in windows (a long log without a usable prefix)
};

// Shared state of one invocation: the workspace, loaded once.
struct VerdictInput {
    const FileSystem& fs;
    WorkspacePaths paths;
    const SchemaSet& schemas;
    // The progress log's verified prefix from an earlier verdict with the same
    // schemas and rules (store/verified_cache), or none: the whole log is read.
    const VerifiedPrefix* prefix = nullptr;
    // Whether to work out the prefix to keep (Verdict::next_prefix): a pass
    // over the log's bytes that only a caller keeping the cache needs.
    bool want_prefix = false;
    // Without a usable prefix, a log of at least `stream_from_bytes` is read in
    // windows of about `window_bytes` (check/verified_prefix): memory stays flat.
    LogWindows windows{};
};

// Whether a log's own checks (`checks`: schema, rules, strict scans of the
// log alone; not the rules that span files) find nothing in `log`.
bool entries_are_clean(const SchemaSet& schemas, const Artifact& log, unsigned checks, Instant now);

// The whole log as one verified prefix, read in windows of whole entries
// (a few MB each: memory stays flat in the log's length) and checked by
// `checks` window by window, the facts folded as appends would fold them.
// nullopt when the log is shorter than `windows.stream_from_bytes`, has a finding of its
// own, a layout a window cannot be cut from (see load_after_prefix), or
// changed while it was read: the verdict then reads it whole. Any length
// (a window at a time is held). `each`, when given, sees every window's
// entries once they passed, in order (a caller folding facts of its own in
// the same pass drops them on nullopt).
std::optional<VerifiedPrefix> stream_verified_prefix(const FileSystem& fs, const WorkspacePaths& ws,
                                                     const SchemaSet& schemas, unsigned checks,
                                                     const LogWindows& windows,
                                                     const std::function<void(NodeRef entries)>& each = {});

// `small validate`: load + schema.
Verdict run_validate(const VerdictInput& in);
// `small lint`: load + invariants (+S4 when strict) + quoting warnings.
Verdict run_lint(const VerdictInput& in, const VerdictOptions& options);
// `small verify`: metadata + scope, required files, schema, invariants,
// verify rules; every error collected.
Verdict run_verify(const VerdictInput& in, const VerdictOptions& options);
// `small check`: validate -> lint -> verify, stopping at the first failing stage.
Verdict run_check(const VerdictInput& in, const VerdictOptions& options);

}  // namespace small
