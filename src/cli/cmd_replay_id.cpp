// `small replay-id`: flags and rendering; the work is in small/domain/run_state.hpp.
#include <iostream>

#include "cli.hpp"
#include "small/model/replay_id.hpp"
#include "small/domain/run_state.hpp"
#include "small/model/workspace.hpp"
#include "small/ops/inspect/replay_id.hpp"

namespace small::cli {

namespace {

int run_replay_id(const Context& ctx, const std::optional<std::string>& dir) {
    const Output out(ctx.globals, "replay-id");
    const WorkspacePaths ws = locate_workspace(ctx.fs, dir, current_directory());
    Result<ReplayIdReport> r = replay_id_command(ctx.fs, ws);
    if (!r) return report_error(out, r.error());
    if (out.json()) {
        out.json_document(replay_id_json(*r));
        return kExitOk;
    }
    std::cout << r->manifest_id << '\n';  // the result itself (scripts read it): even with --quiet
    if (!ctx.globals.quiet) {
        if (!r->explanation.empty()) std::cerr << "Note: " << r->explanation << '\n';
    }
    return kExitOk;
}

}  // namespace

void register_replay_id(CLI::App& app, Context& ctx) {
    auto dir = std::make_shared<std::optional<std::string>>();
    CLI::App* cmd = add_command(app, "replay-id");
    add_dir_option(cmd, *dir);
    cmd->footer("stdout is the manifest's id only. When the run's pinned id (workspace.small.yml run.replay_id) "
                "differs, a note on stderr says why (the pin does not follow later edits; small reset starts a "
                "new run); --json has it as run_replay_id.");
    cmd->callback([&ctx, dir] { ctx.exit_code = run_replay_id(ctx, *dir); });
}

}  // namespace small::cli
