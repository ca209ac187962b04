// The handoff file (the one place an agent resumes from), as handoff, start
// and reset write it (D3, D7, D8, D10, D13 in docs/design.md).
//
// The handoff says where the run stands (model/resume_point, D18): the
// current task and next steps are the resume point's, so the handoff, the
// primer and MCP `resume` never disagree. A failing strict check comes
// first: current task = the resume point's (else meta/blocker), next steps
// say which check failed. The file's first line records what it was
// computed from (source_comment), so readers can tell when it is stale.
// The strict readiness check is `check --strict` on the workspace, ignoring
// findings about the handoff file being replaced; its first failure (in the
// deterministic D9 order) is quoted in the next steps.
//
// D13: started tasks (work entries in the current run, not settled) never
// stop a handoff; they come first in the next steps, one line each with the
// last recorded status. `--require-settled` refuses instead (the
// reference's rule).
#pragma once

#include <initializer_list>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/resume_point.hpp"
#include "small/model/workspace.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

struct Readiness {
    bool strict_ok = true;
    std::string first_failure;  // "file:line:column: message [RULE]" of the first error
};

// `small check --strict` as the handoff sees it (see above).
Readiness strict_readiness(const FileSystem& fs, const WorkspacePaths& ws);

// A plan task with work entries in the current run that is not settled (D13).
using UnsettledTask = StartedTask;

struct HandoffInputs {
    ResumePoint point;      // where the run stands
    HandoffSource computed_from;  // the file's first line
    std::vector<std::string> next;  // --next: the session's own steps, after the computed ones
    Readiness readiness;
    std::optional<std::string> summary;  // --summary (D10); blank = computed
    std::string replay_id;
    std::string source = "auto";         // auto or manual
    YamlValue links = YamlValue::array();
    YamlValue run;                       // the `run` block, or null
};

// The handoff document (house order: small_version, owner, summary, resume,
// links, replayId, run).
YamlValue build_handoff(const HandoffInputs& in);

// `in.point` and `in.computed_from` for `plan` and the log as it is
// (`run_id`'s work entries; every entry when empty). Errors: the log is
// missing or does not parse.
Status compute_resume(HandoffInputs& in, const FileSystem& fs, const WorkspacePaths& ws, const YamlValue& plan,
                      const std::string& run_id);

// The outline of a plan value (as outline_plan reads a parsed one).
std::vector<PlanTaskOutline> outline_of(const YamlValue& plan);

// "task-2: Design widget (plan: pending, last recorded: in_progress)".
inline std::string describe_unsettled(const UnsettledTask& t) { return describe_started(t); }

struct HandoffResult {
    YamlValue handoff;        // as written
    std::string text;         // the file's bytes
    std::string replay_id;
    std::string source;
    bool pinned_run = false;  // workspace.small.yml run.replay_id changed
    std::vector<YamlValue> entries;  // progress entries written with it (start, reset)
    std::vector<UnsettledTask> unsettled;  // named in the handoff (D13)
    std::vector<std::string> warnings;     // the workspace pin could not keep the file's formatting (D20)
};

// The existing handoff as a value (null when absent or unreadable: it is
// being replaced), and what a new one keeps of it.
YamlValue old_handoff(const FileSystem& fs, const WorkspacePaths& ws);
std::string old_replay_id(const YamlValue& handoff);  // a valid id, or ""
std::string old_source(const YamlValue& handoff);     // "auto" or "manual"
YamlValue old_links(const YamlValue& handoff);

// The handoff's `run` block: created now, with the reason and previous id.
YamlValue run_block(const std::string& reason, const std::string& previous);

// An artifact that must exist (System error naming init/start otherwise).
Result<Document> load_artifact(const FileSystem& fs, const WorkspacePaths& ws, ArtifactType t);

// The handoff built from `in`, refused when it would not validate, written
// with `change` (entries, other files) and, when its text is not empty, the
// workspace metadata `workspace` (its warning kept), as one crash-safe change.
Result<HandoffResult> write_handoff(const FileSystem& fs, const WorkspacePaths& ws, const HandoffInputs& in, WorkspaceChange change,
                                    const MetadataText& workspace);

// A handoff is never written over artifacts that do not even parse.
Status require_parseable(const FileSystem& fs, const WorkspacePaths& ws, std::initializer_list<ArtifactType> types);

// workspace.small.yml with `id` pinned, or an empty text when it is pinned
// already.
MetadataText pinned_workspace_text(const MutationSession& s, const WorkspacePaths& ws, const std::string& id);

// What `small handoff` (and `apply --handoff`) asks for.
struct HandoffOptions {
    std::optional<std::string> summary;          // --summary (D10)
    std::optional<std::string> manual_replay_id; // validated, lower-case
    bool require_settled = false;                // refuse while tasks are unsettled
    std::vector<std::string> next;               // --next: the session's own next steps
};

// The handoff rebuilt from the workspace as it is and written (plan,
// progress, strict readiness, unsettled tasks named per D13; the run id
// pinned when none was). Under the lock of `session`. Errors: Invalid
// (unsettled tasks with require_settled, artifacts that do not parse),
// System.
Result<HandoffResult> regenerate_handoff(const FileSystem& fs, const WorkspacePaths& ws, const MutationSession& session,
                                         const HandoffOptions& opts);

}  // namespace small
