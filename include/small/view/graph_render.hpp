// The plan's dependency graph (model/plan_graph) as text other tools draw:
// Graphviz DOT and Mermaid. Colours say the status; a thick blue border marks
// a ready task, red the critical path, dashed purple a cycle, a dashed note
// a dependency the plan does not have. Deterministic: the same graph, the
// same bytes.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "small/base/result.hpp"
#include "small/model/plan_graph.hpp"

namespace small {

// The widest drawing `graph --format svg` and the report make: a browser
// shows it with little sideways scrolling.
inline constexpr double kMaxDrawingWidthPx = 4000;
inline constexpr double kRowWidthPt = 1800;  // tasks per row in the rows layout (view/graph_layout)

enum class GraphShape {
    Auto,  // one left-to-right band when it fits 4,000 px square, else rows
    Rows,  // rows read like text (view/graph_layout)
};

struct GraphDrawing {
    std::string caption;  // a line under the drawing: what it shows, what was left out ("" none)
    GraphShape shape = GraphShape::Auto;
    double row_width = kRowWidthPt;  // points of tasks per row
    bool trunks = true;              // arrows across rows on trunks (else named by the dependent)
};

// `digraph plan { ... }`: dependencies before dependents, left to right in
// one band, or in rows (a large plan). Labels wrap at 32 characters; a
// title is cut after 4 lines (the node's tooltip has it whole).
std::string graph_dot(const PlanGraph& graph, const GraphDrawing& drawing = {});

// graph_dot laid out and rendered by Graphviz (view/graphviz), at most
// kMaxDrawingWidthPx wide: a drawing that comes out wider is laid out again
// in narrower rows. Errors: those of graphviz_svg.
Result<std::string> graph_svg(const PlanGraph& graph, const std::string& caption = "");
// The width in CSS pixels of an SVG Graphviz wrote (its width in points
// times 4/3), 0 when it names none.
double svg_width_px(std::string_view svg);

// The graph as data: tasks (id, title, status, ready, critical, cycle,
// claim, mine, blocked_reason), edges (from, to, missing, critical, cycle), critical_path,
// cycles, missing.
nlohmann::json graph_json(const PlanGraph& graph);

// `flowchart LR`, for Markdown renderers (GitHub, GitLab) and mermaid.live;
// `caption` becomes a %% comment.
std::string graph_mermaid(const PlanGraph& graph, const std::string& caption = "");

// The fill and text colours of a status on every view (DOT, Mermaid, the
// board, the report): "#rrggbb"; a word outside the five gets grey.
struct StatusColors {
    const char* fill;
    const char* border;
};
StatusColors status_colors(const WrittenStatus& status);

}  // namespace small
