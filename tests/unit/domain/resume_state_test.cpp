// The resume point as it is now (domain/resume_state), read from a workspace
// in memory: the plan's outline, the log's facts, the handoff, the pinned run.
#include <gtest/gtest.h>

#include <string>

#include "small/domain/resume_state.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using testing::kRunId;
using testing::TestWorkspace;

TEST(ResumeState, AFinishedRunIsCompleteWithItsPlanLogAndHandoff) {
    const TestWorkspace t;
    const MemoryFileSystem fs = t.fs();
    Result<ResumeState> s = load_resume_state(fs, TestWorkspace::paths(fs), kRunId);
    ASSERT_TRUE(s) << s.error().describe();
    ASSERT_EQ(s->plan.size(), 3u);
    EXPECT_EQ(s->plan[0].id, "task-1");
    EXPECT_EQ(s->plan[2].title, "Build widget");
    EXPECT_EQ(s->facts.entries, 6u);
    EXPECT_EQ(s->point.kind, ResumeKind::Complete);
    EXPECT_EQ(s->point.current, "");
    EXPECT_TRUE(s->handoff_exists);
    EXPECT_TRUE(s->claims.empty());
    EXPECT_TRUE(s->taken.empty());
}

TEST(ResumeState, AnOpenTaskIsTheOneToWorkOn) {
    TestWorkspace t;
    t.replace("plan", "    title: \"Build widget\"\n    status: \"completed\"", "    title: \"Build widget\"\n    status: \"pending\"");
    t.replace("progress", "    evidence: \"Widget built; make test passes\"\n", "    evidence: \"Widget half built\"\n");
    t.replace("progress", "    task_id: \"task-3\"\n    status: \"completed\"", "    task_id: \"task-3\"\n    status: \"in_progress\"");
    const MemoryFileSystem fs = t.fs();
    Result<ResumeState> s = load_resume_state(fs, TestWorkspace::paths(fs), kRunId);
    ASSERT_TRUE(s) << s.error().describe();
    EXPECT_EQ(s->point.kind, ResumeKind::Work);
    EXPECT_EQ(s->point.current, "task-3");
    // One status per task: the plan says pending (its entry says in_progress,
    // written before progress add set the plan too), so the step starts it,
    // which sets the plan; the next one completes it.
    EXPECT_FALSE(s->point.current_started);
    EXPECT_EQ(cli_line(s->point.action), "small checkpoint --task task-3 --status in_progress");
}

TEST(ResumeState, AMissingPlanAndLogReadAsEmpty) {
    TestWorkspace t;
    t.remove("plan");
    t.remove("progress");
    t.remove("handoff");
    const MemoryFileSystem fs = t.fs();
    Result<ResumeState> s = load_resume_state(fs, TestWorkspace::paths(fs), kRunId);
    ASSERT_TRUE(s) << s.error().describe();
    EXPECT_TRUE(s->plan.empty());
    EXPECT_EQ(s->facts.entries, 0u);
    EXPECT_EQ(s->point.kind, ResumeKind::NoTasks);
    EXPECT_FALSE(s->handoff_exists);
    EXPECT_FALSE(s->recorded);
}

TEST(ResumeState, ABrokenPlanIsAPositionedInvalidError) {
    TestWorkspace t;
    t.append("plan", "  - id: [unclosed\n");
    const MemoryFileSystem fs = t.fs();
    Result<ResumeState> s = load_resume_state(fs, TestWorkspace::paths(fs), kRunId);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().kind, Error::Kind::Invalid) << s.error().describe();
    EXPECT_GT(s.error().line, 0u) << s.error().describe();
}

TEST(ResumeState, ThePinnedRunIsTheMetadatasOrNone) {
    TestWorkspace t;
    {
        const MemoryFileSystem fs = t.fs();
        EXPECT_EQ(pinned_run_of(fs, TestWorkspace::paths(fs)), kRunId);
    }
    t.set("workspace", testing::minimal_workspace_meta(false));
    {
        const MemoryFileSystem fs = t.fs();
        EXPECT_EQ(pinned_run_of(fs, TestWorkspace::paths(fs)), "");
    }
    t.remove("workspace");
    const MemoryFileSystem fs = t.fs();
    EXPECT_EQ(pinned_run_of(fs, TestWorkspace::paths(fs)), "");
}

TEST(ResumeState, TheGraphNeedsAPlan) {
    TestWorkspace t;
    {
        const MemoryFileSystem fs = t.fs();
        Result<PlanGraph> g = load_plan_graph(fs, TestWorkspace::paths(fs), kRunId);
        ASSERT_TRUE(g) << g.error().describe();
        EXPECT_EQ(g->tasks.size(), 3u);
        EXPECT_TRUE(g->cycles.empty());
        EXPECT_TRUE(g->missing.empty());
    }
    t.remove("plan");
    const MemoryFileSystem fs = t.fs();
    Result<PlanGraph> g = load_plan_graph(fs, TestWorkspace::paths(fs), kRunId);
    ASSERT_FALSE(g);
    EXPECT_EQ(g.error().kind, Error::Kind::System);
    EXPECT_FALSE(g.error().hint.empty());
}

}  // namespace
}  // namespace small
