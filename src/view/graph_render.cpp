#include "small/view/graph_render.hpp"

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <vector>

#include "small/base/text.hpp"
#include "small/view/graph_layout.hpp"
#include "small/view/graphviz.hpp"

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

constexpr std::size_t kLabelChars = 32;  // a label line's characters: bounds a node's width
constexpr std::size_t kTitleLines = 4;

// `text` wrapped for a label, cut after `max_lines` lines ("…"); `cut` says so.
std::vector<std::string> label_lines(std::string_view text, std::size_t max_lines, bool& cut) {
    std::vector<std::string> lines = wrap_words(visible(text), kLabelChars);
    cut = lines.size() > max_lines;
    if (cut) {
        lines.resize(max_lines);
        lines.back() = excerpt(lines.back(), kLabelChars - 1);
        if (!lines.back().ends_with("\u2026")) lines.back() += "\u2026";
    }
    return lines;
}

// A node's label lines, and whether its title was cut.
struct Label {
    std::vector<std::string> lines;
    bool title_cut = false;
};

Label label_of(const GraphTask& t, const std::vector<std::string>& not_drawn = {}) {
    Label label;
    bool cut = false;
    for (std::string& line : wrap_words(t.id, kLabelChars)) label.lines.push_back(std::move(line));
    if (!t.title.empty() && t.title != t.id) {
        for (std::string& line : label_lines(t.title, kTitleLines, label.title_cut)) label.lines.push_back(std::move(line));
    }
    label.lines.push_back("[" + t.status.word() + (t.ready ? ", ready" : "") + "]");
    if (!t.claim.empty()) {
        for (std::string& line : label_lines("claimed: " + t.claim, 2, cut)) label.lines.push_back(std::move(line));
    }
    if (!not_drawn.empty()) {
        std::string waits = "also waits on:";
        for (std::size_t i = 0; i < not_drawn.size(); ++i) waits += (i ? ", " : " ") + not_drawn[i];
        for (std::string& line : wrap_words(visible(waits), kLabelChars)) label.lines.push_back(std::move(line));
    }
    return label;
}

std::string joined_lines(const std::vector<std::string>& lines) {
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
    return out;
}

// What a task's border says, strongest first: a cycle, the critical path, ready.
const char* border_of(const GraphTask& t, const StatusColors& colors) {
    if (t.in_cycle) return kCycleColor;
    if (t.critical) return kCriticalColor;
    if (t.ready) return kReadyColor;
    return colors.border;
}

constexpr std::size_t kPointsPerRow = 30;  // trunk points a row takes (view/graph_layout)

// A node's size as Graphviz sizes it (Helvetica 11 pt), over-estimated a little.
double width_of(const std::vector<std::string>& lines) {
    std::size_t chars = 0;
    for (const std::string& line : lines) {
        chars = std::max<std::size_t>(chars, std::count_if(line.begin(), line.end(), [](char c) {
                                          return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
                                      }));
    }
    return std::max(54.0, 6.5 * static_cast<double>(chars) + 18);
}
double height_of(const std::vector<std::string>& lines) { return std::max(36.0, 13.5 * static_cast<double>(lines.size()) + 10); }

struct DotNode {
    std::string name;                  // the task id, or the dependency the plan does not have
    const GraphTask* task = nullptr;   // nullptr: not in the plan
    Label label;
};

struct DotNodes {
    std::vector<DotNode> list;  // the tasks (plan order), then the dependencies the plan does not have
    std::unordered_map<std::string, std::size_t> index;
};

DotNodes dot_nodes(const PlanGraph& graph) {
    DotNodes nodes;
    for (const GraphTask& t : graph.tasks) {
        if (nodes.index.emplace(t.id, nodes.list.size()).second) nodes.list.push_back({t.id, &t, label_of(t)});
    }
    for (const std::string& id : graph.missing) {
        if (!nodes.index.emplace(id, nodes.list.size()).second) continue;
        Label label;
        label.lines = wrap_words(visible(id), kLabelChars);
        label.lines.emplace_back("(not in the plan)");
        nodes.list.push_back({id, nullptr, std::move(label)});
    }
    return nodes;
}

// The layout's edges, one per graph edge whose ends are both drawn; `of`: each one's graph edge.
std::vector<LayoutEdge> layout_edges(const PlanGraph& graph, const DotNodes& nodes, std::vector<std::size_t>* of = nullptr) {
    std::vector<LayoutEdge> edges;
    for (std::size_t i = 0; i < graph.edges.size(); ++i) {
        const GraphEdge& e = graph.edges[i];
        const auto from = nodes.index.find(e.from), to = nodes.index.find(e.to);
        if (from == nodes.index.end() || to == nodes.index.end()) continue;
        edges.push_back({from->second, to->second, e.in_cycle || e.critical || e.missing});
        if (of) of->push_back(i);
    }
    return edges;
}

std::string node_statement(const DotNode& n) {
    if (!n.task) {
        return "  \"" + dot_text(n.name) + "\" [label=\"" + dot_text(joined_lines(n.label.lines)) +
               "\", shape=note, style=dashed, color=\"" + kMissingColor + "\", fontcolor=\"" + kMissingColor + "\"];\n";
    }
    const GraphTask& t = *n.task;
    const StatusColors colors = status_colors(t.status);
    std::string out = "  \"" + dot_text(t.id) + "\" [label=\"" + dot_text(joined_lines(n.label.lines)) +
                      "\", fillcolor=\"" + colors.fill + "\", color=\"" + border_of(t, colors) + "\"";
    if (t.in_cycle || t.critical || t.ready) out += ", penwidth=2.5";
    if (t.in_cycle) out += ", style=\"rounded,filled,dashed\"";
    if (t.status.is(TaskStatus::Cancelled)) out += ", fontcolor=\"#9ca3af\"";
    if (n.label.title_cut) out += ", tooltip=\"" + dot_text(visible(t.title)) + "\"";
    return out + "];\n";
}

// An edge's colour and dash: a cycle, the critical path, a dependency the plan does not have.
std::string edge_style(const GraphEdge& e) {
    if (e.in_cycle) return std::string("color=\"") + kCycleColor + "\", style=dashed, penwidth=2";
    if (e.critical) return std::string("color=\"") + kCriticalColor + "\", penwidth=2.5";
    if (e.missing) return "style=dashed";
    return "";
}

std::string dot_header(const char* rankdir) {
    return std::string(
               "// small graph: the plan's dependencies. Fill: status; border: blue ready, red critical path,\n"
               "// purple dashed a cycle. Render: dot -Tsvg plan.dot > plan.svg\n"
               "digraph plan {\n  rankdir=") +
           rankdir +
           ";\n"
           "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];\n"
           "  edge [color=\"#9ca3af\", arrowsize=0.7];\n";
}

// The caption under the drawing, in lines short enough not to widen it.
std::string caption_statement(const std::string& caption) {
    if (caption.empty()) return {};
    std::string text;
    for (const std::string& line : wrap_words(one_line(caption, caption.size() + 3), 100)) text += dot_text(line) + "\\l";
    return "  label=\"" + text + "\";\n  labelloc=b;\n  labeljust=l;\n"
           "  fontname=\"Helvetica\";\n  fontsize=12;\n";
}

// One left-to-right band: the drawing of a plan that fits.
std::string band_dot(const PlanGraph& graph, const DotNodes& nodes, const std::string& caption) {
    std::string out = dot_header("LR");
    for (const DotNode& n : nodes.list) out += node_statement(n);
    for (const GraphEdge& e : graph.edges) {
        if (!nodes.index.count(e.from) || !nodes.index.count(e.to)) continue;
        const std::string style = edge_style(e);
        out += "  \"" + dot_text(e.from) + "\" -> \"" + dot_text(e.to) + "\"" + (style.empty() ? "" : " [" + style + "]") + ";\n";
    }
    return out + caption_statement(caption) + "}\n";
}

// A segment of an arrow in the rows layout: its arrowhead where the dependent
// is, no pull on the rows' places when it joins two rows.
std::string segment_statement(const LayoutSegment& s, const std::vector<std::string>& names, const GraphEdge& e,
                              std::size_t nodes) {
    std::vector<std::string> attrs;
    if (s.arrow_at_tail) attrs.emplace_back("dir=back");
    else if (!s.arrow_at_head) attrs.emplace_back("dir=none");
    if (s.across && (s.tail < nodes || s.head < nodes)) attrs.emplace_back("weight=0");
    if (!s.shared && !edge_style(e).empty()) attrs.push_back(edge_style(e));
    std::string out = "  \"" + dot_text(names[s.tail]) + "\" -> \"" + dot_text(names[s.head]) + "\"";
    for (std::size_t i = 0; i < attrs.size(); ++i) out += (i ? ", " : " [") + attrs[i];
    return out + (attrs.empty() ? ";\n" : "];\n");
}

// Rows read like text: each row a rank in a fixed order, aligned on the left.
std::string rows_dot(const PlanGraph& graph, DotNodes nodes, const std::vector<LayoutEdge>& edges,
                     const std::vector<std::size_t>& edge_of, const RowsLayout& layout, const std::string& caption) {
    std::vector<std::vector<std::string>> not_drawn(nodes.list.size());
    for (const std::size_t i : layout.hidden) not_drawn[edges[i].to].push_back(nodes.list[edges[i].from].name);
    std::string out = dot_header("TB") + "  nodesep=0.25;\n  ranksep=0.4;\n";
    std::vector<std::string> names;
    for (std::size_t v = 0; v < nodes.list.size(); ++v) {
        DotNode& n = nodes.list[v];
        if (n.task && !not_drawn[v].empty()) n.label = label_of(*n.task, not_drawn[v]);
        out += node_statement(n);
        names.push_back(n.name);
    }
    for (std::size_t p = 0; p < layout.points; ++p) {
        std::string name = "~" + std::to_string(p);
        while (nodes.index.count(name)) name += "~";
        out += "  \"" + dot_text(name) + "\" [shape=point, width=0.05, height=0.05, color=\"#9ca3af\", label=\"\"];\n";
        names.push_back(std::move(name));
    }
    for (std::size_t r = 0; r < layout.rows.size(); ++r) {
        const std::vector<std::size_t>& row = layout.rows[r];
        out += "  { rank=same;";
        for (const std::size_t item : row) out += " \"" + dot_text(names[item]) + "\";";
        out += " }\n";
        for (std::size_t i = 1; i < row.size(); ++i) {
            out += "  \"" + dot_text(names[row[i - 1]]) + "\" -> \"" + dot_text(names[row[i]]) + "\" [style=invis];\n";
        }
        if (r + 1 < layout.rows.size()) {
            out += "  \"" + dot_text(names[row.front()]) + "\" -> \"" + dot_text(names[layout.rows[r + 1].front()]) +
                   "\" [style=invis, weight=100];\n";
        }
    }
    for (const LayoutSegment& s : layout.segments) {
        out += segment_statement(s, names, graph.edges[edge_of[s.edge]], nodes.list.size());
    }
    return out + caption_statement(caption) + "}\n";
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
                         {"critical", t.critical}, {"in_cycle", t.in_cycle}, {"claim", t.claim}, {"mine", t.mine},
                         {"blocked_reason", t.blocked_reason}});
    }
    nlohmann::json edges = nlohmann::json::array();
    for (const GraphEdge& e : graph.edges) {
        edges.push_back({{"from", e.from}, {"to", e.to}, {"missing", e.missing}, {"critical", e.critical},
                         {"in_cycle", e.in_cycle}});
    }
    return {{"tasks", tasks}, {"edges", edges}, {"critical_path", graph.critical_path}, {"cycles", graph.cycles},
            {"missing", graph.missing}};
}

std::string graph_dot(const PlanGraph& graph, const GraphDrawing& drawing) {
    const DotNodes nodes = dot_nodes(graph);
    std::vector<std::size_t> edge_of;
    const std::vector<LayoutEdge> edges = layout_edges(graph, nodes, &edge_of);
    std::vector<double> widths, heights;
    for (const DotNode& n : nodes.list) {
        widths.push_back(width_of(n.label.lines));
        heights.push_back(height_of(n.label.lines));
    }
    const BandSize band = band_size(widths, heights, edges);
    const double bound = kMaxDrawingWidthPx * 3 / 4 - 200;  // points, with room for the margins and arrows
    if (drawing.shape == GraphShape::Auto && band.width <= bound && band.height <= bound) {
        return band_dot(graph, nodes, drawing.caption);
    }
    const RowsLayout layout = rows_layout(widths, edges, drawing.row_width, kPointsPerRow, drawing.trunks);
    return rows_dot(graph, nodes, edges, edge_of, layout, drawing.caption);
}

std::string graph_mermaid(const PlanGraph& graph, const std::string& caption) {
    std::string out = "flowchart LR\n";
    if (!caption.empty()) out += "  %% " + one_line(caption, caption.size() + 3) + "\n";
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

namespace small {

double svg_width_px(std::string_view svg) {
    constexpr std::string_view kWidth = "<svg width=\"";
    const std::size_t at = svg.find(kWidth);
    if (at == std::string_view::npos) return 0;
    const char* first = svg.data() + at + kWidth.size();
    double width = 0;
    const auto [end, error] = std::from_chars(first, svg.data() + svg.size(), width);
    if (error != std::errc()) return 0;
    return std::string_view(end, 2) == "pt" ? width * 4 / 3 : width;
}

Result<std::string> graph_svg(const PlanGraph& graph, const std::string& caption) {
    GraphDrawing drawing;
    drawing.caption = caption;
    for (int attempt = 0;; ++attempt) {
        Result<std::string> svg = graphviz_svg(graph_dot(graph, drawing));
        if (!svg || svg_width_px(*svg) <= kMaxDrawingWidthPx || attempt == 2) return svg;
        if (drawing.shape == GraphShape::Auto) {
            drawing.shape = GraphShape::Rows;  // the band came out wider than its estimate
        } else {
            drawing.row_width *= 0.6;  // labels wider than estimated, or the trunks' arrows: narrower, none
            drawing.trunks = false;
        }
    }
}

}  // namespace small
