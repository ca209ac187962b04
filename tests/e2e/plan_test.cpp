// `small plan` end to end (issue 18 point 6): a five-task plan with
// dependencies, steps and acceptance in one call, and the same from a list
// on standard input; an error that names no rolled-back task; --undepend;
// D18 at write time with --force recorded.
#include <string>
#include <vector>

#include "support/run_binary.hpp"

namespace small_e2e {
namespace {

class PlanE2E : public ::testing::Test {
protected:
    void SetUp() override { ok({"init", "--no-agents", "--intent", "Five tasks"}); }
    RunResult small(const std::vector<std::string>& args, std::optional<std::string> stdin_text = {}) {
        RunOptions o;
        o.cwd = tmp_.path();
        o.stdin_text = std::move(stdin_text);
        return run_small(args, o);
    }
    void ok(const std::vector<std::string>& args) {
        const RunResult r = small(args);
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    std::string plan() const { return read_file(tmp_.path() / ".small" / "plan.small.yml"); }
    std::string log() const { return read_file(tmp_.path() / ".small" / "progress.small.yml"); }
    TempDir tmp_;
};

// D20, as issue 22 tried it: a hand-annotated plan keeps its comments,
// quoting and layout through --add, --done, --depends and --step; what
// cannot be kept is said, with the line.
TEST_F(PlanE2E, HandWrittenFormattingSurvivesEveryFlag) {
    const std::string written =
        "# Header: the greeter plan.\n"
        "small_version: \"1.0.0\"\n"
        "owner: \"agent\"\n"
        "tasks:\n"
        "  # first things first\n"
        "  - id: task-1\n"
        "    title: 'First'\n"
        "    status: pending   # rename later\n"
        "  - id: task-2\n"
        "    title: Second\n"
        "    status: pending\n";
    write_file(tmp_.path() / ".small" / "plan.small.yml", written);
    ok({"plan", "--add", "Third thing"});
    ok({"plan", "--done", "task-1"});
    ok({"plan", "--depends", "task-3:task-2", "--step", "task-2:write it"});
    EXPECT_EQ(plan(),
              "# Header: the greeter plan.\n"
              "small_version: \"1.0.0\"\n"
              "owner: \"agent\"\n"
              "tasks:\n"
              "  # first things first\n"
              "  - id: task-1\n"
              "    title: 'First'\n"
              "    status: completed   # rename later\n"
              "  - id: task-2\n"
              "    title: Second\n"
              "    status: pending\n"
              "    steps:\n"
              "      - write it\n"
              "  - id: task-3\n"
              "    title: Third thing\n"
              "    status: pending\n"
              "    depends_on:\n"
              "      - task-2\n");

    // A title written as a block scalar cannot be replaced in place: the
    // plan is written in house style, and the warning says where and why.
    std::string folded = plan();
    folded.replace(folded.find("title: Second"), 13, "title: |\n      Second,\n      in two lines");
    write_file(tmp_.path() / ".small" / "plan.small.yml", folded);
    const RunResult r = small({"plan", "--title", "task-2", "Second"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(r.err.find("Warning: .small/plan.small.yml:10: rewritten in house style, its comments and formatting "
                         "not kept (the value is not a one-line scalar)"),
              std::string::npos)
        << r;
    EXPECT_EQ(plan().find("# Header"), std::string::npos);
}

TEST_F(PlanE2E, AFiveTaskPlanWithDependenciesStepsAndAcceptanceIsOneCall) {
    const RunResult r = small({"plan", "--title", "task-1", "Read the spec", "--add", "Parse", "--add",
                               "Decide the edge case", "--add", "Implement", "--add", "Document", "--step",
                               "task-2:Tokenise", "--step", "task-2:Build the tree", "--acceptance",
                               "task-4:Prints the value", "--depends", "task-3:task-2", "--depends",
                               "task-4:task-2,task-3", "--depends", "task-5:task-4"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Added dependencies: task-4 depends on task-2, task-3")) << r;
    const std::string p = plan();
    EXPECT_TRUE(contains(p, "Build the tree")) << p;
    EXPECT_TRUE(contains(p, "Prints the value")) << p;
    const RunResult check = small({"check", "--strict"});
    EXPECT_EQ(check.exit_code, 0) << check;
    // Plan edits are bookkeeping: the primer starts the first task, nothing is "resumed".
    const RunResult brief = small({"status", "--brief"});
    EXPECT_TRUE(contains(brief.out, "Run next: small checkpoint --task task-1 --status in_progress")) << brief;
    EXPECT_FALSE(contains(brief.out, "Resume")) << brief;

    // --undepend drops one edge: the same again is refused, the other edge stays.
    ok({"plan", "--undepend", "task-4:task-3"});
    const RunResult again = small({"plan", "--undepend", "task-4:task-3"});
    EXPECT_EQ(again.exit_code, 1) << again;
    const RunResult duplicate = small({"plan", "--depends", "task-4:task-2"});
    EXPECT_EQ(duplicate.exit_code, 1) << duplicate;
}

TEST_F(PlanE2E, AnErrorNamesNoTaskARolledBackFlagWouldHaveAdded) {
    const std::string before_plan = plan(), before_log = log();
    const RunResult r = small({"plan", "--add", "A", "--add", "B", "--depends", "task-3:task-9"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "task-9")) << r;
    EXPECT_FALSE(contains(r.err, "task-2")) << r;  // rolled back with the call
    EXPECT_FALSE(contains(r.err, "task-3")) << r;
    EXPECT_EQ(plan(), before_plan);
    EXPECT_EQ(log(), before_log);
}

TEST_F(PlanE2E, AListOnStandardInputMergesByIdAndItsErrorsArePositioned) {
    const std::string list =
        "- id: task-1\n"
        "  title: Read the spec\n"
        "- title: Parse\n"
        "  steps: [Tokenise]\n"
        "- title: Evaluate\n"
        "  depends_on: [task-2]\n"
        "  acceptance: [Prints the value]\n";
    const RunResult r = small({"plan", "--from", "-", "--json"}, list);
    ASSERT_EQ(r.exit_code, 0) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["added_task_ids"], json::array({"task-2", "task-3"})) << r;
    EXPECT_TRUE(contains(plan(), "Read the spec"));
    // The same list again changes nothing.
    const std::string after = plan();
    const RunResult same = small({"plan", "--from", "-"}, "- id: task-1\n  title: Read the spec\n");
    ASSERT_EQ(same.exit_code, 0) << same;
    EXPECT_EQ(plan(), after);

    const std::string before_log = log();
    const RunResult bad = small({"plan", "--from", "-"}, "- id: task-2\n  status: finished\n");
    EXPECT_EQ(bad.exit_code, 1) << bad;
    EXPECT_TRUE(contains(bad.err, "stdin:2:11")) << bad;
    EXPECT_EQ(plan(), after);
    EXPECT_EQ(log(), before_log);
}

TEST_F(PlanE2E, CompletingBeforeTheDependenciesIsRefusedUnlessForcedAndThenRecorded) {
    ok({"plan", "--add", "Parse", "--depends", "task-2:task-1"});
    const std::string before = log();
    const RunResult refused = small({"plan", "--done", "task-2"});
    EXPECT_EQ(refused.exit_code, 1) << refused;
    EXPECT_TRUE(contains(refused.err, "task-1")) << refused;
    EXPECT_EQ(log(), before);
    ok({"plan", "--done", "task-2", "--force"});
    EXPECT_TRUE(contains(log(), "forced")) << log();
    // Both in one call is fine: the result is what is judged.
    ok({"plan", "--add", "Third", "--depends", "task-3:task-1", "--done", "task-1", "--done", "task-3"});
}

}  // namespace
}  // namespace small_e2e
