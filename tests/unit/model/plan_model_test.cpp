// The plan as an editable value and the task-queue rules shared by plan,
// checkpoint and handoff (plan_model.hpp): next ids, status normalisation,
// dependencies (alias, dedupe, errors in their documented order, cycles)
// and the runnable / blocked / done queries.
#include "small/model/plan_model.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace small {
namespace {

using Ids = std::vector<std::string>;

// A task; `status` nullopt leaves the key out.
YamlValue task(const std::string& id, std::optional<std::string> status = std::nullopt, const Ids& depends_on = {}) {
    YamlValue t = YamlValue::object();
    t["id"] = id;
    t["title"] = "Title of " + id;
    if (status) t["status"] = *status;
    if (!depends_on.empty()) {
        t["depends_on"] = YamlValue::array();
        for (const std::string& d : depends_on) t["depends_on"].push_back(d);
    }
    return t;
}

YamlValue plan_of(const std::vector<YamlValue>& tasks) {
    YamlValue p = YamlValue::object();
    p["small_version"] = "1.0.0";
    p["owner"] = "agent";
    p["tasks"] = YamlValue::array();
    for (const YamlValue& t : tasks) p["tasks"].push_back(t);
    return p;
}

YamlValue plan_with_ids(const Ids& ids) {
    std::vector<YamlValue> tasks;
    for (const std::string& id : ids) tasks.push_back(task(id));
    return plan_of(tasks);
}

Ids keys_of(const YamlValue& object) {
    Ids out;
    for (auto it = object.begin(); it != object.end(); ++it) out.push_back(it.key());
    return out;
}

// ------------------------------------------------------------ next_task_id

TEST(PlanModelNextTaskId, EmptyOrMissingTaskListGivesTask1) {
    EXPECT_EQ(next_task_id(plan_with_ids({})), "task-1");
    EXPECT_EQ(next_task_id(YamlValue::object()), "task-1");
    EXPECT_EQ(next_task_id(YamlValue()), "task-1");
    YamlValue not_a_list = YamlValue::object();
    not_a_list["tasks"] = "oops";
    EXPECT_EQ(next_task_id(not_a_list), "task-1");
}

TEST(PlanModelNextTaskId, FollowsTheLargestNumberAndNeverReusesGaps) {
    EXPECT_EQ(next_task_id(plan_with_ids({"task-1"})), "task-2");
    EXPECT_EQ(next_task_id(plan_with_ids({"task-1", "task-2", "task-3"})), "task-4");
    EXPECT_EQ(next_task_id(plan_with_ids({"task-1", "task-5", "task-3"})), "task-6");
    EXPECT_EQ(next_task_id(plan_with_ids({"task-1", "custom-task", "task-10"})), "task-11");
    EXPECT_EQ(next_task_id(plan_with_ids({"task-10", "task-9"})), "task-11");  // numeric, not lexical
}

TEST(PlanModelNextTaskId, IgnoresIdsThatAreNotExactlyTaskDashDigits) {
    EXPECT_EQ(next_task_id(plan_with_ids({"custom-task", "Task-7", "task-", "task-3a", "xtask-9", "task-+8",
                                          "task- 4", "task-4 "})),
              "task-1");
    EXPECT_EQ(next_task_id(plan_with_ids({"task-007"})), "task-8");
    // A task without a string id is skipped, not an error.
    YamlValue p = plan_with_ids({"task-2"});
    YamlValue odd = YamlValue::object();
    odd["id"] = 99;
    odd["title"] = "numeric id";
    p["tasks"].push_back(odd);
    p["tasks"].push_back("not a mapping");
    EXPECT_EQ(next_task_id(p), "task-3");
}

// ------------------------------------------------------------ find_task

TEST(PlanModelFindTask, ReturnsTheIndexOfTheExactId) {
    const YamlValue p = plan_with_ids({"task-1", "custom", "task-3"});
    EXPECT_EQ(find_task(p, "task-1"), std::optional<std::size_t>(0));
    EXPECT_EQ(find_task(p, "custom"), std::optional<std::size_t>(1));
    EXPECT_EQ(find_task(p, "task-3"), std::optional<std::size_t>(2));
    EXPECT_FALSE(find_task(p, "task-2"));
    EXPECT_FALSE(find_task(p, "TASK-1"));
    EXPECT_FALSE(find_task(p, " task-1"));
    EXPECT_FALSE(find_task(p, ""));
    EXPECT_FALSE(find_task(YamlValue::object(), "task-1"));
}

TEST(PlanModelFindTask, FirstOfDuplicateIdsWins) {
    const YamlValue p = plan_with_ids({"a", "b", "a"});
    EXPECT_EQ(find_task(p, "a"), std::optional<std::size_t>(0));
}

// ------------------------------------------------------------ task_status

TEST(PlanModelTaskStatus, TrimmedAndLowerCased) {
    EXPECT_EQ(task_status(task("t", " In_Progress ")).word(), "in_progress");
    EXPECT_EQ(task_status(task("t", "COMPLETED")).word(), "completed");
    EXPECT_EQ(task_status(task("t", "\tBlocked\n")).word(), "blocked");
    EXPECT_EQ(task_status(task("t", "cancelled")).word(), "cancelled");
}

TEST(PlanModelTaskStatus, AWordOfItsOwnIsKept) {
    const WrittenStatus review = task_status(task("t", " Review "));
    EXPECT_EQ(review.word(), "review");
    EXPECT_EQ(review.known(), std::nullopt);
}

TEST(PlanModelTaskStatus, BlankMissingOrNonStringMeansPending) {
    EXPECT_EQ(task_status(task("t")).word(), "pending");
    EXPECT_EQ(task_status(task("t", "")).word(), "pending");
    EXPECT_EQ(task_status(task("t", "   ")).word(), "pending");
    YamlValue numeric = task("t");
    numeric["status"] = 3;
    EXPECT_EQ(task_status(numeric).word(), "pending");
    YamlValue null_status = task("t");
    null_status["status"] = nullptr;
    EXPECT_EQ(task_status(null_status).word(), "pending");
    EXPECT_EQ(task_status(YamlValue("not a task")).word(), "pending");
}

TEST(PlanModelSetTaskStatus, KeepsTheKeyPositionOrAppendsIt) {
    YamlValue t = YamlValue::object();
    t["id"] = "task-1";
    t["status"] = "pending";
    t["title"] = "x";
    set_task_status(t, TaskStatus::Completed);
    EXPECT_EQ(keys_of(t), (Ids{"id", "status", "title"}));
    EXPECT_EQ(t["status"], "completed");

    YamlValue u = task("task-2");
    set_task_status(u, TaskStatus::Blocked);
    EXPECT_EQ(keys_of(u), (Ids{"id", "title", "status"}));
    EXPECT_EQ(task_status(u).word(), "blocked");
}

// ------------------------------------------------------------ task_dependencies

TEST(PlanModelUnmetDependencies, NamesEveryDependencyThatIsNotCompletedInOrder) {
    const YamlValue plan = plan_of({task("a", "completed"), task("b", "blocked"), task("c"),
                                    task("d", "pending", {"a", "b", "ghost", "c"})});
    EXPECT_EQ(unmet_dependencies(plan, "d"), (Ids{"b", "ghost", "c"}));
    EXPECT_EQ(unmet_dependencies(plan, "a"), Ids{});
    EXPECT_EQ(unmet_dependencies(plan, "unknown"), Ids{});
}

TEST(PlanModelBookkeepingEntry, PlanEditLogLinesAndMetaEntriesAreNotWork) {
    EXPECT_TRUE(is_bookkeeping_entry("task-2", "Added task task-2 via small plan --add", "Title"));
    EXPECT_TRUE(is_bookkeeping_entry("task-2", "Added dependency task-1 to task-2", "small plan --depends"));
    EXPECT_TRUE(is_bookkeeping_entry("task-2", "Updated task task-2 to blocked via small plan --blocked", ""));
    EXPECT_TRUE(is_bookkeeping_entry("meta/plan-reset", "Reset plan.small.yml to the template", ""));
    // The MCP plan tool signs its edits with its own name, not a CLI flag.
    EXPECT_TRUE(is_bookkeeping_entry("task-8", "Added task task-8 via the MCP plan tool", "Benchmarks"));
    EXPECT_TRUE(is_bookkeeping_entry("task-8", "Added dependency task-3 to task-8 via the MCP plan tool", "MCP plan tool"));
    EXPECT_TRUE(is_bookkeeping_entry("task-8", "Added dependency task-3 to task-8", "MCP plan tool; claimed by a"));
    // A person's edit on small serve's board, signed with the board and the person.
    EXPECT_TRUE(is_bookkeeping_entry("task-8", "Added task task-8 via the board (small serve) by carol", "Benchmarks"));
    EXPECT_TRUE(is_bookkeeping_entry("task-8", "Updated task task-8 to pending", "small serve board: plan --pending by carol"));
    EXPECT_FALSE(is_bookkeeping_entry("task-8", "Blocked: waiting on the keys", "blocked by carol on the board (small serve)"));
    EXPECT_FALSE(is_bookkeeping_entry("task-8", "Wired the MCP plan tool into the server", "tested by hand"));
    EXPECT_FALSE(is_bookkeeping_entry("task-2", "Started on flag parsing", ""));
    EXPECT_FALSE(is_bookkeeping_entry("task-2", "exit_code=0", "apply: exit code 0"));
}

TEST(PlanModelTaskDependencies, DependsOnThenAliasDeduplicatedInOrder) {
    YamlValue t = task("t");
    t["depends_on"] = YamlValue::array({"b", "a", "b"});
    t["dependencies"] = YamlValue::array({"c", "a", "d"});
    EXPECT_EQ(task_dependencies(t), (Ids{"b", "a", "c", "d"}));
}

TEST(PlanModelTaskDependencies, AliasAloneNonStringsAndNonListsAreHandled) {
    YamlValue alias = task("t");
    alias["dependencies"] = YamlValue::array({"x", "y"});
    EXPECT_EQ(task_dependencies(alias), (Ids{"x", "y"}));

    YamlValue mixed = task("t");
    mixed["depends_on"] = YamlValue::array({"x", 7, nullptr, "y"});
    EXPECT_EQ(task_dependencies(mixed), (Ids{"x", "y"}));

    YamlValue scalar = task("t");
    scalar["depends_on"] = "x";  // not a list: ignored
    EXPECT_TRUE(task_dependencies(scalar).empty());
    EXPECT_TRUE(task_dependencies(task("t")).empty());
}

// ------------------------------------------------------------ add_dependency

TEST(PlanModelAddDependency, AddsToDependsOnCreatingTheKey) {
    YamlValue p = plan_with_ids({"task-1", "task-2"});
    ASSERT_TRUE(add_dependency(p, "task-2", "task-1").ok());
    EXPECT_EQ(p["tasks"][1]["depends_on"], YamlValue::array({"task-1"}));
    EXPECT_FALSE(p["tasks"][1].contains("dependencies"));
    EXPECT_FALSE(p["tasks"][0].contains("depends_on"));
}

TEST(PlanModelAddDependency, UsesTheAliasWhenOnlyItExists) {
    YamlValue p = plan_with_ids({"a", "b", "c"});
    p["tasks"][2]["dependencies"] = YamlValue::array({"a"});
    ASSERT_TRUE(add_dependency(p, "c", "b").ok());
    EXPECT_EQ(p["tasks"][2]["dependencies"], YamlValue::array({"a", "b"}));
    EXPECT_FALSE(p["tasks"][2].contains("depends_on"));

    // Both keys: depends_on gets it.
    p["tasks"][1]["depends_on"] = YamlValue::array();
    p["tasks"][1]["dependencies"] = YamlValue::array();
    ASSERT_TRUE(add_dependency(p, "b", "a").ok());
    EXPECT_EQ(p["tasks"][1]["depends_on"], YamlValue::array({"a"}));
    EXPECT_EQ(p["tasks"][1]["dependencies"], YamlValue::array());
}

void expect_invalid(const Status& s, const std::string& fragment) {
    ASSERT_FALSE(s.ok()) << "expected an error containing: " << fragment;
    EXPECT_EQ(s.error().kind, Error::Kind::Invalid) << s.error().message;
    EXPECT_NE(s.error().message.find(fragment), std::string::npos) << s.error().message;
}

TEST(PlanModelAddDependency, ErrorsComeInTheDocumentedOrder) {
    YamlValue p = plan_with_ids({"task-1", "task-2"});
    p["tasks"][1]["depends_on"] = YamlValue::array({"task-1"});
    const YamlValue before = p;

    // Unknown task beats unknown dependency (and self).
    expect_invalid(add_dependency(p, "ghost", "phantom"), "task ghost not found");
    expect_invalid(add_dependency(p, "ghost", "ghost"), "task ghost not found");
    // Unknown dependency.
    expect_invalid(add_dependency(p, "task-1", "phantom"), "dependency task phantom not found");
    // Self-dependency.
    expect_invalid(add_dependency(p, "task-1", "task-1"), "cannot depend on itself");
    // Duplicate (also through the alias).
    expect_invalid(add_dependency(p, "task-2", "task-1"), "already exists");
    YamlValue aliased = plan_with_ids({"a", "b"});
    aliased["tasks"][1]["dependencies"] = YamlValue::array({"a"});
    expect_invalid(add_dependency(aliased, "b", "a"), "already exists");
    // None of these changed the plan.
    EXPECT_EQ(p, before);
}

TEST(PlanModelAddDependency, CycleIsRefusedWithThePath) {
    YamlValue p = plan_with_ids({"task-1", "task-2", "task-3"});
    p["tasks"][1]["depends_on"] = YamlValue::array({"task-1"});  // 2 -> 1
    p["tasks"][2]["depends_on"] = YamlValue::array({"task-2"});  // 3 -> 2
    const Status s = add_dependency(p, "task-1", "task-3");       // 1 -> 3 closes it
    expect_invalid(s, "would create a cycle: task-1 -> task-3 -> task-2 -> task-1");

    // The path is found from the tasks in plan order (find_dependency_cycle),
    // so it starts at "a" even though the new edge is b -> a.
    YamlValue two = plan_with_ids({"a", "b"});
    two["tasks"][0]["depends_on"] = YamlValue::array({"b"});
    expect_invalid(add_dependency(two, "b", "a"), "dependency a for task b would create a cycle: a -> b -> a");
}

// Every other refusal leaves the plan as it was; a refused edge that would
// close a cycle should not stay in the plan either.
TEST(PlanModelAddDependency, RefusedCycleLeavesThePlanUnchanged) {
    YamlValue p = plan_with_ids({"a", "b"});
    p["tasks"][0]["depends_on"] = YamlValue::array({"b"});
    const YamlValue before = p;
    ASSERT_FALSE(add_dependency(p, "b", "a").ok());
    EXPECT_EQ(p, before) << "the refused edge was left in the plan: " << p.dump();
    EXPECT_FALSE(find_dependency_cycle(p)) << "the plan is left cyclic after the refusal";
}

// ------------------------------------------------------------ find_dependency_cycle

TEST(PlanModelCycle, NoneInAnAcyclicPlan) {
    YamlValue p = plan_of({task("a"), task("b", std::nullopt, {"a"}), task("c", std::nullopt, {"a", "b"}),
                           task("d", std::nullopt, {"ghost"})});
    EXPECT_FALSE(find_dependency_cycle(p));
    EXPECT_FALSE(find_dependency_cycle(plan_with_ids({})));
}

TEST(PlanModelCycle, ThreeCycleIsAClosedPathFromTheFirstTaskInPlanOrder) {
    const YamlValue p = plan_of({task("x"), task("a", std::nullopt, {"b"}), task("b", std::nullopt, {"c"}),
                                 task("c", std::nullopt, {"a"})});
    const auto cycle = find_dependency_cycle(p);
    ASSERT_TRUE(cycle);
    EXPECT_EQ(*cycle, (Ids{"a", "b", "c", "a"}));
}

TEST(PlanModelCycle, CycleReachedThroughATailStartsAtTheRepeatedTask) {
    // s -> a -> b -> a: the cycle is a -> b -> a, without s.
    const YamlValue p = plan_of({task("s", std::nullopt, {"a"}), task("a", std::nullopt, {"b"}),
                                 task("b", std::nullopt, {"a"})});
    const auto cycle = find_dependency_cycle(p);
    ASSERT_TRUE(cycle);
    EXPECT_EQ(*cycle, (Ids{"a", "b", "a"}));
}

TEST(PlanModelCycle, SelfLoopViaTheAliasIsACycle) {
    YamlValue p = plan_with_ids({"a"});
    p["tasks"][0]["dependencies"] = YamlValue::array({"a"});
    const auto cycle = find_dependency_cycle(p);
    ASSERT_TRUE(cycle);
    EXPECT_EQ(*cycle, (Ids{"a", "a"}));
}

YamlValue long_chain(std::size_t n) {
    // task-i depends on task-(i+1): the search from task-1 goes n deep.
    YamlValue p = YamlValue::object();
    p["tasks"] = YamlValue::array();
    for (std::size_t i = 1; i <= n; ++i) {
        YamlValue t = YamlValue::object();
        t["id"] = "task-" + std::to_string(i);
        t["title"] = "t";
        if (i < n) t["depends_on"] = YamlValue::array({"task-" + std::to_string(i + 1)});
        p["tasks"].push_back(std::move(t));
    }
    return p;
}

TEST(PlanModelCycle, HundredThousandTaskChainDoesNotOverflowTheStack) {
    constexpr std::size_t n = 100'000;
    YamlValue p = long_chain(n);
    EXPECT_FALSE(find_dependency_cycle(p));

    // Closing the chain: the cycle is all of it.
    p["tasks"][n - 1]["depends_on"] = YamlValue::array({"task-1"});
    const auto cycle = find_dependency_cycle(p);
    ASSERT_TRUE(cycle);
    ASSERT_EQ(cycle->size(), n + 1);
    EXPECT_EQ(cycle->front(), "task-1");
    EXPECT_EQ((*cycle)[1], "task-2");
    EXPECT_EQ((*cycle)[n - 1], "task-" + std::to_string(n));
    EXPECT_EQ(cycle->back(), "task-1");
}

// ------------------------------------------------------------ queue queries

TEST(PlanModelNextRunnable, InProgressWinsOverEarlierPendingTasks) {
    const YamlValue p = plan_of({task("a", "pending"), task("b", "completed"), task("c", " IN_PROGRESS "),
                                 task("d", "in_progress")});
    EXPECT_EQ(next_runnable_task(p), std::optional<std::string>("c"));
}

TEST(PlanModelNextRunnable, FirstPendingWithAllDependenciesCompleted) {
    const YamlValue p = plan_of({task("a", "completed"), task("b", "pending", {"c"}), task("c", "pending"),
                                 task("d", "pending", {"a"})});
    // b waits on c (pending); c has no dependencies and comes first in plan order.
    EXPECT_EQ(next_runnable_task(p), std::optional<std::string>("c"));

    const YamlValue q = plan_of({task("a", "Completed"), task("b", "pending", {"a", "e"}), task("e", "completed"),
                                 task("f", "pending")});
    EXPECT_EQ(next_runnable_task(q), std::optional<std::string>("b"));
}

TEST(PlanModelNextRunnable, UnknownCancelledOrBlockedDependenciesBlock) {
    EXPECT_EQ(next_runnable_task(plan_of({task("a", "pending", {"ghost"}), task("b", "pending")})),
              std::optional<std::string>("b"));
    EXPECT_FALSE(next_runnable_task(plan_of({task("a", "pending", {"ghost"})})));
    EXPECT_FALSE(next_runnable_task(plan_of({task("x", "cancelled"), task("a", "pending", {"x"})})));
    EXPECT_FALSE(next_runnable_task(plan_of({task("x", "blocked"), task("a", "pending", {"x"})})));
}

TEST(PlanModelNextRunnable, BlankOrMissingStatusCountsAsPending) {
    EXPECT_EQ(next_runnable_task(plan_of({task("a", "completed"), task("b", "  ")})), std::optional<std::string>("b"));
    EXPECT_EQ(next_runnable_task(plan_of({task("a", "completed"), task("b")})), std::optional<std::string>("b"));
    // ...and a blank-status dependency is not completed.
    EXPECT_EQ(next_runnable_task(plan_of({task("a", ""), task("b", "pending", {"a"})})), std::optional<std::string>("a"));
}

TEST(PlanModelNextRunnable, NothingRunnableWhenAllDoneOrBlocked) {
    EXPECT_FALSE(next_runnable_task(plan_of({task("a", "completed"), task("b", "cancelled"), task("c", "blocked")})));
    EXPECT_FALSE(next_runnable_task(plan_with_ids({})));
    EXPECT_FALSE(next_runnable_task(YamlValue::object()));
}

TEST(PlanModelFirstBlocked, FirstBlockedInPlanOrderNormalised) {
    EXPECT_EQ(first_blocked_task(plan_of({task("a", "pending"), task("b", " BLOCKED"), task("c", "blocked")})),
              std::optional<std::string>("b"));
    EXPECT_FALSE(first_blocked_task(plan_of({task("a", "pending"), task("b", "completed")})));
    EXPECT_FALSE(first_blocked_task(YamlValue::object()));
}

TEST(PlanModelAllTasksDone, CompletedOrCancelledAndNotEmpty) {
    EXPECT_TRUE(all_tasks_done(plan_of({task("a", "completed"), task("b", "Cancelled "), task("c", " COMPLETED")})));
    EXPECT_FALSE(all_tasks_done(plan_of({task("a", "completed"), task("b")})));
    EXPECT_FALSE(all_tasks_done(plan_of({task("a", "completed"), task("b", "blocked")})));
    EXPECT_FALSE(all_tasks_done(plan_of({task("a", "completed"), task("b", "in_progress")})));
    EXPECT_FALSE(all_tasks_done(plan_with_ids({})));
    EXPECT_FALSE(all_tasks_done(YamlValue::object()));
}

}  // namespace
}  // namespace small
