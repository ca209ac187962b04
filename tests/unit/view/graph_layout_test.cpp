// The rows layout of a large graph: dependencies first in reading order,
// rows within their width, a bounded number of trunk points per row, and
// every arrow either drawn or named.
#include "small/view/graph_layout.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace small {
namespace {

struct Place {
    std::size_t row = 0, at = 0;
};

std::vector<Place> places_of(const RowsLayout& layout) {
    std::vector<Place> places(layout.nodes + layout.points);
    for (std::size_t r = 0; r < layout.rows.size(); ++r) {
        for (std::size_t i = 0; i < layout.rows[r].size(); ++i) places[layout.rows[r][i]] = {r, i};
    }
    return places;
}

// Checks what every layout must hold, whatever the graph.
void expect_sound(const RowsLayout& layout, const std::vector<double>& widths, const std::vector<LayoutEdge>& edges,
                  double row_width, std::size_t points_per_row) {
    const std::vector<Place> at = places_of(layout);
    std::set<std::size_t> placed;
    for (const std::vector<std::size_t>& row : layout.rows) {
        double used = 0;
        std::size_t points = 0;
        for (const std::size_t item : row) {
            placed.insert(item);
            if (item < layout.nodes) used += widths[item] + kNodeGapPt;
            else ++points;
        }
        EXPECT_LE(used, std::max(row_width, widths[row.front()] + kNodeGapPt));
        EXPECT_LE(points, points_per_row);
    }
    EXPECT_EQ(placed.size(), layout.nodes + layout.points);  // each node and point once
    std::set<std::size_t> drawn(layout.hidden.begin(), layout.hidden.end());
    for (const LayoutSegment& s : layout.segments) {
        drawn.insert(s.edge);
        EXPECT_TRUE(at[s.tail].row < at[s.head].row || (at[s.tail].row == at[s.head].row && at[s.tail].at <= at[s.head].at))
            << "a segment against the reading order";
        EXPECT_LE(at[s.head].row - at[s.tail].row, 1u) << "a segment skips a row";
    }
    EXPECT_EQ(drawn.size(), edges.size()) << "an edge neither drawn nor named";
    for (std::size_t i = 0; i < edges.size(); ++i) {
        if (edges[i].from == edges[i].to) continue;
        const Place from = at[edges[i].from], to = at[edges[i].to];
        EXPECT_TRUE(from.row < to.row || (from.row == to.row && from.at < to.at)) << "a dependency after its dependent";
    }
}

TEST(GraphLayout, AChainWrapsIntoRowsLikeText) {
    std::vector<LayoutEdge> edges;
    for (std::size_t v = 1; v < 1000; ++v) edges.push_back({v - 1, v});
    const std::vector<double> widths(1000, 100);
    const RowsLayout layout = rows_layout(widths, edges, 1800, 30);
    ASSERT_EQ(layout.rows.size(), 67u);  // 15 of 118 points per row
    EXPECT_EQ(layout.rows.front(), (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}));
    EXPECT_EQ(layout.points, 0u);
    EXPECT_TRUE(layout.hidden.empty());
    expect_sound(layout, widths, edges, 1800, 30);
}

TEST(GraphLayout, AFanOutRidesOneTrunk) {
    std::vector<LayoutEdge> edges;
    for (std::size_t v = 1; v < 300; ++v) edges.push_back({0, v});
    const std::vector<double> widths(300, 100);
    const RowsLayout layout = rows_layout(widths, edges, 1800, 30);
    EXPECT_TRUE(layout.hidden.empty());
    EXPECT_EQ(layout.points, layout.rows.size() - 2);  // one point in each row the arrows cross
    expect_sound(layout, widths, edges, 1800, 30);
}

TEST(GraphLayout, ARandomPlanStaysBoundedAndNamesWhatItCannotDraw) {
    std::mt19937 random(39);
    std::vector<LayoutEdge> edges;
    for (std::size_t v = 1; v < 1000; ++v) {
        for (int k = static_cast<int>(random() % 4); k > 0; --k) edges.push_back({random() % v, v});
    }
    edges.push_back({999, 999});  // a self-loop is drawn as one
    edges.push_back({998, 10});   // a cycle 10 -> ... -> 998 -> 10, if any: drawn against the rows or named
    const std::vector<double> widths(1000, 150);
    const RowsLayout layout = rows_layout(widths, edges, 1800, 30);
    EXPECT_FALSE(layout.hidden.empty());
    edges.pop_back();  // the check below is for a dependency order, which a cycle cannot have
    const RowsLayout acyclic = rows_layout(widths, edges, 1800, 30);
    expect_sound(acyclic, widths, edges, 1800, 30);
    const RowsLayout named = rows_layout(widths, edges, 1800, 30, /*trunks=*/false);
    EXPECT_EQ(named.points, 0u);
}

TEST(GraphLayout, LevelsCutACycleAndBandSizeIsAColumnPerLevel) {
    // 0 -> 1 -> 2 -> 1 (a cycle), 3 alone.
    const std::vector<LayoutEdge> edges = {{0, 1}, {1, 2}, {2, 1}};
    const std::vector<std::size_t> level = node_levels(4, edges);
    EXPECT_EQ(level[0], 0u);
    EXPECT_EQ(level[3], 0u);
    EXPECT_LT(level[1], level[2]);
    const BandSize size = band_size({100, 100, 100, 100}, {40, 40, 40, 40}, edges);
    EXPECT_DOUBLE_EQ(size.width, 3 * (100 + 36));
    EXPECT_DOUBLE_EQ(size.height, 2 * (40 + kNodeGapPt));
}

}  // namespace
}  // namespace small
