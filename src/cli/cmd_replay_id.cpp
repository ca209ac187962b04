#include <iostream>

#include "cli.hpp"
#include "small/replay_id.hpp"
#include "small/run_state.hpp"
#include "small/workspace.hpp"

namespace small::cli {

namespace {

// The id the current intent + plan (+ constraints) would get (D3).
Result<std::string> current_replay_id(const FileSystem& fs, const WorkspacePaths& ws) {
    if (!fs.directory_exists(ws.small_dir)) {
        if (fs.is_symlink(ws.small_dir)) {
            return Error::system(ws.small_dir + " is a symbolic link to a folder that does not exist");
        }
        return Error::system("no .small/ directory found in " + ws.root + " or any parent directory; run `small init`");
    }
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

}  // namespace

void register_replay_id(CLI::App& app, Context& ctx) {
    auto dir = std::make_shared<std::optional<std::string>>();
    CLI::App* cmd = app.add_subcommand(
        "replay-id", "Print the replay id of the current manifest: sha256(\"SMALL|1.0.0|\" + JCS(intent, plan, constraints))");
    add_dir_option(cmd, *dir);
    cmd->callback([&ctx, dir] {
        const Output out(ctx.globals, "replay-id");
        const WorkspacePaths ws = locate_workspace(ctx.fs, *dir, current_directory());
        Result<std::string> id = current_replay_id(ctx.fs, ws);
        if (!id) {
            ctx.exit_code = report_error(out, id.error());
            return;
        }
        if (out.json()) out.json_document({{"replay_id", *id}, {"protocol_version", std::string(kProtocolVersion)}});
        else std::cout << *id << '\n';  // the result itself: printed even with --quiet
    });
}

}  // namespace small::cli
