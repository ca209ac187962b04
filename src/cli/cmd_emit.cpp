// `small emit`: the workspace's state as one JSON document (always JSON).
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/ops/inspect/emit.hpp"
#include "small/base/version.hpp"
#include "small/report/emit.hpp"

namespace small::cli {

namespace {

// --recent/--tasks: 0 means all; a negative number would wrap to "all" unnoticed.
const CLI::Validator kCountValidator(
    [](std::string& value) { return value.rfind('-', 0) == 0 ? "must be 0 (all) or a positive number" : ""; }, "N");

struct EmitFlags {
    WorkspaceFlags where;
    std::size_t recent = 5;
    std::size_t tasks = 3;
    std::string include;
    bool check = false;
};

// paths.root: --dir as given, made absolute (the reference's value); else
// the current directory (the workspace itself may lie above it, D5).
std::string given_root(const std::optional<std::string>& dir) {
    const std::string cwd = current_directory();
    if (!dir || dir->empty()) return cwd;
    return absolute_path(cwd, *dir);
}

int run_emit(Context& ctx, const EmitFlags& f) {
    Globals globals = ctx.globals;
    globals.json = true;  // emit has no text form
    const Output out(globals, "emit");
    Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    Result<std::set<EmitSection>> sections = parse_emit_sections(f.include);
    if (!sections) return report_error(out, sections.error());
    EmitOptions o;
    o.recent = f.recent;
    o.tasks = f.tasks;
    o.include = *sections;
    o.check = f.check;
    o.scope = target->scope;
    o.given_root = given_root(f.where.dir);
    Result<EmitResult> r = emit_command(ctx.fs, target->ws, o);
    if (!r) return report_error(out, r.error());
    const int code = f.check ? r->check_exit_code : kExitOk;
    std::cout << emit_document_text(*r, "v" + std::string(tool_version()), code);
    return code;
}

}  // namespace

void register_emit(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<EmitFlags>();
    CLI::App* cmd = add_command(app, "emit");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default), examples or any");
    cmd->add_option("--recent", f->recent, "Number of recent progress entries (0 = all)")
        ->check(kCountValidator)
        ->capture_default_str();
    cmd->add_option("--tasks", f->tasks, "Max next actionable tasks (0 = all)")
        ->check(kCountValidator)
        ->capture_default_str();
    cmd->add_option("--include", f->include,
                    "Sections, comma-separated: paths, status, progress, intent, constraints, plan, enforcement "
                    "(default: paths, status, progress, intent, constraints)");
    cmd->add_flag("--check", f->check, "Also run check (non-strict) into `enforcement` and exit with its code");
    cmd->callback([&ctx, f] { ctx.exit_code = run_emit(ctx, *f); });
}

}  // namespace small::cli
