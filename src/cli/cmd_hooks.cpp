// `small hooks install|uninstall|print git|claude|codex|vscode`: flags and
// rendering only; the work is done by small/ops/authoring/hooks.hpp.
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/base/text.hpp"
#include "small/ops/authoring/hooks.hpp"
#include "small/report/hooks.hpp"
#include "small/store/workspace_lock.hpp"

namespace small::cli {

namespace {

struct HooksFlags {
    std::string target;
    std::optional<std::string> dir;
    bool dry_run = false;
    bool claim = false;
};

std::string change_line(const HookFileChange& f, bool dry_run) {
    const std::string verb = f.change == "chained"    ? "kept the existing hook as"
                             : f.change == "restored" ? "restored the original hook at"
                                                      : f.change;
    return (dry_run ? "would be " : "") + verb + ": " + f.path;
}

void print_text(const Output& out, const HooksResult& r) {
    if (r.action == HooksAction::Print) {
        std::cout << r.content;  // the requested output: not silenced by --quiet
        for (const std::string& note : r.notes) std::cerr << "# " << visible(note) << "\n";
        return;
    }
    for (const HookFileChange& f : r.files) {
        if (r.dry_run && f.change != "unchanged") {
            out.info(change_line(f, true));
            std::cout << hook_change_diff(f);
        } else if (f.change == "unchanged") {
            out.info("unchanged (already installed): " + f.path);
        } else {
            out.success(change_line(f, false));
        }
    }
    for (const std::string& note : r.notes) out.info("note: " + note);
    for (const std::string& warning : r.warnings) out.problem("warning: " + warning);
    if (r.dry_run) out.info("Dry run: nothing was written");
}

int run(Context& ctx, HooksAction action, const HooksFlags& f) {
    const Output out(ctx.globals, "hooks " + std::string(hooks_action_name(action)));
    Result<HookTarget> target = parse_hook_target(f.target);
    if (!target) return report_error(out, target.error());
    HooksRequest req;
    req.target = *target;
    req.action = action;
    req.dry_run = f.dry_run;
    req.claim = f.claim;
    req.dir = f.dir;
    req.cwd = current_directory();
    req.lock_wait = default_lock_wait();
    Result<HooksResult> r = hooks_command(ctx.fs, req);
    if (!r) return report_error(out, r.error());
    if (out.json()) out.json_document(hooks_json(*r));
    else print_text(out, *r);
    return kExitOk;
}

constexpr const char* kFooter =
    "Targets: git (a pre-commit hook running `small check --strict` when a commit touches .small/; an existing "
    "hook is kept as pre-commit.small-chained and still runs first. git also registers small's merge driver: the "
    "line `.small/*.small.yml merge=small` in the workspace root's .gitattributes, and merge.small.name and "
    "merge.small.driver \"small merge -- %O %A %B %P\" in the repository's own git config; a merge.small.driver "
    "already set, there or globally, is kept; install also checks that git finds git-merge-small, the `git merge -s "
    "small` strategy that is small under that name, and warns with the `ln -s` command that links it), claude (.claude/settings.json: SessionStart and PreCompact run "
    "`small status --brief`), codex (.codex/hooks.json: SessionStart runs `small status --brief`), vscode (.vscode/settings.json: "
    "\"yaml.schemas\" maps .small/*.small.yml onto the built-in schemas, written to .vscode/small-schemas/, so the "
    "YAML language server validates as you type; the file's comments and formatting are kept). Install records "
    "what it added in .small-cache/hooks/<target>.json; uninstall removes exactly that (an identical line, key or "
    "entry of your own stays). Everything is decided before the first write; a write that fails undoes the earlier "
    "ones. Exit codes: 0 done or nothing to do, 1 refused and nothing written (symbolic link or non-file in the "
    "way, the hooks folder included, invalid JSON, a foreign hook and a chained one both present, a foreign hook "
    "in a core.hooksPath folder), 2 usage or system error (not a git work tree, a read-only file or "
    "folder, a failed write), 3 workspace busy.";

void register_action(CLI::App* group, Context& ctx, HooksAction action, const std::string& help) {
    auto flags = std::make_shared<HooksFlags>();
    CLI::App* cmd = group->add_subcommand(std::string(hooks_action_name(action)), help);
    complete_as(cmd->add_option("target", flags->target, "git, claude, codex or vscode")->required(), kHookTargetNames);
    add_dir_option(cmd, flags->dir);
    cmd->add_flag("--dry-run", flags->dry_run,
                  action == HooksAction::Print ? "Accepted for symmetry: print never writes"
                                               : "Show the change as a diff; write nothing");
    if (action != HooksAction::Uninstall) {
        cmd->add_flag("--claim", flags->claim,
                      "claude, codex: the session start also claims the next ready task (`small claim --next`, D19)");
    }
    cmd->footer(kFooter);
    cmd->callback([&ctx, flags, action] { ctx.exit_code = run(ctx, action, *flags); });
}

}  // namespace

void register_hooks(CLI::App& app, Context& ctx) {
    CLI::App* group = add_command(app, "hooks");
    group->require_subcommand(0, 1);
    group->callback([&ctx, group] {
        if (group->get_subcommands().empty()) ctx.exit_code = run_group_without_subcommand(ctx, *group);
    });
    register_action(group, ctx, HooksAction::Install,
                    "Install a hook (git, claude, codex or vscode; git also registers the merge driver for .small/ "
                    "files); names every file written");
    register_action(group, ctx, HooksAction::Uninstall,
                    "Remove small's hook and restore what it chained, and what install recorded adding (git: the "
                    "merge driver line and git config keys); other hooks, lines and keys stay");
    register_action(group, ctx, HooksAction::Print, "Print what install would write; writes nothing");
}

}  // namespace small::cli
