// `small fix` and `small fix workspace`: flags and rendering; the work is
// in small/ops/maintenance/fix.hpp.
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/ops/maintenance/fix.hpp"
#include "small/report/fix.hpp"
#include "small/store/workspace_lock.hpp"

namespace small::cli {

namespace {

struct FixFlags {
    WorkspaceFlags where;
    bool versions = false, orphan_progress = false, runtime_layout = false, all = false, dry_run = false;
};

struct WorkspaceFixFlags {
    std::optional<std::string> dir;
    std::optional<std::string> kind;
    bool force = false, dry_run = false;
};

constexpr std::size_t kListed = 5;  // text lists at most this many items per group

std::string in_small(const std::string& name) { return small_relative(name); }

void render_versions(const Output& out, const std::vector<VersionFix>& fixes, bool dry) {
    std::vector<std::string> changed, canonical, unfixable;
    for (const VersionFix& f : fixes) {
        if (f.state == VersionFix::State::Changed) changed.push_back(in_small(f.file) + ": " + f.before + " -> " + f.after);
        if (f.state == VersionFix::State::Canonical) canonical.push_back(in_small(f.file));
        if (f.state == VersionFix::State::Unfixable) unfixable.push_back(in_small(f.file) + ": " + f.reason);
    }
    out.info(dry ? "small_version normalization (dry run)" : "small_version normalization complete.");
    const auto list = [&](const std::string& title, const std::vector<std::string>& items) {
        if (items.empty()) return;
        out.info(title + " (" + std::to_string(items.size()) + "):");
        for (const std::string& i : items) out.info("- " + i);
    };
    list(dry ? "Would change" : "Changed", changed);
    list("Already canonical", canonical);
    list("Not fixed", unfixable);
}

void render_orphans(const Output& out, const OrphanFixPlan& p, bool dry) {
    const std::size_t n = p.rewrites.size();
    out.info(n == 0 ? "Orphan progress" : dry ? "Orphan progress (dry run)" : "Orphan progress superseded");
    out.info("  ReplayId scope: " + (p.scope.empty() ? std::string("unknown") : p.scope));
    if (n == 0) {
        out.info("  No orphan progress entries found.");
        return;
    }
    std::size_t counts[3] = {0, 0, 0};
    for (const OrphanRewrite& rw : p.rewrites) ++counts[rw.category == "operational" ? 0 : rw.category == "historical" ? 1 : 2];
    out.info(std::string("  ") + (dry ? "Would supersede " : "Superseded ") + std::to_string(n) +
             " orphan progress entr" + (n == 1 ? "y" : "ies") + " with appended meta/ entries; the entries themselves are kept unchanged.");
    out.info("  Counts: operational=" + std::to_string(counts[0]) + " historical=" + std::to_string(counts[1]) +
             " unknown=" + std::to_string(counts[2]));
    for (std::size_t i = 0; i < n && i < kListed; ++i) {
        const OrphanRewrite& rw = p.rewrites[i];
        out.info("  - entry " + std::to_string(rw.index) + ": " + rw.task_id + " -> " + rw.new_task_id + " (" + rw.category + ")");
    }
    if (n > kListed) out.info("  ... and " + std::to_string(n - kListed) + " more (--json lists all)");
}

void render_layout(const Output& out, const LayoutPlan& p, bool dry) {
    if (p.empty()) {
        out.info("Runtime layout");
        out.info("  No legacy .small/archive/ or .small/runs/ paths found.");
        return;
    }
    out.info(dry ? "Runtime layout (dry run)" : "Runtime layout migrated");
    if (!p.migrations.empty()) {
        out.info(std::string("  ") + (dry ? "Would migrate " : "Migrated ") + std::to_string(p.migrations.size()) +
                 " legacy runtime path group(s).");
    }
    for (const LayoutMigration& m : p.migrations) {
        out.info("  - " + m.from + " -> " + m.to + " (" + std::to_string(m.moved.size()) + " item(s))");
        for (std::size_t i = 0; i < m.moved.size() && i < kListed; ++i) out.info("      " + m.moved[i]);
        if (m.moved.size() > kListed) out.info("      ... and " + std::to_string(m.moved.size() - kListed) + " more");
    }
    if (!p.deduped.empty()) {
        out.info(std::string("  ") + (dry ? "Would dedupe " : "Deduped ") + std::to_string(p.deduped.size()) +
                 " already-migrated file(s).");
    }
    for (const std::string& d : p.removed_dirs) out.info(std::string("  ") + (dry ? "Would remove " : "Removed ") + d + "/");
}

std::string shown(const YamlValue& v) { return v.is_null() ? "(none)" : v.is_string() ? v.get<std::string>() : v.dump(); }

void render_workspace(const Output& out, const WorkspaceRepair& w, bool dry) {
    out.info(dry ? "Workspace fix (dry run)" : "Workspace fix");
    const std::string verb = w.created                ? (dry ? "Would create" : "Created")
                             : w.replaced_unreadable ? (dry ? "Would replace unreadable" : "Replaced unreadable")
                             : w.changes.empty()     ? "Checked"
                                                     : (dry ? "Would repair" : "Repaired");
    out.info("  " + verb + " workspace.small.yml");
    if (w.replaced_unreadable) out.info("  (it did not parse: " + w.unreadable_reason + ")");
    if (w.changes.empty()) {
        out.info("  No changes needed");
        return;
    }
    for (const MemberChange& c : w.changes) {
        out.info("  - " + c.key + ": " + (w.created || w.replaced_unreadable ? shown(c.after) : shown(c.before) + " -> " + shown(c.after)));
    }
    if (!w.comments_kept) {
        out.info("  (rewritten in house style, its comments and formatting not kept: " + w.rewrite_reason +
                 "; the backup has them)");
    }
}

void render(const Output& out, const FixResult& r) {
    if (r.versions) render_versions(out, *r.versions, r.dry_run);
    if (r.orphans) render_orphans(out, *r.orphans, r.dry_run);
    if (r.layout) render_layout(out, *r.layout, r.dry_run);
    if (r.workspace) render_workspace(out, *r.workspace, r.dry_run);
    for (const std::string& w : r.warnings) out.problem("Warning: " + w);
    out.info("");
    if (r.dry_run) {
        out.info(r.changed() ? "Dry run: nothing written." : "Dry run: nothing to fix.");
        return;
    }
    if (!r.backup_dir.empty()) out.info("Backup of the rewritten files: " + r.backup_dir);
    if (!r.appended.empty()) {
        std::string ids;
        for (const std::string& id : r.appended) ids += (ids.empty() ? "" : ", ") + id;
        out.info("Recorded progress entr" + std::string(r.appended.size() == 1 ? "y" : "ies") + ": " +
                 (r.appended.size() > 2 * kListed ? std::to_string(r.appended.size()) + " meta/ entries" : ids));
    }
    if (!r.changed()) out.success("Nothing to fix.");
    out.info("Next: small check --strict");
}

int run(Context& ctx, const Output& out, const Result<Target>& target, FixRequest& req) {
    if (!target) return report_error(out, target.error());
    req.lock_wait = default_lock_wait();
    Result<FixResult> r = fix_command(ctx.fs, target->ws, req);
    if (!r) return report_error(out, r.error());
    if (out.json()) out.json_document(fix_json(*r));
    else render(out, *r);
    return kExitOk;
}

int run_fix(Context& ctx, const FixFlags& f) {
    const Output out(ctx.globals, "fix");
    Result<Target> target = resolve_target(ctx, f.where);
    FixRequest req;
    req.versions = f.versions || f.all;
    req.orphan_progress = f.orphan_progress;
    req.runtime_layout = f.runtime_layout || f.all;
    req.workspace = f.all;
    req.dry_run = f.dry_run;
    if (target) req.scope = target->scope;
    return run(ctx, out, target, req);
}

int run_fix_workspace(Context& ctx, const WorkspaceFixFlags& f) {
    const Output out(ctx.globals, "fix workspace");
    FixRequest req;
    req.workspace = true;
    req.scope = WorkspaceScope::Any;  // it repairs the very file a scope is read from
    req.dry_run = f.dry_run;
    req.workspace_repair.force = f.force;
    if (f.kind) {
        if (*f.kind == "repo-root") req.workspace_repair.kind = WorkspaceKind::RepoRoot;
        else if (*f.kind == "examples") req.workspace_repair.kind = WorkspaceKind::Examples;
        else return report_error(out, Error::usage("invalid --kind \"" + *f.kind + "\" (use repo-root or examples)"));
    }
    WorkspaceFlags where{f.dir, "any"};
    return run(ctx, out, resolve_target(ctx, where), req);
}

}  // namespace

void register_fix(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<FixFlags>();
    CLI::App* cmd = add_command(app, "fix");
    cmd->add_flag("--versions", f->versions, "Normalize small_version formatting (quoted string)");
    cmd->add_flag("--orphan-progress", f->orphan_progress,
                  "Supersede orphan progress entries of the run with appended meta/ entries (existing entries are kept)");
    cmd->add_flag("--runtime-layout", f->runtime_layout,
                  "Migrate legacy .small/archive and .small/runs paths to .small-archive and .small-runs");
    cmd->add_flag("--all", f->all, "Run all low-risk fixers (versions, runtime layout, workspace)");
    cmd->add_flag("--dry-run", f->dry_run, "Show what would change; write nothing");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default), examples or any");
    cmd->require_subcommand(0, 1);
    cmd->callback([&ctx, f, cmd] {
        if (cmd->get_subcommands().empty()) ctx.exit_code = run_fix(ctx, *f);
    });

    auto w = std::make_shared<WorkspaceFixFlags>();
    CLI::App* ws = cmd->add_subcommand(
        "workspace", "Create or repair .small/workspace.small.yml in place (comments and unknown keys kept)");
    add_dir_option(ws, w->dir);
    ws->add_option("--kind", w->kind, "Kind of a new file, or with --force the kind to set: repo-root (default) or examples");
    ws->add_flag("--force", w->force, "Refresh updated_at and apply --kind to an existing file");
    ws->add_flag("--dry-run", w->dry_run, "Show what would change; write nothing");
    ws->callback([&ctx, w] { ctx.exit_code = run_fix_workspace(ctx, *w); });
}

}  // namespace small::cli
