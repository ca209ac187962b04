// The plan's dependency graph (model/plan_graph) as text other tools draw:
// Graphviz DOT and Mermaid. Colours say the status; a thick blue border marks
// a ready task, red the critical path, dashed purple a cycle, a dashed note
// a dependency the plan does not have. Deterministic: the same graph, the
// same bytes.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "small/model/plan_graph.hpp"

namespace small {

// `digraph plan { ... }`, left to right, dependencies before dependents.
std::string graph_dot(const PlanGraph& graph);

// The graph as data: tasks (id, title, status, ready, critical, cycle,
// claim), edges (from, to, missing, critical, cycle), critical_path,
// cycles, missing.
nlohmann::json graph_json(const PlanGraph& graph);

// `flowchart LR`, for Markdown renderers (GitHub, GitLab) and mermaid.live.
std::string graph_mermaid(const PlanGraph& graph);

// The fill and text colours of a status on every view (DOT, Mermaid, the
// board, the report): "#rrggbb"; a word outside the five gets grey.
struct StatusColors {
    const char* fill;
    const char* border;
};
StatusColors status_colors(const WrittenStatus& status);

}  // namespace small
