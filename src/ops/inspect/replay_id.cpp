// `small replay-id` (see the header).
#include "small/ops/inspect/replay_id.hpp"

#include "small/doc/yaml.hpp"
#include "small/model/replay_id.hpp"
#include "small/model/resume_point.hpp"
#include "small/domain/run_state.hpp"

namespace small {

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
    if (fs.file_exists(ws.artifact_path(ArtifactType::Constraints))) {
        Result<Document> c = load(ArtifactType::Constraints);
        if (!c) return c.error();
        constraints = std::move(*c);
    }
    return compute_replay_id(intent->root(), plan->root(), constraints ? constraints->root() : NodeRef(),
                             manifest_files(ws));
}

// Whether entries of the run record work (D18: until then `small start`
// re-pins the run to the manifest). An unreadable log counts as worked.
bool run_has_work(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id) {
    const std::string name = artifact_file_name(ArtifactType::Progress);
    if (!fs.file_exists(ws.path_of(name))) return false;
    const Result<LogFacts> facts = read_log_facts(fs, ws.path_of(name), ws.display_of(name), run_id);
    if (!facts) return true;
    for (const auto& [id, work] : facts->tasks) {
        if (!work.last_status.empty()) return true;
    }
    return false;
}

std::string pinned_run_explanation(const WorkspacePaths& ws, const std::string& run_id, bool worked) {
    const std::string what = "the run's pinned id (" + ws.display_of(kWorkspaceFileName) + " run.replay_id) is " +
                             run_id + ", not this manifest's id: ";
    if (!worked) {
        return what + "intent, plan or constraints changed after the run was pinned, and the run has no work entries "
                      "yet; run `small start` to re-pin it to this manifest";
    }
    return what + "a run's id is pinned when its work starts and does not follow later edits of intent, plan or "
                  "constraints; `small reset` starts a new run, which pins a new id";
}

}  // namespace

Result<ReplayIdReport> replay_id_command(const FileSystem& fs, const WorkspacePaths& ws) {
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
        report.explanation = pinned_run_explanation(ws, report.run_id, run_has_work(fs, ws, report.run_id));
    }
    return report;
}

}  // namespace small
