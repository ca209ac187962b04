// The page's state document: tasks with their marks, edges, the inbox,
// the ready queue, the artifacts, and the newest entries only.
#include <gtest/gtest.h>

#include "support/fixtures.hpp"
#include "small/ops/session/checkpoint.hpp"
#include "small/ops/session/plan.hpp"
#include "small/serve/board_state.hpp"

namespace small::serve {
namespace {

using namespace small::testing;

TEST(BoardState, ShowsTasksInboxReadyAndRecent) {
    InitWorkspace w("Ship the greeter");
    PlanRequest plan = plan_req();
    plan.add = {"Parse <flags>", "Print it", "Wait for keys"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), plan));
    PlanRequest deps = plan_req();
    deps.depends = {"task-3:task-2"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), deps));
    CheckpointRequest block = checkpoint_req("task-4", TaskStatus::Blocked);
    block.evidence = "ops must provision the keys";
    ASSERT_TRUE(checkpoint_command(w.fs(), w.ws(), block));

    StateOptions options;
    options.recent = 2;
    options.sides = false;
    Result<nlohmann::json> state = board_state(w.fs(), w.ws(), options);
    ASSERT_TRUE(state) << state.error().describe();
    const nlohmann::json& s = *state;
    ASSERT_EQ(s["tasks"].size(), 4u) << s.dump();  // init's task-1, then ours
    EXPECT_EQ(s["tasks"][1]["title"], "Parse <flags>");  // as written: the page escapes
    EXPECT_EQ(s["tasks"][3]["status"], "blocked");
    EXPECT_EQ(s["tasks"][3]["reason"], "ops must provision the keys");
    EXPECT_EQ(s["edges"], nlohmann::json::parse(R"([["task-2","task-3"]])"));  // --depends task-3:task-2
    ASSERT_EQ(s["inbox"].size(), 1u);
    EXPECT_EQ(s["inbox"][0]["id"], "task-4");
    EXPECT_EQ(s["inbox"][0]["reason"], "ops must provision the keys");
    ASSERT_FALSE(s["ready"].empty());
    EXPECT_EQ(s["ready"][0]["id"], "task-1");
    EXPECT_EQ(s["recent"].size(), 2u);  // bounded
    EXPECT_EQ(s["recent"][0]["task_id"], "task-4");  // newest first
    EXPECT_EQ(s["intent"]["intent"], "Ship the greeter") << s["intent"].dump();
    EXPECT_FALSE(s["write"].get<bool>());
    EXPECT_FALSE(s.contains("sides"));
}

TEST(BoardState, OutsideGitTheSidesAreAProblemNotAFailure) {
    InitWorkspace w;
    Result<nlohmann::json> state = board_state(w.fs(), w.ws(), StateOptions{});
    ASSERT_TRUE(state) << state.error().describe();
    EXPECT_TRUE((*state)["sides"].empty());
    EXPECT_FALSE((*state)["problems"].empty());
}

TEST(BoardState, WithoutAWorkspaceItFails) {
    TempDir dir;
    WorkspacePaths ws;
    ws.root = dir.root();
    ws.small_dir = dir.root() + "/.small";
    EXPECT_FALSE(board_state(real_fs, ws, StateOptions{}));
}

}  // namespace
}  // namespace small::serve
