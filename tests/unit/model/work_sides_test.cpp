// model/work_sides: what `status --all` reports as differing between work
// trees and branches, and which task ids two sides added with different
// content (D19).
#include "small/model/work_sides.hpp"

#include <gtest/gtest.h>

#include "small/doc/yaml.hpp"

namespace small {
namespace {

WorkSide side(const std::string& name, std::vector<SideTask> tasks, std::vector<std::string> added = {},
              bool current = false) {
    WorkSide s;
    s.name = name;
    s.has_workspace = true;
    s.tasks = std::move(tasks);
    s.added = std::move(added);
    s.current = current;
    return s;
}

SideTask task(const std::string& id, const std::string& status, const std::string& title = "",
              const std::string& content = "") {
    return {id, title.empty() ? "Title " + id : title, status, content};
}

TEST(WorkSides, ATaskDiffersWhenOneSideShowsAnotherStatusOrLacksIt) {
    const std::vector<WorkSide> sides = {
        side("main", {task("t1", "pending"), task("t2", "completed")}, {}, true),
        side("a", {task("t1", "in_progress"), task("t2", "completed"), task("t3", "pending")}),
        side("b", {task("t1", "pending"), task("t2", "completed")}),
    };
    const SidesComparison c = compare_sides(sides);
    ASSERT_EQ(c.differences.size(), 2u);
    EXPECT_EQ(c.differences[0].id, "t1");
    EXPECT_EQ(c.differences[0].statuses, (std::vector<std::string>{"pending", "in_progress", "pending"}));
    EXPECT_EQ(c.differences[1].id, "t3");
    EXPECT_EQ(c.differences[1].statuses, (std::vector<std::string>{"", "pending", ""}));
    EXPECT_EQ(c.differences[1].title, "Title t3");
}

TEST(WorkSides, ASideWithoutTheWorkspaceDoesNotMakeADifference) {
    WorkSide bare;
    bare.name = "docs-only";
    const std::vector<WorkSide> sides = {side("main", {task("t1", "pending")}, {}, true), bare};
    const SidesComparison c = compare_sides(sides);
    EXPECT_TRUE(c.differences.empty());
}

TEST(WorkSides, TheSameIdAddedTwiceWithDifferentContentCollides) {
    const std::vector<WorkSide> sides = {
        side("main", {task("t1", "pending")}, {}, true),
        side("a", {task("t1", "pending"), task("t2", "pending", "Parser", "{\"id\":\"t2\",\"title\":\"Parser\"}")},
             {"t2"}),
        side("b", {task("t1", "pending"), task("t2", "pending", "Docs", "{\"id\":\"t2\",\"title\":\"Docs\"}")},
             {"t2"}),
    };
    const SidesComparison c = compare_sides(sides);
    ASSERT_EQ(c.collisions.size(), 1u);
    EXPECT_EQ(c.collisions[0].id, "t2");
    ASSERT_EQ(c.collisions[0].holders.size(), 2u);
    EXPECT_EQ(c.collisions[0].holders[0].side, 1u);
    EXPECT_EQ(c.collisions[0].holders[0].title, "Parser");
    EXPECT_EQ(c.collisions[0].holders[1].side, 2u);
}

TEST(WorkSides, TheSameTaskAddedOnTwoSidesIsNoCollision) {
    const std::string same = "{\"id\":\"t2\",\"title\":\"Parser\"}";
    const std::vector<WorkSide> sides = {
        side("main", {task("t1", "pending")}, {}, true),
        side("a", {task("t2", "pending", "Parser", same)}, {"t2"}),
        side("b", {task("t2", "in_progress", "Parser", same)}, {"t2"}),
    };
    EXPECT_TRUE(compare_sides(sides).collisions.empty());
}

TEST(WorkSides, AnIdTheCurrentSideHoldsAndAnotherSideAddedCollidesWhenTheyDiffer) {
    // The other side's merge base lacks t2, so the current side added it too.
    const std::vector<WorkSide> differ = {
        side("main", {task("t2", "pending", "Mine", "{\"title\":\"Mine\"}")}, {}, true),
        side("a", {task("t2", "pending", "Theirs", "{\"title\":\"Theirs\"}")}, {"t2"}),
    };
    const SidesComparison c = compare_sides(differ);
    ASSERT_EQ(c.collisions.size(), 1u);
    EXPECT_EQ(c.collisions[0].holders[0].side, 0u);
    EXPECT_EQ(c.collisions[0].holders[1].side, 1u);

    const std::vector<WorkSide> same = {
        side("main", {task("t2", "pending", "Mine", "{\"title\":\"Mine\"}")}, {}, true),
        side("a", {task("t2", "pending", "Mine", "{\"title\":\"Mine\"}")}, {"t2"}),
    };
    EXPECT_TRUE(compare_sides(same).collisions.empty());
}

TEST(WorkSides, ASideShowsTheLogsStatusWhileThePlanLeavesTheTaskOpen) {
    const std::vector<PlanTaskOutline> plan = {
        {"t1", WrittenStatus("pending"), {}, "One", ""},
        {"t2", WrittenStatus("completed"), {}, "Two", ""},
        {"t3", WrittenStatus("pending"), {}, "Three", ""},
    };
    WorkFacts facts;
    facts["t1"].last_status = WrittenStatus("in_progress");
    facts["t2"].last_status = WrittenStatus("in_progress");  // the plan settled it: the plan wins
    const std::vector<SideTask> tasks = side_tasks(plan, facts);
    ASSERT_EQ(tasks.size(), 3u);
    EXPECT_EQ(tasks[0].status, "in_progress");
    EXPECT_EQ(tasks[1].status, "completed");
    EXPECT_EQ(tasks[2].status, "pending");
    EXPECT_EQ(tasks[2].title, "Three");
}

TEST(WorkSides, AnEntrysIdentityIgnoresItsTimestampOnly) {
    Result<Document> doc = parse_yaml(
        "- {timestamp: '2026-01-01T00:00:00.000000001Z', task_id: t1, status: completed, evidence: ok}\n"
        "- {timestamp: '2026-01-01T00:00:00.000000002Z', task_id: t1, status: completed, evidence: ok}\n"
        "- {timestamp: '2026-01-01T00:00:00.000000002Z', task_id: t1, status: completed, evidence: other}\n",
        "log");
    ASSERT_TRUE(doc) << doc.error().describe();
    const NodeRef items = doc->root();
    EXPECT_EQ(entry_identity(items.item(0)), entry_identity(items.item(1)));
    EXPECT_NE(entry_identity(items.item(1)), entry_identity(items.item(2)));
}

}  // namespace
}  // namespace small
