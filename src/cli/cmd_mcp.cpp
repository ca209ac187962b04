// `small mcp`: the MCP server on stdin/stdout (small/mcp/server.hpp does the
// protocol). Only the wiring is here: file descriptors, SIGPIPE, stderr.
#include <csignal>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/mcp/server.hpp"
#include "small/base/version.hpp"

namespace small::cli {

namespace {

int run_mcp(Context& ctx, const WorkspaceFlags& flags) {
    const Output out(ctx.globals, "mcp");
    Result<Target> target = resolve_target(ctx, flags);
    if (!target) return report_error(out, target.error());
    // A client that goes away must end us through write errors, not a signal.
    std::signal(SIGPIPE, SIG_IGN);
    mcp::Server server(ctx.fs, {target->ws, target->scope, std::string(tool_version())});
    const mcp::Transport io{read_stdin_bytes, write_stdout_bytes, [](std::string_view line) { std::cerr << line << '\n'; }};
    std::cerr << "small mcp: serving " << target->ws.root << " on stdio\n";
    mcp::serve(server, io);
    return kExitOk;
}

}  // namespace

void register_mcp(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<WorkspaceFlags>(app, ctx, "mcp", run_mcp);
    add_workspace_flags(cmd, *f, "Workspace scope of every tool: root (default), examples or any");
    cmd->footer("Tools: resume, status, plan, progress_add, checkpoint, handoff, check, init.\n"
                "Resources: small://intent, small://constraints, small://plan, small://progress, small://handoff.\n"
                "Ends with exit 0 when the client closes stdin or goes away.");
}

}  // namespace small::cli
