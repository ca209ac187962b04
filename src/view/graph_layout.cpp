#include "small/view/graph_layout.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>

namespace small {

namespace {

constexpr double kRankGapPt = 36;  // Graphviz's ranksep (0.5 in)

struct Graph {
    std::vector<std::vector<std::size_t>> deps, dependents;  // without self-loops
};

Graph graph_of(std::size_t nodes, const std::vector<LayoutEdge>& edges) {
    Graph g{std::vector<std::vector<std::size_t>>(nodes), std::vector<std::vector<std::size_t>>(nodes)};
    for (const LayoutEdge& e : edges) {
        if (e.from == e.to || e.from >= nodes || e.to >= nodes) continue;
        g.deps[e.to].push_back(e.from);
        g.dependents[e.from].push_back(e.to);
    }
    return g;
}

// Nodes level by level; within a level, by the mean place of their
// dependencies already placed (fewer crossings), then by index.
std::vector<std::vector<std::size_t>> ordered_levels(const Graph& g, const std::vector<std::size_t>& level) {
    std::vector<std::vector<std::size_t>> by_level;
    for (std::size_t v = 0; v < level.size(); ++v) {
        if (by_level.size() <= level[v]) by_level.resize(level[v] + 1);
        by_level[level[v]].push_back(v);
    }
    std::vector<double> place(level.size(), -1);
    double next = 0;
    for (std::vector<std::size_t>& nodes : by_level) {
        std::vector<std::pair<double, std::size_t>> keyed;
        for (const std::size_t v : nodes) {
            double sum = 0, n = 0;
            for (const std::size_t d : g.deps[v]) {
                if (place[d] >= 0) sum += place[d], ++n;
            }
            keyed.emplace_back(n ? sum / n : -1, v);
        }
        std::stable_sort(keyed.begin(), keyed.end());
        nodes.clear();
        for (const auto& [key, v] : keyed) {
            nodes.push_back(v);
            place[v] = next++;
        }
    }
    return by_level;
}

// Levels packed into rows: a level joins the current row when it fits in
// what is left of it, else starts a row; a level wider than a row fills
// several.
std::vector<std::vector<std::size_t>> packed_rows(const std::vector<std::vector<std::size_t>>& levels,
                                                  const std::vector<double>& widths, double row_width) {
    std::vector<std::vector<std::size_t>> rows(1);
    double used = 0;
    for (const std::vector<std::size_t>& nodes : levels) {
        double total = 0;
        for (const std::size_t v : nodes) total += widths[v] + kNodeGapPt;
        if (!rows.back().empty() && used + total > row_width) rows.emplace_back(), used = 0;
        for (const std::size_t v : nodes) {
            if (!rows.back().empty() && used + widths[v] + kNodeGapPt > row_width) rows.emplace_back(), used = 0;
            rows.back().push_back(v);
            used += widths[v] + kNodeGapPt;
        }
    }
    if (rows.back().empty()) rows.pop_back();
    return rows;
}

// Builds the trunks and segments of a RowsLayout whose rows hold its nodes.
class Trunks {
public:
    Trunks(RowsLayout& layout, const std::vector<LayoutEdge>& edges, std::size_t points_per_row)
        : out_(layout), edges_(edges), room_(layout.rows.size(), points_per_row) {
        row_.assign(layout.nodes, 0);
        place_.assign(layout.nodes, 0);
        for (std::size_t r = 0; r < layout.rows.size(); ++r) {
            for (std::size_t i = 0; i < layout.rows[r].size(); ++i) row_[layout.rows[r][i]] = r, place_[layout.rows[r][i]] = i;
        }
    }

    void run(bool trunks) {
        std::map<std::size_t, std::vector<std::size_t>> down, up;  // long edges by upper node, by lower node
        std::vector<std::size_t> own;
        for (std::size_t i = 0; i < edges_.size(); ++i) {
            const LayoutEdge& e = edges_[i];
            if (!near(e)) {
                const bool against = row_[e.to] < row_[e.from];  // only a cycle points up
                if (!trunks) out_.hidden.push_back(i);
                else if (e.own_trunk || against) own.push_back(i);
                else down[e.from].push_back(i), up[e.to].push_back(i);
                continue;
            }
            direct(i);
        }
        for (const std::size_t i : own) own_trunk(i);
        shared_trunks(down, up);
        std::sort(out_.hidden.begin(), out_.hidden.end());
    }

private:
    bool near(const LayoutEdge& e) const {
        const std::size_t a = row_[e.from], b = row_[e.to];
        return e.from == e.to || (a > b ? a - b : b - a) <= 1;
    }

    void segment(std::size_t tail, std::size_t head, std::size_t edge, bool at_head, bool at_tail, bool shared, bool across) {
        out_.segments.push_back({tail, head, edge, at_head, at_tail, shared, across});
    }

    // An edge within a row or between neighbouring rows, tail first in reading order.
    void direct(std::size_t i) {
        const LayoutEdge& e = edges_[i];
        const bool forward = row_[e.from] < row_[e.to] || (row_[e.from] == row_[e.to] && place_[e.from] <= place_[e.to]);
        if (forward) segment(e.from, e.to, i, true, false, false, row_[e.from] != row_[e.to]);
        else segment(e.to, e.from, i, false, true, false, row_[e.from] != row_[e.to]);
    }

    std::size_t add_point(std::size_t row) {
        const std::size_t p = out_.nodes + out_.points++;
        out_.rows[row].push_back(p);
        --room_[row];
        return p;
    }

    // A trunk through rows (top, bottom) exclusive for one edge; hidden when a row is full.
    void own_trunk(std::size_t i) {
        const LayoutEdge& e = edges_[i];
        const bool forward = row_[e.from] < row_[e.to];
        const std::size_t top = forward ? e.from : e.to, bottom = forward ? e.to : e.from;
        for (std::size_t r = row_[top] + 1; r < row_[bottom]; ++r) {
            if (room_[r] == 0) {
                out_.hidden.push_back(i);
                return;
            }
        }
        std::size_t last = top;
        for (std::size_t r = row_[top] + 1; r < row_[bottom]; ++r) {
            const std::size_t p = add_point(r);
            segment(last, p, i, false, last == top && !forward, false, true);
            last = p;
        }
        segment(last, bottom, i, forward, false, false, true);
    }

    // Each long edge rides the trunk of its upper node or of its lower node,
    // whichever serves more; the trunks serving most are built first.
    void shared_trunks(const std::map<std::size_t, std::vector<std::size_t>>& down,
                       const std::map<std::size_t, std::vector<std::size_t>>& up) {
        std::map<std::size_t, std::vector<std::size_t>> by_top, by_bottom;
        for (const auto& [top, list] : down) {
            for (const std::size_t i : list) {
                const std::size_t bottom = edges_[i].to;
                if (list.size() >= up.at(bottom).size()) by_top[top].push_back(i);
                else by_bottom[bottom].push_back(i);
            }
        }
        std::vector<std::tuple<std::size_t, bool, std::size_t>> order;  // (edges served, into the node, node)
        for (const auto& [n, list] : by_top) order.emplace_back(list.size(), false, n);
        for (const auto& [n, list] : by_bottom) order.emplace_back(list.size(), true, n);
        std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
        for (const auto& [size, is_bottom, n] : order) {
            if (is_bottom) trunk_into(n, by_bottom[n]);
            else trunk_out_of(n, by_top[n]);
        }
    }

    void trunk_out_of(std::size_t top, const std::vector<std::size_t>& list) {
        std::size_t deepest = 0;
        for (const std::size_t i : list) deepest = std::max(deepest, row_[edges_[i].to] - 1);
        std::vector<std::size_t> points;  // by row, from row_[top] + 1
        for (std::size_t r = row_[top] + 1; r <= deepest && room_[r] > 0; ++r) points.push_back(add_point(r));
        const bool shared = list.size() > 1;
        for (std::size_t k = 0; k < points.size(); ++k) segment(k ? points[k - 1] : top, points[k], list.front(), false, false, shared, true);
        for (const std::size_t i : list) {
            const std::size_t via = row_[edges_[i].to] - 1 - (row_[top] + 1);
            if (via < points.size()) segment(points[via], edges_[i].to, i, true, false, shared, true);
            else out_.hidden.push_back(i);
        }
    }

    void trunk_into(std::size_t bottom, const std::vector<std::size_t>& list) {
        std::size_t highest = row_[bottom];
        for (const std::size_t i : list) highest = std::min(highest, row_[edges_[i].from] + 1);
        std::vector<std::size_t> points;  // by row, upwards from row_[bottom] - 1
        for (std::size_t r = row_[bottom] - 1; r >= highest && room_[r] > 0; --r) points.push_back(add_point(r));
        const bool shared = list.size() > 1;
        for (std::size_t k = 0; k < points.size(); ++k) {
            segment(points[k], k ? points[k - 1] : bottom, list.front(), k == 0, false, shared, true);
        }
        for (const std::size_t i : list) {
            const std::size_t via = row_[bottom] - 1 - (row_[edges_[i].from] + 1);
            if (via < points.size()) segment(edges_[i].from, points[via], i, false, false, shared, true);
            else out_.hidden.push_back(i);
        }
    }

    RowsLayout& out_;
    const std::vector<LayoutEdge>& edges_;
    std::vector<std::size_t> room_, row_, place_;
};

}  // namespace

std::vector<std::size_t> node_levels(std::size_t nodes, const std::vector<LayoutEdge>& edges) {
    const Graph g = graph_of(nodes, edges);
    std::vector<std::size_t> level(nodes, 0), waiting(nodes, 0);
    std::vector<bool> done(nodes, false);
    for (std::size_t v = 0; v < nodes; ++v) waiting[v] = g.deps[v].size();
    std::deque<std::size_t> queue;
    for (std::size_t v = 0; v < nodes; ++v) {
        if (waiting[v] == 0) queue.push_back(v);
    }
    std::size_t next_forced = 0;
    for (std::size_t placed = 0; placed < nodes; ++placed) {
        if (queue.empty()) {  // a cycle: take its first task as if its other dependencies were met
            while (done[next_forced] || waiting[next_forced] == 0) ++next_forced;
            queue.push_back(next_forced);
        }
        const std::size_t v = queue.front();
        queue.pop_front();
        done[v] = true;
        for (const std::size_t w : g.dependents[v]) {
            if (done[w]) continue;
            level[w] = std::max(level[w], level[v] + 1);
            if (--waiting[w] == 0) queue.push_back(w);
        }
    }
    return level;
}

RowsLayout rows_layout(const std::vector<double>& widths, const std::vector<LayoutEdge>& edges, double row_width,
                       std::size_t points_per_row, bool trunks) {
    const Graph g = graph_of(widths.size(), edges);
    RowsLayout layout;
    layout.nodes = widths.size();
    if (widths.empty()) return layout;
    layout.rows = packed_rows(ordered_levels(g, node_levels(widths.size(), edges)), widths, row_width);
    Trunks(layout, edges, points_per_row).run(trunks);
    return layout;
}

BandSize band_size(const std::vector<double>& widths, const std::vector<double>& heights,
                   const std::vector<LayoutEdge>& edges) {
    const std::vector<std::size_t> level = node_levels(widths.size(), edges);
    std::vector<double> column_width, column_height;
    for (std::size_t v = 0; v < widths.size(); ++v) {
        if (column_width.size() <= level[v]) column_width.resize(level[v] + 1, 0), column_height.resize(level[v] + 1, 0);
        column_width[level[v]] = std::max(column_width[level[v]], widths[v]);
        column_height[level[v]] += heights[v] + kNodeGapPt;
    }
    BandSize size;
    for (const double w : column_width) size.width += w + kRankGapPt;
    for (const double h : column_height) size.height = std::max(size.height, h);
    return size;
}

}  // namespace small
