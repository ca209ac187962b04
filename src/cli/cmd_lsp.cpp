// `small lsp`: the Language Server on stdin/stdout (small/lsp/server.hpp does
// the protocol). Only the wiring is here: file descriptors, SIGPIPE, stderr.
#include <csignal>
#include <iostream>

#include "cli.hpp"
#include "small/base/version.hpp"
#include "small/lsp/server.hpp"

namespace small::cli {

namespace {

int run_lsp(Context& ctx, const WorkspaceFlags& flags) {
    const Output out(ctx.globals, "lsp");
    Result<Target> target = resolve_target(ctx, flags);
    if (!target) return report_error(out, target.error());
    // A client that goes away must end us through write errors, not a signal.
    std::signal(SIGPIPE, SIG_IGN);
    WorkspacePaths ws = target->ws;
    ws.display_prefix.clear();  // findings name files below the root: the server maps them to documents
    lsp::Server server(ctx.fs, {ws, target->scope, std::string(tool_version())});
    const lsp::Transport io{read_stdin_bytes, write_stdout_bytes, [](std::string_view line) { std::cerr << line << '\n'; }};
    std::cerr << "small lsp: serving " << target->ws.root << " on stdio\n";
    return lsp::serve(server, io);
}

}  // namespace

void register_lsp(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<WorkspaceFlags>(app, ctx, "lsp", run_lsp);
    add_workspace_flags(cmd, *f, "Workspace scope of the diagnostics: root (default), examples or any");
    cmd->footer("Diagnostics: check --strict's findings on the open buffers (unsaved text) and the other files,\n"
                "with quick fixes where the fix is mechanical. Hover, definition and completion of task ids and statuses.\n"
                "Ends at the client's exit (0 after shutdown, else 1) or when it closes stdin.");
}

}  // namespace small::cli
