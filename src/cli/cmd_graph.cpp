// `small graph`: flags and rendering; the work is in small/ops/inspect/graph.hpp,
// the focus in small/view/graph_focus.hpp, the drawing in
// small/view/graph_render.hpp and small/view/graphviz.hpp.
#include <iostream>

#include "cli.hpp"
#include "small/base/text.hpp"
#include "small/ops/inspect/graph.hpp"
#include "small/view/graph_render.hpp"
#include "small/view/html_report.hpp"

namespace small::cli {

namespace {

const std::vector<std::string> kGraphFormats = {"dot", "mermaid", "svg"};

struct GraphFlags {
    WorkspaceFlags where;
    std::string format = "dot";
    std::string out;
    FocusFlags focus;
};

Result<std::string> drawn(const FocusedGraph& shown, const std::string& format, const std::string& caption) {
    if (format == "svg") return graph_svg(shown.graph, caption);
    if (format == "mermaid") return visible_lines(graph_mermaid(shown.graph, caption));
    GraphDrawing drawing;
    drawing.caption = caption;
    return visible_lines(graph_dot(shown.graph, drawing));
}

int run_graph(Context& ctx, GraphFlags& f) {
    const Output out(ctx.globals, "graph");
    if (out.json() && !f.out.empty()) {
        return report_error(out, Error::usage("--json prints the graph as data on stdout: drop -o, or drop --json"));
    }
    const Result<GraphFocus> focus = focus_of(f.focus);
    if (!focus) return report_error(out, focus.error());
    const Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    Result<PlanGraph> graph = graph_command(ctx.fs, target->ws);
    if (!graph) return report_error(out, graph.error());
    Result<FocusedGraph> shown = focus_graph(*graph, *focus);
    if (!shown) return report_error(out, shown.error());
    const std::string note = focus_note(*shown, *focus);
    if (out.json()) {
        nlohmann::json doc = graph_json(shown->graph);
        add_focus_json(doc, *shown, *focus);
        out.json_document(std::move(doc));
        return kExitOk;
    }
    Result<std::string> text = drawn(*shown, f.format, note);
    if (!text) return report_error(out, text.error());
    const std::string cut = left_out_sentence(*shown);
    if (f.out.empty()) {
        std::cout << *text;
        if (!cut.empty()) out.problem("note: " + cut);
        return kExitOk;
    }
    const std::string path = absolute_path(current_directory(), f.out);
    if (Status written = write_view_file(ctx.fs, path, *text, "graph"); !written) return report_error(out, written.error());
    out.success("wrote " + path + " (" + std::to_string(text->size()) + " bytes, " +
                std::to_string(shown->graph.tasks.size()) + " tasks)");
    if (!note.empty()) out.info("note: " + note);
    return kExitOk;
}

}  // namespace

void register_graph(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<GraphFlags>(app, ctx, "graph", run_graph);
    cmd->add_option("--format", f->format, "dot (default; Graphviz), mermaid (Markdown) or svg (laid out by Graphviz's libgvc)")
        ->check(one_of(kGraphFormats));
    complete_as(cmd->get_option("--format"), kGraphFormats);
    complete_as(cmd->add_option("-o,--out", f->out, "The file to write, atomically (default: stdout)"), ValueKind::File);
    add_focus_flags(cmd, f->focus, "At most N tasks, the open ones first (default 0: all)");
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default), examples or any");
    cmd->footer("Fill: the status as the work shows it. Border: blue a ready task, red the critical path (the longest "
                "chain of dependencies still to do), dashed purple a dependency cycle (lint refuses it; it is still "
                "drawn). A dashed note is a dependency the plan does not have. A plan too wide for one band is drawn in "
                "rows read like text, at most 4,000 px wide. --open, --task/--depth and --limit choose the tasks; what "
                "they leave out is said under the drawing and, for --limit, on stderr. --json gives the graph as data. "
                "svg needs Debian's libgvc6 (loaded only by this format).");
}

}  // namespace small::cli
