#include "cli.hpp"

namespace small::cli {

void register_validate(CLI::App& app, Context& ctx) {
    auto flags = std::make_shared<VerdictFlags>();
    CLI::App* cmd = add_command(app, "validate");
    add_dir_option(cmd, flags->dir);
    add_no_cache_flag(cmd, *flags);
    add_format_option(cmd, flags->format);
    cmd->add_option("--spec-dir", flags->spec_dir,
                    "Directory with the schemas (DIR/small/v1.0.0/schemas or DIR itself); default $SMALL_SPEC_DIR, "
                    "else the built-in schemas");
    cmd->callback([&ctx, flags] { ctx.exit_code = run_verdict_command(ctx, VerdictKind::Validate, *flags); });
}

}  // namespace small::cli
