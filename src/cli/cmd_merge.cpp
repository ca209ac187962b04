// `small merge [--explain] ANCESTOR CURRENT OTHER [PATHNAME]`: the git merge
// driver; flags and rendering only, the work is in small/ops/merge.hpp.
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/ops/merge.hpp"
#include "small/report/merge.hpp"

namespace small::cli {

namespace {

struct MergeFlags {
    MergeRequest request;
    bool explain = false;
};

void print_text(const Output& out, const MergeReport& r, bool explain) {
    if (!r.clean()) {
        out.problem("small merge: " + r.pathname + ": " + std::to_string(r.outcome.conflicts.size()) +
                    " conflict(s); the file is left as CURRENT had it");
        for (const MergeConflict& c : r.outcome.conflicts) {
            out.problem("  " + c.message);
            if (explain) out.problem("    to resolve: " + c.hint);
        }
        if (!explain)
            out.problem("Run `small merge --explain` with the same files (or `small doctor`) for how to resolve");
        return;
    }
    if (explain || !out.quiet()) {
        std::string line = "small merge: " + r.pathname + " merged cleanly (" + r.rule + " rule";
        if (r.rule == "progress") {
            line += ", " + std::to_string(r.outcome.added_entries) + " new entries, " +
                    std::to_string(r.outcome.duplicate_entries) + " duplicates dropped, " +
                    std::to_string(r.outcome.bumped_timestamps) + " timestamps moved";
        }
        std::cerr << line << ")\n";  // git shows the driver's stderr; stdout is not the result
    }
    for (const std::string& note : r.outcome.notes) {
        if (explain || r.rule == "handoff") std::cerr << "  note: " << note << '\n';
    }
}

int run_merge(const Context& ctx, const MergeFlags& f) {
    const Output out(ctx.globals, "merge");
    Result<MergeReport> r = merge_files(ctx.fs, f.request);
    if (!r) return report_error(out, r.error());
    const int code = r->clean() ? kExitOk : kExitInvalid;
    if (out.json()) {
        nlohmann::json doc = merge_json(*r);
        if (code != kExitOk) {
            doc["error"] = {
                {"kind", "invalid"},
                {"message", std::to_string(r->outcome.conflicts.size()) + " conflict(s) in " + r->pathname}};
        }
        out.json_document(std::move(doc), code);
    } else print_text(out, *r, f.explain);
    return code;
}

}  // namespace

void register_merge(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<MergeFlags>();
    CLI::App* cmd = app.add_subcommand(
        "merge", "Git merge driver for .small/ files: three-way merge of ANCESTOR, CURRENT and OTHER into CURRENT");
    cmd->add_option("ancestor", f->request.ancestor, "The common ancestor's version (git's %O)")->required();
    cmd->add_option("current", f->request.current, "This branch's version (git's %A); receives the result")->required();
    cmd->add_option("other", f->request.other, "The other branch's version (git's %B)")->required();
    cmd->add_option("pathname", f->request.pathname,
                    "The file's path in the repository (git's %P); picks the rule (default: CURRENT's name)");
    cmd->add_flag("--explain", f->explain, "Say how each conflict can be resolved, and every note of a clean merge");
    cmd->footer(
        "Registered by `small hooks install git` as merge.small.driver \"small merge %O %A %B %P\" with a "
        ".gitattributes line `.small/*.small.yml merge=small`. Rules: progress.small.yml keeps the ancestor's bytes "
        "and appends the union of both sides' new entries (exact duplicates once) by timestamp, moving a timestamp "
        "forward by 1 ns where needed; plan.small.yml merges by task id and field (status: completed > cancelled > "
        "blocked > in_progress > pending); handoff.small.yml keeps CURRENT when both changed (run `small handoff` "
        "after the merge); any other file merges only identical or one-sided changes. Exit codes: 0 merged (CURRENT "
        "holds the result), 1 conflict or a side that cannot be merged (CURRENT left exactly as it was), 2 usage or "
        "system error.");
    cmd->callback([&ctx, f] { ctx.exit_code = run_merge(ctx, *f); });
}

}  // namespace small::cli
