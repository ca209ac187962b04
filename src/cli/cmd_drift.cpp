// `small drift`: files changed in the run outside the intent's scope.
// Exit 1 when there is drift, 0 when none, 2 outside a repository or for a
// bad --since.
#include <memory>

#include "cli.hpp"
#include "small/domain/scope_drift.hpp"
#include "small/report/drift.hpp"

namespace small::cli {

namespace {

struct DriftFlags {
    std::optional<std::string> dir, since;
};

std::string base_text(const DriftReport& r) {
    const std::string id = r.base.substr(0, 12);
    if (r.base_source == "since") return "since " + id;
    if (r.base_source == "run_start") return "since " + id + " (the last commit before the run started at " + r.run_start + ")";
    if (r.base_source == "head") return "since HEAD " + id + " (no run start in the progress log: uncommitted changes only)";
    return "since the empty tree (no commit before the run: every file counts)";
}

int run_drift(Context& ctx, const DriftFlags& f) {
    const Output out(ctx.globals, "drift");
    const WorkspacePaths ws = locate_workspace(ctx.fs, f.dir, current_directory());
    Result<DriftReport> r = scope_drift(ctx.fs, ws, DriftOptions{f.since});
    if (!r) return report_error(out, r.error());
    const int code = r->files.empty() ? kExitOk : kExitInvalid;
    if (out.json()) {
        nlohmann::json doc = drift_json(*r);
        if (code) doc.update(error_json("invalid", std::to_string(r->files.size()) + " file(s) outside the intent's scope"));
        out.json_document(std::move(doc), code);
        return code;
    }
    if (!r->has_scope) {
        out.success("No drift: the intent has no scope globs (" + std::to_string(r->changed) + " changed file(s) " + base_text(*r) + ")");
        return code;
    }
    if (code == kExitOk) {
        out.success("No drift: " + std::to_string(r->changed) + " changed file(s) " + base_text(*r) + ", all in scope");
        return code;
    }
    for (const DriftFile& file : r->files) out.info(drift_file_line(file));
    out.problem("Drift: " + std::to_string(r->files.size()) + " of " + std::to_string(r->changed) +
                " changed file(s) " + base_text(*r) + " are outside the intent's scope");
    out.problem("    Fix: revert them, or widen scope.include / scope.exclude in .small/intent.small.yml");
    return code;
}

}  // namespace

void register_drift(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<DriftFlags>(app, ctx, "drift", run_drift);
    cmd->footer(
        "Scope globs: * within one path segment, ** any number of segments, anchored at the workspace root.\n"
        "Never drift: .small*/ folders, AGENTS.md, .gitignore.\n"
        "Exit codes:\n  0 - no drift\n  1 - files outside scope.include or inside scope.exclude\n"
        "  2 - not in a git repository, a bad --since, or a bad glob");
    cmd->add_option("--since", f->since,
                    "Compare from this revision (default: the last commit before the run's first progress entry)");
    add_dir_option(cmd, f->dir);
}

}  // namespace small::cli
