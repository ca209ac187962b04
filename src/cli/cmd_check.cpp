#include "cli.hpp"

namespace small::cli {

void register_check(CLI::App& app, Context& ctx) {
    auto flags = std::make_shared<VerdictFlags>();
    CLI::App* cmd = add_command(app, "check");
    add_dir_option(cmd, flags->dir);
    add_no_cache_flag(cmd, *flags);
    add_format_option(cmd, flags->format);
    cmd->add_flag("--strict", flags->strict, "Strict mode for the lint and verify stages");
    cmd->add_flag("--format-strict", flags->format_strict, "Treat an unquoted small_version as an error");
    cmd->add_flag("--ci", flags->ci, "Minimal output: problems only, no hints, no success line");
    cmd->add_option("--workspace", flags->scope, "Workspace scope: root, examples or any")->capture_default_str();
    cmd->add_option("--spec-dir", flags->spec_dir, "Schema directory (see validate)");
    cmd->callback([&ctx, flags] { ctx.exit_code = run_verdict_command(ctx, VerdictKind::Check, *flags); });
}

}  // namespace small::cli
