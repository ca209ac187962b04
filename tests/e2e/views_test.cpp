// `small plan show [ID]` and `small progress list`: read-only views, text and JSON.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_helper.hpp"

namespace {

using namespace small_e2e;

// init, a retitled task-1, task-2 and task-3 (depends on task-2), task-2 started.
class ViewsTest : public ::testing::Test {
protected:
    TempDir tmp_;
    fs::path root() const { return tmp_.path(); }
    RunResult run(const std::vector<std::string>& args) { return run_in(root(), args); }

    void SetUp() override {
        seed_three_tasks(
            root(), {"checkpoint", "--task", "task-2", "--status", "in_progress", "--evidence", "started parsing"});
    }
};

TEST_F(ViewsTest, PlanShowListsTasksAndTheNextOne) {
    const std::string before = read_file(root() / ".small" / "plan.small.yml");
    RunResult r = run({"plan", "show"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "task-1  pending      Review the layout\n")) << r;
    EXPECT_TRUE(contains(r.out, "task-3  pending      Print it  (depends on task-2)\n")) << r;
    EXPECT_TRUE(contains(r.out, "Next task: task-2\n")) << r;
    r = run({"plan", "show", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const json doc = json::parse(r.out);
    EXPECT_EQ(doc["command"], "plan show");
    ASSERT_EQ(doc["tasks"].size(), 3u);
    EXPECT_EQ(doc["tasks"][1]["status"], "in_progress");
    EXPECT_EQ(doc["tasks"][2]["depends_on"], json::array({"task-2"}));
    EXPECT_EQ(doc["next_task"], "task-2");
    EXPECT_EQ(read_file(root() / ".small" / "plan.small.yml"), before);  // read-only
}

TEST_F(ViewsTest, PlanShowTaskHasDependenciesDependentsAndTheRunsEntries) {
    RunResult r = run({"plan", "show", "task-3"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "task-3: Print it\nstatus: pending\ndepends on: task-2 (in_progress)\n")) << r;
    r = run({"plan", "show", "task-2", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const json doc = json::parse(r.out);
    EXPECT_EQ(doc["tasks"][0]["id"], "task-2");
    EXPECT_EQ(doc["dependents"], json::array({"task-3"}));
    ASSERT_EQ(doc["entries"].size(), 2u) << doc.dump(2);  // checkpoint, then plan --add: newest first
    EXPECT_EQ(doc["entries"][0]["evidence"], "started parsing");
    EXPECT_EQ(doc["entries"][1]["status"], "pending");
    r = run({"plan", "show", "task-2", "--limit", "1", "--json"});
    EXPECT_EQ(json::parse(r.out)["entries"].size(), 1u);
    EXPECT_EQ(json::parse(r.out)["more_entries"], true);
}

TEST_F(ViewsTest, PlanShowOfAnUnknownTaskSuggestsTheClosest) {
    RunResult r = run({"plan", "show", "task-22"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "Did you mean task-2?")) << r;
    EXPECT_FALSE(contains(r.err, "nothing written")) << r;
}

TEST_F(ViewsTest, ProgressListIsNewestFirstAndFilters) {
    RunResult r = run({"progress", "list", "--limit", "2"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const std::size_t first = r.out.find("started parsing");
    const std::size_t second = r.out.find("Added dependency task-2 to task-3");
    ASSERT_NE(first, std::string::npos) << r;
    EXPECT_LT(first, second) << r;
    EXPECT_TRUE(contains(r.out, "more: raise --limit")) << r;
    r = run({"progress", "list", "--task", "task-3", "--status", "pending", "--limit", "0", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    json doc = json::parse(r.out);
    ASSERT_EQ(doc["entries"].size(), 2u) << doc.dump(2);
    for (const json& e : doc["entries"]) EXPECT_EQ(e["task_id"], "task-3");
    EXPECT_EQ(doc["more"], false);
    r = run({"progress", "list", "--since", "2999-01-01T00:00:00Z", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(json::parse(r.out)["entries"].empty());
    r = run({"progress", "list", "--since", "yesterday"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "--since")) << r;
}

TEST(ViewsNoWorkspace, BothViewsSayToRunInit) {
    TempDir tmp;
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"plan", "show"}, {"progress", "list"}}) {
        const RunResult r = run_in(tmp.path(), args);
        EXPECT_EQ(r.exit_code, 2) << r;
        EXPECT_TRUE(contains(r.err, "small init")) << r;
    }
}

}  // namespace
