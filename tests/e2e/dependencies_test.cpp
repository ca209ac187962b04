// End-to-end tests of D18's write-time dependency rule and of honest time
// (issue 18, points 5 and 8): the real binary on a workspace in a fresh
// temporary directory. Completing a task before its dependencies is refused
// (exit 1, no byte written) unless --force, which the entry records; starting
// one warns; lint warns (INV-P10); an entry dated in the future is a lint
// warning (INV-R8) and a write stamped after it says so.
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.hpp"
#include "support/artifact_texts.hpp"

namespace {

using namespace small_e2e;
using small::test_fixtures::kRunId;
using small::test_fixtures::kIntent;
using small::test_fixtures::kConstraints;
using small::test_fixtures::kHandoff;

// task-4 waits for task-1 (done), task-2 (blocked) and task-3 (pending).
const std::string kPlan = R"(small_version: "1.0.0"
owner: "agent"
tasks:
  - id: "task-1"
    title: "Design"
    status: "completed"
  - id: "task-2"
    title: "Decide error or inf"
    status: "blocked"
  - id: "task-3"
    title: "Build"
    status: "pending"
  - id: "task-4"
    title: "Ship"
    status: "pending"
    depends_on:
      - "task-1"
      - "task-2"
      - "task-3"
)";

// The minimal log (support/artifact_texts.hpp) and two work entries.
const std::string kProgress = small::test_fixtures::kProgress + R"(  - timestamp: "2025-06-01T10:00:01.100000000Z"
    task_id: "task-1"
    status: "completed"
    evidence: "Design reviewed"
    replayId: ")" + kRunId + R"("
  - timestamp: "2025-06-01T10:00:02.100000000Z"
    task_id: "task-2"
    status: "blocked"
    evidence: "need a decision: error or inf?"
    replayId: ")" + kRunId + "\"\n";

const std::string kWorkspaceMeta = small::test_fixtures::minimal_workspace_meta(true);

const char* const kUnmet = "task-2 (blocked), task-3 (pending)";

class DependenciesTest : public ::testing::Test {
protected:
    TempDir tmp_;
    fs::path ws() const { return tmp_.path() / "ws"; }
    fs::path small_file(const std::string& name) const { return ws() / ".small" / name; }

    void SetUp() override {
        write_file(small_file("intent.small.yml"), kIntent);
        write_file(small_file("constraints.small.yml"), kConstraints);
        write_file(small_file("plan.small.yml"), kPlan);
        write_file(small_file("progress.small.yml"), kProgress);
        write_file(small_file("handoff.small.yml"), kHandoff);
        write_file(small_file("workspace.small.yml"), kWorkspaceMeta);
    }
    RunResult run(const std::vector<std::string>& args) { return run_in(ws(), args); }

    // Every file under .small/, by name.
    std::map<std::string, std::string> artifacts() const {
        std::map<std::string, std::string> out;
        for (const auto& e : fs::directory_iterator(ws() / ".small")) {
            if (e.is_regular_file()) out[e.path().filename().string()] = read_file(e.path());
        }
        return out;
    }
    std::string last_entry_field(const std::string& field) {
        const RunResult r = run({"progress", "list", "--json", "--limit", "1"});
        const std::optional<json> doc = parse_single_json(r.out);
        if (!doc || !(*doc).contains("entries") || (*doc)["entries"].empty()) return "(no entry: " + r.out + ")";
        const json& e = (*doc)["entries"].back();
        return e.contains(field) ? e[field].get<std::string>() : "";
    }
};

// ---------------------------------------------------------------- refusals

TEST_F(DependenciesTest, CheckpointCompletingBeforeDependenciesIsRefusedAndWritesNothing) {
    const auto before = artifacts();
    const RunResult r = run({"checkpoint", "--task", "task-4", "--status", "completed"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, std::string("its dependencies ") + kUnmet + " are not completed")) << r;
    EXPECT_TRUE(contains(r.err, "nothing written")) << r;
    EXPECT_TRUE(contains(r.err, "small checkpoint --task task-2 --status completed")) << r;
    EXPECT_TRUE(contains(r.err, "--force")) << r;
    EXPECT_EQ(artifacts(), before);  // D18: nothing written, byte for byte
}

TEST_F(DependenciesTest, RefusalInJsonIsAnInvalidError) {
    const auto before = artifacts();
    const RunResult r = run({"checkpoint", "--task", "task-4", "--status", "completed", "--json"});
    EXPECT_EQ(r.exit_code, 1) << r;
    const std::optional<json> doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["ok"], false) << r;
    EXPECT_TRUE(contains((*doc)["error"].dump(), kUnmet)) << r;
    EXPECT_EQ(artifacts(), before);
}

TEST_F(DependenciesTest, ProgressAddCompletedBeforeDependenciesIsRefused) {
    const auto before = artifacts();
    const RunResult r = run({"progress", "add", "--task", "task-4", "--status", "completed", "--evidence", "x"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, kUnmet)) << r;
    EXPECT_EQ(artifacts(), before);
}

TEST_F(DependenciesTest, ApplyForATaskBeforeItsDependenciesRunsNothing) {
    const auto before = artifacts();
    const RunResult r = run({"apply", "--task", "task-4", "--cmd", "touch ran"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, kUnmet)) << r;
    EXPECT_TRUE(contains(r.err, "nothing was run")) << r;
    EXPECT_FALSE(fs::exists(ws() / "ran")) << "the command ran";
    EXPECT_EQ(artifacts(), before);
}

TEST_F(DependenciesTest, ATaskWhoseDependenciesAreCompletedIsNotRefused) {
    const RunResult r = run({"checkpoint", "--task", "task-3", "--status", "completed"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_FALSE(contains(r.err, "Warning")) << r;
    EXPECT_EQ(last_entry_field("notes"), "");
}

// ---------------------------------------------------------------- --force

TEST_F(DependenciesTest, ForcedCheckpointIsRecordedInTheEntrysNotes) {
    const RunResult r =
        run({"checkpoint", "--task", "task-4", "--status", "completed", "--force", "--notes", "demo deadline"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(last_entry_field("notes"),
              std::string("forced: dependencies ") + kUnmet + " not completed; demo deadline");
    EXPECT_TRUE(contains(read_file(small_file("plan.small.yml")), "status: \"completed\"\n    depends_on")) << r;
}

TEST_F(DependenciesTest, ForcedProgressAddAndApplyAreRecorded) {
    RunResult r = run({"progress", "add", "--task", "task-4", "--status", "completed", "--force"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(last_entry_field("notes"), std::string("forced: dependencies ") + kUnmet + " not completed");
    r = run({"apply", "--task", "task-4", "--cmd", "true", "--force"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(last_entry_field("notes"),
              std::string("forced: dependencies ") + kUnmet + " not completed; apply: exit code 0");
}

// ---------------------------------------------------------------- starting early

TEST_F(DependenciesTest, StartingBeforeDependenciesWritesAndWarns) {
    const RunResult r = run({"checkpoint", "--task", "task-4", "--status", "in_progress"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, std::string("Warning: task-4 started before its dependencies are completed: ") +
                                    kUnmet)) << r;
    EXPECT_EQ(last_entry_field("status"), "in_progress");

    const RunResult j = run({"progress", "add", "--task", "task-4", "--status", "in_progress", "--json"});
    ASSERT_EQ(j.exit_code, 0) << j;
    const std::optional<json> doc = parse_single_json(j.out);
    ASSERT_TRUE(doc) << j;
    ASSERT_EQ((*doc)["warnings"].size(), 1u) << j;
    EXPECT_TRUE(contains((*doc)["warnings"][0].get<std::string>(), "task-4 started before its dependencies")) << j;

    const RunResult c = run({"checkpoint", "--task", "task-4", "--status", "in_progress", "--json"});
    ASSERT_EQ(c.exit_code, 0) << c;
    const std::optional<json> cdoc = parse_single_json(c.out);
    ASSERT_TRUE(cdoc) << c;
    EXPECT_EQ((*cdoc)["warnings"].size(), 1u) << c;
}

// ---------------------------------------------------------------- lint

TEST_F(DependenciesTest, LintWarnsAboutACompletedTaskWithIncompleteDependencies) {
    std::string plan = kPlan;
    const std::string pending = "title: \"Ship\"\n    status: \"pending\"";
    plan.replace(plan.find(pending), pending.size(), "title: \"Ship\"\n    status: \"completed\"");
    write_file(small_file("plan.small.yml"), plan);
    write_file(small_file("progress.small.yml"), kProgress + R"(  - timestamp: "2025-06-01T10:00:03.100000000Z"
    task_id: "task-4"
    status: "completed"
    evidence: "shipped anyway"
)");
    const RunResult r = run({"lint"});
    EXPECT_EQ(r.exit_code, 0) << r;  // a warning: the verdict stays the reference's
    // task-4's status is on line 15, its value at column 14 (inside the quotes).
    EXPECT_TRUE(contains(r.out + r.err, ".small/plan.small.yml:15:14: warning: task task-4 is completed but its "
                                        "dependencies are not: task-2 (blocked), task-3 (pending) [INV-P10]"))
        << r;
    const RunResult j = run({"lint", "--strict", "--json"});
    EXPECT_EQ(j.exit_code, 0) << j;
    EXPECT_TRUE(contains(j.out, "\"INV-P10\"")) << j;
    const RunResult check = run({"check", "--strict"});
    EXPECT_EQ(check.exit_code, 0) << check;
}

// ---------------------------------------------------------------- time

TEST_F(DependenciesTest, AnEntryDatedInTheFutureIsALintWarningAndAWriteAfterItSaysSo) {
    write_file(small_file("progress.small.yml"), kProgress + R"(  - timestamp: "2099-06-01T10:20:00Z"
    task_id: "task-3"
    status: "in_progress"
    evidence: "hand-written"
)");
    // The hand-written entry lacks fractional seconds: repair that first, the date stays.
    ASSERT_EQ(run({"progress", "migrate"}).exit_code, 0);
    const RunResult lint = run({"lint"});
    EXPECT_EQ(lint.exit_code, 0) << lint;
    EXPECT_TRUE(std::regex_search(lint.out + lint.err,
                                  std::regex(R"(\.small/progress\.small\.yml:18:17: warning: progress entry 3 )"
                                             R"(timestamp "2099-06-01T10:20:00Z" is \d+ years ahead of the clock)"
                                             R"(.*\[INV-R8\])")))
        << lint;

    const RunResult r = run({"progress", "add", "--task", "task-3", "--status", "in_progress"});
    ASSERT_EQ(r.exit_code, 0) << r;  // D8 needs increasing stamps: refusing would wedge the log
    EXPECT_TRUE(contains(r.err, "Warning: this entry is stamped 2099-06-01T10:20:00.000000001Z, not now")) << r;
    EXPECT_TRUE(contains(r.err, "progress entry 3 at .small/progress.small.yml:18:17 is dated 2099-06-01T10:20:00Z"))
        << r;
    EXPECT_TRUE(contains(r.err, "small lint lists them as INV-R8")) << r;
    EXPECT_EQ(last_entry_field("timestamp"), "2099-06-01T10:20:00.000000001Z");

    // The next write still names the first future entry, not the bumped one.
    const RunResult j = run({"checkpoint", "--task", "task-3", "--status", "completed", "--json"});
    ASSERT_EQ(j.exit_code, 0) << j;
    const std::optional<json> doc = parse_single_json(j.out);
    ASSERT_TRUE(doc) << j;
    ASSERT_EQ((*doc)["warnings"].size(), 1u) << j;
    EXPECT_TRUE(contains((*doc)["warnings"][0].get<std::string>(), "progress entry 3 at")) << j;
    EXPECT_TRUE(contains((*doc)["warnings"][0].get<std::string>(), "2099-06-01T10:20:00.000000002Z")) << j;
}

TEST_F(DependenciesTest, AWriteAfterPresentEntriesHasNoClockWarning) {
    const RunResult r = run({"progress", "add", "--task", "task-3", "--status", "in_progress"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_FALSE(contains(r.err, "Warning")) << r;
}

}  // namespace
