// The views: the graph as DOT and Mermaid (escaping, marks), laid out by
// Graphviz, and the board's terminal layout.
#include <gtest/gtest.h>

#include <cstdlib>

#include "small/view/board_text.hpp"
#include "small/view/graph_render.hpp"
#include "small/view/graphviz.hpp"

namespace small {
namespace {

PlanGraph sample() {
    const auto task = [](std::string id, std::string title, std::string status, std::vector<std::string> deps = {}) {
        return PlanTaskOutline{id, WrittenStatus(status), std::move(deps), title, ""};
    };
    WorkFacts facts;
    facts["b"].claimed_by = "alice until 14:05 UTC";
    return plan_graph({task("a", "Say \"hi\" <now>", "completed"), task("b", "Parse # args", "in_progress", {"a"}),
                       task("c", "Print it", "pending", {"b", "gone"}), task("d", "Loop", "pending", {"d"})},
                      facts);
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

TEST(GraphRender, DotEscapesAndMarks) {
    const std::string dot = graph_dot(sample());
    EXPECT_NE(dot.find("\"a\" [label=\"a\\nSay \\\"hi\\\" <now>\\n[completed]\""), std::string::npos) << dot;
    EXPECT_NE(dot.find("claimed: alice until 14:05 UTC"), std::string::npos);
    EXPECT_NE(dot.find("\"b\" -> \"c\" [color=\"#dc2626\""), std::string::npos) << dot;  // critical
    EXPECT_NE(dot.find("\"d\" -> \"d\" [color=\"#a21caf\", style=dashed"), std::string::npos) << dot;  // cycle
    EXPECT_NE(dot.find("\"gone\" [label=\"gone\\n(not in the plan)\", shape=note"), std::string::npos) << dot;
    EXPECT_EQ(dot, graph_dot(sample()));  // deterministic
}

TEST(GraphRender, MermaidUsesSafeIdsAndEntities) {
    const std::string m = graph_mermaid(sample());
    EXPECT_TRUE(m.starts_with("flowchart LR\n"));
    EXPECT_NE(m.find("t0[\"a<br/>Say #quot;hi#quot; #lt;now#gt;"), std::string::npos) << m;
    EXPECT_NE(m.find("Parse #35; args"), std::string::npos) << m;
    EXPECT_NE(m.find("t3 -.-> t3"), std::string::npos) << m;  // the self-loop, as a cycle
    EXPECT_NE(m.find("linkStyle 1 stroke:#dc2626"), std::string::npos) << m;  // b -> c, critical
    EXPECT_EQ(count(m, "-->") + count(m, "-.->"), sample().edges.size());
}

TEST(GraphRender, JsonHasTheGraphAsData) {
    const nlohmann::json j = graph_json(sample());
    EXPECT_EQ(j["tasks"].size(), 4u);
    EXPECT_EQ(j["critical_path"], nlohmann::json::array({"b", "c"}));
    EXPECT_EQ(j["missing"], nlohmann::json::array({"gone"}));
    EXPECT_EQ(j["cycles"], nlohmann::json::array({nlohmann::json::array({"d"})}));
}

TEST(Graphviz, LaysTheGraphOutAsSvg) {
    Result<std::string> svg = graphviz_svg(graph_dot(sample()));
    if (!svg.ok() && std::getenv("CI") == nullptr) GTEST_SKIP() << svg.error().describe();
    ASSERT_TRUE(svg.ok()) << svg.error().describe() << " (CI installs libgvc6: scripts/setup.sh)";
    EXPECT_NE(svg->find("<svg"), std::string::npos);
    EXPECT_NE(svg->find("Parse # args"), std::string::npos);
    EXPECT_NE(svg->find("#dc2626"), std::string::npos);
    EXPECT_FALSE(graphviz_svg("digraph { a -> ").ok());
}

BoardReport sample_board() {
    BoardReport b;
    b.graph = sample();
    b.columns = board_columns(b.graph);
    b.evidence["a"] = CardEvidence{"2026-11-28T10:00:00.000000000Z", "completed", "ran the tests and they passed"};
    return b;
}

std::size_t widest_line(const std::string& text) {
    std::size_t widest = 0, chars = 0;
    bool escape = false;
    for (const char c : text) {
        if (c == '\n') {
            widest = std::max(widest, chars);
            chars = 0;
        } else if (c == '\033') {
            escape = true;
        } else if (escape) {
            escape = c != 'm';
        } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
            ++chars;
        }
    }
    return widest;
}

TEST(BoardText, ColumnsSideBySideFitTheWidth) {
    const std::string text = board_text(sample_board(), {90, false});
    const std::string first = text.substr(0, text.find('\n'));
    EXPECT_NE(first.find("pending (2)"), std::string::npos) << text;
    EXPECT_NE(first.find("in_progress (1)"), std::string::npos) << text;
    EXPECT_NE(first.find("completed (1)"), std::string::npos) << text;
    const std::string footer = text.substr(text.rfind("\n", text.size() - 2) + 1);
    EXPECT_LE(widest_line(text.substr(0, text.size() - footer.size())), 90u) << text;
    EXPECT_NE(text.find("@ alice until 14:05 UTC"), std::string::npos);
    EXPECT_NE(text.find("waits on b, gone"), std::string::npos) << text;
    EXPECT_NE(text.find("[cycle]"), std::string::npos);
    EXPECT_NE(text.find("> 2026-11-28T10:00Z ran the"), std::string::npos) << text;
    EXPECT_EQ(text.find('\033'), std::string::npos);  // no colour unless asked
    EXPECT_NE(footer.find("critical path: b -> c"), std::string::npos) << footer;
}

TEST(BoardText, NarrowTerminalsStackTheColumnsAndColourIsOnlyOnRequest) {
    const std::string text = board_text(sample_board(), {40, true});
    EXPECT_EQ(text.find(" \u2502 "), std::string::npos) << text;  // no column separator: stacked
    EXPECT_NE(text.find("\033[1;32mcompleted (1)"), std::string::npos) << text;
    const std::string footer_start = "\n\n4 tasks";
    EXPECT_LE(widest_line(text.substr(0, text.find(footer_start))), 40u) << text;
}

TEST(BoardText, TheFooterWrapsAndMarksArePainted) {
    BoardReport b = sample_board();
    for (int i = 0; i < 12; ++i) b.graph.critical_path.push_back("a-long-task-id-" + std::to_string(i));
    const std::string text = board_text(b, {40, true});
    EXPECT_LE(widest_line(text), 40u) << text;
    EXPECT_NE(text.find("\033[31m[critical path]"), std::string::npos) << text;
    const std::string empty = board_text(BoardReport{}, {20, false});
    EXPECT_LE(widest_line(empty), 20u) << empty;
}

TEST(BoardText, JsonGroupsTheCardsByColumn) {
    const nlohmann::json j = board_json(sample_board());
    ASSERT_EQ(j["columns"].size(), 5u);
    EXPECT_EQ(j["columns"][0]["status"], "pending");
    EXPECT_EQ(j["columns"][0]["tasks"][0]["id"], "c");
    EXPECT_EQ(j["columns"][0]["tasks"][0]["waits_on"], nlohmann::json::array({"b", "gone"}));
    EXPECT_EQ(j["columns"][3]["tasks"][0]["evidence"]["text"], "ran the tests and they passed");
    EXPECT_TRUE(j["columns"][4]["tasks"].empty());
}

}  // namespace
}  // namespace small

#include <filesystem>

#include "small/view/html_report.hpp"

namespace small {
namespace {

TEST(HtmlEscape, EscapesWhatHtmlReads) {
    EXPECT_EQ(html_escape("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

}  // namespace
}  // namespace small

#include <sstream>

#include "small/view/graph_focus.hpp"

namespace small {
namespace {

// Every word of `words` appears in `text` in order, once the board's
// indents and column separators are taken out (a wrapped line keeps them).
bool keeps_every_word(const std::string& text, const std::string& words) {
    std::istringstream in(words);
    std::size_t from = 0;
    for (std::string word; in >> word;) {
        from = text.find(word.substr(0, 4), from);  // a word broken across lines starts on the first
        if (from == std::string::npos) return false;
    }
    std::string joined;  // the text without line breaks and indents: a broken word comes back whole
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        const std::size_t start = line.find_first_not_of(' ');
        joined += start == std::string::npos ? "" : line.substr(start);
    }
    std::string squeezed;
    for (const char c : words) {
        if (c != ' ') squeezed += c;
    }
    std::string flat;
    for (const char c : joined) {
        if (c != ' ') flat += c;
    }
    return flat.find(squeezed) != std::string::npos;
}

const std::string kReason =
    "DBA must grant the migration role write access on the production replica before the schema change; "
    "ticket https://tickets.example.com/browse/OPS-4711-a-very-long-address";

BoardReport blocked_board() {
    WorkFacts facts;
    facts["m"].last_status = WrittenStatus("blocked");
    facts["m"].blocked_reason = kReason;
    BoardReport b;
    b.graph = plan_graph({PlanTaskOutline{"m", WrittenStatus("blocked"), {}, "Migrate", ""}}, facts);
    b.columns = board_columns(b.graph);
    b.evidence["m"] = CardEvidence{"2026-11-28T10:00:00Z", "blocked", kReason};
    return b;
}

TEST(BoardText, ABlockedReasonWrapsAndKeepsEveryWord) {
    for (const std::size_t width : {24u, 40u, 100u}) {
        const std::string text = board_text(blocked_board(), {width, false});
        const std::string cards = text.substr(0, text.find("\n\n1 tasks"));
        EXPECT_LE(widest_line(cards), width) << text;
        EXPECT_TRUE(keeps_every_word(cards, "blocked: " + kReason)) << text;
        EXPECT_EQ(text.find("\u2026"), std::string::npos) << text;  // nothing cut
        EXPECT_EQ(text.find("> 2026"), std::string::npos) << text;  // not again as the evidence line
    }
    const nlohmann::json j = board_json(blocked_board());
    EXPECT_EQ(j["columns"][2]["tasks"][0]["blocked_reason"], kReason);
}

// The footer's words match what it counts: "ready" is ready to start; a
// task under way is counted as in progress, not left out of the sentence.
TEST(BoardText, TheFooterCountsTasksInProgressBesidesTheReadyOnes) {
    std::vector<PlanTaskOutline> plan;
    plan.push_back(PlanTaskOutline{"a", WrittenStatus("in_progress"), {}, "", ""});
    plan.push_back(PlanTaskOutline{"b", WrittenStatus("pending"), {"a"}, "", ""});
    BoardReport b;
    b.graph = plan_graph(plan, {});
    b.columns = board_columns(b.graph);
    const std::string text = board_text(b, {100, false});
    EXPECT_NE(text.find("2 tasks, 0 ready, 1 in progress"), std::string::npos) << text;
}

TEST(BoardText, AFoldedColumnCountsItsCardsAndSaysHowManyMore) {
    std::vector<PlanTaskOutline> plan;
    for (int i = 1; i <= 8; ++i) plan.push_back(PlanTaskOutline{"c" + std::to_string(i), WrittenStatus("completed"), {}, "", ""});
    plan.push_back(PlanTaskOutline{"p", WrittenStatus("pending"), {"c8"}, "", ""});
    BoardReport b;
    b.graph = plan_graph(plan, {});
    b.columns = board_columns(b.graph);
    GraphFocus focus;
    focus.settled_newest = 5;
    const Result<FocusedGraph> shown = focus_graph(b.graph, focus, recent_tasks(b));
    ASSERT_TRUE(shown.ok());
    const std::string text = board_text(b, *shown, focus, {200, false});
    EXPECT_NE(text.find("completed (8)"), std::string::npos) << text;
    EXPECT_NE(text.find("\u2026 3 more completed not shown (--limit 0 shows all)"), std::string::npos) << text;
    EXPECT_EQ(text.find("c3\n"), std::string::npos) << text;  // the oldest three folded
    EXPECT_NE(text.find("c8"), std::string::npos) << text;
    EXPECT_NE(text.find("9 tasks, 1 ready; 3 not shown (3 completed): --limit 0 shows all"), std::string::npos) << text;
    const nlohmann::json j = board_json(b, *shown, focus);
    EXPECT_EQ(j["columns"][3]["left_out"], 3);
    EXPECT_EQ(j["columns"][3]["tasks"].size(), 5u);
    EXPECT_EQ(j["left_out"]["count"], 3);
    EXPECT_EQ(board_text(b, {60, false}).find("not shown"), std::string::npos);  // no focus: every card
}

// A plan of `n` tasks: a chain, the last `open` not settled; every fifth
// also waits on the first task (long arrows across rows).
PlanGraph large_plan(std::size_t n, std::size_t open) {
    std::vector<PlanTaskOutline> plan;
    for (std::size_t i = 1; i <= n; ++i) {
        std::vector<std::string> deps;
        if (i > 1) deps.push_back("task-" + std::to_string(i - 1));
        if (i > 2 && i % 5 == 0) deps.push_back("task-1");
        plan.push_back(PlanTaskOutline{"task-" + std::to_string(i), WrittenStatus(i + open > n ? "pending" : "completed"),
                                       deps, "Task number " + std::to_string(i) + " of the large plan", ""});
    }
    return plan_graph(plan, {});
}

TEST(GraphRender, ASmallPlanIsOneBandLeftToRightALargeOneRows) {
    const std::string small = graph_dot(sample());
    EXPECT_NE(small.find("rankdir=LR"), std::string::npos);
    EXPECT_EQ(small.find("rank=same"), std::string::npos);
    const std::string large = graph_dot(large_plan(1000, 0));
    EXPECT_NE(large.find("rankdir=TB"), std::string::npos);
    EXPECT_GT(count(large, "rank=same"), 40u);
    GraphDrawing drawing;
    drawing.caption = "2 of 1000 tasks: the open ones";
    EXPECT_NE(graph_dot(sample(), drawing).find("label=\"2 of 1000 tasks: the open ones\\l\""), std::string::npos);
    EXPECT_NE(graph_mermaid(sample(), drawing.caption).find("%% 2 of 1000 tasks"), std::string::npos);
}

TEST(GraphRender, ALongTitleWrapsAndIsCutOnlyAfterFourLines) {
    PlanGraph g = sample();
    g.tasks[0].title = std::string(200, 'x');
    const std::string dot = graph_dot(g);
    EXPECT_NE(dot.find(std::string(32, 'x') + "\\n" + std::string(32, 'x')), std::string::npos) << dot;
    EXPECT_NE(dot.find("tooltip=\"" + std::string(200, 'x') + "\""), std::string::npos);
}

TEST(GraphRender, SvgWidthIsReadInPixels) {
    EXPECT_DOUBLE_EQ(svg_width_px("<svg width=\"300pt\" height=\"2pt\""), 400);
    EXPECT_DOUBLE_EQ(svg_width_px("<svg width=\"300px\""), 300);
    EXPECT_DOUBLE_EQ(svg_width_px("no svg"), 0);
}

// Issue 39: the 1,000-task plan, whole or --open, in rows a browser shows.
TEST(Graphviz, TheSvgOfAThousandTasksIsAtMost4000PxWide) {
    if (!graphviz_svg("digraph { a }").ok()) {
        if (std::getenv("CI")) FAIL() << "CI installs libgvc6 (scripts/setup.sh)";
        GTEST_SKIP() << "no Graphviz";
    }
    const PlanGraph plan = large_plan(1000, 400);
    GraphFocus open;
    open.open = true;
    const Result<FocusedGraph> work = focus_graph(plan, open);
    ASSERT_TRUE(work.ok());
    for (const PlanGraph* g : {&plan, &work->graph}) {
        const Result<std::string> svg = graph_svg(*g, "a caption");
        ASSERT_TRUE(svg.ok()) << svg.error().describe();
        EXPECT_GT(svg_width_px(*svg), 1000);
        EXPECT_LE(svg_width_px(*svg), kMaxDrawingWidthPx);
        EXPECT_NE(svg->find("Task number 1000 "), std::string::npos);
    }
}

}  // namespace
}  // namespace small
