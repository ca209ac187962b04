// `small emit`: the workspace's state for machines (always JSON). Read-only,
// no lock. The default sections read the small artifacts, workspace.small.yml
// and only the end of the progress log (flat in the log's size); the whole
// log is parsed only when `progress` is named in --include.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/check/verdict.hpp"
#include "small/doc/document.hpp"
#include "small/model/plan_summary.hpp"
#include "small/model/workspace.hpp"
#include "small/domain/progress_query.hpp"

namespace small {

// In the order the document lists them.
enum class EmitSection { Paths, Status, Progress, Intent, Constraints, Plan, Enforcement };
std::string_view emit_section_name(EmitSection section);

// --include: comma-separated canonical names (trimmed, any case; empty items
// skipped). An unknown name is a Usage error naming the valid ones. An empty
// list means the default set: paths, status, progress, intent, constraints.
Result<std::set<EmitSection>> parse_emit_sections(std::string_view list);

struct EmitOptions {
    std::size_t recent = 5;  // progress.recent entries; 0 = all
    std::size_t tasks = 3;   // status.nextActionable; 0 = all
    std::set<EmitSection> include;  // from parse_emit_sections; empty = default set
    bool check = false;             // run `check` (non-strict) into `enforcement`
    WorkspaceScope scope = WorkspaceScope::Root;
    std::string given_root;         // --dir made absolute (paths.root), else the cwd
};

struct IntentSummary {
    bool present = false;
    std::string small_version, owner, intent;
    std::size_t include_count = 0, exclude_count = 0, success_criteria_count = 0;
};

struct ConstraintsSummary {
    bool present = false;
    std::vector<std::string> ids;  // sorted
};

struct EmitResult {
    std::set<EmitSection> sections;        // the sections filled (others are absent)
    bool sections_named = false;           // --include was given: raw artifacts are added
    WorkspacePaths ws;
    std::string given_root;
    std::optional<WorkspaceKind> kind;     // from workspace.small.yml
    PlanSummary plan_summary;              // status (zero counts without a plan)
    std::string last_timestamp;            // newest entry, UTC 9 digits; "" when none or unusable
    std::vector<ProgressItem> recent;      // newest first, not signal-filtered
    std::optional<Document> progress_log;  // the whole log, when `progress` is named
    IntentSummary intent;
    std::optional<Document> intent_doc;    // when `intent` is named
    ConstraintsSummary constraints;
    std::optional<Document> constraints_doc;
    std::optional<Document> plan_doc;      // when `plan` is named and the file exists
    std::optional<Verdict> enforcement;    // with --check or `enforcement` named
    int check_exit_code = 0;
    std::vector<Error> problems;           // reported as warnings; the rest is still emitted
};

// Errors: no .small/ (System); workspace.small.yml missing or of the wrong
// kind for a scope other than Any (Invalid); an artifact a selected section
// needs does not parse (its kind, with file:line:column).
Result<EmitResult> emit_command(const FileSystem& fs, const WorkspacePaths& ws, const EmitOptions& options);

}  // namespace small
