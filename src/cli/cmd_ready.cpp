// `small ready`: flags and rendering; the work is in small/ops/session/claim.hpp.
#include <iostream>

#include "cli.hpp"
#include "small/base/text.hpp"
#include "small/ops/session/claim.hpp"
#include "small/report/claims.hpp"

namespace small::cli {

namespace {

struct ReadyFlags {
    WorkspaceFlags where;
    ClaimOptions options;
};

int run_ready(Context& ctx, ReadyFlags& f) {
    const Output out(ctx.globals, "ready");
    const Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    Result<ReadyResult> r = ready_command(ctx.fs, target->ws, f.options);
    if (!r) return report_error(out, r.error());
    const Instant now = current_instant();
    if (out.json()) {
        out.json_document(ready_json(*r, now));
        return kExitOk;
    }
    for (const std::string& n : r->notes) out.problem("Note: " + n);
    if (r->tasks.empty()) {
        out.info("Nothing is ready for " + r->agent + ": every open task is claimed, blocked (waits on a human), waits on a dependency, or is settled.");
        return kExitOk;
    }
    for (const ReadyTask& t : r->tasks) std::cout << visible(ready_line(t, now)) << '\n';
    return kExitOk;
}

}  // namespace

void register_ready(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<ReadyFlags>(app, ctx, "ready", run_ready);
    cmd->add_option("--agent", f->options.agent, "Whose view (default: $SMALL_AGENT, else user@host:<workspace root>)");
    cmd->footer("Plan order, or by each task's `priority` (0 or P0 first) where tasks have one. Tasks you hold "
                "are listed with their lease. Reads this machine's claims table; `small claim` consults the remote.");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default), examples or any");
}

}  // namespace small::cli
