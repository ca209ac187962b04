// `small plan show [ID]`: the tasks, or one task with its dependencies and its
// progress entries of the current run. Read-only; the work is in plan_view.hpp.
#include <memory>

#include "cli.hpp"
#include "small/ops/inspect/plan_show.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small::cli {

namespace {

struct ShowFlags {
    std::optional<std::string> dir;
    std::string id;
    std::size_t limit = 20;
};

std::string padded(const std::string& s, std::size_t width) {
    return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& i : items) out += (out.empty() ? "" : ", ") + i;
    return out;
}

int show_plan(const Output& out, const PlanView& v) {
    if (out.json()) {
        out.json_document(plan_view_json(v));
        return kExitOk;
    }
    std::size_t width = 4;
    for (const TaskSummary& t : v.tasks) width = std::max(width, t.id.size() + 2);
    for (const TaskSummary& t : v.tasks) {
        out.info(padded(t.id, width) + padded(t.status.word(), 13) + t.title +
                 (t.depends_on.empty() ? "" : "  (depends on " + joined(t.depends_on) + ")"));
    }
    out.info(v.next_task ? "Next task: " + *v.next_task : std::string("Next task: none runnable"));
    return kExitOk;
}

std::string entry_line(const YamlValue& e) {
    const auto text = [&e](const char* key) {
        return e.contains(key) && e[key].is_string() ? e[key].get<std::string>() : std::string();
    };
    std::string evidence;
    for (const char* key : {"evidence", "verification", "test", "command", "commit", "link"}) {
        if (!text(key).empty()) {
            evidence = text(key);
            break;
        }
    }
    return text("timestamp") + "  " + padded(text("task_id"), 8) + padded(text("status"), 12) + evidence;
}

int show_task(const Output& out, const TaskDetail& d) {
    if (out.json()) {
        out.json_document(task_detail_json(d));
        return kExitOk;
    }
    out.info(d.summary.id + ": " + d.summary.title);
    out.info("status: " + d.summary.status.word());
    std::vector<std::string> deps;
    for (const TaskDependency& dep : d.dependencies) {
        deps.push_back(dep.id + " (" + (dep.status.empty() ? "not in the plan" : dep.status.word()) + ")");
    }
    if (!deps.empty()) out.info("depends on: " + joined(deps));
    if (!d.dependents.empty()) out.info("needed by: " + joined(d.dependents));
    for (const auto& [label, items] : {std::pair{"steps:", &d.steps}, std::pair{"acceptance:", &d.acceptance}}) {
        if (items->empty()) continue;
        out.info(label);
        for (const std::string& item : *items) out.info("  - " + item);
    }
    out.info(d.entries.entries.empty() ? std::string("no progress entries in the current run")
                                       : std::string("progress entries of the current run, newest first:"));
    for (const YamlValue& e : d.entries.entries) out.info("  " + entry_line(e));
    if (d.entries.more) out.info("  … more: raise --limit, or --limit 0 for all");
    return kExitOk;
}

int run_show(Context& ctx, const ShowFlags& f) {
    const Output out(ctx.globals, "plan show");
    const WorkspacePaths ws = locate_workspace(ctx.fs, f.dir, current_directory());
    if (f.id.empty()) {
        Result<PlanView> v = plan_show_command(ctx.fs, ws);
        return v ? show_plan(out, *v) : report_error(out, v.error());
    }
    Result<TaskDetail> d = plan_show_task_command(ctx.fs, ws, f.id, f.limit);
    return d ? show_task(out, *d) : report_error(out, d.error());
}

}  // namespace

std::string progress_entry_line(const YamlValue& entry) { return entry_line(entry); }

void register_plan_show(CLI::App* plan, Context& ctx) {
    auto f = std::make_shared<ShowFlags>();
    CLI::App* cmd = plan->add_subcommand(
        "show", "Show the tasks, or one task with its dependencies and its progress entries of the current run");
    complete_as(cmd->add_option("id", f->id, "A task id (default: every task)"), ValueKind::TaskId);
    cmd->add_option("--limit", f->limit, "With ID: at most N progress entries, newest first (0 = all; default 20)");
    add_dir_option(cmd, f->dir);
    cmd->callback([&ctx, f] { ctx.exit_code = run_show(ctx, *f); });
}

}  // namespace small::cli
