// `small claim`: flags and rendering; the work is in small/ops/session/claim.hpp.
#include <iostream>

#include "cli.hpp"
#include "small/ops/session/claim.hpp"
#include "small/report/claims.hpp"

namespace small::cli {

namespace {

struct ClaimFlags {
    WorkspaceFlags where;
    ClaimOptions options;
    std::string task;
    bool next = false;
    std::string ttl;
};

int run_claim(Context& ctx, ClaimFlags& f) {
    const Output out(ctx.globals, "claim");
    if (f.task.empty() == !f.next) {
        return report_error(out, Error::usage(f.next ? "give a TASK or --next, not both" : "claim needs a TASK (or --next: the first ready task)"));
    }
    std::int64_t ttl = kDefaultLeaseSeconds;
    if (!f.ttl.empty()) {
        Result<std::int64_t> parsed = parse_lease_duration(f.ttl);
        if (!parsed) return report_error(out, parsed.error());
        ttl = *parsed;
    }
    const Result<WorkspacePaths> ws = aimed_workspace(ctx, f.where, f.options);
    if (!ws) return report_error(out, ws.error());
    Result<ClaimResult> r = claim_command(ctx.fs, *ws, f.task, ttl, f.options);
    if (!r) return report_error(out, r.error());
    const Instant now = current_instant();
    if (out.json()) {
        out.json_document(claim_json(*r, now));
        return kExitOk;
    }
    for (const std::string& w : r->warnings) out.problem("Warning: " + w);
    out.success(claim_line(*r, now));
    return kExitOk;
}

}  // namespace

void register_claim(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<ClaimFlags>(app, ctx, "claim", run_claim);
    complete_as(cmd->add_option("task", f->task, "Plan task id"), ValueKind::TaskId);
    cmd->add_flag("--next", f->next, "Claim the first ready task (one you already hold, else the first free one)");
    cmd->add_option("--agent", f->options.agent, "Who claims (default: $SMALL_AGENT, else user@host:<workspace root>)");
    cmd->add_option("--ttl", f->ttl, "Lease length: 90s, 45m, 2h, 1h30m, 1d (default 1h)");
    cmd->add_flag("--force", f->options.force,
                  "Take the task although another agent's lease is live, or its dependencies are not completed");
    cmd->add_flag("--offline", f->options.offline,
                  "Claim on this machine only; the next published change carries it or reports a conflict");
    cmd->footer("All worktrees of the repository share the claims at once. With a git remote (origin, or "
                "SMALL_CLAIMS_REMOTE / git config small.claimsRemote; \"none\" turns it off) the claim is pushed "
                "to refs/small/claims before the command returns, with compare-and-swap: exactly one agent wins "
                "a task; the other gets exit 1 naming the winner. The progress log records the claim. A work entry "
                "by the holder renews the lease; completing, blocking or cancelling the task releases it.");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default), examples or any");
}

}  // namespace small::cli
