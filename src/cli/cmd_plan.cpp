// `small plan`: flags and rendering; the work is in small/ops/plan.hpp.
#include <memory>

#include "cli.hpp"
#include "small/ops/plan.hpp"
#include "small/store/workspace_lock.hpp"

namespace small::cli {

namespace {

struct PlanFlags {
    WorkspaceFlags where;
    PlanRequest req;
};

int run_plan(Context& ctx, PlanFlags& f) {
    const Output out(ctx.globals, "plan");
    Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    const WorkspacePaths& ws = target->ws;
    f.req.scope = target->scope;
    f.req.lock_wait = default_lock_wait();
    if (f.req.reset) {
        const Confirmation answer =
            confirm(f.req.yes, "This replaces .small/plan.small.yml with the template (the run and its log are kept).\n"
                               "Continue?");
        if (answer != Confirmation::Yes) return report_declined(out, answer, "plan --reset");
        f.req.yes = true;
    }
    Result<PlanResult> r = plan_command(ctx.fs, ws, f.req);
    if (!r) return report_error(out, r.error());

    if (out.json()) {
        out.json_document(plan_json(*r, ws));
        return kExitOk;
    }
    for (const std::string& m : r->messages) out.info(m);
    if (r->pinned_run) out.info("Pinned run replay id " + r->replay_id.substr(0, 16) + "...");
    return kExitOk;
}

}  // namespace

void register_plan(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<PlanFlags>();
    CLI::App* cmd = app.add_subcommand(
        "plan", "Edit .small/plan.small.yml: add tasks, set statuses, add dependencies (each change is logged); "
                "plan show lists them");
    cmd->require_subcommand(0, 1);
    cmd->add_option("--add", f->req.add, "Append a new pending task with this title (id task-<max+1>)");
    complete_as(cmd->add_option("--done", f->req.done, "Mark task ID completed"), ValueKind::TaskId);
    complete_as(cmd->add_option("--pending", f->req.pending, "Mark task ID pending"), ValueKind::TaskId);
    complete_as(cmd->add_option("--blocked", f->req.blocked, "Mark task ID blocked"), ValueKind::TaskId);
    complete_as(cmd->add_option("--in-progress", f->req.in_progress, "Mark task ID in_progress"), ValueKind::TaskId);
    complete_as(cmd->add_option("--cancel", f->req.cancel, "Mark task ID cancelled (it stays in the plan, settled)"),
                ValueKind::TaskId);
    complete_as(cmd->add_option("--title", f->req.retitle, "ID TEXT - give task ID a new title")->type_name("ID TEXT"),
                ValueKind::TaskId);
    complete_as(cmd->add_option("--depends", f->req.depends,
                                "TASK:DEP - TASK depends on DEP (written as depends_on; cycles refused)"),
                ValueKind::TaskId);
    complete_as(
        cmd->add_option("--remove", f->req.remove,
                        "Remove task ID (refused while progress entries of the current run or other tasks name it)"),
        ValueKind::TaskId);
    cmd->add_flag("--reset", f->req.reset, "Replace the plan with the template (asks first, unless --yes)");
    cmd->add_flag("-y,--yes", f->req.yes, "Confirm --reset without a question");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default) or any (examples is refused)");
    cmd->footer("Flags combine and apply in the order add, title, done, pending, blocked, in-progress, cancel,\n"
                "depends, remove; any error aborts before a write. A task id the plan does not have is refused\n"
                "with the closest ids. The plan and its progress entries are written as one crash-safe change.");
    register_plan_show(cmd, ctx);
    cmd->callback([&ctx, f, cmd] {
        if (!cmd->get_subcommands().empty()) return;  // `plan show` ran instead
        ctx.exit_code = run_plan(ctx, *f);
    });
}

}  // namespace small::cli
