// `small handoff`: flags and rendering; the work is in small/ops/session/handoff.hpp.
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/base/text.hpp"
#include "small/ops/session/handoff.hpp"
#include "small/store/workspace_lock.hpp"

namespace small::cli {

namespace {

using HandoffFlags = RequestFlags<HandoffRequest>;

int run_handoff(Context& ctx, HandoffFlags& f) {
    const Output out(ctx.globals, "handoff");
    const Result<WorkspacePaths> ws = aimed_workspace(ctx, f.where, f.req);
    if (!ws) return report_error(out, ws.error());
    Result<HandoffResult> r = handoff_command(ctx.fs, *ws, f.req);
    if (!r) return report_error(out, r.error());

    const std::size_t steps = r->handoff["resume"]["next_steps"].size();
    if (out.json()) {
        out.json_document(handoff_json(*r, *ws));
        return kExitOk;
    }
    // A mid-task handoff is the documented way to end a session (D13): the
    // unsettled tasks are news, not a warning, so they go to stdout.
    for (const std::string& w : r->warnings) out.problem("Warning: " + w);
    out.success("Generated handoff.small.yml with " + std::to_string(steps) + " next step" + (steps == 1 ? "" : "s"));
    if (!r->unsettled.empty()) out.info("Unsettled tasks (the handoff names them):");
    for (const UnsettledTask& t : r->unsettled) out.info("  - " + describe_unsettled(t));
    out.info("replayId: " + r->replay_id.substr(0, 16) + "... (source: " + r->source + ")");
    std::string_view text = r->text;
    if (text.ends_with('\n')) text.remove_suffix(1);  // out.lines ends the block itself
    out.lines(std::string(text));
    return kExitOk;
}

}  // namespace

void register_handoff(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<HandoffFlags>(app, ctx, "handoff", run_handoff);
    cmd->add_option("--summary", f->req.summary, "Summary text (default: computed from the plan's state)");
    cmd->add_option("--next", f->req.next,
                    "A next step of your own for the next session, after the computed ones (repeatable)")
        ->take_all()
        ->allow_extra_args(false);
    cmd->add_option("--replay-id", f->req.replay_id, "Manual replay id (64 hex digits; stored lower-case, source manual)");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default) or any (examples is refused)");
    cmd->add_flag("--require-settled", f->req.require_settled,
                  "Refuse (exit 1, nothing written) while a task of the current run has progress but is not "
                  "completed, blocked or cancelled");
    cmd->footer("A handoff can always be written: tasks with unsettled progress are listed as a warning and\n"
                "named in resume.current_task_id / resume.next_steps (--require-settled refuses instead).\n"
                "Only a task whose dependencies are all completed is suggested; a blocked task carries its reason.\n"
                "The file's first line records what it was computed from, so status, the primer, doctor and\n"
                "check --strict can say when it is stale (D18).");
}

}  // namespace small::cli
