// `small handoff`: flags and rendering; the work is in small/ops/handoff.hpp.
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/ops/handoff.hpp"
#include "small/store/workspace_lock.hpp"

namespace small::cli {

namespace {

struct HandoffFlags {
    WorkspaceFlags where;
    HandoffRequest req;
};

int run_handoff(Context& ctx, HandoffFlags& f) {
    const Output out(ctx.globals, "handoff");
    Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    const WorkspacePaths& ws = target->ws;
    f.req.scope = target->scope;
    f.req.lock_wait = default_lock_wait();
    Result<HandoffResult> r = handoff_command(ctx.fs, ws, f.req);
    if (!r) return report_error(out, r.error());

    const std::size_t steps = r->handoff["resume"]["next_steps"].size();
    std::vector<std::string> warnings;
    nlohmann::json unsettled = nlohmann::json::array();
    for (const UnsettledTask& t : r->unsettled) {
        unsettled.push_back({{"id", t.id}, {"title", t.title}, {"plan_status", t.plan_status},
                             {"last_status", t.last_status}});
    }
    if (!r->unsettled.empty()) {
        warnings.push_back(std::to_string(r->unsettled.size()) + " task" + (r->unsettled.size() == 1 ? "" : "s") +
                           " of the current run " + (r->unsettled.size() == 1 ? "has" : "have") +
                           " progress but " + (r->unsettled.size() == 1 ? "is" : "are") +
                           " not completed, blocked or cancelled; the handoff names " +
                           (r->unsettled.size() == 1 ? "it" : "them") + " as next steps");
    }
    if (out.json()) {
        out.json_document({{"workspace", ws.root},
                           {"file", ws.path_of("handoff.small.yml")},
                           {"replay_id", r->replay_id},
                           {"source", r->source},
                           {"pinned_run", r->pinned_run},
                           {"unsettled_tasks", unsettled},
                           {"warnings", warnings},
                           {"handoff", nlohmann::json::parse(r->handoff.dump())}});
        return kExitOk;
    }
    if (!ctx.globals.quiet) {
        for (const std::string& w : warnings) std::cerr << "Warning: " << w << '\n';
        for (const UnsettledTask& t : r->unsettled) std::cerr << "  - " << describe_unsettled(t) << '\n';
    }
    out.success("Generated handoff.small.yml with " + std::to_string(steps) + " next step" + (steps == 1 ? "" : "s"));
    out.info("replayId: " + r->replay_id.substr(0, 16) + "... (source: " + r->source + ")");
    out.info(r->text);
    return kExitOk;
}

}  // namespace

void register_handoff(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<HandoffFlags>();
    CLI::App* cmd = app.add_subcommand(
        "handoff", "Write .small/handoff.small.yml, the resume point, from the plan and progress");
    cmd->add_option("--summary", f->req.summary, "Summary text (default: computed from the plan's state)");
    cmd->add_option("--replay-id", f->req.replay_id, "Manual replay id (64 hex digits; stored lower-case, source manual)");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default) or any (examples is refused)");
    cmd->add_flag("--require-settled", f->req.require_settled,
                  "Refuse (exit 1, nothing written) while a task of the current run has progress but is not "
                  "completed, blocked or cancelled");
    cmd->footer("A handoff can always be written: tasks with unsettled progress are listed as a warning and\n"
                "named in resume.current_task_id / resume.next_steps (--require-settled refuses instead).");
    cmd->callback([&ctx, f] { ctx.exit_code = run_handoff(ctx, *f); });
}

}  // namespace small::cli
