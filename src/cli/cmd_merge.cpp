// `small merge [--explain] ANCESTOR CURRENT OTHER [PATHNAME]` (the git merge
// driver) and `small merge --explain FILE` (a conflict in git's index);
// flags and rendering only, the work is in small/ops/maintenance/merge.hpp.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string_view>

#include "cli.hpp"
#include "small/base/text.hpp"
#include "small/ops/maintenance/merge.hpp"
#include "small/report/merge.hpp"

namespace small::cli {

namespace {

struct MergeFlags {
    MergeRequest request;
    bool explain = false;
};

bool from_index(const MergeFlags& f) { return f.request.current.empty(); }

// The command that explains `path`, ready to paste: quoted, and after `--`
// when it would read as a flag.
std::string explain_command(const std::string& path) {
    return "small merge --explain " + std::string(path.starts_with('-') ? "-- " : "") + shell_quote(path);
}

// The conflict lines name the path and give commands to paste (issue 21): a
// line break in a folder's name stays raw there (inside the command's
// quotes it is part of the path); other control characters are escaped.
void print_conflicts(const Output& out, const MergeReport& r, const MergeFlags& f) {
    out.problem_lines("small merge: " + r.pathname + ": " + std::to_string(r.outcome.conflicts.size()) +
                      " conflict(s)" + (from_index(f) ? " in git's index" : "; the file is left as CURRENT had it"));
    for (const MergeConflict& c : r.outcome.conflicts) {
        out.problem_lines("  " + c.message);
        if (f.explain) out.problem_lines("    to resolve: " + c.hint);
    }
    if (!f.explain) {
        out.problem_lines("Run `" + explain_command(r.pathname) + "` (or `small doctor`) for how to resolve");
    }
}

// Run by `git merge -s small` (git-merge-small), which writes the handoff
// itself once every file is merged: no "run small handoff" advice then.
bool in_merge_strategy() { return std::getenv("SMALL_MERGE_STRATEGY_FILE") != nullptr; }

void print_text(const Output& out, const MergeReport& r, const MergeFlags& f) {
    if (!r.clean()) {
        print_conflicts(out, r, f);
        for (const std::string& note : r.outcome.notes) {
            if (f.explain) out.problem("  note: " + note);
        }
        return;
    }
    if (from_index(f) && r.index_advice) {
        std::cerr << "small merge: " << r.pathname << ": small's merge driver merges it cleanly (" << r.rule
                  << " rule); " << r.index_advice->reason << ". Run: " << r.index_advice->fix << '\n';
    } else if (f.explain || !out.quiet()) {
        std::string line = "small merge: " + r.pathname + " merged cleanly (" + r.rule + " rule";
        if (r.rule == "progress") {
            line += ", " + std::to_string(r.outcome.added_entries) + " new entries, " +
                    std::to_string(r.outcome.duplicate_entries) + " duplicates dropped, " +
                    std::to_string(r.outcome.bumped_timestamps) + " timestamps moved";
        }
        std::cerr << line << ")\n";  // git shows the driver's stderr; stdout is not the result
        // D21: the rename is said by the driver that records it.
        if (r.rule == "progress") {
            for (const std::string& renamed : r.outcome.renamed) {
                std::cerr << "  renamed OTHER's task " << renamed << " (the same id was added on both sides)\n";
            }
        }
        // D18: the handoff still describes one side of the merge; said by
        // one file's driver (merge_sides_from_git) when git's commits are known.
        if (r.rule != "whole" && r.advises_handoff && !in_merge_strategy() && !f.explain) {
            std::cerr << "  after the merge, run: small handoff (the handoff describes one side; "
                         "git merge -s small writes it for you)\n";
        }
    }
    for (const std::string& note : r.outcome.notes) {
        // Issue 41: a plan merge that could not keep something says so without --explain.
        if (f.explain || r.rule == "plan") std::cerr << "  note: " << visible(note) << '\n';
    }
}

// What git tells a merge driver about the merge, from the environment:
// GITHEAD_<id> for each commit `git merge`/`git pull` merges, and
// SMALL_MERGE_SIDES from git-merge-small.
void from_environment(MergeRequest& q) {
    q.top = current_directory();
    if (const char* hint = std::getenv("SMALL_MERGE_SIDES")) q.sides_hint = hint;
    for (char** e = environ; e && *e; ++e) {
        const std::string_view var(*e);
        if (!var.starts_with("GITHEAD_")) continue;
        const std::string_view id = var.substr(8, var.find('=') - 8);
        if ((id.size() == 40 || id.size() == 64) &&
            id.find_first_not_of("0123456789abcdef") == std::string_view::npos) {
            q.other_commits.emplace_back(id);
        }
    }
}

// Three files (git's %O %A %B, %P optional), or with --explain one path
// whose stages git's index holds after a stopped merge.
Result<MergeReport> merge_or_explain(const Context& ctx, const MergeFlags& f) {
    const MergeRequest& q = f.request;
    if (!q.current.empty()) {
        if (f.explain) return merge_command(ctx.fs, q);
        MergeRequest driver = q;
        from_environment(driver);
        return merge_command(ctx.fs, driver);
    }
    if (q.ancestor.empty()) return Error::usage("give ANCESTOR CURRENT OTHER [PATHNAME], or --explain FILE");
    if (!f.explain) {
        return Error::usage("one file is only understood with --explain (" + explain_command(q.ancestor) +
                            "); as a merge driver give ANCESTOR CURRENT OTHER [PATHNAME]");
    }
    return merge_explain_command(ctx.fs, q.ancestor, current_directory());
}

int run_merge(const Context& ctx, const MergeFlags& f) {
    const Output out(ctx.globals, "merge");
    Result<MergeReport> r = merge_or_explain(ctx, f);
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
    } else print_text(out, *r, f);
    return code;
}

}  // namespace

void register_merge(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<MergeFlags>(app, ctx, "merge", run_merge);
    cmd->add_option("ancestor", f->request.ancestor,
                    "The common ancestor's version (git's %O); alone with --explain: a file git left unmerged");
    cmd->add_option("current", f->request.current, "This branch's version (git's %A); receives the result");
    cmd->add_option("other", f->request.other, "The other branch's version (git's %B)");
    cmd->add_option("pathname", f->request.pathname,
                    "The file's path in the repository (git's %P); picks the rule (default: CURRENT's name)");
    cmd->add_flag("--explain", f->explain, "Say how each conflict can be resolved, and every note of a clean merge");
    cmd->footer(
        "`small merge --explain FILE` reads FILE's three stages from git's index after a merge, rebase or cherry-pick "
        "stopped on it, and says what collides and how to resolve it (nothing is written). "
        "Registered by `small hooks install git` as merge.small.driver \"small merge -- %O %A %B %P\" with a "
        ".gitattributes line `.small/*.small.yml merge=small`; `--` ends the flags, so a path that starts with `-` "
        "is still a path. Rules: progress.small.yml is the union of the "
        "entries by content (each once, none lost; the shared leading entries keep their bytes, the rest by "
        "timestamp, moving a timestamp forward by 1 ns where needed); plan.small.yml merges by task id and field "
        "(status: completed > cancelled > blocked > in_progress > pending; new tasks by id); "
        "handoff.small.yml keeps CURRENT when both changed (run `small handoff` "
        "after the merge); any other file merges only identical or one-sided changes. Several branches at once: "
        "`git merge -s small A B` (git's own octopus never runs merge drivers); git runs it as git-merge-small, "
        "which is small under that name (a link beside it: `small hooks install git` says how when it is missing). "
        "Exit codes: 0 merged (CURRENT "
        "holds the result), 1 conflict or a side that cannot be merged (CURRENT left exactly as it was), 2 usage or "
        "system error.");
}

}  // namespace small::cli
