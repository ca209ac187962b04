// Issue 41, point 3: two tasks with one id. The reference accepts the plan,
// so lint and check only warn (INV-P11, at the second id's file:line:column,
// the id named, a fix; exit 0 as the shared case verdict/078 expects); every
// write, claim and ready refuse to act on the ambiguous id (exit 1, nothing
// written, both lines named), and the resume point does not suggest it.
#include "support/run_binary.hpp"

namespace small_e2e {
namespace {

class DuplicateIds : public ::testing::Test {
protected:
    void SetUp() override {
        ok({"init", "--no-agents", "--intent", "One id, one task"});
        ok({"plan", "--add", "Second", "--add", "Third"});
        // A hand edit: a second task-1 (no entry names it, so S2 stays clean).
        std::string text = read_file(plan()) + "  - id: \"task-1\"\n    title: \"Again\"\n    status: \"pending\"\n";
        std::ofstream(plan(), std::ios::trunc | std::ios::binary) << text;
        // The lines of the two ids, 1-based.
        std::size_t line = 1;
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text.compare(i, 12, "id: \"task-1\"") == 0) lines_.push_back(line);
            if (text[i] == '\n') ++line;
        }
        ASSERT_EQ(lines_.size(), 2u);
    }
    fs::path plan() const { return tmp_.path() / ".small/plan.small.yml"; }
    fs::path log() const { return tmp_.path() / ".small/progress.small.yml"; }
    RunResult small(const std::vector<std::string>& args) { return run_in(tmp_.path(), args); }
    void ok(const std::vector<std::string>& args) {
        const RunResult r = small(args);
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    // `args` refused: exit 1, no file of .small/ changed, both lines named.
    void refused(const std::vector<std::string>& args) {
        const std::string plan_before = read_file(plan()), log_before = read_file(log());
        const RunResult r = small(args);
        EXPECT_EQ(r.exit_code, 1) << r;
        const std::string both = "lines " + std::to_string(lines_[0]) + " and " + std::to_string(lines_[1]);
        EXPECT_TRUE(contains(r.err + r.out, both)) << both << "\n" << r;
        EXPECT_TRUE(contains(r.err + r.out, "task-1")) << r;
        EXPECT_EQ(read_file(plan()), plan_before);
        EXPECT_EQ(read_file(log()), log_before);
    }

    TempDir tmp_;
    std::vector<std::size_t> lines_;
};

TEST_F(DuplicateIds, LintAndCheckWarnAtTheSecondIdAndStillPass) {
    const std::string where = ".small/plan.small.yml:" + std::to_string(lines_[1]) + ":";
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"lint"}, {"lint", "--strict"}, {"check", "--strict"}, {"verify", "--strict"}}) {
        const RunResult r = small(args);
        if (args[0] == "verify") {
            EXPECT_EQ(r.exit_code, 0) << r;
            continue;
        }
        EXPECT_EQ(r.exit_code, 0) << r;
        EXPECT_TRUE(contains(r.out + r.err, "[INV-P11]")) << r;
        EXPECT_TRUE(contains(r.out + r.err, where)) << where << "\n" << r;
        EXPECT_TRUE(contains(r.out + r.err, "task id \"task-1\" is used again")) << r;
        EXPECT_TRUE(contains(r.out + r.err, "new, unused id")) << r;
    }
    const RunResult j = small({"check", "--strict", "--json"});
    EXPECT_EQ(j.exit_code, 0) << j;
    EXPECT_TRUE(contains(j.out, "INV-P11")) << j;
}

TEST_F(DuplicateIds, EveryWriteRefusesTheAmbiguousIdAndWritesNothing) {
    refused({"plan", "--done", "task-1"});
    refused({"plan", "--in-progress", "task-1"});
    refused({"plan", "--done", "task-1", "--add", "More"});
    refused({"plan", "--title", "task-1", "New title"});
    refused({"plan", "--step", "task-1: a step"});
    refused({"plan", "--acceptance", "task-1: a criterion"});
    refused({"plan", "--depends", "task-3:task-1"});
    refused({"plan", "--remove", "task-1"});
    refused({"progress", "add", "--task", "task-1", "--status", "in_progress", "--evidence", "x"});
    refused({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "x"});
    refused({"apply", "--task", "task-1", "--cmd", "true"});
    refused({"claim", "task-1"});
    // Another task is not ambiguous.
    ok({"progress", "add", "--task", "task-3", "--status", "in_progress", "--evidence", "x"});
}

TEST_F(DuplicateIds, NeitherReadyNorTheResumePointSuggestsIt) {
    const RunResult ready = small({"ready", "--json"});
    EXPECT_EQ(ready.exit_code, 0) << ready;
    EXPECT_FALSE(contains(ready.out, "\"task-1\"")) << ready;
    const RunResult show = small({"plan", "show"});
    EXPECT_FALSE(contains(show.out, "Next task: task-1")) << show;
    ok({"handoff"});
    EXPECT_FALSE(contains(read_file(tmp_.path() / ".small/handoff.small.yml"), "current_task_id: \"task-1\""));
}

}  // namespace
}  // namespace small_e2e
