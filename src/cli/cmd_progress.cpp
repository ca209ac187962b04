// `small progress add` and `small progress migrate`: flags and rendering
// only; the work is done by small/ops/session/progress_add.hpp.
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/base/text.hpp"
#include "small/ops/session/progress_add.hpp"
#include "small/model/workspace.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/ops/session/progress_migrate.hpp"

namespace small::cli {

namespace {

struct AddFlags {
    WorkspaceFlags where;
    std::string task, status;
    std::optional<std::string> evidence, verification, command, test, link, commit, notes, at, after, agent;
    bool force = false;
};

struct MigrateFlags {
    WorkspaceFlags where;
    bool dry_run = false;
};


int run_add(Context& ctx, const AddFlags& f) {
    const Output out(ctx.globals, "progress add");
    Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    const WorkspacePaths& ws = target->ws;

    const Result<TaskStatus> status = parse_progress_status(f.task, f.status);
    if (!status) return report_error(out, status.error());
    ProgressAddRequest req;
    req.task = f.task;
    req.status = *status;
    req.evidence = f.evidence;
    req.verification = f.verification;
    req.command = f.command;
    req.test = f.test;
    req.link = f.link;
    req.commit = f.commit;
    req.notes = f.notes;
    req.at = f.at;
    req.after = f.after;
    req.force = f.force;
    req.agent = f.agent;
    aim_at(*target, req);
    Result<ProgressAddResult> r = progress_add_command(ctx.fs, ws, req);
    if (!r) return report_error(out, r.error());

    if (out.json()) {
        out.json_document(progress_add_json(*r, ws));
        return kExitOk;
    }
    if (!ctx.globals.quiet) {
        for (const std::string& w : r->warnings) std::cerr << "Warning: " << visible(w) << '\n';
    }
    out.info("progress added: " + r->entry["task_id"].get<std::string>() + " " +
             r->entry["status"].get<std::string>() + " " + r->timestamp +
             (r->plan_updated ? " (the plan's status too)" : ""));
    return kExitOk;
}

int run_migrate(Context& ctx, const MigrateFlags& f) {
    const Output out(ctx.globals, "progress migrate");
    Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    const WorkspacePaths& ws = target->ws;
    ProgressMigrateRequest req;
    req.scope = target->scope;
    req.dry_run = f.dry_run;
    req.lock_wait = default_lock_wait();
    Result<ProgressMigrateResult> r = progress_migrate_command(ctx.fs, ws, req);
    if (!r) return report_error(out, r.error());

    if (out.json()) {
        out.json_document(progress_migrate_json(*r, f.dry_run));
        return kExitOk;
    }
    const std::string name = ws.display_of("progress.small.yml");
    if (r->changes.empty()) {
        out.info(name + " already satisfies the timestamp contract");
        return kExitOk;
    }
    for (const TimestampChange& c : r->changes) {
        out.info("  entry " + std::to_string(c.index) + ": " + c.before + " -> " + c.after);
    }
    if (f.dry_run) {
        out.info("Would rewrite " + std::to_string(r->changes.size()) + " progress timestamp(s) in " + name +
                 " (dry run; nothing written)");
    } else {
        out.success("Rewrote " + std::to_string(r->changes.size()) + " progress timestamp(s) in " + name);
        if (!r->warning.empty()) out.problem("Warning: " + r->warning);
    }
    return kExitOk;
}

}  // namespace

void register_progress(CLI::App& app, Context& ctx) {
    CLI::App* group =
        add_command(app, "progress");
    group->require_subcommand(0, 1);
    group->callback([&ctx, group] {
        if (group->get_subcommands().empty()) ctx.exit_code = run_group_without_subcommand(ctx, *group);
    });

    auto add = std::make_shared<AddFlags>();
    CLI::App* a = group->add_subcommand(
        "add", "Append one entry to .small/progress.small.yml (append-only; existing bytes are never rewritten)");
    complete_as(a->add_option("--task", add->task,
                              "Task id: a task of the plan (others are refused), or meta/... for bookkeeping"),
                ValueKind::TaskId)
        ->required();
    complete_as(a->add_option("--status", add->status, "pending, in_progress, completed, blocked or cancelled"),
                status_names(kTaskStatuses))
        ->required();
    a->add_option("--evidence", add->evidence,
                  "What shows the step happened (default when no evidence field is given: \"" +
                      std::string(kDefaultProgressEvidence) + "\")");
    a->add_option("--verification", add->verification, "How the result was verified");
    a->add_option("--command", add->command, "Command that was run");
    a->add_option("--test", add->test, "Test that was run");
    a->add_option("--link", add->link, "Link (URI) to evidence");
    a->add_option("--commit", add->commit, "Commit hash (7-40 lower-case hex digits)");
    a->add_option("--notes", add->notes, "Free-form notes (not evidence)");
    a->add_option("--at", add->at, "Exact timestamp (RFC 3339 with fractional seconds), after the last entry");
    a->add_option("--after", add->after, "Use max(TS, last entry) + 1 ns");
    a->add_flag("--force", add->force,
                "Record completed although the task's dependencies are not all completed, or start or complete a task "
                "another agent claims (the entry's notes say so)");
    a->add_option("--agent", add->agent, "Who writes, for claims (default: $SMALL_AGENT, else user@host:<workspace root>)");
    add_workspace_flags(a, add->where, "Workspace scope: root (default), examples or any");
    a->footer("In team mode (a claims remote: origin, or git config small.claimsRemote, or $SMALL_CLAIMS_REMOTE),\n"
              "a start (--status in_progress) claims the task through the remote first, as `small claim` does:\n"
              "refused when another agent holds it or another side settled it; an unreachable remote\n"
              "only warns. --force starts it without a claim. A completion first exchanges the claims with\n"
              "the remote (unless you hold the task's published claim), so another agent's fresh claim\n"
              "refuses it.");
    a->callback([&ctx, add] { ctx.exit_code = run_add(ctx, *add); });

    auto mig = std::make_shared<MigrateFlags>();
    CLI::App* m = group->add_subcommand(
        "migrate", "Repair: rewrite progress timestamps as 9-digit UTC, strictly increasing (rewrites history)");
    m->add_flag("--dry-run", mig->dry_run, "Show what would change; write nothing");
    add_workspace_flags(m, mig->where, "Workspace scope: root (default), examples or any");
    m->callback([&ctx, mig] { ctx.exit_code = run_migrate(ctx, *mig); });

    register_progress_list(group, ctx);
}

}  // namespace small::cli
