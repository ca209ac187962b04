// The write path under injected faults: the real binary with one chosen
// fsync failing (tests/fault/fail_fsync.cpp, LD_PRELOAD). A failed write
// either leaves every file as it was, or says the change is journaled and
// the next writing command completes it; never a log cut in the middle, never
// an entry without its plan change once the next writer has run.
#include <string>

#include <gtest/gtest.h>

#include "support/run_binary.hpp"

namespace small_e2e {
namespace {

constexpr const char* kEmptyLog = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries: []\n";

class FaultInjection : public ::testing::Test {
protected:
    void SetUp() override {
        const RunResult init = run_in(dir_.path(), {"init", "--no-agents"});
        ASSERT_EQ(init.exit_code, 0) << init;
    }
    fs::path file(const std::string& name) const { return dir_.path() / ".small" / name; }
    // `small ARGS` with the fsync of `path` failing once.
    RunResult run_failing_fsync_of(const std::string& path, const std::vector<std::string>& args) {
        return run_in(dir_.path(), args,
                      {{"LD_PRELOAD", std::string(SMALL_FAULT_FSYNC)}, {"SMALL_FAULT_FSYNC_PATH", path}});
    }
    TempDir dir_;
};

// The first entry rewrites a fresh `entries: []` log whole. When the plan's
// staged copy cannot be made durable, the change is undone, and the log gets
// its old bytes back, whatever its size (a long header comment here): it is
// never cut to its old length, which would leave "entries:\n  -".
TEST_F(FaultInjection, AFailedPlanWriteGivesAFreshLogBackByteForByte) {
    const std::string log = "# " + std::string(5000, 'x') + "\n" + kEmptyLog;
    write_file(file("progress.small.yml"), log);
    const std::string plan = read_file(file("plan.small.yml"));
    const RunResult r = run_failing_fsync_of("*.plan.small.yml.tmp",  // the plan's staged copy
                                             {"checkpoint", "--task", "task-1", "--status", "completed"});
    EXPECT_NE(r.exit_code, 0) << r;
    EXPECT_NE(r.err.find("plan.small.yml"), std::string::npos) << r;  // the plan's write failed, not another
    EXPECT_EQ(read_file(file("progress.small.yml")), log);
    EXPECT_EQ(read_file(file("plan.small.yml")), plan);
    EXPECT_FALSE(fs::exists(dir_.path() / ".small-cache" / "change.journal"));
    EXPECT_EQ(run_in(dir_.path(), {"validate"}).exit_code, 0);
}

// The fresh log's rewrite lands, but the directory sync after it fails: the
// entry may be in the log, so the change is not dropped. The error says it
// is journaled, and the next writing command finishes it: plan and log agree.
TEST_F(FaultInjection, AnEntryThatLandedDespiteAFailedSyncIsCompletedByTheNextWriter) {
    write_file(file("progress.small.yml"), kEmptyLog);
    const RunResult r = run_failing_fsync_of((dir_.path() / ".small").string(),
                                             {"checkpoint", "--task", "task-1", "--status", "completed"});
    EXPECT_NE(r.exit_code, 0) << r;
    EXPECT_NE(r.err.find("journaled"), std::string::npos) << r;
    EXPECT_TRUE(fs::exists(dir_.path() / ".small-cache" / "change.journal"));

    const RunResult next = run_in(dir_.path(), {"plan"});  // any writer recovers first
    ASSERT_EQ(next.exit_code, 0) << next;
    EXPECT_FALSE(fs::exists(dir_.path() / ".small-cache" / "change.journal"));
    EXPECT_NE(read_file(file("plan.small.yml")).find("status: \"completed\""), std::string::npos);
    EXPECT_NE(read_file(file("progress.small.yml")).find("task_id: \"task-1\""), std::string::npos);
    const RunResult check = run_in(dir_.path(), {"check"});
    EXPECT_EQ(check.exit_code, 0) << check;
}

// An in-place append whose data sync fails is rolled back by the append
// itself: nothing of the change is left, and the next write works.
TEST_F(FaultInjection, AFailedAppendSyncLeavesNothing) {
    const std::string log = read_file(file("progress.small.yml"));
    const std::string plan = read_file(file("plan.small.yml"));
    const RunResult r = run_failing_fsync_of(file("progress.small.yml").string(),
                                             {"checkpoint", "--task", "task-1", "--status", "completed"});
    EXPECT_NE(r.exit_code, 0) << r;
    EXPECT_EQ(read_file(file("progress.small.yml")), log);
    EXPECT_EQ(read_file(file("plan.small.yml")), plan);
    EXPECT_FALSE(fs::exists(dir_.path() / ".small-cache" / "change.journal"));
    const RunResult again = run_in(dir_.path(), {"checkpoint", "--task", "task-1", "--status", "completed"});
    EXPECT_EQ(again.exit_code, 0) << again;
}

// A hand edit of the plan lands while checkpoint holds the lock (here: when
// the change journal is synced). The edit is kept, the entry is recorded, and
// the command says its status edit was not applied; the plan's caches are not
// taken from the skipped edit, so the next checkpoint reads the plan afresh.
TEST_F(FaultInjection, AHandEditDuringACheckpointIsKeptAndReported) {
    const std::string plan = file("plan.small.yml").string();
    const RunResult r = run_in(dir_.path(), {"checkpoint", "--task", "task-1", "--status", "completed"},
                               {{"LD_PRELOAD", std::string(SMALL_FAULT_FSYNC)},
                                {"SMALL_FAULT_FSYNC_PATH", "*change.journal.tmp"},
                                {"SMALL_FAULT_FSYNC_TOUCH", plan}});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(r.err.find("changed while this command ran"), std::string::npos) << r;
    const std::string after = read_file(plan);
    EXPECT_NE(after.find("# edited by hand while small ran"), std::string::npos);
    EXPECT_EQ(after.find("status: \"completed\""), std::string::npos) << "the edit was not applied over it";
    EXPECT_NE(read_file(file("progress.small.yml")).find("task_id: \"task-1\""), std::string::npos);
    const RunResult again = run_in(dir_.path(), {"checkpoint", "--task", "task-1", "--status", "completed"});
    EXPECT_EQ(again.exit_code, 0) << again;
    EXPECT_NE(read_file(plan).find("status: \"completed\""), std::string::npos);
}

}  // namespace
}  // namespace small_e2e
