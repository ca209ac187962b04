// `small accept intent|constraints`: flags and rendering only; the work is
// done by small/ops/authoring/draft.hpp.
#include <memory>

#include "cli.hpp"
#include "small/ops/authoring/draft.hpp"
#include "small/model/workspace.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/ops/authoring/accept.hpp"
#include "small/report/authoring.hpp"

namespace small::cli {

namespace {

struct AcceptFlags {
    WorkspaceFlags where;
};

// The draft failed its checks: findings, then why nothing changed (exit 1).
int render_refusal(const Output& out, const WorkspacePaths& ws, DraftKind kind, const AcceptResult& r) {
    const std::string summary = "draft refused, " + r.target_display + " left unchanged (" +
                                std::to_string(r.problems.size()) +
                                (r.problems.size() == 1 ? " error" : " errors") + "); fix it and run small draft " +
                                std::string(draft_kind_name(kind)) + " --from <path|stdin> again";
    if (out.json()) {
        out.json_document(accept_json(ws, kind, r), kExitInvalid);
    } else {
        out.findings(r.problems);
        out.problem("Error: " + summary);
    }
    return kExitInvalid;
}

void render_accepted(const Output& out, const WorkspacePaths& ws, DraftKind kind, const AcceptResult& r) {
    const std::string task = r.entry["task_id"].get<std::string>();
    if (out.json()) {
        out.json_document(accept_json(ws, kind, r));
        return;
    }
    out.info("Accepted draft: " + r.draft_display + " -> " + r.target_display);
    out.info("Recorded progress entry: " + task);
}

int run_accept(Context& ctx, DraftKind kind, const AcceptFlags& f) {
    const Output out(ctx.globals, "accept");
    Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    const WorkspacePaths& ws = target->ws;

    AcceptRequest req;
    req.kind = kind;
    aim_at(*target, req);
    Result<AcceptResult> r = accept_command(ctx.fs, ws, req);
    if (!r) return report_error(out, r.error());
    if (!r->accepted) return render_refusal(out, ws, kind, *r);
    render_accepted(out, ws, kind, *r);
    return kExitOk;
}

}  // namespace

void register_accept(CLI::App& app, Context& ctx) {
    CLI::App* group = add_command(app, "accept");
    group->require_subcommand(0, 1);
    // A word that is not a kind lands here, so it gets a clear usage error.
    auto stray = std::make_shared<std::string>();
    group->add_option("kind", *stray, "intent or constraints (the subcommands below)");

    for (DraftKind kind : kDraftKinds) {
        const std::string name(draft_kind_name(kind));
        auto flags = std::make_shared<AcceptFlags>();
        CLI::App* k = group->add_subcommand(
            name, "Validate " + draft_relative_path(kind) + " and install it as .small/" + name +
                      ".small.yml (records meta/accept-" + name + "); an invalid draft is refused");
        add_workspace_flags(k, flags->where, "Workspace scope: root (default), examples or any");
        k->callback([&ctx, kind, flags, stray] {
            if (stray->empty()) ctx.exit_code = run_accept(ctx, kind, *flags);
        });
    }
    group->callback([&ctx, group, stray] {
        if (!stray->empty()) {
            ctx.exit_code = report_error(Output(ctx.globals, "accept"), parse_draft_kind(*stray).error());
        } else if (group->get_subcommands().empty()) {
            ctx.exit_code = run_group_without_subcommand(ctx, *group);
        }
    });
}

}  // namespace small::cli
