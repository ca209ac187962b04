// find_run_start (run_start.hpp): where `drift` and `verify --evidence`
// take the run's start from — the pinned run's first entry, else the log's
// first timestamped entry, else nothing.
#include "small/model/run_start.hpp"

#include <gtest/gtest.h>

#include "support/fixtures.hpp"

namespace small {
namespace {

using namespace small::testing;

Result<RunStart> start_of(const TestWorkspace& ws) {
    const MemoryFileSystem fs = ws.fs();
    return find_run_start(fs, TestWorkspace::paths(fs));
}

std::string shown_at(const RunStart& s) { return s.at ? format_timestamp_utc9(*s.at) : "(none)"; }

TEST(RunStart, IsThePinnedRunsFirstEntryNotTheLogsFirst) {
    const Result<RunStart> s = start_of(TestWorkspace());
    ASSERT_TRUE(s) << s.error().describe();
    EXPECT_EQ(s->run_id, kRunId);
    EXPECT_TRUE(s->from_run_entry);
    // The init entry (10:00:00) carries no replayId; the run's first does.
    EXPECT_EQ(shown_at(*s), "2025-06-01T10:00:01.100000001Z");
}

TEST(RunStart, RunIdsCompareWithoutCaseOrSurroundingSpace) {
    TestWorkspace ws;
    ws.replace("workspace", kRunId, upper(kRunId));
    ws.replace("progress", std::string("replayId: \"") + kRunId + "\"\n  - timestamp: \"2025-06-01T10:00:02",
               std::string("replayId: \" ") + kRunId + " \"\n  - timestamp: \"2025-06-01T10:00:02");
    const Result<RunStart> s = start_of(ws);
    ASSERT_TRUE(s) << s.error().describe();
    EXPECT_TRUE(s->from_run_entry);
    EXPECT_EQ(shown_at(*s), "2025-06-01T10:00:01.100000001Z");
}

TEST(RunStart, FallsBackToTheLogsFirstEntryWhenNoEntryCarriesTheRun) {
    TestWorkspace ws;
    ws.replace("workspace", kRunId, kOtherRunId);
    const Result<RunStart> s = start_of(ws);
    ASSERT_TRUE(s) << s.error().describe();
    EXPECT_EQ(s->run_id, kOtherRunId);
    EXPECT_FALSE(s->from_run_entry);
    EXPECT_EQ(shown_at(*s), "2025-06-01T10:00:00.100000000Z");
}

TEST(RunStart, AnUnreadableMetadataFileMeansNoPinnedRun) {
    TestWorkspace ws;
    ws.remove("workspace");
    const Result<RunStart> s = start_of(ws);
    ASSERT_TRUE(s) << s.error().describe();
    EXPECT_EQ(s->run_id, "");
    EXPECT_FALSE(s->from_run_entry);
    EXPECT_EQ(shown_at(*s), "2025-06-01T10:00:00.100000000Z");
}

TEST(RunStart, EntriesWithoutAUsableTimestampAreSkipped) {
    TestWorkspace ws;
    ws.replace("progress", "2025-06-01T10:00:00.100000000Z", "yesterday");
    ws.replace("progress", "timestamp: \"2025-06-01T10:00:01.100000001Z\"", "timestamp: \"not a time\"");
    const Result<RunStart> s = start_of(ws);
    ASSERT_TRUE(s) << s.error().describe();
    // The run's first entry had no usable time: its next one is the start.
    EXPECT_TRUE(s->from_run_entry);
    EXPECT_EQ(shown_at(*s), "2025-06-01T10:00:02.100000002Z");
}

TEST(RunStart, AMissingOrEmptyLogHasNoStart) {
    TestWorkspace missing;
    missing.remove("progress");
    Result<RunStart> s = start_of(missing);
    ASSERT_TRUE(s) << s.error().describe();
    EXPECT_FALSE(s->at);

    TestWorkspace empty;
    empty.set("progress", "small_version: \"1.0.0\"\nowner: \"agent\"\nentries: []\n");
    s = start_of(empty);
    ASSERT_TRUE(s) << s.error().describe();
    EXPECT_FALSE(s->at);
    EXPECT_FALSE(s->from_run_entry);
}

TEST(RunStart, ALogThatDoesNotParseIsALocatedError) {
    TestWorkspace ws;
    ws.set("progress", "small_version: \"1.0.0\"\nentries:\n  - timestamp: [\n");
    const Result<RunStart> s = start_of(ws);
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().describe().find(".small/progress.small.yml:"), std::string::npos) << s.error().describe();
}

}  // namespace
}  // namespace small
