// `small release`: flags and rendering; the work is in small/ops/session/claim.hpp.
#include <iostream>

#include "cli.hpp"
#include "small/ops/session/claim.hpp"
#include "small/report/claims.hpp"

namespace small::cli {

namespace {

struct ReleaseFlags {
    WorkspaceFlags where;
    ClaimOptions options;
    std::string task;
};

int run_release(Context& ctx, ReleaseFlags& f) {
    const Output out(ctx.globals, "release");
    const Result<WorkspacePaths> ws = aimed_workspace(ctx, f.where, f.options);
    if (!ws) return report_error(out, ws.error());
    Result<ReleaseResult> r = release_command(ctx.fs, *ws, f.task, f.options);
    if (!r) return report_error(out, r.error());
    if (out.json()) {
        out.json_document(release_json(*r));
        return kExitOk;
    }
    for (const std::string& w : r->warnings) out.problem("Warning: " + w);
    std::string where = r->published ? " (published to " + r->remote + ")" : "";
    out.success("Released " + r->released.task + " (was held by " + r->released.agent + ")" + where);
    return kExitOk;
}

}  // namespace

void register_release(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<ReleaseFlags>(app, ctx, "release", run_release);
    complete_as(cmd->add_option("task", f->task, "Plan task id"), ValueKind::TaskId)->required();
    cmd->add_option("--agent", f->options.agent, "Who releases (default: $SMALL_AGENT, else user@host:<workspace root>)");
    cmd->add_flag("--force", f->options.force, "Release another agent's live claim");
    cmd->add_flag("--offline", f->options.offline, "Release on this machine only (the remote's lease runs out)");
    cmd->footer("Completing, blocking or cancelling a task releases its claim by itself. The progress log "
                "records the release.");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default), examples or any");
}

}  // namespace small::cli
