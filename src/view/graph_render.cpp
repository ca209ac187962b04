#include "small/view/graph_render.hpp"

#include <unordered_map>

#include "small/base/text.hpp"

namespace small {

namespace {

constexpr const char* kReadyColor = "#2563eb";
constexpr const char* kCriticalColor = "#dc2626";
constexpr const char* kCycleColor = "#a21caf";
constexpr const char* kMissingColor = "#6b7280";

// A DOT double-quoted string's contents.
std::string dot_text(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') out += "\\n";
        else if (c != '\r') out += c;
    }
    return out;
}

// A Mermaid label in double quotes: its entity codes for what would end it.
std::string mermaid_text(std::string_view text) {
    std::string out;
    for (const char c : text) {
        switch (c) {
            case '"': out += "#quot;"; break;
            case '<': out += "#lt;"; break;
            case '>': out += "#gt;"; break;
            case '#': out += "#35;"; break;
            case '\n': case '\r': out += ' '; break;
            default: out += c;
        }
    }
    return out;
}

std::string label_of(const GraphTask& t) {
    std::string label = t.id;
    if (!t.title.empty() && t.title != t.id) label += "\n" + visible(t.title);  // a line break of its own is shown
    label += "\n[" + t.status.word() + (t.ready ? ", ready" : "") + "]";
    if (!t.claim.empty()) label += "\nclaimed: " + visible(t.claim);
    return label;
}

// What a task's border says, strongest first: a cycle, the critical path, ready.
const char* border_of(const GraphTask& t, const StatusColors& colors) {
    if (t.in_cycle) return kCycleColor;
    if (t.critical) return kCriticalColor;
    if (t.ready) return kReadyColor;
    return colors.border;
}

}  // namespace

StatusColors status_colors(const WrittenStatus& status) {
    if (status.is(TaskStatus::Pending)) return {"#f3f4f6", "#9ca3af"};
    if (status.is(TaskStatus::InProgress)) return {"#dbeafe", "#3b82f6"};
    if (status.is(TaskStatus::Blocked)) return {"#fee2e2", "#ef4444"};
    if (status.is(TaskStatus::Completed)) return {"#dcfce7", "#22c55e"};
    if (status.is(TaskStatus::Cancelled)) return {"#f9fafb", "#d1d5db"};
    return {"#e5e7eb", "#6b7280"};
}

nlohmann::json graph_json(const PlanGraph& graph) {
    nlohmann::json tasks = nlohmann::json::array();
    for (const GraphTask& t : graph.tasks) {
        tasks.push_back({{"id", t.id}, {"title", t.title}, {"status", t.status.word()}, {"ready", t.ready},
                         {"critical", t.critical}, {"in_cycle", t.in_cycle}, {"claim", t.claim}, {"mine", t.mine}});
    }
    nlohmann::json edges = nlohmann::json::array();
    for (const GraphEdge& e : graph.edges) {
        edges.push_back({{"from", e.from}, {"to", e.to}, {"missing", e.missing}, {"critical", e.critical},
                         {"in_cycle", e.in_cycle}});
    }
    return {{"tasks", tasks}, {"edges", edges}, {"critical_path", graph.critical_path}, {"cycles", graph.cycles},
            {"missing", graph.missing}};
}

std::string graph_dot(const PlanGraph& graph) {
    std::string out =
        "// small graph: the plan's dependencies. Fill: status; border: blue ready, red critical path,\n"
        "// purple dashed a cycle. Render: dot -Tsvg plan.dot > plan.svg\n"
        "digraph plan {\n"
        "  rankdir=LR;\n"
        "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];\n"
        "  edge [color=\"#9ca3af\", arrowsize=0.7];\n";
    for (const GraphTask& t : graph.tasks) {
        const StatusColors colors = status_colors(t.status);
        const bool strong = t.in_cycle || t.critical || t.ready;
        out += "  \"" + dot_text(t.id) + "\" [label=\"" + dot_text(label_of(t)) + "\", fillcolor=\"" + colors.fill +
               "\", color=\"" + border_of(t, colors) + "\"";
        if (strong) out += ", penwidth=2.5";
        if (t.in_cycle) out += ", style=\"rounded,filled,dashed\"";
        if (t.status.is(TaskStatus::Cancelled)) out += ", fontcolor=\"#9ca3af\"";
        out += "];\n";
    }
    for (const std::string& id : graph.missing) {
        out += "  \"" + dot_text(id) + "\" [label=\"" + dot_text(id + "\n(not in the plan)") +
               "\", shape=note, style=dashed, color=\"" + kMissingColor + "\", fontcolor=\"" + kMissingColor + "\"];\n";
    }
    for (const GraphEdge& e : graph.edges) {
        out += "  \"" + dot_text(e.from) + "\" -> \"" + dot_text(e.to) + "\"";
        if (e.in_cycle) out += std::string(" [color=\"") + kCycleColor + "\", style=dashed, penwidth=2]";
        else if (e.critical) out += std::string(" [color=\"") + kCriticalColor + "\", penwidth=2.5]";
        else if (e.missing) out += " [style=dashed]";
        out += ";\n";
    }
    return out + "}\n";
}

std::string graph_mermaid(const PlanGraph& graph) {
    std::string out = "flowchart LR\n";
    std::unordered_map<std::string, std::string> node;  // task id -> Mermaid id (ids may hold any character)
    std::size_t next = 0;
    const auto name = [&](const std::string& id) -> const std::string& {
        auto [it, added] = node.emplace(id, "");
        if (added) it->second = "t" + std::to_string(next++);
        return it->second;
    };
    std::string classes;
    for (const GraphTask& t : graph.tasks) {
        std::string label = mermaid_text(t.id);
        if (!t.title.empty() && t.title != t.id) label += "<br/>" + mermaid_text(visible(t.title));
        label += "<br/><small>" + mermaid_text(t.status.word()) + (t.ready ? ", ready" : "") +
                 (t.claim.empty() ? "" : ", claimed: " + mermaid_text(visible(t.claim))) + "</small>";
        out += "  " + name(t.id) + "[\"" + label + "\"]\n";
        const StatusColors colors = status_colors(t.status);
        classes += "  style " + name(t.id) + " fill:" + colors.fill + ",stroke:" + border_of(t, colors) +
                   (t.in_cycle || t.critical || t.ready ? ",stroke-width:3px" : "") +
                   (t.in_cycle ? ",stroke-dasharray:5 3" : "") + "\n";
    }
    for (const std::string& id : graph.missing) {
        out += "  " + name(id) + "[/\"" + mermaid_text(id) + "<br/><small>not in the plan</small>\"/]\n";
        classes += "  style " + name(id) + " fill:#ffffff,stroke:" + kMissingColor + ",stroke-dasharray:4 3\n";
    }
    std::string links;
    for (std::size_t i = 0; i < graph.edges.size(); ++i) {
        const GraphEdge& e = graph.edges[i];
        out += "  " + name(e.from) + (e.missing || e.in_cycle ? " -.-> " : " --> ") + name(e.to) + "\n";
        if (e.in_cycle) links += "  linkStyle " + std::to_string(i) + " stroke:" + kCycleColor + ",stroke-width:2px\n";
        else if (e.critical) links += "  linkStyle " + std::to_string(i) + " stroke:" + kCriticalColor + ",stroke-width:3px\n";
    }
    return out + classes + links;
}

}  // namespace small
