#include "cli.hpp"

namespace small::cli {

void register_verify(CLI::App& app, Context& ctx) {
    auto flags = std::make_shared<VerdictFlags>();
    CLI::App* cmd = add_command(app, "verify");
    cmd->footer(
        "Exit codes:\n  0 - all artifacts valid\n  1 - artifacts invalid (validation or invariant failures)\n"
        "  2 - system error (missing .small/, unreadable files, bad flags)");
    add_dir_option(cmd, flags->dir);
    add_no_cache_flag(cmd, *flags);
    add_format_option(cmd, flags->format);
    cmd->add_flag("--strict", flags->strict, "Strict invariants and the .small/ layout rule (S4)");
    cmd->add_flag("--ci", flags->ci, "CI mode (minimal output)");
    cmd->add_flag("--evidence", flags->evidence,
                  "Also check progress evidence against git: commits exist and are reachable from HEAD, completed "
                  "tasks' evidence is from this run, links are well-formed (exit 2 outside a repository)");
    cmd->add_option("--workspace", flags->scope, "Workspace scope: root, examples or any")->capture_default_str();
    cmd->add_option("--spec-dir", flags->spec_dir, "Schema directory (see validate)");
    cmd->callback([&ctx, flags] { ctx.exit_code = run_verdict_command(ctx, VerdictKind::Verify, *flags); });
}

}  // namespace small::cli
