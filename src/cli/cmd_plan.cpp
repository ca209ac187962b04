// `small plan`: flags and rendering; the work is in small/ops/session/plan.hpp.
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/check/draft_check.hpp"
#include "small/ops/session/plan.hpp"
#include "small/store/workspace_lock.hpp"

namespace small::cli {

namespace {

struct PlanFlags {
    WorkspaceFlags where;
    PlanRequest req;
    std::string from;  // --from FILE, or - (or stdin)
};

// The text --from names: a file (relative to the current directory) or
// standard input, at most kMaxFileBytes either way.
Result<PlanInput> read_from(const Context& ctx, const std::string& from) {
    if (!is_stdin_source(from)) {
        Result<std::string> text = ctx.fs.read_file(from);
        if (!text) return text.error();
        return PlanInput{std::move(*text), from};
    }
    std::string text;
    char buf[65536];
    while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
        text.append(buf, static_cast<std::size_t>(std::cin.gcount()));
        if (text.size() > kMaxFileBytes)
            return Error::invalid("standard input is too large for --from; nothing written");
    }
    if (std::cin.bad()) return Error::system("cannot read standard input");
    return PlanInput{std::move(text), "stdin"};
}

int run_plan(Context& ctx, PlanFlags& f) {
    const Output out(ctx.globals, "plan");
    const Result<WorkspacePaths> ws = aimed_workspace(ctx, f.where, f.req);
    if (!ws) return report_error(out, ws.error());
    if (f.req.reset) {
        const Confirmation answer =
            confirm(f.req.yes,
                    "This replaces .small/plan.small.yml with the template (the run and its log are kept).\n"
                    "Continue?");
        if (answer != Confirmation::Yes) return report_declined(out, answer, "plan --reset");
        f.req.yes = true;
    }
    if (!f.from.empty()) {
        Result<PlanInput> input = read_from(ctx, f.from);  // before the lock: stdin may be slow
        if (!input) return report_error(out, input.error());
        f.req.from = std::move(*input);
    }
    Result<PlanResult> r = plan_command(ctx.fs, *ws, f.req);
    if (!r) return report_error(out, r.error());

    if (out.json()) {
        out.json_document(plan_json(*r, *ws));
        return kExitOk;
    }
    for (const std::string& m : r->messages) out.info(m);
    for (const std::string& w : r->warnings) out.problem("Warning: " + w);
    if (r->pinned_run) out.info("Pinned run replay id " + r->replay_id.substr(0, 16) + "...");
    return kExitOk;
}

}  // namespace

void register_plan(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<PlanFlags>();
    CLI::App* cmd =
        add_command(app, "plan");
    cmd->require_subcommand(0, 1);
    // Every edit flag repeats; each occurrence takes one value (two for --title).
    const auto one_each = [](CLI::Option* o) {
        return o->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    };
    complete_as(cmd->add_option("--from", f->from,
                                "Merge a YAML or JSON list of tasks by id from FILE, or - for standard input "
                                "(new ids appended, existing tasks updated field by field)")
                    ->type_name("FILE|-"),
                ValueKind::File);
    one_each(cmd->add_option("--add", f->req.add, "Append a new pending task with this title (id task-<N>, N above every id on any worktree, branch or the claims remote)")
                 ->type_name("TITLE"));
    complete_as(one_each(cmd->add_option("--title", f->req.retitle, "ID TEXT - give task ID a new title"))
                    ->type_name("ID TEXT"),
                ValueKind::TaskId);
    complete_as(one_each(cmd->add_option("--step,--steps", f->req.steps, "ID:TEXT - append one step to task ID"))
                    ->type_name("ID:TEXT"),
                ValueKind::TaskId);
    complete_as(one_each(cmd->add_option("--acceptance", f->req.acceptance,
                                         "ID:TEXT - append one acceptance criterion to task ID"))
                    ->type_name("ID:TEXT"),
                ValueKind::TaskId);
    complete_as(one_each(cmd->add_option("--done", f->req.done, "Mark task ID completed (its dependencies must be)")
                             ->type_name("ID")),
                ValueKind::TaskId);
    complete_as(one_each(cmd->add_option("--pending", f->req.pending, "Mark task ID pending")->type_name("ID")),
                ValueKind::TaskId);
    complete_as(one_each(cmd->add_option("--blocked", f->req.blocked, "Mark task ID blocked")->type_name("ID")),
                ValueKind::TaskId);
    complete_as(
        one_each(cmd->add_option("--in-progress", f->req.in_progress, "Mark task ID in_progress")->type_name("ID")),
        ValueKind::TaskId);
    complete_as(
        one_each(cmd->add_option("--cancel", f->req.cancel, "Mark task ID cancelled (it stays in the plan, settled)")
                     ->type_name("ID")),
        ValueKind::TaskId);
    complete_as(one_each(cmd->add_option("--depends", f->req.depends,
                                         "TASK:DEP[,DEP...] - TASK depends on each DEP (written as depends_on; "
                                         "cycles refused)"))
                    ->type_name("TASK:DEP[,DEP...]"),
                ValueKind::TaskId);
    complete_as(one_each(cmd->add_option("--undepend", f->req.undepend,
                                         "TASK:DEP[,DEP...] - TASK no longer depends on each DEP"))
                    ->type_name("TASK:DEP[,DEP...]"),
                ValueKind::TaskId);
    complete_as(
        one_each(cmd->add_option(
                     "--remove", f->req.remove,
                     "Remove task ID (refused while progress entries of the current run or other tasks name it)"))
            ->type_name("ID"),
        ValueKind::TaskId);
    cmd->add_flag("--force", f->req.force,
                  "Complete a task although its dependencies are not all completed, or set the status of a task "
                  "another agent claims (the entry records it)");
    cmd->add_option("--agent", f->req.agent,
                    "Who writes, for claims (default: $SMALL_AGENT, else user@host:<workspace root>)");
    cmd->add_flag("--reset", f->req.reset, "Replace the plan with the template (asks first, unless --yes)");
    cmd->add_flag("-y,--yes", f->req.yes, "Confirm --reset without a question");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default) or any (examples is refused)");
    cmd->footer(
        "Every edit flag repeats. They apply in the order from, add, title, step, acceptance, done,\n"
        "pending, blocked, in-progress, cancel, depends, undepend, remove (each flag's values in the\n"
        "order given), as one change: the plan and its progress entries are written together, or\n"
        "nothing is written when any edit fails. A task may be completed only after its dependencies\n"
        "(--force records an exception); starting one early warns. A task id the plan does not have\n"
        "is refused with the closest ids. --from takes a list of tasks, each with id (optional: new\n"
        "tasks get the next task-<N>), title, status, depends_on, steps, acceptance and any other field;\n"
        "a field set to null is removed. Only the bytes of what changes are written: comments,\n"
        "quoting and layout elsewhere stay; where that cannot be done, a warning names the line.\n"
        "In team mode (a claims remote: origin, or git config small.claimsRemote, or $SMALL_CLAIMS_REMOTE),\n"
        "--in-progress claims the task through the remote first, as `small claim` does: refused when\n"
        "another agent holds it or another side settled it; an unreachable remote only warns. --force\n"
        "starts it without a claim. --done first exchanges the claims with the remote (unless you hold\n"
        "the task's published claim), so another agent's fresh claim refuses it.");
    register_plan_show(cmd, ctx);
    cmd->callback([&ctx, f, cmd] {
        if (!cmd->get_subcommands().empty()) return;  // `plan show` ran instead
        ctx.exit_code = run_plan(ctx, *f);
    });
}

}  // namespace small::cli
