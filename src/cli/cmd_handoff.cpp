// `small handoff`: flags and rendering; the work is in small/handoff_command.hpp.
#include <memory>

#include "cli.hpp"
#include "small/handoff_command.hpp"
#include "small/workspace_lock.hpp"

namespace small::cli {

namespace {

struct HandoffFlags {
    WorkspaceFlags where;
    HandoffRequest req;
};

int run_handoff(Context& ctx, HandoffFlags& f) {
    const Output out(ctx.globals);
    Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    const WorkspacePaths& ws = target->ws;
    f.req.scope = target->scope;
    f.req.lock_wait = default_lock_wait();
    Result<HandoffResult> r = handoff_command(ctx.fs, ws, f.req);
    if (!r) return report_error(out, r.error());

    const std::size_t steps = r->handoff["resume"]["next_steps"].size();
    if (out.json()) {
        out.json_document({{"ok", true},
                           {"workspace", ws.root},
                           {"file", ws.path_of("handoff.small.yml")},
                           {"replay_id", r->replay_id},
                           {"source", r->source},
                           {"pinned_run", r->pinned_run},
                           {"handoff", nlohmann::json::parse(r->handoff.dump())}});
        return kExitOk;
    }
    out.success("Generated handoff.small.yml with " + std::to_string(steps) + " next step" + (steps == 1 ? "" : "s"));
    out.info("replayId: " + r->replay_id.substr(0, 16) + "... (source: " + r->source + ")");
    out.info(r->text);
    return kExitOk;
}

}  // namespace

void register_handoff(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<HandoffFlags>();
    CLI::App* cmd = app.add_subcommand(
        "handoff", "Write .small/handoff.small.yml, the resume point, from the plan and progress");
    cmd->add_option("--summary", f->req.summary, "Summary text (default: computed from the plan's state)");
    cmd->add_option("--replay-id", f->req.replay_id, "Manual replay id (64 hex digits; stored lower-case, source manual)");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default) or any (examples is refused)");
    cmd->footer("Refused (exit 1, nothing written) while a task of the current run has progress entries\n"
                "but is neither completed nor blocked: checkpoint it first.");
    cmd->callback([&ctx, f] { ctx.exit_code = run_handoff(ctx, *f); });
}

}  // namespace small::cli
