// `small schema print|export`: flags and rendering; the work is in small/ops/inspect/schema.hpp.
#include <iostream>

#include "cli.hpp"
#include "small/ops/inspect/schema.hpp"

namespace small::cli {

namespace {

struct PrintFlags {
    std::string name;
};

struct ExportFlags {
    std::string dir;
    bool force = false;
};

int run_schema_print(Context& ctx, const PrintFlags& f) {
    const Output out(ctx.globals, "schema print");
    Result<SchemaText> r = schema_print_command(f.name);
    if (!r) return report_error(out, r.error());
    if (out.json()) {
        out.json_document({{"name", r->name}, {"file", r->file}, {"schema", nlohmann::json::parse(r->json)}});
        return kExitOk;
    }
    std::cout << r->json;  // the result itself: even with --quiet
    if (!r->json.ends_with('\n')) std::cout << '\n';
    return kExitOk;
}

int run_schema_export(Context& ctx, const ExportFlags& f) {
    const Output out(ctx.globals, "schema export");
    Result<SchemaExportResult> r = schema_export_command(ctx.fs, f.dir, current_directory(), f.force);
    if (!r) return report_error(out, r.error());
    if (out.json()) {
        nlohmann::json files = nlohmann::json::array();
        for (const SchemaExportFile& file : r->files) files.push_back({{"path", file.path}, {"change", file.change}});
        out.json_document({{"dir", r->dir}, {"files", files}});
        return kExitOk;
    }
    for (const SchemaExportFile& file : r->files) out.info(file.change + "  " + file.path);
    return kExitOk;
}

}  // namespace

void register_schema(CLI::App& app, Context& ctx) {
    CLI::App* group = add_command(app, "schema");
    group->require_subcommand(0, 1);
    group->callback([&ctx, group] {
        if (group->get_subcommands().empty()) ctx.exit_code = run_group_without_subcommand(ctx, *group);
    });
    group->footer("Editors: `small hooks install vscode` maps them onto .small/*.small.yml for the YAML language "
                  "server; docs/editors.md has Neovim and JetBrains.");

    const auto [print, p] = add_command<PrintFlags>(*group, ctx, "print", run_schema_print,
                                                    "Print one schema (JSON, as built in)");
    complete_as(print->add_option("name", p->name, "intent, constraints, plan, progress or handoff"), schema_names())
        ->required();

    const auto [exp, e] = add_command<ExportFlags>(*group, ctx, "export", run_schema_export,
                                                   "Write the editor schemas into DIR as <name>.schema.json: the five "
                                                   "artifacts (with descriptions and the status enum) and workspace");
    complete_as(exp->add_option("dir", e->dir, "Folder to write into (created when missing)"), ValueKind::Directory)
        ->required();
    exp->add_flag("--force", e->force, "Replace files there that are not small's schemas");
    exp->footer("A file that is already there is replaced only when it is one of small's schemas (same \"$id\"); "
                "identical files are left untouched.");
}

}  // namespace small::cli
