// Run pinning (see the header).
#include "small/run_state.hpp"

#include "small/replay_id.hpp"
#include "small/text.hpp"
#include "small/timestamp.hpp"
#include "small/yaml.hpp"

namespace small {

ManifestFiles manifest_files(const WorkspacePaths& ws) {
    return {ws.display_of(artifact_file_name(ArtifactType::Intent)), ws.display_of(artifact_file_name(ArtifactType::Plan)),
            ws.display_of(artifact_file_name(ArtifactType::Constraints))};
}

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
    return compute_replay_id(intent->root(), plan->root(), constraints ? constraints->root() : NodeRef(),
                             manifest_files(ws));
}

namespace {

// The id the current intent + plan (+ constraints) would get (D3).
Result<std::string> current_manifest_id(const FileSystem& fs, const WorkspacePaths& ws) {
    const auto load = [&](ArtifactType type) {
        const std::string name = artifact_file_name(type);
        return load_yaml_file(fs, ws.path_of(name), ws.display_of(name));
    };
    Result<Document> intent = load(ArtifactType::Intent);
    if (!intent) return intent.error();
    Result<Document> plan = load(ArtifactType::Plan);
    if (!plan) return plan.error();
    std::optional<Document> constraints;
    if (fs.file_exists(ws.path_of(artifact_file_name(ArtifactType::Constraints)))) {
        Result<Document> c = load(ArtifactType::Constraints);
        if (!c) return c.error();
        constraints = std::move(*c);
    }
    return compute_replay_id(intent->root(), plan->root(), constraints ? constraints->root() : NodeRef(),
                             manifest_files(ws));
}

std::string pinned_run_explanation(const WorkspacePaths& ws, const std::string& run_id) {
    return "the run's pinned id (" + ws.display_of(kWorkspaceFileName) + " run.replay_id) is " + run_id +
           ", not this manifest's id: a run's id is pinned when the run starts and does not follow later edits "
           "of intent, plan or constraints; `small reset` starts a new run, which pins a new id";
}

}  // namespace

Result<ReplayIdReport> replay_id_report(const FileSystem& fs, const WorkspacePaths& ws) {
    if (!fs.directory_exists(ws.small_dir)) {
        if (fs.is_symlink(ws.small_dir)) {
            return Error::system(ws.small_dir + " is a symbolic link to a folder that does not exist");
        }
        return Error::system("no .small/ directory found in " + ws.root + " or any parent directory; run `small init`");
    }
    Result<std::string> manifest_id = current_manifest_id(fs, ws);
    if (!manifest_id) return manifest_id.error();
    ReplayIdReport report;
    report.manifest_id = *manifest_id;
    if (Result<WorkspaceMetadata> meta = load_workspace_metadata(fs, ws)) report.run_id = meta->run_replay_id;
    if (!report.run_id.empty() && report.run_id != report.manifest_id) {
        report.explanation = pinned_run_explanation(ws, report.run_id);
    }
    return report;
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

Result<std::set<std::string>> used_run_ids(const FileSystem& fs, const WorkspacePaths& ws) {
    std::set<std::string> ids;
    const std::string name = artifact_file_name(ArtifactType::Progress);
    if (!fs.file_exists(ws.path_of(name))) return ids;
    Result<Document> log = load_yaml_file(fs, ws.path_of(name), ws.display_of(name));
    if (!log) return log.error();
    const NodeRef entries = log->root().find("entries");
    for (std::size_t i = 0; entries.is_sequence() && i < entries.size(); ++i) {
        const std::string id = lower_ascii(trim(entries.item(i).find("replayId").as_string()));
        if (!id.empty()) ids.insert(id);
    }
    return ids;
}

std::string new_run_id(const std::string& manifest_id, const std::string& previous,
                       const std::set<std::string>& used) {
    if (manifest_id != previous && !used.count(manifest_id)) return manifest_id;
    return sha256_hex("SMALL|1.0.0|reset|" + previous + "|" + manifest_id);
}

}  // namespace small
