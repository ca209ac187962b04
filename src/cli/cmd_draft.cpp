// `small draft intent|constraints --from PATH|-|stdin`: flags and rendering
// only; the work is done by small/ops/authoring/draft.hpp.
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/ops/authoring/draft.hpp"
#include "small/model/workspace.hpp"
#include "small/report/authoring.hpp"
#include "small/store/workspace_lock.hpp"

namespace small::cli {

namespace {

struct DraftFlags {
    WorkspaceFlags where;
    std::string from;
};

void render(const Output& out, const WorkspacePaths& ws, DraftKind kind, const DraftResult& r) {
    const std::string name(draft_kind_name(kind));
    if (out.json()) {
        out.json_document(draft_json(ws, kind, r));
        return;
    }
    out.findings(r.warnings);
    out.info("Draft saved: " + r.draft_display);
    if (!r.warnings.empty()) out.info("Note: small accept " + name + " refuses this draft until the problems above are fixed");
    out.info("Next: small accept " + name);
}

int run_draft(Context& ctx, DraftKind kind, const DraftFlags& f) {
    const Output out(ctx.globals, "draft");
    Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    const WorkspacePaths& ws = target->ws;
    const std::string cwd = current_directory();

    DraftRequest req;
    req.kind = kind;
    req.from = f.from;
    req.cwd = cwd;
    req.input = &std::cin;
    aim_at(*target, req);
    Result<DraftResult> r = draft_command(ctx.fs, ws, req);
    if (!r) return report_error(out, r.error());
    render(out, ws, kind, *r);
    return kExitOk;
}

}  // namespace

void register_draft(CLI::App& app, Context& ctx) {
    CLI::App* group = add_command(app, "draft");
    group->require_subcommand(0, 1);
    // A word that is not a kind lands here, so it gets a clear usage error.
    auto stray = std::make_shared<std::string>();
    group->add_option("kind", *stray, "intent or constraints (the subcommands below)");

    for (DraftKind kind : kDraftKinds) {
        const std::string name(draft_kind_name(kind));
        auto flags = std::make_shared<DraftFlags>();
        CLI::App* k = group->add_subcommand(
            name, "Save a draft " + name + ".small.yml (verbatim) to " + draft_relative_path(kind) + "; .small/ is not changed");
        k->add_option("--from", flags->from, "Source file, or - (or stdin) to read standard input")->required();
        add_workspace_flags(k, flags->where, "Workspace scope: root (default), examples or any");
        k->callback([&ctx, kind, flags, stray] {
            if (stray->empty()) ctx.exit_code = run_draft(ctx, kind, *flags);
        });
    }
    group->callback([&ctx, group, stray] {
        if (!stray->empty()) {
            ctx.exit_code = report_error(Output(ctx.globals, "draft"), parse_draft_kind(*stray).error());
        } else if (group->get_subcommands().empty()) {
            ctx.exit_code = run_group_without_subcommand(ctx, *group);
        }
    });
}

}  // namespace small::cli
