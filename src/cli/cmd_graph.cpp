// `small graph`: flags and rendering; the work is in small/ops/inspect/graph.hpp,
// the drawing in small/view/graph_render.hpp and small/view/graphviz.hpp.
#include <iostream>

#include "cli.hpp"
#include "small/base/text.hpp"
#include "small/ops/inspect/graph.hpp"
#include "small/view/graph_render.hpp"
#include "small/view/graphviz.hpp"

namespace small::cli {

namespace {

const std::vector<std::string> kGraphFormats = {"dot", "mermaid", "svg"};

struct GraphFlags {
    WorkspaceFlags where;
    std::string format = "dot";
};

int run_graph(Context& ctx, GraphFlags& f) {
    const Output out(ctx.globals, "graph");
    const Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    Result<PlanGraph> graph = graph_command(ctx.fs, target->ws);
    if (!graph) return report_error(out, graph.error());
    if (out.json()) {
        out.json_document(graph_json(*graph));
        return kExitOk;
    }
    if (f.format == "svg") {
        Result<std::string> svg = graphviz_svg(graph_dot(*graph));
        if (!svg) return report_error(out, svg.error());
        std::cout << *svg;
    } else {
        std::cout << visible_lines(f.format == "mermaid" ? graph_mermaid(*graph) : graph_dot(*graph));
    }
    return kExitOk;
}

}  // namespace

void register_graph(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<GraphFlags>(app, ctx, "graph", run_graph);
    cmd->add_option("--format", f->format, "dot (default; Graphviz), mermaid (Markdown) or svg (laid out by Graphviz's libgvc)")
        ->check(one_of(kGraphFormats));
    complete_as(cmd->get_option("--format"), kGraphFormats);
    add_workspace_flags(cmd, f->where, "Workspace scope: root (default), examples or any");
    cmd->footer("Fill: the status as the work shows it. Border: blue a ready task, red the critical path (the longest "
                "chain of dependencies still to do), dashed purple a dependency cycle (lint refuses it; it is still "
                "drawn). A dashed note is a dependency the plan does not have. --json gives the graph as data. svg "
                "needs Debian's libgvc6 (loaded only by this format).");
}

}  // namespace small::cli
