// Run pinning (see the header).
#include "small/run_state.hpp"

#include "small/replay_id.hpp"
#include "small/timestamp.hpp"
#include "small/yaml.hpp"

namespace small {

Result<std::string> manifest_replay_id(std::string_view intent_text, std::string_view plan_text,
                                       const std::optional<std::string>& constraints_text, const WorkspacePaths& ws) {
    Result<Document> intent = parse_yaml(std::string(intent_text), ws.display_of(artifact_file_name(ArtifactType::Intent)));
    if (!intent) return intent.error();
    Result<Document> plan = parse_yaml(std::string(plan_text), ws.display_of(artifact_file_name(ArtifactType::Plan)));
    if (!plan) return plan.error();
    std::optional<Document> constraints;
    if (constraints_text) {
        Result<Document> c = parse_yaml(*constraints_text, ws.display_of(artifact_file_name(ArtifactType::Constraints)));
        if (!c) return c.error();
        constraints.emplace(std::move(*c));
    }
    return compute_replay_id(intent->root(), plan->root(), constraints ? constraints->root() : NodeRef());
}

Result<RunPin> pin_run(const FileSystem& fs, const WorkspacePaths& ws, const MutationSession& session,
                       std::string_view plan_text) {
    RunPin pin;
    if (!session.run_replay_id.empty()) {
        pin.replay_id = session.run_replay_id;
        return pin;
    }
    const std::string intent_path = ws.path_of(artifact_file_name(ArtifactType::Intent));
    Result<std::string> intent = fs.read_file(intent_path);
    if (!intent) {
        return Error::system("cannot start a run: " + intent.error().message + " (the run's replay id hashes " +
                             ws.display_of(artifact_file_name(ArtifactType::Intent)) + "; run `small init`)");
    }
    std::optional<std::string> constraints;
    const std::string constraints_path = ws.path_of(artifact_file_name(ArtifactType::Constraints));
    if (fs.file_exists(constraints_path)) {
        Result<std::string> c = fs.read_file(constraints_path);
        if (!c) return c.error();
        constraints = std::move(*c);
    }
    Result<std::string> id = manifest_replay_id(*intent, plan_text, constraints, ws);
    if (!id) {
        Error e = id.error();
        e.message = "cannot compute the run's replay id: " + e.message;
        return e;
    }
    pin.replay_id = *id;
    pin.pinned = true;
    pin.workspace_text =
        workspace_metadata_with_run(session.metadata, pin.replay_id, format_timestamp_utc9(current_instant()));
    return pin;
}

}  // namespace small
