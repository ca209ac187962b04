// `small status`: where the run stands (read-only; the progress log is read
// only at its end, so the cost is flat in its size).
#include <algorithm>
#include <cstdlib>
#include <memory>

#include "cli.hpp"
#include "small/base/text.hpp"
#include "small/base/timestamp.hpp"
#include "small/base/version.hpp"
#include "small/ops/inspect/status.hpp"
#include "small/ops/inspect/status_all.hpp"
#include "small/ops/inspect/status_brief.hpp"
#include "small/report/status.hpp"
#include "small/report/status_brief.hpp"

namespace small::cli {

namespace {

// --recent/--tasks: 0 means all; a negative number would wrap to "all" unnoticed.
const CLI::Validator kCountValidator(
    [](std::string& value) { return value.rfind('-', 0) == 0 ? "must be 0 (all) or a positive number" : ""; }, "N");

struct StatusFlags {
    std::optional<std::string> dir;
    std::size_t recent = 5;
    std::size_t tasks = 3;
    bool brief = false;
    bool all = false;
    bool recent_given = false;
    std::size_t max_bytes = kDefaultBriefBytes;
};

// SMALL_PROGRESS_MODE: `audit` lists every entry; anything else is `signal`.
bool audit_mode() {
    const char* mode = std::getenv("SMALL_PROGRESS_MODE");
    return mode && lower_ascii(trim(mode)) == "audit";
}

// "2026-11-22 09:22:26" in the timestamp's own offset; unparsable text as is.
std::string short_time(const std::string& raw) {
    if (!parse_lenient_timestamp(raw) || raw.size() < 19) return raw;
    return raw.substr(0, 10) + " " + raw.substr(11, 8);
}

std::string item_line(const ProgressItem& item) {
    std::string line = "[" + short_time(item.timestamp) + "] " + item.task_id + ": " + item.status;
    std::string text(trim(item.evidence.empty() ? item.notes : item.evidence));
    if (text.size() > 120) text = text.substr(0, 120) + "...";
    return text.empty() ? line : line + " - " + text;
}

// `next_task`: the report's next task ("" none), so the two lines agree.
void print_plan(const Output& out, const PlanSummary& plan, const std::string& next_task) {
    out.info("Plan: " + std::to_string(plan.total_tasks) + " tasks");
    const std::vector<std::string> counted = status_names(kCountedStatuses);
    for (const std::string& status : counted) {
        out.info("  " + status + ": " + std::to_string(plan.tasks_by_status.at(status)));
    }
    for (const auto& [status, count] : plan.tasks_by_status) {  // statuses beyond the four (sorted)
        if (std::find(counted.begin(), counted.end(), status) == counted.end()) {
            out.info("  " + status + ": " + std::to_string(count));
        }
    }
    std::string ids;
    for (const std::string& id : plan.next_actionable) ids += (ids.empty() ? "" : " ") + id;
    // Actionable is pending and ready; the next task may be one already under
    // way (in progress, or started by its newest work entry): then there is
    // still something to do, and the line says which.
    const bool goes_on = !next_task.empty() && next_task != kRunCompleteText;
    if (!ids.empty()) out.info("Next actionable: [" + ids + "]");
    else out.info(goes_on ? "Next actionable: none to start; continue the next task, " + next_task : "Next actionable: none");
}

void print_text(const Output& out, const StatusReport& r, bool audit) {
    out.info("small v" + std::string(tool_version()));
    if (audit) out.info("progress mode: audit");
    out.info("");
    out.info("Artifacts:");
    for (std::size_t i = 0; i < kArtifactTypes.size(); ++i) {
        out.info("  " + artifact_file_name(kArtifactTypes[i]) + (r.artifacts[i] ? " [x]" : " [ ]"));
    }
    out.info("");
    if (!r.replay_id.empty()) out.info("ReplayId: " + r.replay_id);
    if (r.plan) print_plan(out, *r.plan, r.next_task);
    if (!r.next_task.empty()) out.info("Next task: " + r.next_task);
    if (!r.stop.empty()) out.info("Next task: none — " + r.stop);
    for (const StatusReport::Blocked& b : r.blocked) {
        if (!r.stop_task.empty() && b.id == r.stop_task) continue;  // the stop line shows its reason: once
        out.info("Blocked: " + b.id + " — " + (b.reason.empty() ? std::string("no reason recorded") : b.reason));
    }
    if (!r.handoff_stale.empty()) out.info("Handoff: stale (" + r.handoff_stale + "); run: small handoff");
    out.info("");
    if (!r.recent.empty()) {
        out.info("Recent progress (" + std::to_string(r.recent.size()) + " entries):");
        for (const ProgressItem& item : r.recent) out.info("  " + item_line(item));
        if (r.more_progress) out.info("  … older entries: raise --recent, or --recent 0 for all");
        out.info("");
    }
    for (const Error& e : r.problems) out.problem("Warning: " + e.describe());
}

// No workspace is a report (exit 0), as the reference gives it: where we
// looked and the command that makes one.
void print_no_workspace(const Output& out, const WorkspacePaths& ws) {
    out.info("small v" + std::string(tool_version()));
    out.info("");
    out.info("No workspace: no .small/ directory in " + ws.root + (ws.from_dir_flag ? "" : " or any parent directory"));
    out.info("Run next: " + brief_for_missing_workspace().next_command);
}

// --brief: the bounded primer. No workspace is not an error here: session
// hooks run it everywhere, and the primer then says to run init.
int run_brief(Context& ctx, const StatusFlags& f) {
    const Output out(ctx.globals, "status");
    const WorkspacePaths ws = locate_workspace(ctx.fs, f.dir, current_directory());
    BriefOptions options;
    if (f.recent_given) options.recent = f.recent;
    Result<ResumeBrief> brief = status_brief_command(ctx.fs, ws, options);
    if (!brief && !ctx.fs.directory_exists(ws.small_dir)) brief = brief_for_missing_workspace();
    if (!brief) return report_error(out, brief.error());
    const FittedBrief fit = fit_brief(*brief, f.max_bytes);
    if (out.json()) out.json_document(brief_json(*brief, fit, f.max_bytes));
    else std::cout << visible_lines(fit.text) << std::flush;
    return kExitOk;
}

// --all: one line a side, then what differs, the claims and the collisions.
std::string side_line(const WorkSide& s, std::size_t width) {
    std::string line = (s.current ? "* " : "  ") + s.name + std::string(width - s.name.size() + 2, ' ');
    line += s.worktree.empty() ? std::string("(branch, not checked out)") : s.worktree;
    if (!s.problem.empty()) return line + "\n      cannot read: " + s.problem;
    if (!s.has_workspace) return line + " — no workspace here";
    if (s.newest) {
        const std::string evidence = one_line(trim(s.newest->evidence), 80);
        line += "\n      newest: [" + short_time(s.newest->timestamp) + "] " + s.newest->task_id + ": " + s.newest->status +
                (evidence.empty() ? "" : " - " + evidence);
    }
    if (s.unmerged > 0) {
        line += "\n      " + std::to_string(s.unmerged) + (s.unmerged == 1 ? " entry" : " entries") + " not merged here";
    }
    return line;
}

void print_all(const Output& out, const StatusAllReport& r) {
    std::size_t width = 0;
    for (const WorkSide& s : r.sides) width = std::max(width, s.name.size());
    const std::string dir = std::string(kSmallDirName) + "/";
    out.info("Workspace: " + (r.workspace.empty() ? dir + " at the top" : r.workspace + "/" + dir) +
             " of each work tree and branch");
    out.info("");
    for (const WorkSide& s : r.sides) out.lines(side_line(s, width));
    out.info("");
    if (r.comparison.differences.empty()) out.info("Tasks: the same status on every side");
    else out.info("Tasks whose status differs:");
    for (const TaskDifference& d : r.comparison.differences) {
        std::string sides;
        for (std::size_t i = 0; i < r.sides.size(); ++i) {
            if (!r.sides[i].has_workspace) continue;
            sides += (sides.empty() ? "" : " · ") + r.sides[i].name + ": " +
                     (d.statuses[i].empty() ? std::string("(not in plan)") : d.statuses[i]);
        }
        out.lines("  " + d.id + (d.title.empty() ? "" : " " + one_line(d.title, 80)) + "\n      " + sides);
    }
    out.info("");
    out.info(r.claims.empty() ? "Claims: none live" : "Claims:");
    for (const Claim& c : r.claims) out.info("  " + c.task + ": " + c.agent + " until " + lease_until_text(c, r.now));
    if (!r.claims_problem.empty()) out.problem("Warning: claims: " + r.claims_problem);
    if (r.comparison.collisions.empty()) return;
    out.info("");
    out.info("Task ids added on two sides with different content (rename one before merging):");
    for (const IdCollision& c : r.comparison.collisions) {
        std::string holders;
        for (const IdCollision::Holder& h : c.holders) {
            holders += (holders.empty() ? "" : " · ") + r.sides[h.side].name + ": \"" + one_line(h.title, 80) + "\"";
        }
        out.info("  " + c.id + "  " + holders);
    }
}

int run_all(Context& ctx, const StatusFlags& f) {
    const Output out(ctx.globals, "status");
    const WorkspacePaths ws = locate_workspace(ctx.fs, f.dir, current_directory());
    Result<StatusAllReport> r = status_all_command(ctx.fs, ws);
    if (!r) return report_error(out, r.error());
    if (out.json()) out.json_document(status_all_json(*r));
    else print_all(out, *r);
    return kExitOk;
}

int run_status(Context& ctx, const StatusFlags& f) {
    if (f.brief) return run_brief(ctx, f);
    if (f.all) return run_all(ctx, f);
    const Output out(ctx.globals, "status");
    const bool audit = audit_mode();
    const std::string version = "v" + std::string(tool_version());
    const WorkspacePaths ws = locate_workspace(ctx.fs, f.dir, current_directory());
    Result<StatusReport> r = status_command(ctx.fs, ws, {f.recent, f.tasks, audit});
    if (!r) {
        if (!out.json()) return report_error(out, r.error());
        nlohmann::json doc = status_json(nullptr, version, audit);
        doc.update(error_document(r.error()));
        out.json_document(std::move(doc), exit_code_for(r.error().kind));
        return exit_code_for(r.error().kind);
    }
    if (out.json()) out.json_document(status_json(&*r, version, audit));
    else if (!r->small_dir_exists) print_no_workspace(out, ws);
    else print_text(out, *r, audit);
    return kExitOk;
}

}  // namespace

void register_status(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<StatusFlags>();
    CLI::App* cmd = add_command(app, "status");
    cmd->add_option("--recent", f->recent, "Number of recent progress entries (0 = all)")
        ->check(kCountValidator)
        ->capture_default_str();
    cmd->add_option("--tasks", f->tasks, "Max next actionable tasks to show (0 = all)")
        ->check(kCountValidator)
        ->capture_default_str();
    cmd->add_flag("--brief", f->brief,
                  "Print the bounded resume primer for an agent (intent, run, tasks, handoff, recent progress, "
                  "the command to run next)");
    CLI::Option* max_bytes =
        cmd->add_option("--max-bytes", f->max_bytes, "Byte budget of --brief (at least " +
                                                         std::to_string(kMinBriefBytes) + ")")
            ->check(CLI::Range(kMinBriefBytes, std::size_t{1} << 30))
            ->capture_default_str();
    max_bytes->needs(cmd->get_option("--brief"));
    cmd->add_flag("--all", f->all,
                  "Every work tree and local branch side by side: tasks whose status differs, live claims, each "
                  "side's newest entry, entries not merged here, task ids added on two sides")
        ->excludes(cmd->get_option("--brief"));
    add_dir_option(cmd, f->dir);
    cmd->callback([&ctx, f, cmd] {
        f->recent_given = cmd->count("--recent") > 0;
        ctx.exit_code = run_status(ctx, *f);
    });
}

}  // namespace small::cli
