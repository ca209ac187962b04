// `small reset` (see the header).
#include "small/ops/session/reset.hpp"

#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/replay_id.hpp"
#include "small/domain/run_state.hpp"
#include "small/store/workspace_change.hpp"
#include "small/model/templates.hpp"
#include "small/store/plan_cache.hpp"
#include "small/domain/progress_entry.hpp"
#include "small/store/run_store.hpp"

namespace small {

Result<ResetResult> reset_command(const FileSystem& fs, const WorkspacePaths& ws, const ResetRequest& req) {
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, true, req.lock_wait});
    if (!session) return session.error();
    if (Status s = require_artifact(fs, ws, ArtifactType::Progress, "run `small init --force`"); !s) return s.error();

    ResetResult result;
    const YamlValue previous_handoff = old_handoff(fs, ws);
    result.previous_replay_id =
        !session->run_replay_id.empty() ? session->run_replay_id : old_replay_id(previous_handoff);

    // D7: intent is human-owned; a new run keeps it (change it with draft/accept).
    Result<std::string> intent_text = fs.read_file(ws.artifact_path(ArtifactType::Intent));
    if (!intent_text) return intent_text.error();
    const YamlValue plan = plan_template();
    const std::string plan_text = emit_document(plan);
    std::optional<std::string> constraints;
    if (fs.file_exists(ws.artifact_path(ArtifactType::Constraints))) {
        Result<std::string> c = fs.read_file(ws.artifact_path(ArtifactType::Constraints));
        if (!c) return c.error();
        constraints = std::move(*c);
    }
    Result<std::string> id = manifest_replay_id(*intent_text, plan_text, constraints, ws);
    if (!id) return id.error();
    Result<std::set<std::string>> used = used_run_ids(fs, ws);
    if (!used) return used.error();
    result.replay_id = new_run_id(*id, result.previous_replay_id, *used);

    SnapshotMade made;
    Result<std::string> snapshot = snapshot_before_replace(fs, ws, result.previous_replay_id, &made);
    if (!snapshot) return snapshot.error();
    result.snapshot_dir = *snapshot;

    HandoffInputs in;  // a fresh run: readiness is that of the templates
    if (Status s = compute_resume(in, fs, ws, plan, result.replay_id); !s) {
        discard_unused_snapshot(fs, ws, made);
        return s.error();
    }
    in.replay_id = result.replay_id;
    in.run = run_block("reset", result.previous_replay_id);
    EntryFields fields;
    fields.evidence = "Reset plan and handoff for a new run (intent and constraints kept)";
    fields.notes = "small reset";
    WorkspaceChange change;
    change.entries.push_back(build_progress_entry("meta/reset", TaskStatus::Completed, fields, "", result.replay_id));
    change.files.push_back({ws.artifact_path(ArtifactType::Plan), plan_text});
    result.reset_files.push_back(artifact_file_name(ArtifactType::Plan));
    result.reset_files.push_back(artifact_file_name(ArtifactType::Handoff));
    Result<HandoffResult> written =
        write_handoff(fs, ws, in, std::move(change), pinned_workspace_text(*session, ws, result.replay_id));
    if (!written) {
        discard_unused_snapshot(fs, ws, made);  // the reset did not happen: neither did its copy
        return written.error();
    }
    remember_valid_plan(fs, ws, plan_index_of(plan));
    result.handoff = written->handoff;
    result.warnings = written->warnings;
    result.entry = written->entries.front();
    return result;
}

}  // namespace small
