// `small apply`: flags and rendering; the work is in small/ops/session/apply.hpp.
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/ops/session/apply.hpp"
#include "small/report/apply.hpp"

namespace small::cli {

namespace {

struct ApplyFlags {
    WorkspaceFlags where;
    ApplyRequest req;
    std::optional<std::string> timeout;
};

// "30", "2.5", "30s", "5m", "1h": a positive duration, at most a week.
Result<std::chrono::milliseconds> parse_timeout(const std::string& text) {
    std::string number = text;
    double unit = 1.0;
    if (!number.empty() && (number.back() == 's' || number.back() == 'm' || number.back() == 'h')) {
        unit = number.back() == 'h' ? 3600.0 : number.back() == 'm' ? 60.0 : 1.0;
        number.pop_back();
    }
    char* end = nullptr;
    const double v = number.empty() ? 0.0 : std::strtod(number.c_str(), &end);
    const double ms = v * unit * 1000.0;
    if (number.empty() || *end != '\0' || !std::isfinite(v) || ms < 1.0 || ms > 7 * 24 * 3600e3) {
        return Error::usage("--timeout \"" + text + "\" invalid: want a positive number of seconds (or 5m, 1h), "
                            "at most a week");
    }
    return std::chrono::milliseconds(static_cast<long long>(ms));
}

void render_dry_run(const Output& out, const ApplyResult& r, bool handoff) {
    out.info("Dry-run mode: no command will be executed");
    out.info("");
    out.info(r.cmd.empty() ? "No command specified" : "Would execute: " + r.cmd);
    if (!r.task.empty()) out.info("Would associate with task: " + r.task);
    if (handoff) out.info("Would generate handoff after execution");
    if (!r.entries.empty()) {
        out.info("");
        out.info("Recorded dry-run in progress.small.yml (task " + r.entry_task + ")");
    }
}

void render_run(const Output& out, const ApplyResult& r) {
    const ProcessResult& p = *r.process;
    out.info("");
    if (p.timed_out) {
        out.problem("Timed out: SIGTERM sent to the command's process group" +
                    std::string(p.killed_after_grace ? ", then SIGKILL" : ""));
    }
    if (p.interrupted_by) out.problem("Interrupted: " + signal_name(*p.interrupted_by) + " forwarded to the command");
    if (r.exit_code == 0) out.info("Command completed successfully (exit code: 0)");
    else out.info("Command failed (exit code: " + std::to_string(r.exit_code) + ")");
    for (std::size_t i = 0; i < r.entries.size(); ++i) {
        // --auto-checkpoint adds the checkpoint's own entry last (the reference's two entries).
        const bool checkpoint = r.checkpointed && i + 1 == r.entries.size();
        const YamlValue& e = r.entries[i];
        out.info(std::string(checkpoint ? "Recorded checkpoint " : "Recorded ") + e["task_id"].get<std::string>() +
                 " -> " + e["status"].get<std::string>() + " at " + e["timestamp"].get<std::string>());
    }
    if (r.checkpointed) out.info("Plan: " + r.task + " is now " + std::string(status_name(r.status.value())));
    if (r.log) out.info("Command log: " + r.log->command_ref + " (output: " + r.log->output_ref + ")");
    if (r.handoff) {
        out.info("");
        out.info("Generating handoff...");
        out.info("Handoff generated");
    }
}

int run_apply(Context& ctx, ApplyFlags& f) {
    const Output out(ctx.globals, "apply");
    Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    const WorkspacePaths& ws = target->ws;
    ApplyRequest& req = f.req;
    aim_at(*target, req);
    req.mode = progress_mode_from(std::getenv("SMALL_PROGRESS_MODE"));
    if (f.timeout) {
        Result<std::chrono::milliseconds> t = parse_timeout(*f.timeout);
        if (!t) return report_error(out, t.error());
        req.timeout = *t;
    }
    // stdout carries exactly one JSON document under --json: the command's
    // stdout then goes to our stderr.
    req.stdout_sink = out.json() ? 2 : 1;
    req.stderr_sink = 2;
    req.before_run = [&out, &req] {
        out.info("Executing: " + req.cmd);
        out.info("");
        std::cout.flush();
    };
    Result<ApplyResult> r = apply_command(ctx.fs, ws, req);
    if (!r) return report_error(out, r.error());
    const int code = apply_exit_code(*r);
    if (out.json()) {
        nlohmann::json doc = apply_json(*r, ws);
        if (const auto e = apply_error_json(*r)) doc.update(*e);
        out.json_document(doc, code);
        return code;
    }
    if (r->dry_run) render_dry_run(out, *r, req.handoff);
    else render_run(out, *r);
    for (const std::string& w : r->warnings) out.problem("Warning: " + w);
    if (r->record_error) out.problem("Error: the command ran, but recording it failed: " + r->record_error->describe());
    return code;
}

}  // namespace

void register_apply(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<ApplyFlags>();
    CLI::App* cmd = add_command(app, "apply");
    ApplyRequest& r = f->req;
    cmd->add_option("--cmd", r.cmd, "Command line to run with /bin/sh -c in the workspace root (none: a dry run)");
    cmd->add_option("--task", r.task, "Plan task (or meta/ id) to record the run under");
    cmd->add_flag("--dry-run", r.dry_run, "Show what would run; run nothing");
    cmd->add_flag("--auto-progress", r.auto_progress,
                  "Also put the exit code and the end of the output into the entry's evidence");
    cmd->add_flag("--auto-checkpoint", r.auto_checkpoint,
                  "Afterwards set --task completed (exit 0) or blocked (otherwise) in the plan");
    cmd->add_flag("--handoff", r.handoff, "After a successful run, regenerate the handoff");
    cmd->add_flag("--force", r.force,
                  "Run although --task's dependencies are not all completed, or another agent claims it (the "
                  "entries' notes say so)");
    cmd->add_option("--agent", r.agent, "Who writes, for claims (default: $SMALL_AGENT, else user@host:<workspace root>)");
    cmd->add_option("--timeout", f->timeout,
                    "Stop the command after this many seconds (or 5m, 1h): SIGTERM to its process group, "
                    "SIGKILL 5s later");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default), examples or any");
    cmd->footer(
        "Progress: with --task (or SMALL_PROGRESS_MODE=audit) the run is recorded; audit mode also records\n"
        "the start, under meta/apply when no --task is given. The command's output is shown live and saved\n"
        "(first and last 512 KiB) under .small-cache/logs/<replayId>/commands/.\n"
        "Exit code: the command's (128 + signal when it was killed). Ctrl-C and SIGTERM are passed on to it.");
    cmd->callback([&ctx, f] { ctx.exit_code = run_apply(ctx, *f); });
}

}  // namespace small::cli
