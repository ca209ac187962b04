// `small claims`: flags and rendering; the work is in small/ops/session/claim.hpp.
#include <iostream>

#include "cli.hpp"
#include "small/base/text.hpp"
#include "small/ops/session/claim.hpp"
#include "small/report/claims.hpp"

namespace small::cli {

namespace {

struct ClaimsFlags {
    WorkspaceFlags where;
    ClaimOptions options;
};

const char* state_text(LeaseState s) {
    switch (s) {
        case LeaseState::Live: return "";
        case LeaseState::Expired: return " [expired]";
        case LeaseState::FromFuture: return " [from the future: refused; check the clocks]";
    }
    return "";
}

int run_claims(Context& ctx, ClaimsFlags& f) {
    const Output out(ctx.globals, "claims");
    const Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    Result<ClaimsResult> r = claims_command(ctx.fs, target->ws, f.options);
    if (!r) return report_error(out, r.error());
    const Instant now = current_instant();
    if (out.json()) {
        out.json_document(claims_json(*r, now));
        return kExitOk;
    }
    for (const std::string& n : r->notes) out.problem("Note: " + n);
    if (r->claims.empty()) out.info("No claims.");
    for (const ClaimView& v : r->claims) {
        const Claim& c = v.claim;
        std::cout << visible(c.task + "  " + c.agent + (v.mine ? " (you)" : "") +
                             (v.settled ? "  settled; lease ends " : "  until ") + lease_until_text(c, now) +
                             (c.published || !r->has_remote ? "" : " [not published]") + state_text(v.state))
                  << '\n';
    }
    for (const Settlement& s : r->settled) {
        std::cout << visible(s.task + "  " + describe_settlement(s) + (s.reason.empty() ? "" : " (" + s.reason + ")") +
                             (s.published || !r->has_remote ? "" : " [not published]"))
                  << '\n';
    }
    return kExitOk;
}

}  // namespace

void register_claims(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<ClaimsFlags>(app, ctx, "claims", run_claims);
    cmd->add_option("--agent", f->options.agent, "Whose claims are marked (you) (default: $SMALL_AGENT, else user@host:<workspace root>)");
    cmd->add_flag("--offline", f->options.offline, "Show this machine's table without exchanging it with the remote");
    cmd->footer("All worktrees of the repository share one table. With a claims remote the table is first exchanged "
                "with it (fetched, and what this machine holds unpublished is published); when the remote cannot be "
                "reached, or with --offline, this machine's table is shown with how old it is. Tasks settled on some "
                "side (completed, blocked, cancelled) are listed after the claims: no side offers them again.");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default), examples or any");
}

}  // namespace small::cli
