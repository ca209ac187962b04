// `small start` (see the header).
#include "small/ops/session/start.hpp"
#include "small/store/log_facts_cache.hpp"

#include "small/base/text.hpp"
#include "small/check/placeholder.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/replay_id.hpp"
#include "small/domain/run_state.hpp"
#include "small/store/workspace_change.hpp"
#include "small/model/templates.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/plan_cache.hpp"
#include "small/domain/progress_entry.hpp"

namespace small {

namespace {

// A run with no work entries yet follows the manifest (D18: the run is
// pinned when its work starts): the manifest's id when it differs from the
// pinned one, else "". A human who edits intent or constraints after init
// is not left with a run that no longer matches them.
Result<std::string> repinned_run_id(const FileSystem& fs, const WorkspacePaths& ws, const MutationSession& session,
                                    const YamlValue& plan) {
    Result<LogFacts> facts = cached_log_facts(fs, ws, session.run_replay_id);  // read in windows when long
    if (!facts) return facts.error();
    for (const auto& [id, work] : facts->tasks) {
        if (!work.last_status.empty()) return std::string();  // the run's work has started: keep its id
    }
    Result<std::string> manifest = manifest_id_on_disk(fs, ws, emit_document(plan));
    if (!manifest) return manifest.error();
    return *manifest == session.run_replay_id ? std::string() : *manifest;
}

}  // namespace

Result<StartResult> start_command(const FileSystem& fs, const WorkspacePaths& ws, const StartRequest& req) {
    if (req.summary) {
        if (Status s = refuse_placeholder("summary", *req.summary); !s) return s.error();
    }
    const bool creates_small_dir = req.scope == WorkspaceScope::Any && !fs.directory_exists(ws.small_dir);
    if (creates_small_dir) {
        if (Status s = ensure_directory(fs, ws, ws.small_dir); !s) return s.error();
    }
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, true, req.lock_wait});
    if (!session) return session.error();

    if (Status s = require_parseable(fs, ws, {ArtifactType::Intent, ArtifactType::Constraints, ArtifactType::Plan,
                                              ArtifactType::Progress});
        !s) {
        return s.error();
    }
    StartResult result;
    if (creates_small_dir) {  // a new workspace, as init makes one: its runtime folders stay out of git
        Result<GitignoreUpdate> gitignore = plan_gitignore_update(fs, ws);
        if (!gitignore) return gitignore.error();
        result.gitignore = std::move(*gitignore);
    }
    const std::pair<ArtifactType, YamlValue> templates[] = {
        {ArtifactType::Intent, intent_template(std::nullopt)},
        {ArtifactType::Constraints, constraints_template()},
        {ArtifactType::Plan, plan_template()},
        {ArtifactType::Progress, progress_template()}};
    for (const auto& [type, value] : templates) {
        const std::string path = ws.artifact_path(type);
        if (fs.file_exists(path)) continue;
        if (Status s = write_file_atomic(fs, ws, path, emit_document(value)); !s) return s.error();
        result.created.push_back(artifact_file_name(type));
    }
    const bool had_metadata = fs.file_exists(ws.path_of(kWorkspaceFileName));
    if (!had_metadata) result.created.emplace_back(kWorkspaceFileName);

    Result<Document> plan_doc = load_artifact(fs, ws, ArtifactType::Plan);
    if (!plan_doc) return plan_doc.error();
    const YamlValue previous = old_handoff(fs, ws);
    HandoffInputs in;
    const YamlValue plan = to_yaml_value(plan_doc->root());
    in.readiness = strict_readiness(fs, ws);
    in.summary = req.summary;
    in.links = old_links(previous);
    if (!session->run_replay_id.empty()) {
        in.replay_id = session->run_replay_id;
        in.source = old_replay_id(previous) == in.replay_id ? old_source(previous) : "auto";
        Result<std::string> repinned = repinned_run_id(fs, ws, *session, plan);
        if (!repinned) return repinned.error();
        if (!repinned->empty()) {
            result.repinned_from = in.replay_id;
            in.replay_id = *repinned;
            in.source = "auto";
        }
    } else if (!old_replay_id(previous).empty()) {
        in.replay_id = old_replay_id(previous);
        in.source = old_source(previous);
    } else {
        Result<RunPin> pin = pin_run(fs, ws, *session, emit_document(plan));
        if (!pin) return pin.error();
        in.replay_id = pin->replay_id;
        result.self_heal = true;
    }
    in.run = run_block(result.self_heal ? "self_heal" : "manual", "");
    if (Status s = compute_resume(in, fs, ws, plan, in.replay_id); !s) return s.error();

    WorkspaceChange change;
    if (result.self_heal) {
        EntryFields fields;
        fields.evidence = "Generated the run replay id during small start";
        fields.notes = "small start self-heal";
        change.entries.push_back(
            build_progress_entry("meta/replayid-self-heal", TaskStatus::Completed, fields, "", in.replay_id));
    }
    MetadataText workspace = pinned_workspace_text(*session, ws, in.replay_id);
    if (!had_metadata && workspace.text.empty()) {
        workspace = workspace_metadata_with_run(*session, ws, in.replay_id, format_timestamp_utc9(current_instant()));
    }
    Result<HandoffResult> written = write_handoff(fs, ws, in, std::move(change), workspace);
    if (!written) return written.error();
    if (!written->entries.empty()) result.entry = written->entries.front();
    result.handoff = std::move(*written);
    if (result.gitignore) {
        if (Status s = write_gitignore_update(fs, ws, *result.gitignore); !s) return s.error();
    }
    return result;
}

}  // namespace small
