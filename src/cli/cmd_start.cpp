// `small start`: flags and rendering; the work is in small/ops/session/handoff.hpp.
#include <memory>

#include "cli.hpp"
#include "small/ops/session/handoff.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/ops/session/start.hpp"
#include "small/report/authoring.hpp"

namespace small::cli {

namespace {

using StartFlags = RequestFlags<StartRequest>;

int run_start(Context& ctx, StartFlags& f) {
    const Output out(ctx.globals, "start");
    const Result<WorkspacePaths> ws = aimed_workspace(ctx, f.where, f.req);
    if (!ws) return report_error(out, ws.error());
    Result<StartResult> r = start_command(ctx.fs, *ws, f.req);
    if (!r) return report_error(out, r.error());

    if (out.json()) {
        nlohmann::json check;
        const int code = run_strict_check(ctx, *ws, &check);
        out.json_document(start_json(*r, *ws, std::move(check), code), code);
        return code;
    }
    for (const std::string& name : r->created) out.info("Created .small/" + name + " from template");
    if (r->gitignore && !r->gitignore->added.empty()) out.info(gitignore_line(*r->gitignore));
    if (r->self_heal) out.info("Pinned a new run replay id " + r->handoff.replay_id.substr(0, 16) + "... (self-heal)");
    if (!r->repinned_from.empty()) {
        out.info("Re-pinned the run to the manifest as it now is: " + r->handoff.replay_id.substr(0, 16) + "... (was " +
                 r->repinned_from.substr(0, 16) + "...; the run had no work entries yet)");
    }
    out.info("Wrote handoff.small.yml (replayId " + r->handoff.replay_id.substr(0, 16) + "...)");
    for (const std::string& w : r->handoff.warnings) out.problem("Warning: " + w);
    out.info("Running strict check (validate, lint, verify)...");
    const int code = run_strict_check(ctx, *ws, nullptr);
    if (code == kExitOk) out.success("Strict check passed. Start complete. Handoff ready.");
    else out.problem("Error: strict check failed; fix the findings above, then run `small start` again");
    return code;
}

}  // namespace

void register_start(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<StartFlags>(app, ctx, "start", run_start);
    cmd->add_option("--summary", f->req.summary, "Summary text for the handoff (default: computed)");
    add_workspace_flags(cmd, f->where,
                        "Workspace scope: root (default) or any (any also creates .small/ when missing, and then adds "
                        "the runtime folders to .gitignore as init does)");
}

}  // namespace small::cli
