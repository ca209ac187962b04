// `small checkpoint`: flags and rendering; the work is in small/ops/session/plan.hpp.
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/base/text.hpp"
#include "small/ops/session/plan.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/ops/session/checkpoint.hpp"

namespace small::cli {

namespace {

struct CheckpointFlags : RequestFlags<CheckpointRequest> {
    std::string status;  // --status as given
};

int run_checkpoint(Context& ctx, CheckpointFlags& f) {
    const Output out(ctx.globals, "checkpoint");
    const Result<WorkspacePaths> ws = aimed_workspace(ctx, f.where, f.req);
    if (!ws) return report_error(out, ws.error());
    const Result<TaskStatus> parsed = parse_checkpoint_status(f.req.task, f.status);
    if (!parsed) return report_error(out, parsed.error());
    f.req.status = *parsed;
    Result<CheckpointResult> r = checkpoint_command(ctx.fs, *ws, f.req);
    if (!r) return report_error(out, r.error());

    const std::string task = r->entry["task_id"].get<std::string>();
    const std::string status = r->entry["status"].get<std::string>();
    const std::string line = "checkpoint: " + task + " -> " + status + " at " + r->timestamp;
    if (out.json()) {
        out.json_document(checkpoint_json(*r, *ws));
        return kExitOk;
    }
    if (!ctx.globals.quiet) {
        for (const std::string& w : r->warnings) std::cerr << "Warning: " << visible(w) << '\n';
    }
    out.info(line);
    return kExitOk;
}

}  // namespace

void register_checkpoint(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<CheckpointFlags>(app, ctx, "checkpoint", run_checkpoint);
    CheckpointRequest& r = f->req;
    complete_as(cmd->add_option("--task", r.task, "Plan task id"), ValueKind::TaskId)->required();
    complete_as(cmd->add_option("--status", f->status, "completed, blocked, cancelled or in_progress"),
                status_names(kCheckpointStatuses))
        ->required();
    cmd->add_option("--evidence", r.evidence,
                    "What shows it (default: \"" + std::string(kDefaultCheckpointEvidence) + "\")");
    cmd->add_option("--verification", r.verification, "How the result was verified");
    cmd->add_option("--command", r.command, "Command that was run");
    cmd->add_option("--test", r.test, "Test that was run");
    cmd->add_option("--link", r.link, "Link (URI) to evidence");
    cmd->add_option("--commit", r.commit, "Commit hash (7-40 lower-case hex digits)");
    cmd->add_option("--notes", r.notes, "Free-form notes (not evidence)");
    cmd->add_option("--at", r.at, "Exact timestamp (RFC 3339 with fractional seconds), after the last entry");
    cmd->add_option("--after", r.after, "Use max(TS, last entry) + 1 ns");
    cmd->add_flag("--force", r.force,
                  "Complete the task although its dependencies are not all completed, or another agent claims it (the entry's notes say so)");
    cmd->add_option("--agent", r.agent, "Who writes, for claims (default: $SMALL_AGENT, else user@host:<workspace root>)");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default), examples or any");
    cmd->footer("In team mode (a claims remote: origin, or git config small.claimsRemote, or $SMALL_CLAIMS_REMOTE),\n"
                "a start (--status in_progress) claims the task through the remote first, as `small claim` does:\n"
                "refused when another agent holds it or another side settled it; an unreachable remote\n"
                "only warns. --force starts it without a claim. A completion first exchanges the claims with\n"
                "the remote (unless you hold the task's published claim), so another agent's fresh claim\n"
                "refuses it.");
}

}  // namespace small::cli
