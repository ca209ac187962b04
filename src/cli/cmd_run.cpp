// `small run snapshot|list|show|diff|checkout`: flags and rendering; the
// work is in small/ops/maintenance/run.hpp.
#include <algorithm>
#include <memory>

#include "cli.hpp"
#include "small/ops/maintenance/run.hpp"
#include "small/report/run.hpp"
#include "small/store/workspace_lock.hpp"

namespace small::cli {

namespace {

struct RunFlags {
    WorkspaceFlags where;
    std::string store;
    bool force = false, full = false;
    int limit = 20;
    std::vector<std::string> ids;
};

std::string short_id(const std::string& id, std::size_t n) { return id.size() > n ? id.substr(0, n) + "..." : id; }

// The workspace, scope and store the flags name; errors are reported.
struct Resolved {
    WorkspacePaths ws;
    RunOptions opts;
};
Result<Resolved> resolve(const Context& ctx, const RunFlags& f) {
    Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return target.error();
    Resolved r{target->ws, RunOptions{f.store, target->scope, default_lock_wait()}};
    return r;
}

int run_snapshot_cmd(Context& ctx, const RunFlags& f) {
    const Output out(ctx.globals, "run snapshot");
    Result<Resolved> r = resolve(ctx, f);
    if (!r) return report_error(out, r.error());
    Result<RunSnapshotResult> s = run_snapshot_command(ctx.fs, r->ws, r->opts, f.force);
    if (!s) return report_error(out, s.error());
    if (out.json()) {
        out.json_document(run_snapshot_json(*s));
        return kExitOk;
    }
    out.success("Snapshot saved: " + s->dir + (s->replaced ? " (replaced the older snapshot of this run)" : ""));
    out.info("replayId: " + s->replay_id);
    return kExitOk;
}

// Columns padded to the widest cell + 2 spaces; the last one not padded.
void print_table(const Output& out, const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width(rows.front().size(), 0);
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c) {
            line += row[c];
            if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
        }
        out.info(line);
    }
}

int run_list_cmd(Context& ctx, const RunFlags& f) {
    const Output out(ctx.globals, "run list");
    Result<Resolved> r = resolve(ctx, f);
    if (!r) return report_error(out, r.error());
    Result<RunListResult> l = run_list_command(ctx.fs, r->ws, r->opts, f.limit <= 0 ? 0 : static_cast<std::size_t>(f.limit));
    if (!l) return report_error(out, l.error());
    if (out.json()) {
        out.json_document(run_list_json(*l));
        return kExitOk;
    }
    if (l->runs.empty()) {
        out.info("no run snapshots found");
        return kExitOk;
    }
    std::vector<std::vector<std::string>> rows = {{"created_at", "replayId", "summary", "git_sha", "git_dirty"}};
    for (const SnapshotInfo& s : l->runs) {
        const std::string summary = !s.problem.empty() ? "(unreadable: " + s.problem + ")" : s.summary;
        rows.push_back({s.meta.created_at, short_id(s.name, 8), summary.empty() ? "-" : summary,
                        s.meta.git_sha.empty() ? "-" : short_id(s.meta.git_sha, 8), !s.meta.git_dirty ? "-" : *s.meta.git_dirty ? "true" : "false"});
    }
    print_table(out, rows);
    if (l->total > l->runs.size()) {
        out.info("… " + std::to_string(l->total - l->runs.size()) + " older: raise --limit, or --limit 0 for all");
    }
    return kExitOk;
}

int run_show_cmd(Context& ctx, const RunFlags& f) {
    const Output out(ctx.globals, "run show");
    Result<Resolved> r = resolve(ctx, f);
    if (!r) return report_error(out, r.error());
    Result<RunShowResult> s = run_show_command(ctx.fs, r->ws, r->opts, f.ids.at(0));
    if (!s) return report_error(out, s.error());
    if (out.json()) {
        out.json_document(run_show_json(*s));
        return kExitOk;
    }
    const SnapshotInfo& i = s->info;
    out.info("ReplayId: " + i.name);
    out.info("Created at: " + i.meta.created_at);
    out.info("Store: " + i.dir);
    out.info("CLI version: " + i.meta.cli_version);
    out.info("Workspace kind: " + i.meta.workspace_kind);
    if (!i.meta.source_dir.empty()) out.info("Source dir: " + i.meta.source_dir);
    if (!i.meta.git_sha.empty() || !i.meta.branch.empty()) {
        out.info("Git: " + short_id(i.meta.git_sha, 8) + " (dirty: " + (!i.meta.git_dirty ? "unknown" : *i.meta.git_dirty ? "true" : "false") + ")");
        if (!i.meta.branch.empty()) out.info("Branch: " + i.meta.branch);
    }
    out.info("Artifacts:");
    for (const std::string& p : snapshot_artifact_paths(i)) out.info("  - " + p);
    if (s->has_progress) {
        out.info("Progress: " + std::to_string(s->progress.entries) + " entries (" + std::to_string(s->run_entries) +
                 " of this run)" + (s->progress.latest.empty() ? "" : ", latest " + s->progress.latest));
    }
    if (!i.summary.empty()) out.info("Summary: " + i.summary);
    if (i.next_steps.empty()) {
        out.info("Next steps: none");
    } else {
        out.info("Next steps:");
        for (const std::string& step : i.next_steps) out.info("  - " + step);
    }
    return kExitOk;
}

void print_diff(const Output& out, const std::string& name, const std::string& diff) {
    out.info("diff " + name);
    out.lines(diff.substr(0, diff.size() - (diff.empty() ? 0 : 1)));
    out.info("");
}

int run_diff_cmd(Context& ctx, const RunFlags& f) {
    const Output out(ctx.globals, "run diff");
    Result<Resolved> r = resolve(ctx, f);
    if (!r) return report_error(out, r.error());
    Result<RunDiffResult> d = run_diff_command(ctx.fs, r->ws, r->opts, f.ids.at(0), f.ids.at(1), f.full);
    if (!d) return report_error(out, d.error());
    if (out.json()) {
        out.json_document(run_diff_json(*d));
        return kExitOk;
    }
    out.info("Run diff: " + short_id(d->from, 16) + " -> " + short_id(d->to, 16));
    out.info("");
    for (const RunFileDiff& file : d->files)
        if (file.changed) print_diff(out, file.name, file.diff);
    const RunProgressDiff& p = d->progress;
    const long long delta = static_cast<long long>(p.entries_after) - static_cast<long long>(p.entries_before);
    out.info("Progress summary:");
    out.info("  entries: " + std::to_string(p.entries_before) + " -> " + std::to_string(p.entries_after) + " (delta " +
             (delta >= 0 ? "+" : "") + std::to_string(delta) + ")");
    std::string completed;
    for (const std::string& t : p.completed_delta) completed += (completed.empty() ? "" : ", ") + t;
    out.info("  completed tasks added: " + (completed.empty() ? std::string("none") : completed));
    if (!p.latest_before.empty() || !p.latest_after.empty()) {
        out.info("  latest timestamps: " + p.latest_before + " -> " + p.latest_after);
    }
    if (!p.diff.empty()) {
        out.info("");
        print_diff(out, "progress.small.yml", p.diff);
    }
    return kExitOk;
}

int run_checkout_cmd(Context& ctx, const RunFlags& f) {
    const Output out(ctx.globals, "run checkout");
    Result<Resolved> r = resolve(ctx, f);
    if (!r) return report_error(out, r.error());
    if (Status linked = refuse_linked_small_dir(ctx.fs, r->ws); !linked) return report_error(out, linked.error());
    Result<RunCheckoutResult> c = run_checkout_command(ctx.fs, r->ws, r->opts, f.ids.at(0), f.force);
    if (!c) return report_error(out, c.error());
    if (out.json()) {
        out.json_document(run_checkout_json(*c));
        return kExitOk;
    }
    for (const std::string& name : c->restored) out.info("Restored: .small/" + name);
    for (const std::string& name : c->kept) out.info("Kept (not in the snapshot): .small/" + name);
    if (!c->backup_dir.empty()) out.info("Replaced files saved in " + c->backup_dir);
    if (!c->warning.empty()) out.problem("Warning: " + c->warning);
    out.info("Progress history kept; meta/checkout appended");
    out.success("Restored snapshot " + short_id(c->name, 16) + " into " + r->ws.small_dir);
    return kExitOk;
}

CLI::App* add_run_sub(CLI::App* group, const char* name, const char* what, const std::shared_ptr<RunFlags>& f) {
    CLI::App* cmd = group->add_subcommand(name, what);
    cmd->add_option("--store", f->store, "Run store directory (default: <workspace>/.small-runs; relative to the workspace)");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default), examples or any");
    return cmd;
}

}  // namespace

void register_run(CLI::App& app, Context& ctx) {
    CLI::App* group = add_command(app, "run");
    group->require_subcommand(0, 1);
    group->callback([&ctx, group] {
        if (group->get_subcommands().empty()) ctx.exit_code = run_group_without_subcommand(ctx, *group);
    });

    auto snap = std::make_shared<RunFlags>();
    CLI::App* s = add_run_sub(group, "snapshot",
                              "Copy the artifacts (progress as of now) to .small-runs/<replayId>/ and record it in the index",
                              snap);
    s->add_flag("--force", snap->force, "Replace an existing snapshot of this run (swapped in whole)");
    s->callback([&ctx, snap] { ctx.exit_code = run_snapshot_cmd(ctx, *snap); });

    auto list = std::make_shared<RunFlags>();
    CLI::App* l = add_run_sub(group, "list", "List snapshots, newest first (ties by replay id)", list);
    l->add_option("--limit", list->limit, "At most N snapshots (0 or less = all; default 20)");
    l->callback([&ctx, list] { ctx.exit_code = run_list_cmd(ctx, *list); });

    auto show = std::make_shared<RunFlags>();
    CLI::App* sh = add_run_sub(group, "show", "Show one snapshot: meta, artifacts, its progress log, summary", show);
    sh->add_option("replayId", show->ids, "The snapshot's replay id (64 lower-case hex)")->required()->expected(1);
    sh->callback([&ctx, show] { ctx.exit_code = run_show_cmd(ctx, *show); });

    auto diff = std::make_shared<RunFlags>();
    CLI::App* d = add_run_sub(group, "diff", "Unified diff (applies with patch -p1) between two snapshots", diff);
    d->add_option("ids", diff->ids, "<fromReplayId> <toReplayId>")->required()->expected(2);
    d->add_flag("--full", diff->full, "Also diff progress.small.yml");
    d->callback([&ctx, diff] { ctx.exit_code = run_diff_cmd(ctx, *diff); });

    auto co = std::make_shared<RunFlags>();
    CLI::App* c = add_run_sub(
        group, "checkout",
        "Restore a snapshot's intent, constraints, plan and handoff and pin its run (progress is never rewound)", co);
    c->add_option("replayId", co->ids, "The snapshot's replay id (64 lower-case hex)")->required()->expected(1);
    c->add_flag("--force", co->force, "Replace live files that differ (copies kept in .small-cache/backups/)");
    c->callback([&ctx, co] { ctx.exit_code = run_checkout_cmd(ctx, *co); });
}

}  // namespace small::cli
