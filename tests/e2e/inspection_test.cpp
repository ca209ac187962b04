// `small status`, `small emit` and `small doctor` through the real binary:
// text, JSON, exit codes, workspace discovery and hostile inputs.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.hpp"

namespace {

using namespace small_e2e;

// init, three tasks (task-3 depends on task-2), task-1 completed.
class InspectionTest : public ::testing::Test {
protected:
    TempDir tmp_;
    fs::path root() const { return tmp_.path(); }
    fs::path small_file(const std::string& name) const { return root() / ".small" / name; }
    RunResult run(const std::vector<std::string>& args) { return run_in(root(), args); }

    void SetUp() override {
        seed_three_tasks(root(),
                         {"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "layout reviewed"});
    }

    // A progress log of `n` more entries appended by hand (fast).
    void grow_log(std::size_t n) {
        std::string text = read_file(small_file("progress.small.yml"));
        for (std::size_t i = 0; i < n; ++i) {
            char ts[64];
            std::snprintf(ts, sizeof ts, "2030-01-01T%02zu:%02zu:%02zu.%09zuZ", i / 3600 % 24, i / 60 % 60, i % 60, i);
            text += std::string("  - timestamp: \"") + ts + "\"\n    task_id: \"task-2\"\n    status: \"in_progress\"\n"
                    "    evidence: \"step " + std::to_string(i) + "\"\n";
        }
        write_file(small_file("progress.small.yml"), text);
    }
};

TEST_F(InspectionTest, StatusTextShowsVersionOnceArtifactsQueueAndRecentProgress) {
    const RunResult r = run({"status"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(r.out.rfind("small v", 0) == 0) << r;
    EXPECT_FALSE(contains(r.out, "small vv")) << r;
    EXPECT_TRUE(contains(r.out, "Artifacts:\n  intent.small.yml [x]\n")) << r;
    EXPECT_TRUE(contains(r.out, "Plan: 3 tasks\n  pending: 2\n  in_progress: 0\n  blocked: 0\n  completed: 1\n")) << r;
    EXPECT_TRUE(contains(r.out, "Next actionable: [task-2]\n")) << r;
    EXPECT_TRUE(contains(r.out, "Next task: task-2\n")) << r;
    EXPECT_TRUE(contains(r.out, "Recent progress (5 entries):\n")) << r;
    EXPECT_FALSE(contains(r.out, "signal")) << r;
    EXPECT_TRUE(contains(r.out, "task-1: completed - layout reviewed\n")) << r;
    EXPECT_TRUE(contains(r.out, "ReplayId: ")) << r;
}

// Nothing new to start, yet a task goes on: the two lines agree (the next
// task is named beside "none"), and JSON keeps the reference's list.
TEST_F(InspectionTest, NextActionableNoneNamesTheTaskThatGoesOn) {
    ASSERT_EQ(run({"checkpoint", "--task", "task-2", "--status", "in_progress", "--evidence", "started"}).exit_code, 0);
    RunResult r = run({"status"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Next actionable: none to start; continue the next task, task-2\n")) << r;
    EXPECT_TRUE(contains(r.out, "Next task: task-2\n")) << r;
    EXPECT_EQ(json::parse(run({"status", "--json"}).out)["plan"]["next_actionable"], json::array()) << r;
    ASSERT_EQ(run({"checkpoint", "--task", "task-2", "--status", "completed", "--evidence", "done"}).exit_code, 0);
    ASSERT_EQ(run({"checkpoint", "--task", "task-3", "--status", "completed", "--evidence", "done"}).exit_code, 0);
    r = run({"status"});
    EXPECT_TRUE(contains(r.out, "Next actionable: none\n")) << "the run is complete: " << r;
}

TEST_F(InspectionTest, StatusLimitsAndAuditMode) {
    RunResult r = run({"status", "--json", "--recent", "1", "--tasks", "1"});
    ASSERT_EQ(r.exit_code, 0) << r;
    json doc = json::parse(r.out);
    EXPECT_EQ(doc["recent_progress"].size(), 1u);
    EXPECT_EQ(doc["more_progress"], true);
    EXPECT_EQ(doc["plan"]["next_actionable"], json::array({"task-2"}));
    r = run_in(root(), {"status"}, {{"SMALL_PROGRESS_MODE", "AUDIT"}});
    EXPECT_TRUE(contains(r.out, "progress mode: audit\n")) << r;
    EXPECT_TRUE(contains(r.out, "Recent progress (5 entries):")) << r;
    EXPECT_EQ(run({"status", "--recent", "-1"}).exit_code, 2);
    EXPECT_EQ(run({"status", "--tasks", "x"}).exit_code, 2);
}

TEST_F(InspectionTest, StatusAndEmitWorkFromASubdirectoryAndFromInsideSmall) {
    fs::create_directories(root() / "src" / "deep");
    for (const fs::path& cwd : {root() / "src" / "deep", root() / ".small"}) {
        RunResult r = run_in(cwd, {"status", "--json"});
        ASSERT_EQ(r.exit_code, 0) << r;
        EXPECT_EQ(json::parse(r.out)["plan"]["total_tasks"], 3);
        r = run_in(cwd, {"emit"});
        ASSERT_EQ(r.exit_code, 0) << r;
        EXPECT_EQ(json::parse(r.out)["paths"]["workspace"], root().string());
    }
}

// Outside a workspace the read command reports it (exit 0, as the reference
// does); what needs a workspace (emit, doctor, writes) still fails.
TEST_F(InspectionTest, StatusWithoutAWorkspaceSaysSoAndOthersFail) {
    TempDir elsewhere;
    RunResult r = run_in(elsewhere.path(), {"status"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "\nNo workspace: no .small/ directory in " + elsewhere.str() +
                                    " or any parent directory\nRun next: small init --intent")) << r;
    EXPECT_EQ(r.err, "") << r;
    r = run_in(elsewhere.path(), {"status", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r;
    const json doc = json::parse(r.out);
    EXPECT_EQ(doc["ok"], true);
    EXPECT_EQ(doc["small_dir_exists"], false);
    EXPECT_EQ(doc["artifacts"]["plan"], false);
    EXPECT_FALSE(doc.contains("plan")) << r;
    r = run_in(elsewhere.path(), {"status", "--dir", elsewhere.str()});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "No workspace: no .small/ directory in " + elsewhere.str() + "\n")) << r;
    // A .small that is a file is broken, not absent.
    write_file(elsewhere.path() / ".small", "not a folder\n");
    r = run_in(elsewhere.path(), {"status", "--json"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_EQ(json::parse(r.out)["small_dir_exists"], false);
    fs::remove(elsewhere.path() / ".small");
    EXPECT_EQ(run_in(elsewhere.path(), {"progress", "add", "--task", "task-1", "--status", "pending"}).exit_code, 2);
    r = run_in(elsewhere.path(), {"emit"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_EQ(json::parse(r.out)["ok"], false);
    r = run_in(elsewhere.path(), {"doctor"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "[ERROR] Workspace")) << r;
}

TEST_F(InspectionTest, StatusReportsBrokenYamlWithItsPositionAndGoesOn) {
    write_file(small_file("handoff.small.yml"), "summary: ok\nresume: [oops\n");
    const RunResult r = run({"status"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, "Warning: .small/handoff.small.yml:")) << r;
    EXPECT_TRUE(contains(r.out, "Plan: 3 tasks")) << r;
}

TEST_F(InspectionTest, HugeLogStatusAndEmitShowTheNewestEntries) {
    grow_log(60000);
    RunResult r = run({"status", "--json", "--recent", "2"});
    ASSERT_EQ(r.exit_code, 0) << r;
    json doc = json::parse(r.out);
    EXPECT_EQ(doc["recent_progress"][0]["evidence"], "step 59999");
    r = run({"emit", "--recent", "1"});
    ASSERT_EQ(r.exit_code, 0) << r;
    doc = json::parse(r.out);
    EXPECT_EQ(doc["progress"]["recent"][0]["evidence"], "step 59999");
    EXPECT_FALSE(doc["progress"].contains("entries"));
    r = run({"emit", "--include", "progress"});
    ASSERT_EQ(r.exit_code, 0) << r;
    doc = json::parse(r.out);
    EXPECT_EQ(doc["progress"]["entries"].size(), 60006u);
    EXPECT_FALSE(doc.contains("status"));  // unselected sections are absent
    EXPECT_FALSE(doc.contains("intent"));
    EXPECT_FALSE(doc.contains("paths"));
}

TEST_F(InspectionTest, EmitDefaultAndNamedSections) {
    RunResult r = run({"emit"});
    ASSERT_EQ(r.exit_code, 0) << r;
    json doc = json::parse(r.out);
    EXPECT_EQ(doc["workspace"], "repo-root");
    EXPECT_EQ(doc["status"]["totalTasks"], 3);
    EXPECT_EQ(doc["status"]["nextActionable"], json::array({"task-2"}));
    EXPECT_EQ(doc["constraints"]["present"], true);
    EXPECT_FALSE(doc.contains("plan"));
    EXPECT_FALSE(doc["intent"].contains("artifact"));
    r = run({"emit", "--include", "plan,constraints"});
    ASSERT_EQ(r.exit_code, 0) << r;
    doc = json::parse(r.out);
    ASSERT_EQ(doc["plan"]["tasks"].size(), 3u);
    EXPECT_EQ(doc["plan"]["tasks"][2]["ID"], "task-3");
    EXPECT_EQ(doc["plan"]["tasks"][2]["id"], "task-3");
    EXPECT_EQ(doc["plan"]["tasks"][2]["depends_on"], json::array({"task-2"}));
    EXPECT_EQ(doc["plan"]["tasks"][2]["Dependencies"], json::array({"task-2"}));
    EXPECT_TRUE(doc["constraints"].contains("artifact"));
    EXPECT_FALSE(doc.contains("status"));
    EXPECT_EQ(doc["sections"], json::array({"constraints", "plan"}));
}

TEST_F(InspectionTest, EmitRejectsUnknownIncludeNames) {
    for (const char* bad : {"bogus", "../../etc/passwd", "plan.small.yml", "status,/tmp/x"}) {
        const RunResult r = run({"emit", "--include", bad});
        EXPECT_EQ(r.exit_code, 2) << r;
        const json doc = json::parse(r.out);  // emit answers in JSON, failures too
        const std::string message = doc["error"]["message"];
        EXPECT_TRUE(contains(message, "unknown include section")) << r;
        EXPECT_TRUE(contains(message, "valid sections: paths, status, progress, intent, constraints, plan, enforcement"))
            << r;
    }
}

TEST_F(InspectionTest, EmitCheckExitsWithTheCheckAndWritesNothing) {
    const std::string before = read_file(small_file("progress.small.yml"));
    RunResult r = run({"emit", "--check"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(json::parse(r.out)["enforcement"]["exitCode"], 0);
    std::string intent = read_file(small_file("intent.small.yml"));
    intent.replace(intent.find("owner: \"human\""), 14, "owner: \"agent\"");
    write_file(small_file("intent.small.yml"), intent);
    r = run({"emit", "--check"});
    EXPECT_EQ(r.exit_code, 1) << r;
    const json doc = json::parse(r.out);
    EXPECT_EQ(doc["enforcement"]["lint"]["status"], "skipped");  // not "ok" when it never ran
    EXPECT_FALSE(doc["enforcement"]["failures"].empty());
    EXPECT_EQ(read_file(small_file("progress.small.yml")), before);
}

TEST_F(InspectionTest, DoctorHealthyChangesNothing) {
    // Healthy includes a fresh handoff (init's records the template plan, D18).
    ASSERT_EQ(run({"handoff"}).exit_code, 0);
    const auto stamp = fs::last_write_time(small_file("progress.small.yml"));
    const RunResult r = run({"doctor"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "SMALL Doctor Report\n===================\n")) << r;
    EXPECT_TRUE(contains(r.out, "[OK] Strict:")) << r;
    EXPECT_TRUE(contains(r.out, "[OK] Metadata:")) << r;
    EXPECT_TRUE(contains(r.out, "Summary: All checks passed!")) << r;
    EXPECT_EQ(fs::last_write_time(small_file("progress.small.yml")), stamp);
}

TEST_F(InspectionTest, DoctorPrintsTheLegacyLayoutWarning) {
    fs::create_directories(root() / ".small" / "archive");
    const RunResult r = run({"doctor"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, "[WARN] Runtime Layout: Legacy runtime layout detected: .small/archive/")) << r;
    EXPECT_TRUE(contains(r.err, "-> Run: small fix --runtime-layout")) << r;
    EXPECT_TRUE(contains(r.err, "Summary: Warnings present.")) << r;
}

TEST_F(InspectionTest, DoctorFailsOnBrokenYamlWithFileLineColumn) {
    write_file(small_file("plan.small.yml"), "small_version: \"1.0.0\"\ntasks:\n  - id: [\n");
    const RunResult r = run({"doctor"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "[ERROR] Loading:")) << r;
    EXPECT_TRUE(contains(r.err, ".small/plan.small.yml:")) << r;
    EXPECT_TRUE(contains(r.err, "Summary: Issues found.")) << r;
}

TEST_F(InspectionTest, DoctorFlagsAPlantedTraversalReplayId) {
    std::string handoff = read_file(small_file("handoff.small.yml"));
    const std::size_t at = handoff.find("value: ");
    ASSERT_NE(at, std::string::npos);
    handoff.replace(at, handoff.find('\n', at) - at, "value: \"../../outside\"");
    write_file(small_file("handoff.small.yml"), handoff);
    const RunResult r = run({"doctor", "--json"});
    EXPECT_EQ(r.exit_code, 1) << r;
    const json doc = json::parse(r.out);
    bool replay_error = false;
    for (const json& c : doc["checks"]) replay_error |= c["category"] == "Replay Id" && c["status"] == "error";
    EXPECT_TRUE(replay_error) << doc.dump(2);
    EXPECT_FALSE(fs::exists(root().parent_path() / "outside"));
    // status and emit do not use the handoff's id as a path either
    EXPECT_EQ(run({"status"}).exit_code, 0);
    EXPECT_EQ(run({"emit"}).exit_code, 0);
}

TEST_F(InspectionTest, DoctorReportsMissingMetadataWithTheNonDestructiveFix) {
    fs::remove(small_file("workspace.small.yml"));
    const RunResult r = run({"doctor"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "[ERROR] Metadata:")) << r;
    EXPECT_TRUE(contains(r.err, "small fix workspace")) << r;
}

}  // namespace
