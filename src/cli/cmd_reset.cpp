// `small reset`: confirmation, flags and rendering; the work is in
// small/ops/session/handoff.hpp.
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/ops/session/handoff.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/ops/session/reset.hpp"

namespace small::cli {

namespace {

struct ResetFlags {
    WorkspaceFlags where;
    bool yes = false;
    bool keep_intent = false;  // accepted for compatibility: intent is always kept (D7)
    ResetRequest req;
};

constexpr const char* kQuestion =
    "This will start a new run: the plan is replaced by the template, the handoff is rewritten.\n"
    "Intent, constraints and progress history are kept; the old state is copied to .small-runs/.\n"
    "Continue?";

int run_reset(Context& ctx, ResetFlags& f) {
    const Output out(ctx.globals, "reset");
    Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    const WorkspacePaths& ws = target->ws;
    if (Status linked = refuse_linked_small_dir(ctx.fs, ws); !linked) return report_error(out, linked.error());
    if (Status s = require_small_dir(ctx.fs, ws); !s) return report_error(out, s.error());
    if (const Confirmation answer = confirm(f.yes, kQuestion); answer != Confirmation::Yes) {
        return report_declined(out, answer, "reset");
    }
    aim_at(*target, f.req);
    Result<ResetResult> r = reset_command(ctx.fs, ws, f.req);
    if (!r) return report_error(out, r.error());

    if (out.json()) {
        out.json_document(reset_json(*r, ws));
        return kExitOk;
    }
    for (const std::string& name : r->reset_files) out.info("Reset: .small/" + name);
    if (!r->snapshot_dir.empty()) out.info("Previous run saved in " + r->snapshot_dir);
    for (const std::string& w : r->warnings) out.problem("Warning: " + w);
    out.success("New run " + r->replay_id.substr(0, 16) + "... started" +
                (r->previous_replay_id.empty() ? "" : " (previous " + r->previous_replay_id.substr(0, 16) + "...)"));
    out.info("Preserved: intent.small.yml, constraints.small.yml, progress.small.yml");
    return kExitOk;
}

}  // namespace

void register_reset(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<ResetFlags>(app, ctx, "reset", run_reset);
    cmd->add_flag("-y,--yes", f->yes, "Do not ask for confirmation");
    cmd->add_flag("--keep-intent", f->keep_intent,
                  "Accepted for compatibility: intent.small.yml is always kept (it is human-owned, D7)");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default) or any (examples is refused)");
}

}  // namespace small::cli
