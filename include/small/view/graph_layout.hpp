// Where graph_dot puts a graph too large for one left-to-right band (the
// 1,000-task chain would be 190,000 px wide): its nodes in rows read like
// text, each row at most `row_width` points of nodes, a dependency always in
// an earlier row or further left in the same one. The rows go to Graphviz as
// ranks in a fixed order; Graphviz only spaces them and draws the arrows.
//
// An arrow between rows more than one apart would make Graphviz put a
// pass-through point in every row it crosses, and enough of them widen any
// row without bound. So it runs down a trunk of points at the rows' right
// end, one trunk for the arrows out of one task (or into one), and a row takes
// at most `points_per_row` trunk points. An arrow that finds no room is not
// drawn: its dependent names it ("also waits on"), so nothing is lost.
#pragma once

#include <cstddef>
#include <vector>

namespace small {

struct LayoutEdge {
    std::size_t from = 0, to = 0;  // node indices: `to` depends on `from`
    bool own_trunk = false;        // never shares a trunk (it has a colour or dash of its own)
};

struct LayoutSegment {
    std::size_t tail = 0, head = 0;  // node or trunk point (index >= node count); tail above or left of head
    std::size_t edge = 0;            // the LayoutEdge drawn (a shared trunk's segment: the first it serves)
    bool arrow_at_head = false;      // the dependent is the head
    bool arrow_at_tail = false;      // the dependent is the tail (an arrow drawn against the rows: a cycle)
    bool shared = false;             // part of a trunk more than one arrow uses
    bool across = false;             // joins two rows (not two items of one row)
};

struct RowsLayout {
    std::vector<std::vector<std::size_t>> rows;  // left to right: nodes, then trunk points
    std::size_t nodes = 0, points = 0;           // points are numbered nodes .. nodes + points - 1
    std::vector<LayoutSegment> segments;
    std::vector<std::size_t> hidden;             // edges not drawn (their dependents name them)
};

inline constexpr double kNodeGapPt = 18;     // Graphviz's nodesep (0.25 in)
inline constexpr double kPointPitchPt = 22;  // a trunk point and its gap

// Each node's level: the longest chain of dependencies below it (a cycle
// is cut at its first task in index order).
std::vector<std::size_t> node_levels(std::size_t nodes, const std::vector<LayoutEdge>& edges);

// `widths`: each node's width in points.
RowsLayout rows_layout(const std::vector<double>& widths, const std::vector<LayoutEdge>& edges, double row_width,
                       std::size_t points_per_row, bool trunks = true);

// The size in points of the one-band left-to-right drawing: a column per
// level. `heights`: each node's height.
struct BandSize {
    double width = 0, height = 0;
};
BandSize band_size(const std::vector<double>& widths, const std::vector<double>& heights,
                   const std::vector<LayoutEdge>& edges);

}  // namespace small
