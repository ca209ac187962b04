// `small agents apply|check|print`: flags and rendering only; the work is
// done by small/ops/authoring/agents.hpp.
#include <functional>
#include <iostream>
#include <memory>
#include <vector>

#include "cli.hpp"
#include "small/base/text.hpp"
#include "small/ops/authoring/agents.hpp"
#include "small/report/authoring.hpp"
#include "small/store/workspace_lock.hpp"

namespace small::cli {

namespace {

struct TargetFlags {
    std::optional<std::string> dir;
    std::string file{kDefaultAgentsFile};
};

struct AgentsApplyFlags {
    TargetFlags target;
    std::string agents_mode;
    bool overwrite = false;
    bool force = false;
    bool dry_run = false;
    bool print = false;
};

struct CheckFlags {
    TargetFlags target;
    bool allow_missing = false;
    bool strict = false;
    std::string format = "text";
};

struct PrintFlags {
    bool with_markers = true;
    std::string format = "md";
    const CLI::Option* with_markers_option = nullptr;  // to tell an explicit --with-markers
};

// A bad value is a usage error (exit 2), not silently the default as in the reference.
const std::vector<std::string> kCheckFormats = {"text", "json"};
const std::vector<std::string> kPrintFormats = {"md", "plain"};

void add_target_options(CLI::App* cmd, TargetFlags& t) {
    cmd->add_option("--dir", t.dir, "Workspace root (or its .small/) holding the file; default: the nearest directory "
                                     "with .small/ from here up, else the current directory");
    cmd->add_option("--file", t.file, "File name or path below --dir (default: AGENTS.md; an absolute path is used as is)");
}

// ---------------------------------------------------------------- apply

std::string action_line(const AgentsApplyResult& r, const std::string& name) {
    switch (r.action) {
        case AgentsAction::Created: return "Created " + name;
        case AgentsAction::Overwrote: return "Overwrote " + name;
        case AgentsAction::Appended: return "Appended SMALL harness block to " + name;
        case AgentsAction::Prepended: return "Prepended SMALL harness block to " + name;
        case AgentsAction::Updated:
        case AgentsAction::Skipped: break;
    }
    const std::string from = r.previous_version.empty() || r.previous_version == "1.0.0"
                                 ? ""
                                 : " (v" + r.previous_version + " -> v1.0.0)";
    return "Updated SMALL harness block in " + name + from;
}

void print_apply_text(const Output& out, const AgentsApplyResult& r, const AgentsTarget& target,
                      const AgentsApplyFlags& f) {
    if (f.print) {
        std::cout << r.new_content;  // the requested output: not silenced by --quiet
    } else if (f.dry_run) {
        const std::string diff = agents_apply_diff(r, target.path);
        if (diff.empty()) out.info("No changes needed");
        else out.lines("Dry run - changes to " + target.display + ":\n" + diff.substr(0, diff.size() - 1));
    } else if (!r.written) {
        out.info(target.display + " already has the current SMALL harness block; nothing written");
    } else {
        out.success(action_line(r, target.display));
    }
}

int run_apply(Context& ctx, const AgentsApplyFlags& f) {
    const Output out(ctx.globals, "agents apply");
    Result<AgentsTarget> target = resolve_agents_target(ctx.fs, f.target.dir, f.target.file, current_directory());
    if (!target) return report_error(out, target.error());
    AgentsApplyRequest req;
    req.target = *target;
    req.agents_mode = f.agents_mode;
    req.overwrite = f.overwrite || f.force;
    req.dry_run = f.dry_run || f.print;
    req.lock_wait = default_lock_wait();
    Result<AgentsApplyResult> r = agents_apply_command(ctx.fs, req);
    if (!r) return report_error(out, r.error());
    if (out.json()) out.json_document(agents_apply_json(*r, target->path, f.dry_run || f.print, f.print));
    else print_apply_text(out, *r, *target, f);
    return kExitOk;
}

// ---------------------------------------------------------------- check

// One output line each (issue 41: a line's value cannot add lines).
void for_each_line(const std::string& text, const std::function<void(const std::string&)>& take) {
    for (std::size_t from = 0; from <= text.size();) {
        const std::size_t nl = std::min(text.find('\n', from), text.size());
        take(text.substr(from, nl - from));
        from = nl + 1;
    }
}

std::string check_text(const AgentsCheckReport& r) {
    std::string text = "File: " + r.file_path + (r.has_file ? " [exists]" : " [missing]");
    if (r.has_block) {
        text += "\nBlock: found (v" + r.block_version + ")";
        text += std::string("\nStructure: ") + (r.block_valid ? "valid" : "invalid");
        text += r.has_drift ? "\nDrift: detected (block differs from template)" : "\nDrift: none";
    } else if (r.has_file) {
        text += "\nBlock: not found";
    }
    if (!r.error.empty()) text += "\nError: " + r.error;
    if (!r.recommendation.empty()) text += "\nRecommendation: " + r.recommendation;
    return text;
}

int run_check(Context& ctx, const CheckFlags& f) {
    Globals globals = ctx.globals;
    globals.json = globals.json || f.format == "json";
    const Output out(globals, "agents check");
    Result<AgentsTarget> target = resolve_agents_target(ctx.fs, f.target.dir, f.target.file, current_directory());
    if (!target) return report_error(out, target.error());
    AgentsCheckRequest req;
    req.target = *target;
    req.allow_missing = f.allow_missing;
    req.strict = f.strict;
    Result<AgentsCheckReport> r = agents_check_command(ctx.fs, req);
    if (!r) return report_error(out, r.error());
    if (out.json()) {
        out.json_document(agents_check_json(*r), r->passed ? kExitOk : kExitInvalid);  // under --quiet too
    } else if (r->passed) {
        for_each_line(check_text(*r), [&](const std::string& line) { out.success(line); });
    } else {
        for_each_line(check_text(*r), [&](const std::string& line) { out.problem(line); });
        out.problem("Error: check failed");
    }
    return r->passed ? kExitOk : kExitInvalid;
}

// ---------------------------------------------------------------- print

int run_print(Context& ctx, const PrintFlags& f) {
    const Output out(ctx.globals, "agents print");
    Result<HarnessFormat> format = parse_harness_format(f.format);
    if (!format) return report_error(out, format.error());
    const bool markers_requested = f.with_markers_option->count() > 0 && f.with_markers;
    if (*format == HarnessFormat::Plain && markers_requested) {
        return report_error(out, Error::usage("--format plain prints no markers; drop --with-markers or use --format md"));
    }
    const bool with_markers = f.with_markers && *format == HarnessFormat::Markdown;
    const std::string text = harness_print_text(with_markers, *format);
    if (out.json()) {
        out.json_document(agents_print_json(f.format, with_markers, text));
    } else {
        std::cout << text;  // the requested output: not silenced by --quiet
    }
    return kExitOk;
}

void register_agents_apply(CLI::App* group, Context& ctx) {
    auto flags = std::make_shared<AgentsApplyFlags>();
    CLI::App* cmd = group->add_subcommand(
        "apply", "Write or update the SMALL harness block in the workspace's AGENTS.md (never inside .small/)");
    add_target_options(cmd, flags->target);
    complete_as(cmd->add_option("--agents-mode", flags->agents_mode,
                                "Add the block to a file that has none: append or prepend"),
                kAgentsModeNames);
    cmd->add_flag("--overwrite-agents", flags->overwrite, "Replace the whole file with the harness block");
    cmd->add_flag("-f,--force", flags->force, "Same as --overwrite-agents");
    cmd->add_flag("--dry-run", flags->dry_run, "Show what would change; write nothing");
    cmd->add_flag("--print", flags->print, "Print the resulting file to stdout; write nothing (implies --dry-run)");
    cmd->footer("An existing block is replaced in place without flags. Exit codes: 0 written or nothing to do, "
                "1 refused (no block and no flag, malformed markers, symbolic link), 2 usage or system error, "
                "3 workspace busy (the file sits next to a .small/ whose lock another command holds).");
    cmd->callback([&ctx, flags] { ctx.exit_code = run_apply(ctx, *flags); });
}

void register_agents_check(CLI::App* group, Context& ctx) {
    auto flags = std::make_shared<CheckFlags>();
    CLI::App* cmd = group->add_subcommand("check", "Check the SMALL harness block in AGENTS.md (read-only)");
    add_target_options(cmd, flags->target);
    cmd->add_flag("--allow-missing", flags->allow_missing, "A missing file passes");
    cmd->add_flag("--strict", flags->strict, "A file without a block, or a block that drifted, fails");
    cmd->add_option("--format", flags->format, "text (default) or json (the same document as --json)")
        ->check(one_of(kCheckFormats));
    complete_as(cmd->get_option("--format"), kCheckFormats);
    cmd->footer("Exit codes: 0 passed, 1 failed (missing file, malformed markers, invalid block; with --strict "
                "also no block or drift), 2 usage error or unreadable file.");
    cmd->callback([&ctx, flags] { ctx.exit_code = run_check(ctx, *flags); });
}

void register_agents_print(CLI::App* group, Context& ctx) {
    auto flags = std::make_shared<PrintFlags>();
    CLI::App* cmd = group->add_subcommand("print", "Print the canonical SMALL harness block (no file access)");
    flags->with_markers_option =
        cmd->add_flag("--with-markers", flags->with_markers, "Include the BEGIN/END markers (default true; "
                                                              "--with-markers=false for the body only)");
    cmd->add_option("--format", flags->format, "md (default) or plain (markdown removed, no markers)")
        ->check(one_of(kPrintFormats));
    complete_as(cmd->get_option("--format"), kPrintFormats);
    cmd->callback([&ctx, flags] { ctx.exit_code = run_print(ctx, *flags); });
}

}  // namespace

void register_agents(CLI::App& app, Context& ctx) {
    CLI::App* group =
        add_command(app, "agents");
    group->require_subcommand(0, 1);
    group->callback([&ctx, group] {
        if (group->get_subcommands().empty()) ctx.exit_code = run_group_without_subcommand(ctx, *group);
    });
    register_agents_apply(group, ctx);
    register_agents_check(group, ctx);
    register_agents_print(group, ctx);
}

}  // namespace small::cli
