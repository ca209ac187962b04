// The plan as a dependency graph: statuses as the work shows them, the ready
// set, cycles, missing dependencies and the critical path.
#include "small/model/plan_graph.hpp"

#include <gtest/gtest.h>

namespace small {
namespace {

PlanTaskOutline task(std::string id, std::string status, std::vector<std::string> deps = {}) {
    return PlanTaskOutline{id, WrittenStatus(status), std::move(deps), "Title " + id, ""};
}

const GraphTask& find(const PlanGraph& g, const std::string& id) {
    for (const GraphTask& t : g.tasks) {
        if (t.id == id) return t;
    }
    throw std::runtime_error("no task " + id);
}

TEST(PlanGraph, CriticalPathIsTheLongestChainStillToDo) {
    // a(done) -> b -> c -> d ; e -> d ; f alone
    const std::vector<PlanTaskOutline> plan = {task("a", "completed"), task("b", "pending", {"a"}),
                                               task("c", "pending", {"b"}), task("e", "pending"),
                                               task("d", "pending", {"c", "e"}), task("f", "pending")};
    const PlanGraph g = plan_graph(plan, {});
    EXPECT_EQ(g.critical_path, (std::vector<std::string>{"b", "c", "d"}));
    EXPECT_TRUE(find(g, "c").critical);
    EXPECT_FALSE(find(g, "e").critical);
    EXPECT_TRUE(find(g, "b").ready);
    EXPECT_TRUE(find(g, "e").ready);
    EXPECT_FALSE(find(g, "c").ready);
    EXPECT_FALSE(find(g, "a").ready);
    ASSERT_EQ(g.edges.size(), 4u);
    EXPECT_TRUE(g.edges[1].critical);   // b -> c
    EXPECT_FALSE(g.edges[0].critical);  // a -> b: a is done
    EXPECT_FALSE(g.edges[3].critical);  // e -> d
}

TEST(PlanGraph, NoChainNoCriticalPath) {
    const PlanGraph g = plan_graph({task("a", "pending"), task("b", "pending")}, {});
    EXPECT_TRUE(g.critical_path.empty());
    EXPECT_FALSE(find(g, "a").critical);
}

TEST(PlanGraph, CyclesAreFoundAndLeftOutOfThePath) {
    const std::vector<PlanTaskOutline> plan = {task("a", "pending", {"c"}), task("b", "pending", {"a"}),
                                               task("c", "pending", {"b"}), task("d", "pending", {"d"}),
                                               task("e", "pending", {"a", "zz"}), task("f", "pending", {"e"})};
    const PlanGraph g = plan_graph(plan, {});
    ASSERT_EQ(g.cycles.size(), 2u);
    EXPECT_EQ(g.cycles[0], (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(g.cycles[1], (std::vector<std::string>{"d"}));
    EXPECT_TRUE(find(g, "a").in_cycle);
    EXPECT_FALSE(find(g, "e").in_cycle);
    EXPECT_EQ(g.missing, (std::vector<std::string>{"zz"}));
    EXPECT_EQ(g.critical_path, (std::vector<std::string>{"e", "f"}));
    for (const GraphEdge& e : g.edges) {
        if (e.from == "zz") {
            EXPECT_TRUE(e.missing);
        }
        if (e.to == "b") {
            EXPECT_TRUE(e.in_cycle);
        }
        if (e.to == "e" && e.from == "a") {
            EXPECT_FALSE(e.in_cycle);
        }
    }
}

TEST(PlanGraph, WorkEntriesAndClaimsShowOnTheTasks) {
    WorkFacts facts;
    facts["a"].last_status = WrittenStatus(TaskStatus::Completed);
    facts["b"].last_status = WrittenStatus(TaskStatus::InProgress);
    facts["b"].claimed_by = "alice until 14:05 UTC";
    facts["c"].held_until = "me until 15:00 UTC";
    const PlanGraph g = plan_graph({task("a", "pending"), task("b", "", {"a"}), task("c", "cancelled", {"b"})}, facts);
    EXPECT_EQ(find(g, "a").status.word(), "completed");  // the newest work entry
    EXPECT_EQ(find(g, "b").status.word(), "in_progress");
    EXPECT_FALSE(find(g, "b").ready);                     // already under way
    EXPECT_EQ(find(g, "b").claim, "alice until 14:05 UTC");
    EXPECT_FALSE(find(g, "b").mine);
    EXPECT_EQ(find(g, "c").status.word(), "cancelled");   // settled in the plan: the plan wins
    EXPECT_EQ(find(g, "c").claim, "me until 15:00 UTC");
    EXPECT_TRUE(find(g, "c").mine);
    EXPECT_EQ(board_columns(g), (std::vector<std::string>{"pending", "in_progress", "blocked", "completed", "cancelled"}));
    const PlanGraph odd = plan_graph({task("x", "review")}, {});
    EXPECT_EQ(board_columns(odd).back(), "review");
}

TEST(PlanGraph, ALongChainNeedsNoRecursion) {
    std::vector<PlanTaskOutline> plan;
    for (int i = 0; i < 100000; ++i) {
        plan.push_back(task("t" + std::to_string(i), "pending", i ? std::vector<std::string>{"t" + std::to_string(i - 1)}
                                                                   : std::vector<std::string>{}));
    }
    plan.front().depends_on = {"t99999"};  // and one cycle through all of it
    const PlanGraph g = plan_graph(plan, {});
    ASSERT_EQ(g.cycles.size(), 1u);
    EXPECT_EQ(g.cycles[0].size(), 100000u);
    plan.front().depends_on.clear();
    EXPECT_EQ(plan_graph(plan, {}).critical_path.size(), 100000u);
}

}  // namespace
}  // namespace small
