// `small checkpoint` (see the header).
#include "small/ops/session/checkpoint.hpp"

#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/plan_model.hpp"
#include "small/store/plan_cache.hpp"
#include "small/domain/claim_gate.hpp"
#include "small/domain/plan_status_edit.hpp"
#include "small/domain/progress_entry.hpp"
#include "small/domain/run_state.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

namespace {

constexpr StatusFlagRule kCheckpointFlags{kCheckpointStatuses, "--task must not be blank",
                                          "completed, blocked, cancelled or in_progress"};

}  // namespace

Result<TaskStatus> parse_checkpoint_status(std::string_view task, std::string_view text) {
    return parse_status_flag(task, text, kCheckpointFlags);
}

Result<CheckpointResult> checkpoint_command(const FileSystem& fs, const WorkspacePaths& ws,
                                            const CheckpointRequest& req) {
    // The flags as the edge checks them: a caller may pass a status checkpoint does not set.
    if (Result<TaskStatus> s = parse_checkpoint_status(req.task, status_name(req.status)); !s) return s.error();
    if (Result<EntryTime> when = parse_entry_time(req.at, req.after); !when) return when.error();
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, false, req.lock_wait});
    if (!session) return session.error();
    return record_status_in_plan(fs, ws, *session, req, kDefaultCheckpointEvidence);
}

Result<CheckpointResult> record_status_in_plan(const FileSystem& fs, const WorkspacePaths& ws,
                                               const MutationSession& session, const CheckpointRequest& req,
                                               std::string_view default_evidence) {
    const std::string task(trim(req.task));
    const TaskStatus status = req.status;
    Result<EntryTime> when = parse_entry_time(req.at, req.after);
    if (!when) return when.error();
    if (Status s = require_artifact(fs, ws, ArtifactType::Progress); !s) return s.error();
    if (Status s = require_artifact(fs, ws, ArtifactType::Plan, "run `small plan` to create it"); !s) return s.error();
    Result<PlanStatusEdit> edit = plan_status_edit(fs, ws, task, status);
    if (!edit) return edit.error();

    Result<DependencyGate> gate = gate_on_dependencies(fs, ws, task, status, req.force);
    if (!gate) return gate.error();
    const ClaimContext claimer = claim_context(req.agent, ws);
    Result<ClaimGate> claim = gate_on_claim(fs, ws, task, status, claimer, req.force, req.evidence.value_or(""));
    if (!claim) return claim.error();

    CheckpointResult result;
    if (!gate->warning.empty()) result.warnings.push_back(gate->warning);
    result.previous_status = edit->previous_status;
    if (!edit->warning.empty()) result.warnings.push_back(edit->warning);
    const std::string& text = edit->text;
    Result<RunPin> pin = pin_run(fs, ws, session, text);
    if (!pin) return pin.error();
    if (!pin->warning.empty()) result.warnings.push_back(pin->warning);

    const EntryFields fields{req.evidence, req.verification, req.command, req.test,
                             req.link,     req.commit,       notes_with_claim(notes_with_forced(req.notes, *gate), *claim)};
    const YamlValue entry = build_progress_entry(task, status, fields, default_evidence, pin->replay_id);
    if (Status v = validate_progress_entry(entry, format_timestamp_utc9(probe_instant(*when)), ws); !v) {
        return v.error();
    }
    Result<std::optional<Instant>> requested = requested_instant(fs, ws, *when);
    if (!requested) return requested.error();

    WorkspaceChange change;
    change.entries.push_back(entry);
    change.first_at = *requested;
    change.files.push_back({ws.artifact_path(ArtifactType::Plan), text});
    if (pin->pinned) change.files.push_back({ws.path_of(kWorkspaceFileName), pin->workspace_text});
    Result<CommittedChange> committed = commit_workspace_change(fs, ws, change);
    if (!committed) return committed.error();
    if (!committed->was_skipped(ws.artifact_path(ArtifactType::Plan))) {
        remember_plan_status_edit(fs, ws, *edit, task, status);
    } else {
        result.warnings.push_back(ws.artifact_display(ArtifactType::Plan) +
                                  " changed while this command ran (a hand edit?), so its status edit was not "
                                  "applied; the progress entry was recorded. Set the status again: small checkpoint "
                                  "--task " + task + " --status " + std::string(status_name(status)));
    }

    result.entry = std::move(committed->appended.front().entry);
    result.timestamp = committed->appended.front().timestamp_text;
    result.replay_id = pin->replay_id;
    result.pinned_run = pin->pinned;
    if (!committed->appended.front().clock_warning.empty()) {
        result.warnings.push_back(committed->appended.front().clock_warning);
    }
    if (std::string w = settle_claim(fs, ws, *claim, claimer); !w.empty()) result.warnings.push_back(w);
    return result;
}

}  // namespace small
