// `small init`: flags and rendering only; the work is done by
// small/ops/session/init.hpp.
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/base/text.hpp"
#include "small/ops/session/init.hpp"
#include "small/store/workspace_lock.hpp"

namespace small::cli {

namespace {

struct InitFlags {
    std::optional<std::string> dir;
    std::optional<std::string> intent;
    bool force = false;
    bool no_agents = false;
    bool overwrite_agents = false;
    std::string agents_mode;
};

std::string agents_line(AgentsAction action) {
    switch (action) {
        case AgentsAction::Skipped: return "";
        case AgentsAction::Created: return "Created AGENTS.md";
        case AgentsAction::Overwrote: return "Overwrote AGENTS.md";
        case AgentsAction::Appended: return "Appended SMALL harness block to AGENTS.md";
        case AgentsAction::Prepended: return "Prepended SMALL harness block to AGENTS.md";
        case AgentsAction::Updated: return "Updated SMALL harness block in AGENTS.md";
    }
    return "";
}

int run_init(Context& ctx, const InitFlags& f) {
    const Output out(ctx.globals, "init");
    InitRequest req;
    req.dir = f.dir;
    req.cwd = current_directory();
    req.intent = f.intent;
    req.force = f.force;
    req.no_agents = f.no_agents;
    req.overwrite_agents = f.overwrite_agents;
    req.agents_mode = f.agents_mode;
    req.lock_wait = default_lock_wait();
    Result<InitResult> r = init_command(ctx.fs, req);
    if (!r) {
        return report_error(out, r.error());
    }

    if (out.json()) {
        out.json_document(init_json(*r));
        return kExitOk;
    }

    if (!ctx.globals.quiet) {
        for (const std::string& w : r->warnings) std::cerr << "Warning: " << visible(w) << '\n';
    }
    out.success("Initialized SMALL v1.0.0 in " + r->small_dir);
    if (!r->snapshot_dir.empty()) out.info("The replaced artifacts were copied to " + r->snapshot_dir);
    out.info("");
    out.info("Written:");
    for (const std::string& name : r->written) out.info("  .small/" + name);
    if (r->progress_kept) {
        out.info("Kept .small/progress.small.yml (existing entries untouched); appended the meta/init entry");
    }
    out.info("Run replay id " + r->replay_id + " (pinned in .small/workspace.small.yml)");
    if (const std::string line = agents_line(r->agents); !line.empty()) out.info(line);
    if (const std::string line = gitignore_line(r->gitignore); !line.empty()) out.info(line);
    out.info("");
    out.info("Human authoring required:");
    out.info("  .small/intent.small.yml \xE2\x80\x94 declare what the project is for and its scope");
    out.info("  .small/constraints.small.yml \xE2\x80\x94 declare the rules the work must respect");
    out.info("");
    out.info("Agent next steps:");
    out.info("  small validate \xE2\x80\x94 check the artifacts against the schemas");
    out.info("  small check --strict \xE2\x80\x94 run every gate, strict rules included");
    out.info("  small plan --add \"<title>\" \xE2\x80\x94 add the first real task");
    return kExitOk;
}

}  // namespace

void register_init(CLI::App& app, Context& ctx) {
    auto flags = std::make_shared<InitFlags>();
    CLI::App* cmd = add_command(app, "init");
    complete_as(
        cmd->add_option("--dir", flags->dir,
                        "Workspace root to initialize (created if missing; a path ending in .small means its parent); "
                        "default: the current directory. Inside another workspace's subtree init warns and "
                        "names it"),
        ValueKind::Directory);
    cmd->add_option("--intent", flags->intent, "Seed text for intent.small.yml's intent field");
    cmd->add_flag("--force", flags->force,
                  "Re-initialize an existing .small/: the old intent, constraints, plan and handoff are copied to "
                  ".small-runs/ first, then rewritten from templates; the progress log is kept and appended to "
                  "(to start a new run on the same intent, use small reset)");
    cmd->add_flag("--no-agents", flags->no_agents, "Do not create or change AGENTS.md");
    cmd->add_flag("--overwrite-agents", flags->overwrite_agents, "Replace an existing AGENTS.md with the harness block");
    complete_as(cmd->add_option("--agents-mode", flags->agents_mode,
                                "Add the harness block to an existing AGENTS.md: append or prepend"),
                kAgentsModeNames);
    cmd->footer("Exit codes: 0 initialized, 1 refused (.small/ exists, AGENTS.md exists, malformed markers, "
                "unappendable progress log), 2 usage or system error, 3 workspace busy.");
    cmd->callback([&ctx, flags] { ctx.exit_code = run_init(ctx, *flags); });
}

}  // namespace small::cli
