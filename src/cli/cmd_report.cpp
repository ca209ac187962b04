// `small report --html`: flags and output; the page is built by small/view/html_report.hpp.
#include <iostream>

#include "cli.hpp"
#include "small/base/path.hpp"
#include "small/view/html_report.hpp"

namespace small::cli {

namespace {

struct ReportFlags {
    WorkspaceFlags where;
    bool html = false;
    std::string out;
    bool all = false;
};

int run_report(Context& ctx, ReportFlags& f) {
    const Output out(ctx.globals, "report");
    if (!f.html) return report_error(out, Error::usage("report writes one format, HTML: add --html (and -o FILE)"));
    if (out.json() && f.out.empty()) {
        return report_error(out, Error::usage("--json describes the page written to -o FILE: add -o FILE"));
    }
    const Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    HtmlReportOptions options;
    options.all = f.all;
    Result<HtmlReport> report = html_report(ctx.fs, target->ws, options);
    if (!report) return report_error(out, report.error());
    if (f.out.empty()) {
        std::cout << report->html;
        for (const std::string& note : report->notes) out.problem("note: " + note);
        return kExitOk;
    }
    const std::string path = absolute_path(current_directory(), f.out);
    if (Status written = write_html_report(ctx.fs, path, report->html); !written) return report_error(out, written.error());
    if (out.json()) {
        out.json_document({{"file", path}, {"bytes", report->html.size()}, {"tasks", report->tasks},
                           {"findings", report->findings}, {"entries", report->entries}, {"notes", report->notes}});
        return kExitOk;
    }
    out.success("wrote " + path + " (" + std::to_string(report->html.size() / 1024) + " KiB): open it in a browser");
    for (const std::string& note : report->notes) out.info("note: " + note);
    return kExitOk;
}

}  // namespace

void register_report(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<ReportFlags>(app, ctx, "report", run_report);
    cmd->add_flag("--html", f->html, "Write HTML (the one format)");
    complete_as(cmd->add_option("-o,--out", f->out, "The file to write (default: stdout)"), ValueKind::File);
    cmd->add_flag("--all", f->all, "Also every branch and work tree of the repository (as status --all)");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default), examples or any");
    cmd->footer("The page needs nothing else: no script, no network, no other file (it opens from file://). It shows the "
                "board, the dependency graph (drawn by Graphviz's libgvc when installed, else as DOT text), check "
                "--strict's findings, each task's newest work entries with their evidence, commits and links (from "
                "the run's newest 2,000 entries), the run snapshots and the diff between the newest two. Read-only.");
}

}  // namespace small::cli
