#include "cli.hpp"

namespace small::cli {

void register_lint(CLI::App& app, Context& ctx) {
    auto flags = std::make_shared<VerdictFlags>();
    CLI::App* cmd = add_command(app, "lint");
    cmd->footer("Warnings (e.g. a plan status outside the five, a misspelt task key) do not change the exit code.");
    add_dir_option(cmd, flags->dir);
    add_no_cache_flag(cmd, *flags);
    add_format_option(cmd, flags->format);
    cmd->add_flag("--strict", flags->strict, "Strict mode: secrets, insecure links, S1-S3 and the .small/ layout (S4)");
    cmd->add_flag("--format-strict", flags->format_strict, "Treat an unquoted small_version as an error");
    cmd->add_option("--spec-dir", flags->spec_dir, "Accepted for compatibility; lint does not use schemas");
    cmd->callback([&ctx, flags] { ctx.exit_code = run_verdict_command(ctx, VerdictKind::Lint, *flags); });
}

}  // namespace small::cli
