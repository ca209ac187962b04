// Run pinning (see the header).
#include "small/domain/run_state.hpp"

#include "small/model/replay_id.hpp"
#include "small/base/text.hpp"
#include "small/base/timestamp.hpp"
#include "small/doc/yaml.hpp"

namespace small {

ManifestFiles manifest_files(const WorkspacePaths& ws) {
    return {ws.artifact_display(ArtifactType::Intent), ws.artifact_display(ArtifactType::Plan),
            ws.artifact_display(ArtifactType::Constraints)};
}

Result<std::string> manifest_replay_id(std::string_view intent_text, std::string_view plan_text,
                                       const std::optional<std::string>& constraints_text, const WorkspacePaths& ws) {
    Result<Document> intent = parse_yaml(std::string(intent_text), ws.artifact_display(ArtifactType::Intent));
    if (!intent) return intent.error();
    Result<Document> plan = parse_yaml(std::string(plan_text), ws.artifact_display(ArtifactType::Plan));
    if (!plan) return plan.error();
    std::optional<Document> constraints;
    if (constraints_text) {
        Result<Document> c = parse_yaml(*constraints_text, ws.artifact_display(ArtifactType::Constraints));
        if (!c) return c.error();
        constraints.emplace(std::move(*c));
    }
    return compute_replay_id(intent->root(), plan->root(), constraints ? constraints->root() : NodeRef(),
                             manifest_files(ws));
}

Result<std::string> manifest_id_on_disk(const FileSystem& fs, const WorkspacePaths& ws, std::string_view plan_text) {
    const std::string intent_path = ws.artifact_path(ArtifactType::Intent);
    Result<std::string> intent = fs.read_file(intent_path);
    if (!intent) {
        return Error::system("cannot start a run: " + intent.error().message + " (the run's replay id hashes " +
                             ws.artifact_display(ArtifactType::Intent) + "; run `small init`)");
    }
    std::optional<std::string> constraints;
    const std::string constraints_path = ws.artifact_path(ArtifactType::Constraints);
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
    return id;
}

Result<RunPin> pin_run(const FileSystem& fs, const WorkspacePaths& ws, const MutationSession& session,
                       std::string_view plan_text) {
    RunPin pin;
    if (!session.run_replay_id.empty()) {
        pin.replay_id = session.run_replay_id;
        return pin;
    }
    Result<std::string> id = manifest_id_on_disk(fs, ws, plan_text);
    if (!id) return id.error();
    pin.replay_id = *id;
    pin.pinned = true;
    MetadataText text = workspace_metadata_with_run(session, ws, pin.replay_id, format_timestamp_utc9(current_instant()));
    pin.workspace_text = std::move(text.text);
    pin.warning = std::move(text.warning);
    return pin;
}

Result<std::set<std::string>> used_run_ids(const FileSystem& fs, const WorkspacePaths& ws) {
    std::set<std::string> ids;
    const std::string name = artifact_file_name(ArtifactType::Progress);
    if (!fs.file_exists(ws.path_of(name))) return ids;
    Status read = for_each_log_entry(
        fs, ws.path_of(name), ws.display_of(name), [&] { ids.clear(); },
        [&](NodeRef entry) {
            const std::string id = lower_ascii(trim(entry.find("replayId").as_string()));
            if (!id.empty()) ids.insert(id);
            return true;
        });
    if (!read) return read.error();
    return ids;
}

std::string new_run_id(const std::string& manifest_id, const std::string& previous,
                       const std::set<std::string>& used) {
    if (manifest_id != previous && !used.count(manifest_id)) return manifest_id;
    return sha256_hex("SMALL|1.0.0|reset|" + previous + "|" + manifest_id);
}

}  // namespace small
