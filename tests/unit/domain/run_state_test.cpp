// replay_id_report (run_state.hpp): the manifest's id next to the run's
// pinned id, and why they differ (D3: the pin does not follow edits).
#include "small/domain/run_state.hpp"

#include <gtest/gtest.h>

#include "small/model/replay_id.hpp"
#include "small/ops/inspect/replay_id.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using namespace small::testing;

Result<ReplayIdReport> report_of(const TestWorkspace& ws) {
    const MemoryFileSystem fs = ws.fs();
    return replay_id_command(fs, TestWorkspace::paths(fs));
}

// The workspace with its run pinned to the id its manifest has now.
TestWorkspace pinned_to_its_manifest() {
    TestWorkspace ws;
    const Result<ReplayIdReport> first = report_of(ws);
    EXPECT_TRUE(first);
    ws.replace("workspace", "52c9315ec1e426d8f1786214985f5c51e0b09084b2fda955a17c671e9c1c5941", first->manifest_id);
    return ws;
}

TEST(ReplayIdReport, PinnedRunOfTheSameManifestNeedsNoExplanation) {
    const TestWorkspace ws = pinned_to_its_manifest();
    const Result<ReplayIdReport> r = report_of(ws);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_TRUE(is_valid_replay_id(r->manifest_id));
    EXPECT_EQ(r->run_id, r->manifest_id);
    EXPECT_TRUE(r->explanation.empty()) << r->explanation;
}

TEST(ReplayIdReport, AnEditAfterTheRunStartedIsExplained) {
    TestWorkspace ws = pinned_to_its_manifest();
    const std::string pinned = report_of(ws)->manifest_id;
    ws.replace("plan", "title: \"Design widget\"", "title: \"Design the widget\"");
    const Result<ReplayIdReport> r = report_of(ws);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_NE(r->manifest_id, pinned);
    EXPECT_EQ(r->run_id, pinned);
    // The log has no work entry of the pinned run: `small start` re-pins it (D18).
    for (const char* fragment : {".small/workspace.small.yml run.replay_id", "no work entries yet",
                                 "run `small start` to re-pin it to this manifest"}) {
        EXPECT_TRUE(contains(r->explanation, fragment)) << fragment << "\n" << r->explanation;
    }
    EXPECT_TRUE(contains(r->explanation, pinned)) << r->explanation;

    // Once the run's work has started, the pin stays and `small reset` is what applies.
    std::string& log = ws.text("progress");
    for (std::size_t at; (at = log.find(testing::kRunId)) != std::string::npos;) log.replace(at, 64, pinned);
    const Result<ReplayIdReport> worked = report_of(ws);
    ASSERT_TRUE(worked) << worked.error().describe();
    for (const char* fragment : {"pinned when its work starts", "does not follow later edits of intent, plan or "
                                                                "constraints", "small reset"}) {
        EXPECT_TRUE(contains(worked->explanation, fragment)) << fragment << "\n" << worked->explanation;
    }
}

TEST(ReplayIdReport, NoPinnedRunIsNotAnError) {
    TestWorkspace ws;
    ws.remove("workspace");
    const Result<ReplayIdReport> r = report_of(ws);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_TRUE(r->run_id.empty());
    EXPECT_TRUE(r->explanation.empty());
}

TEST(ReplayIdReport, MissingPlanIsInvalid) {
    TestWorkspace ws;
    ws.remove("plan");
    const Result<ReplayIdReport> r = report_of(ws);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(r.error().describe(), "plan.small.yml")) << r.error().describe();
}

}  // namespace
}  // namespace small
