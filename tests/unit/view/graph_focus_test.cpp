// Which tasks a view shows (--open, --task/--depth, --limit, the board's
// fold) and what it says it left out.
#include "small/view/graph_focus.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace small {
namespace {

PlanTaskOutline task(std::string id, std::string status, std::vector<std::string> deps = {}) {
    return PlanTaskOutline{id, WrittenStatus(status), std::move(deps), "Title " + id, ""};
}

std::vector<std::string> ids_of(const PlanGraph& g) {
    std::vector<std::string> ids;
    for (const GraphTask& t : g.tasks) ids.push_back(t.id);
    return ids;
}

using Ids = std::vector<std::string>;

// a -> b -> c (open); d settled alone; e cancelled <- f (open); g waits on a
// dependency the plan does not have.
PlanGraph mixed() {
    return plan_graph({task("a", "completed"), task("b", "completed", {"a"}), task("c", "pending", {"b"}),
                       task("d", "completed"), task("e", "cancelled"), task("f", "pending", {"e"}),
                       task("g", "in_progress", {"gone"})},
                      {});
}

TEST(GraphFocus, OpenIsTheUnsettledTasksAndWhatTheyWaitOn) {
    GraphFocus focus;
    focus.open = true;
    const Result<FocusedGraph> shown = focus_graph(mixed(), focus);
    ASSERT_TRUE(shown.ok()) << shown.error().describe();
    EXPECT_EQ(ids_of(shown->graph), (Ids{"b", "c", "e", "f", "g"}));  // not a (two hops back) nor d
    EXPECT_EQ(shown->in_plan, 7u);
    EXPECT_EQ(shown->chosen, 5u);
    EXPECT_TRUE(shown->left_out.empty());  // chosen away by --open is not a cut
    ASSERT_EQ(shown->graph.edges.size(), 3u);  // b->c, e->f, gone->g: not a->b (a is not shown)
    EXPECT_EQ(shown->graph.missing, Ids{"gone"});
    EXPECT_EQ(focus_scope(*shown, focus), "5 of 7 tasks: the open ones and what they wait on");
    EXPECT_EQ(focus_note(*shown, focus), focus_scope(*shown, focus));
}

// t1 -> t2 -> t3 -> t4 -> t5; s -> t3; x depends on t2 (a sibling of t3, not on its chains).
PlanGraph chain() {
    return plan_graph({task("t1", "completed"), task("t2", "completed", {"t1"}), task("s", "pending"),
                       task("t3", "pending", {"t2", "s"}), task("t4", "pending", {"t3"}), task("t5", "pending", {"t4"}),
                       task("x", "pending", {"t2"})},
                      {});
}

TEST(GraphFocus, DepthCountsHopsOfDependenciesAndOfDependents) {
    GraphFocus focus;
    focus.task = "t3";
    focus.depth = 0;
    EXPECT_EQ(ids_of(focus_graph(chain(), focus)->graph), Ids{"t3"});
    focus.depth = 1;
    EXPECT_EQ(ids_of(focus_graph(chain(), focus)->graph), (Ids{"t2", "s", "t3", "t4"}));
    focus.depth = 2;
    EXPECT_EQ(ids_of(focus_graph(chain(), focus)->graph), (Ids{"t1", "t2", "s", "t3", "t4", "t5"}));  // never x
    EXPECT_EQ(focus_scope(*focus_graph(chain(), focus), focus),
              "6 of 7 tasks: t3 and 2 hops of its dependencies and dependents");
    focus.open = true;  // and open: t1 and t2 are settled, t2 stays as what t3 waits on
    EXPECT_EQ(ids_of(focus_graph(chain(), focus)->graph), (Ids{"t2", "s", "t3", "t4", "t5"}));
}

TEST(GraphFocus, TheCentreIsShownEvenWhenSettledAndMustBeInThePlan) {
    GraphFocus focus;
    focus.task = "t1";
    focus.open = true;
    EXPECT_EQ(ids_of(focus_graph(chain(), focus)->graph), (Ids{"t1", "t2"}));
    focus.task = "t33";
    const Result<FocusedGraph> unknown = focus_graph(chain(), focus);
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("t33 is not in the plan"), std::string::npos) << unknown.error().message;
    EXPECT_NE(unknown.error().message.find("Did you mean t3?"), std::string::npos) << unknown.error().message;
}

// c1..c10 completed, then p1..p3 pending; `recent` lists c3 and c7 as the newest work.
PlanGraph settled_heavy() {
    std::vector<PlanTaskOutline> plan;
    for (int i = 1; i <= 10; ++i) plan.push_back(task("c" + std::to_string(i), "completed"));
    for (int i = 1; i <= 3; ++i) plan.push_back(task("p" + std::to_string(i), "pending"));
    plan.push_back(task("k1", "cancelled"));
    plan.push_back(task("k2", "cancelled"));
    return plan_graph(plan, {});
}

TEST(GraphFocus, LimitKeepsTheOpenFirstThenTheNewestSettledAndCountsTheRest) {
    GraphFocus focus;
    focus.limit = 6;
    const Result<FocusedGraph> shown = focus_graph(settled_heavy(), focus, {"c7", "c3"});
    ASSERT_TRUE(shown.ok());
    // The three open, c7 and c3 (newest first), then the latest in the plan: k2.
    EXPECT_EQ(ids_of(shown->graph), (Ids{"c3", "c7", "p1", "p2", "p3", "k2"}));
    EXPECT_EQ(shown->left_out_total(), 9u);
    EXPECT_EQ(shown->left_out.at("completed"), 8u);
    EXPECT_EQ(shown->left_out.at("cancelled"), 1u);
    EXPECT_EQ(left_out_sentence(*shown), "9 not shown (1 cancelled, 8 completed): --limit 0 shows all");
    nlohmann::json doc;
    add_focus_json(doc, *shown, focus);
    EXPECT_EQ(doc["tasks_in_plan"], 15);
    EXPECT_EQ(doc["tasks_shown"], 6);
    EXPECT_EQ(doc["left_out"]["count"], 9);
    EXPECT_EQ(doc["left_out"]["by_status"]["completed"], 8);
    EXPECT_EQ(doc["note"], left_out_sentence(*shown));
}

TEST(GraphFocus, TheFoldKeepsTheNewestFewOfEachSettledStatus) {
    GraphFocus focus;
    focus.settled_newest = 2;
    const Result<FocusedGraph> shown = focus_graph(settled_heavy(), focus, {"c7"});
    ASSERT_TRUE(shown.ok());
    EXPECT_EQ(ids_of(shown->graph), (Ids{"c7", "c10", "p1", "p2", "p3", "k1", "k2"}));
    EXPECT_EQ(shown->left_out, (std::map<std::string, std::size_t>{{"completed", 8}}));
    focus.settled_newest = 0;  // no fold, no limit: everything
    EXPECT_EQ(focus_graph(settled_heavy(), focus)->graph.tasks.size(), 15u);
    EXPECT_EQ(focus_note(*focus_graph(settled_heavy(), focus), focus), "");
}

}  // namespace
}  // namespace small
