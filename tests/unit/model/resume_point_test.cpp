// model/resume_point: the next step (D18), the log's facts, the handoff's
// source line; and build_handoff on top of them. Includes the property
// tests: on random plans the suggested task is always ready, and following
// the suggested step never loops.
#include "small/model/resume_point.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "small/doc/yaml.hpp"
#include "small/domain/handoff_file.hpp"

namespace small {
namespace {

using Ids = std::vector<std::string>;
using Outline = std::vector<PlanTaskOutline>;

PlanTaskOutline task(const std::string& id, const std::string& status, const Ids& deps = {}) {
    return {id, WrittenStatus(status), deps, "Title " + id, ""};
}

TaskWork work(const std::string& status, std::size_t seq, const std::string& reason = "") {
    TaskWork w;
    w.last_status = WrittenStatus(status);
    w.last_seq = seq;
    w.blocked_reason = reason;
    return w;
}

const PlanTaskOutline* find(const Outline& plan, const std::string& id) {
    for (const PlanTaskOutline& t : plan) {
        if (t.id == id) return &t;
    }
    return nullptr;
}

// The task an action names (checkpoint --task ID), or "".
std::string task_of(const NextAction& a) {
    for (const NextAction::Arg& arg : a.args) {
        if (arg.name == "task") return arg.value;
    }
    return "";
}

std::string arg_of(const NextAction& a, const std::string& name) {
    for (const NextAction::Arg& arg : a.args) {
        if (arg.name == name) return arg.value;
    }
    return "";
}

// ------------------------------------------------------------ resume_point

// D19's `priority` orders what is suggested, as `small ready` does: the
// current task, "Also ready" and the summary's next actionable tasks.
TEST(ResumePoint, APriorityOrdersTheSuggestedTasksAsTheReadyQueueDoes) {
    Outline plan = {task("low", "pending"), task("high", "pending"), task("plain", "pending"), task("mid", "pending")};
    plan[0].priority = "3";
    plan[1].priority = "P0";
    plan[3].priority = "1";
    const ResumePoint p = resume_point(plan, {});
    EXPECT_EQ(p.current, "high");
    ASSERT_EQ(p.steps.size(), 2u);
    EXPECT_EQ(p.steps[1], "Also ready: mid: Title mid; low: Title low; plain: Title plain");
    EXPECT_EQ(summarize_plan(plan, 0).next_actionable, (Ids{"high", "mid", "low", "plain"}));
    EXPECT_EQ(summarize_plan(plan, 2).next_actionable, (Ids{"high", "mid"}));
    EXPECT_EQ(summarize_plan(plan, 0).first_incomplete, "high");
    plan[1].priority = "";  // without priorities: plan order
    plan[0].priority = plan[3].priority = "";
    EXPECT_EQ(resume_point(plan, {}).current, "low");
}

TEST(ResumePoint, NeverSuggestsATaskWhoseDependencyIsBlocked) {
    // The new user's report: task-4 depends on blocked task-3; Run next must not complete task-4.
    const Outline plan = {task("task-1", "completed"), task("task-2", "completed"),
                          task("task-3", "blocked", {"task-2"}), task("task-4", "in_progress", {"task-3"}),
                          task("task-5", "pending", {"task-4"})};
    WorkFacts facts;
    facts["task-3"] = work("blocked", 7, "need a decision: error or inf?");
    facts["task-4"] = work("in_progress", 9);
    const ResumePoint r = resume_point(plan, facts);
    // Only a human can move it (issue 37): the step is to stop, never to unblock.
    EXPECT_EQ(r.kind, ResumeKind::Stop);
    EXPECT_EQ(r.current, "task-3");
    EXPECT_EQ(r.action.tool, "");
    EXPECT_EQ(r.action.stop, "task-3 waits on a human (need a decision: error or inf?)");
    EXPECT_EQ(cli_line(r.action),
              "stop: task-3 waits on a human (need a decision: error or inf?); write the handoff and end the session");
    ASSERT_GE(r.steps.size(), 2u);
    EXPECT_EQ(r.steps[0], "Waits on a human: task-3: Title task-3 — need a decision: error or inf? (a human unblocks "
                          "it: small plan --pending task-3)");
    EXPECT_EQ(r.steps[1], "Wait: task-4: Title task-4 (in_progress) waits on "
                          "task-3 (blocked)");
    EXPECT_EQ(r.summary, "Run waits on a human: task-3: Title task-3.");
}

TEST(ResumePoint, TheNewestStartedReadyTaskIsCurrentAndItsLineComesFirst) {
    const Outline plan = {task("a", "pending"), task("b", "in_progress"), task("c", "pending")};
    WorkFacts facts;
    facts["a"] = work("in_progress", 3);
    facts["b"] = work("in_progress", 8);
    const ResumePoint r = resume_point(plan, facts);
    EXPECT_EQ(r.kind, ResumeKind::Work);
    EXPECT_EQ(r.current, "b");
    EXPECT_TRUE(r.current_started);
    EXPECT_EQ(arg_of(r.action, "status"), "completed");
    ASSERT_EQ(r.steps.size(), 3u);
    EXPECT_EQ(r.steps[0], "Resume b: Title b (in_progress)");
    EXPECT_EQ(r.steps[1], "Resume a: Title a (pending)");
    EXPECT_EQ(r.steps[2], "Also ready: c: Title c");
    ASSERT_EQ(r.started.size(), 2u);
}

// A second session (or agent) sees what else it can take: the ready tasks
// nobody started, at most five named; waiting and started ones are not.
TEST(ResumePoint, TheOtherReadyTasksAreNamedAfterTheCurrentOne) {
    Outline plan = {task("t0", "completed"), task("t1", "pending"), task("t2", "pending", {"t1"}),
                    task("t3", "in_progress")};
    for (int i = 4; i < 11; ++i) plan.push_back(task("t" + std::to_string(i), "pending", {"t0"}));
    WorkFacts facts;
    facts["t3"] = work("in_progress", 4);
    const ResumePoint r = resume_point(plan, facts);
    EXPECT_EQ(r.current, "t3");
    ASSERT_EQ(r.steps.size(), 2u);
    EXPECT_EQ(r.steps[1], "Also ready: t1: Title t1; t4: Title t4; t5: Title t5; t6: Title t6; t7: Title t7; and 3 more");
    // Nothing else ready: no such line.
    const ResumePoint alone = resume_point({task("x", "pending"), task("y", "pending", {"x"})}, {});
    EXPECT_EQ(alone.steps, std::vector<std::string>{"Start x: Title x"});
}

// Two worktrees merged (store/local_work): this checkout's own task stays
// current although the other branch's entry is newer; theirs is named as
// in progress elsewhere. Without a record of its own work, the newest wins.
TEST(ResumePoint, ATaskOnlyAnotherCheckoutStartedIsNeverPreferred) {
    const Outline plan = {task("task-1", "completed"), task("task-2", "in_progress"), task("task-3", "in_progress"),
                          task("task-4", "pending")};
    WorkFacts facts;
    facts["task-1"] = work("completed", 1);
    facts["task-2"] = work("in_progress", 5);  // the other branch's, newer
    facts["task-3"] = work("in_progress", 3);
    ResumePoint r = resume_point(plan, facts);
    EXPECT_EQ(r.current, "task-2");  // nothing known of this checkout: the log alone

    facts["task-3"].here = true;
    r = resume_point(plan, facts);
    EXPECT_EQ(r.current, "task-3");
    EXPECT_EQ(r.steps[0], "Resume task-3: Title task-3 (in_progress)");
    EXPECT_EQ(r.steps[1], "In progress in another checkout: task-2: Title task-2 (in_progress)");
    EXPECT_EQ(arg_of(r.action, "status"), "completed");

    // Our task done: the next is a ready task nobody started, not theirs.
    facts["task-3"] = work("completed", 6);
    facts["task-3"].here = true;
    Outline done = plan;
    done[2].status = TaskStatus::Completed;
    r = resume_point(done, facts);
    EXPECT_EQ(r.current, "task-4");
    EXPECT_FALSE(r.current_started);

    // Nothing else ready: theirs becomes current, to take over (start it here).
    done[3].status = TaskStatus::Cancelled;
    r = resume_point(done, facts);
    EXPECT_EQ(r.current, "task-2");
    EXPECT_EQ(arg_of(r.action, "status"), "in_progress");
    EXPECT_NE(r.summary.find("started in another checkout"), std::string::npos) << r.summary;
    EXPECT_EQ(r.steps[0].rfind("In progress in another checkout: task-2:", 0), 0u) << r.steps[0];
}

TEST(ResumePoint, APendingReadyTaskIsStartedNotCompleted) {
    const Outline plan = {task("task-1", "completed"), task("task-2", "pending", {"task-1"})};
    const ResumePoint r = resume_point(plan, {});
    EXPECT_EQ(r.current, "task-2");
    EXPECT_FALSE(r.current_started);
    EXPECT_EQ(cli_line(r.action), "small checkpoint --task task-2 --status in_progress");
    EXPECT_EQ(r.steps, Ids{"Start task-2: Title task-2"});
    EXPECT_EQ(r.summary, "Run in progress. Next task: task-2.");
}

// One status per task (issue 37): the plan's. Every write that records a
// status sets it in the plan; a plan a human reopened (blocked -> pending,
// by hand or with `small plan --pending`) is open again whatever the log's
// older entry said.
TEST(ResumePoint, ThePlansStatusIsTheTasksStatus) {
    Outline plan = {task("a", "blocked"), task("b", "pending")};
    WorkFacts facts;
    facts["a"] = work("blocked", 2, "waiting for the API key");
    ResumePoint r = resume_point(plan, facts);
    EXPECT_EQ(r.current, "b");
    EXPECT_EQ(r.steps, (Ids{"Start b: Title b", "Waits on a human: a: Title a — waiting for the API key (a human "
                                                 "unblocks it: small plan --pending a)"}));
    const std::vector<BlockedTask> blocked = blocked_tasks(plan, facts);
    ASSERT_EQ(blocked.size(), 1u);
    EXPECT_EQ(blocked[0].reason, "waiting for the API key");

    plan[0].status = TaskStatus::Pending;  // a human unblocked it
    r = resume_point(plan, facts);
    EXPECT_EQ(r.current, "a");
    EXPECT_TRUE(blocked_tasks(plan, facts).empty());
}

TEST(ResumePoint, EveryReadyTaskHeldByOthersIsAStop) {
    const Outline plan = {task("a", "completed"), task("b", "pending", {"a"})};
    WorkFacts facts;
    facts["b"].claimed_by = "bob until 14:05 UTC";
    const ResumePoint r = resume_point(plan, facts);
    EXPECT_EQ(r.kind, ResumeKind::Stop);
    EXPECT_EQ(r.action.tool, "");
    EXPECT_EQ(r.action.stop, "every ready task is claimed by another agent: b (bob until 14:05 UTC)");
    EXPECT_EQ(cli_line(r.action).rfind("stop: every ready task is claimed", 0), 0u) << cli_line(r.action);
}

// The property test's finds (issue 37): a stop line keeps its instruction
// however long the reason, and a task settled on another side, unmerged,
// is not a met dependency here (checkpoint would refuse its dependents).
TEST(ResumePoint, AStopLineFitsOneLineWithItsInstructionWhateverTheReason) {
    WorkFacts facts;
    facts["a"] = work("blocked", 1, std::string(300, 'r'));
    ResumePoint r = resume_point({task("a", "blocked")}, facts);
    ASSERT_EQ(r.kind, ResumeKind::Stop);
    EXPECT_LE(cli_line(r.action).size() + std::string_view("; the handoff is up to date: end the session").size() -
                  std::string_view("; write the handoff and end the session").size(),
              kStopLineBytes);
    EXPECT_TRUE(cli_line(r.action).ends_with("r…); write the handoff and end the session")) << cli_line(r.action);

    facts.clear();
    Outline plan;
    for (int i = 0; i < 12; ++i) {
        const std::string id = "task-" + std::to_string(i);
        plan.push_back(task(id, "pending"));
        facts[id].claimed_by = "a-rather-long-agent-name@build-host:/home/ci/work until 14:05 UTC";
    }
    r = resume_point(plan, facts);
    ASSERT_EQ(r.kind, ResumeKind::Stop);
    EXPECT_LE(cli_line(r.action).size(), kStopLineBytes);
    EXPECT_TRUE(cli_line(r.action).ends_with("; write the handoff and end the session")) << cli_line(r.action);
    EXPECT_NE(r.steps.front().find("task-11"), std::string::npos) << "the step keeps the whole list";
}

TEST(ResumePoint, ADependencySettledOnAnotherSideWaitsForTheMerge) {
    const Outline plan = {task("task-1", "pending"), task("task-2", "pending", {"task-1"})};
    WorkFacts facts;
    facts["task-1"].settled_as = TaskStatus::Completed;
    facts["task-1"].settled_by = "completed by bob on side at 10:00 UTC";
    const ResumePoint r = resume_point(plan, facts);
    EXPECT_EQ(r.kind, ResumeKind::Stop);
    EXPECT_EQ(r.action.tool, "") << cli_line(r.action);
    EXPECT_EQ(r.action.stop, "task-2 waits on task-1, settled on another side and not merged here");
    EXPECT_TRUE(ready_task_ids(plan, facts).empty()) << "ready agrees: nothing to take";
    EXPECT_NE(r.steps.front().find("Merge the side that settled task-1 (completed by bob"), std::string::npos)
        << r.steps.front();
    // Once merged, the plan says completed here too: task-2 is ready.
    const Outline merged = {task("task-1", "completed"), task("task-2", "pending", {"task-1"})};
    EXPECT_EQ(resume_point(merged, facts).current, "task-2");
}

// The second read's finds: `apply` without --auto-checkpoint records
// completed and leaves the plan; the step completes it (it is not started
// again).
TEST(ResumePoint, AnEntryThatCompletedATaskThePlanLeftOpenIsCompletedNotRestarted) {
    WorkFacts facts;
    facts["a"] = work("completed", 3);
    const ResumePoint r = resume_point({task("a", "pending"), task("b", "in_progress")}, facts);
    EXPECT_EQ(r.current, "b") << "the plan's in_progress task comes first";
    const ResumePoint only = resume_point({task("a", "pending")}, facts);
    EXPECT_EQ(only.current, "a");
    EXPECT_EQ(arg_of(only.action, "status"), "completed") << cli_line(only.action);
}

TEST(ResumePoint, ACompleteRunOffersANewRunWithResetNotStart) {
    const ResumePoint r = resume_point({task("a", "completed")}, {});
    EXPECT_EQ(r.kind, ResumeKind::Complete);
    EXPECT_NE(r.action.note.find("a new run: small reset"), std::string::npos) << r.action.note;
}

TEST(ResumePoint, CompleteNamesNoCommandThatChangesNothing) {
    const ResumePoint r = resume_point({task("a", "completed"), task("b", "cancelled")}, {});
    EXPECT_EQ(r.kind, ResumeKind::Complete);
    EXPECT_TRUE(r.current.empty());
    EXPECT_TRUE(r.steps.empty());
    EXPECT_TRUE(r.action.tool.empty());
    EXPECT_NE(r.action.note.find("run is complete"), std::string::npos);
    EXPECT_EQ(cli_line(r.action), r.action.note);
}

TEST(ResumePoint, NoTasksAsksForTheFirstOne) {
    const ResumePoint r = resume_point({}, {});
    EXPECT_EQ(r.kind, ResumeKind::NoTasks);
    EXPECT_EQ(cli_line(r.action), "small plan --add \"<first task>\"");
}

TEST(ResumePoint, AMissingDependencyIsStuckAndSaysHowToDropIt) {
    const ResumePoint r = resume_point({task("task-1", "pending", {"ghost"})}, {});
    EXPECT_EQ(r.kind, ResumeKind::Stuck);
    EXPECT_TRUE(r.current.empty());
    EXPECT_EQ(cli_line(r.action), "small plan --undepend task-1:ghost");
    EXPECT_EQ(r.steps, Ids{"Re-plan task-1: Title task-1: it waits on ghost (not in the plan)"});
}

TEST(ResumePoint, CliLineQuotesValuesAndKeepsPlaceholdersReadable) {
    NextAction a{"checkpoint", {{"task", "a b"}, {"status", "completed"}, {"evidence", "<what proves it>", true}}, "", ""};
    EXPECT_EQ(cli_line(a), "small checkpoint --task 'a b' --status completed --evidence \"<what proves it>\"");
    EXPECT_EQ(cli_line(NextAction{"progress_add", {{"task", "t"}}, "", ""}), "small progress add --task t");
    EXPECT_EQ(cli_line(NextAction{"check", {{"strict", ""}}, "", ""}), "small check --strict");
}

// ------------------------------------------------------------ log_facts

TEST(LogFacts, PlanEditLinesAreNotWorkAndBlockersKeepTheirReasonAcrossRuns) {
    const std::string old_run(64, 'a'), run(64, 'b');
    const std::string log = "entries:\n"
                            "  - {task_id: t1, status: blocked, evidence: \"need a decision\", replayId: " + old_run + ", timestamp: \"2026-01-01T00:00:01Z\"}\n"
                            "  - {task_id: t2, status: pending, evidence: \"Added task t2 via small plan --add\", notes: T, replayId: " + run + ", timestamp: \"2026-01-01T00:00:02Z\"}\n"
                            "  - {task_id: t3, status: in_progress, evidence: started, replayId: " + run + ", timestamp: \"2026-01-01T00:00:03Z\"}\n"
                            "  - {task_id: meta/reset, status: completed, evidence: reset, replayId: " + run + ", timestamp: \"2026-01-01T00:00:04Z\"}\n";
    Result<Document> doc = parse_yaml(log, "progress");
    ASSERT_TRUE(doc.ok()) << doc.error().describe();
    const LogFacts f = log_facts(doc->root(), run);
    EXPECT_EQ(f.work_entries, 2u);
    EXPECT_EQ(f.newest_work, "2026-01-01T00:00:03Z");
    EXPECT_EQ(f.tasks.count("t2"), 0u);  // the plan --add line is bookkeeping
    ASSERT_EQ(f.tasks.count("t1"), 1u);
    EXPECT_EQ(f.tasks.at("t1").last_status.word(), "");  // another run's work does not start it here
    EXPECT_EQ(f.tasks.at("t1").blocked_reason, "need a decision");
    EXPECT_EQ(f.tasks.at("t3").last_status.word(), "in_progress");
    EXPECT_EQ(f.tasks.at("t3").last_seq, 3u);
}

// A human's status decision (`small plan --pending` after a block, or the MCP
// plan tool's) supersedes the task's work status, so ready, claim and the
// board read what the plan and the primer read; other plan edits (--title)
// and a decision on a task without work change nothing.
TEST(LogFacts, AHumansPlanStatusDecisionSupersedesTheWorkStatus) {
    const std::string log = "entries:\n"
                            "  - {task_id: t1, status: blocked, evidence: \"needs ops\", timestamp: \"2026-01-01T00:00:01Z\"}\n"
                            "  - {task_id: t1, status: pending, evidence: \"Updated task t1 to pending via small plan --pending\", notes: \"small plan --pending\", timestamp: \"2026-01-01T00:00:02Z\"}\n"
                            "  - {task_id: t1, status: blocked, evidence: \"Retitled task t1 via small plan --title\", notes: T, timestamp: \"2026-01-01T00:00:03Z\"}\n"
                            "  - {task_id: t2, status: in_progress, evidence: started, timestamp: \"2026-01-01T00:00:04Z\"}\n"
                            "  - {task_id: t2, status: completed, evidence: \"Updated task t2 to completed via the MCP plan tool\", notes: \"MCP plan tool\", timestamp: \"2026-01-01T00:00:05Z\"}\n"
                            "  - {task_id: t3, status: in_progress, evidence: \"Updated task t3 to in_progress via small plan --in-progress\", notes: \"small plan --in-progress\", timestamp: \"2026-01-01T00:00:06Z\"}\n"
                            "  - {task_id: t4, status: blocked, evidence: \"waits on keys\", timestamp: \"2026-01-01T00:00:07Z\"}\n"
                            "  - {task_id: t4, status: pending, evidence: \"Updated task t4 to pending via the board (small serve) by carol\", notes: \"small serve board: plan --pending by carol\", timestamp: \"2026-01-01T00:00:08Z\"}\n";
    Result<Document> doc = parse_yaml(log, "progress");
    ASSERT_TRUE(doc.ok()) << doc.error().describe();
    const LogFacts f = log_facts(doc->root(), "");
    EXPECT_EQ(f.work_entries, 3u);  // decisions are not work
    EXPECT_EQ(f.newest_work, "2026-01-01T00:00:07Z");
    EXPECT_EQ(f.tasks.at("t1").last_status.word(), "pending");
    EXPECT_EQ(f.tasks.at("t1").last_seq, 2u);
    EXPECT_EQ(f.tasks.at("t1").blocked_reason, "needs ops");
    EXPECT_EQ(f.tasks.at("t2").last_status.word(), "completed");
    EXPECT_EQ(f.tasks.count("t3"), 0u);  // no work: the plan's status stands alone
    EXPECT_EQ(f.tasks.at("t4").last_status.word(), "pending");  // a person's unblock on small serve's board
}

// ------------------------------------------------------------ handoff source

TEST(HandoffSource, TheCommentRoundTripsAndStalenessSaysWhatChanged) {
    const HandoffSource s{"0123456789abcdef", 12, "2026-01-01T00:00:03Z", ""};
    const std::string line = source_comment(s);
    EXPECT_EQ(line, "# small: computed from plan 0123456789abcdef, 12 work entries, newest 2026-01-01T00:00:03Z\n");
    EXPECT_EQ(parse_source_comment(line + "small_version: \"1.0.0\"\n"), s);
    EXPECT_EQ(parse_source_comment(source_comment({"x", 0, "", ""})), (HandoffSource{"x", 0, "", ""}));
    // An older handoff's `, mine <digest>` (the writing checkout's own
    // tasks) still reads; it never makes the handoff stale: the handoff is
    // computed from shared data only, the same in every checkout.
    const HandoffSource mine{"0123456789abcdef", 12, "2026-01-01T00:00:03Z", "aaaa1111"};
    EXPECT_EQ(parse_source_comment("# small: computed from plan 0123456789abcdef, 12 work entries, newest "
                                   "2026-01-01T00:00:03Z, mine aaaa1111\n"),
              mine);
    HandoffSource theirs = mine;
    theirs.mine = "bbbb2222";
    EXPECT_EQ(staleness(mine, theirs), "");
    EXPECT_EQ(staleness(mine, s), "");
    EXPECT_EQ(staleness(s, theirs), "");
    EXPECT_FALSE(parse_source_comment("small_version: \"1.0.0\"\n"));
    EXPECT_FALSE(parse_source_comment("# small: computed from plan x, many work entries, newest none\n"));

    EXPECT_EQ(staleness(s, s), "");
    EXPECT_EQ(staleness(std::nullopt, s), "");  // unknown origin: never called stale
    HandoffSource now = s;
    now.work_entries = 15;
    now.newest = "2026-01-02T00:00:00Z";
    EXPECT_EQ(staleness(s, now), "3 work entries were added (newest 2026-01-02T00:00:00Z) since it was written");
    now.plan_digest = "fedcba9876543210";
    EXPECT_EQ(staleness(s, now).rfind("the plan changed and 3 work entries", 0), 0u) << staleness(s, now);
}

TEST(HandoffSource, ThePlanDigestFollowsWhatTheResumeDependsOn) {
    const Outline a = {task("a", "pending"), task("b", "pending", {"a"})};
    Outline b = a;
    EXPECT_EQ(plan_outline_digest(a), plan_outline_digest(b));
    b[1].status = TaskStatus::Completed;
    EXPECT_NE(plan_outline_digest(a), plan_outline_digest(b));
    b = a;
    b[1].depends_on.clear();
    EXPECT_NE(plan_outline_digest(a), plan_outline_digest(b));
    EXPECT_EQ(plan_outline_digest(a).size(), 16u);
}

// ------------------------------------------------------------ build_handoff

HandoffInputs inputs(const Outline& plan, const WorkFacts& facts = {}) {
    HandoffInputs in;
    in.point = resume_point(plan, facts);
    in.replay_id = std::string(64, 'c');
    return in;
}

Ids steps_of(const YamlValue& h) {
    Ids out;
    for (const YamlValue& s : h["resume"]["next_steps"]) out.push_back(s.get<std::string>());
    return out;
}

TEST(BuildHandoff, BlockedTaskWithNothingRunnableIsCurrentWithItsReason) {
    WorkFacts facts;
    facts["task-2"] = work("blocked", 4, "waiting on review");
    const YamlValue h = build_handoff(inputs(
        {task("task-1", "completed"), task("task-2", "blocked"), task("task-3", "pending", {"task-2"})}, facts));
    EXPECT_EQ(h["summary"], "Run waits on a human: task-2: Title task-2.");
    EXPECT_EQ(h["resume"]["current_task_id"], "task-2");
    EXPECT_EQ(steps_of(h), Ids{"Waits on a human: task-2: Title task-2 — waiting on review (a human unblocks it: "
                               "small plan --pending task-2)"});
}

// A strict failure with a stop that names no task writes meta/blocker (a
// blank current_task_id would not validate, and the handoff could not be written).
TEST(BuildHandoff, AStrictFailureWithAClaimsStopIsAMetaBlocker) {
    WorkFacts facts;
    facts["a"].claimed_by = "bob until 14:05 UTC";
    HandoffInputs in = inputs({task("a", "pending")}, facts);
    ASSERT_EQ(in.point.kind, ResumeKind::Stop);
    in.readiness = {false, ""};
    EXPECT_EQ(build_handoff(in)["resume"]["current_task_id"], "meta/blocker");
}

TEST(BuildHandoff, StrictFailureComesFirstAndIsAMetaBlockerUnlessUnblocking) {
    HandoffInputs in = inputs({task("task-1", "pending")});
    in.readiness = {false, ".small/plan.small.yml:3:1: bad thing [S1]"};
    YamlValue h = build_handoff(in);
    EXPECT_EQ(h["summary"], "Run blocked. strict check failed.");
    EXPECT_EQ(h["resume"]["current_task_id"], "meta/blocker");
    EXPECT_EQ(steps_of(h), (Ids{"Resolve strict check failures: .small/plan.small.yml:3:1: bad thing [S1]",
                                "Run: small check --strict", "Start task-1: Title task-1"}));

    in = inputs({task("task-1", "completed"), task("task-2", "blocked")});
    in.readiness = {false, ""};
    h = build_handoff(in);
    EXPECT_EQ(h["resume"]["current_task_id"], "task-2");
    EXPECT_EQ(steps_of(h).front(), "Resolve strict check failures");
}

TEST(BuildHandoff, CompleteHasNoCurrentTaskAndNoSteps) {
    const YamlValue h = build_handoff(inputs({task("task-1", "completed"), task("task-2", "cancelled")}));
    EXPECT_EQ(h["summary"], "Run complete. strict check passed. All plan tasks completed.");
    EXPECT_FALSE(h["resume"].contains("current_task_id"));
    EXPECT_TRUE(steps_of(h).empty());
}

TEST(BuildHandoff, SessionStepsFollowTheComputedOnesAndStartedTasksAreCounted) {
    WorkFacts facts;
    facts["task-1"] = work("in_progress", 2);
    HandoffInputs in = inputs({task("task-1", "pending"), task("task-2", "pending")}, facts);
    in.next = {"Ask the user about the flag name", "  "};
    const YamlValue h = build_handoff(in);
    EXPECT_EQ(steps_of(h), (Ids{"Resume task-1: Title task-1 (pending)",
                                "Also ready: task-2: Title task-2", "Ask the user about the flag name"}));
    EXPECT_EQ(h["summary"], "Run in progress. Next task: task-1. 1 task has unsettled progress.");
}

TEST(BuildHandoff, HouseKeyOrderSummaryOverrideLinksAndRun) {
    HandoffInputs in = inputs({task("task-1", "blocked")});
    in.summary = "Waiting for review.";
    in.source = "manual";
    YamlValue link = YamlValue::object();
    link["url"] = "https://example.com";
    in.links = YamlValue::array({link});
    in.run = YamlValue::object();
    in.run["transition_reason"] = "manual";
    const YamlValue h = build_handoff(in);
    Ids keys;
    for (auto it = h.begin(); it != h.end(); ++it) keys.push_back(it.key());
    EXPECT_EQ(keys, (Ids{"small_version", "owner", "summary", "resume", "links", "replayId", "run"}));
    EXPECT_EQ(h["summary"], "Waiting for review.");
    EXPECT_EQ(h["replayId"]["source"], "manual");
    EXPECT_EQ(h["links"], in.links);
    in.run = YamlValue();
    EXPECT_FALSE(build_handoff(in).contains("run"));
}

// ------------------------------------------------------------ properties

const char* const kStatuses[] = {"pending", "in_progress", "completed", "blocked", "cancelled"};

// A random plan of up to 50 tasks: dependencies only on earlier tasks (a DAG),
// sometimes on an id the plan does not have; random statuses and work.
struct Scenario {
    Outline plan;
    WorkFacts facts;
};

Scenario random_scenario(std::mt19937& rng) {
    Scenario s;
    const int n = std::uniform_int_distribution<int>(0, 50)(rng);
    std::size_t seq = 0;
    for (int i = 0; i < n; ++i) {
        PlanTaskOutline t = task("t" + std::to_string(i), kStatuses[rng() % 5]);
        const int deps = i == 0 ? 0 : std::uniform_int_distribution<int>(0, std::min(i, 3))(rng);
        for (int d = 0; d < deps; ++d) {
            std::string dep = rng() % 40 == 0 ? "ghost" : "t" + std::to_string(rng() % i);
            if (std::find(t.depends_on.begin(), t.depends_on.end(), dep) == t.depends_on.end()) {
                t.depends_on.push_back(dep);
            }
        }
        s.plan.push_back(t);
        if (rng() % 3 == 0) {
            s.facts[t.id] = work(kStatuses[rng() % 5], ++seq, rng() % 2 ? "reason " + t.id : "");
            s.facts[t.id].here = rng() % 2 == 0;  // this checkout's own work, or merged in
        }
    }
    return s;
}

// What following the suggested step does to the plan (checkpoint sets the
// plan status and records a work entry).
void follow(Scenario& s, const NextAction& a, std::size_t& seq) {
    ASSERT_EQ(a.tool, "checkpoint") << cli_line(a);
    const std::string id = task_of(a), status = arg_of(a, "status");
    for (PlanTaskOutline& t : s.plan) {
        if (t.id == id) t.status = WrittenStatus(status);
    }
    s.facts[id].last_status = WrittenStatus(status);
    s.facts[id].last_seq = ++seq;
    s.facts[id].here = true;
}

TEST(ResumePointProperty, TheSuggestedTaskIsAlwaysReadyAndFollowingItNeverLoops) {
    std::mt19937 rng(20261126);
    for (int round = 0; round < 3000; ++round) {
        Scenario s = random_scenario(rng);
        std::size_t seq = 1000;
        std::set<std::string> seen;
        // Each task can be started, then completed: at most 2 steps per task
        // (an unblock is a start) plus one, or it loops.
        const std::size_t limit = 2 * s.plan.size() + 1;
        for (std::size_t step = 0;; ++step) {
            const ResumePoint r = resume_point(s.plan, s.facts);
            if (!r.current.empty()) {
                ASSERT_TRUE(is_ready(s.plan, r.current)) << "round " << round << ": " << r.current;
            }
            const std::string named = task_of(r.action);
            if (!named.empty()) {
                ASSERT_TRUE(is_ready(s.plan, named)) << "round " << round << ": " << cli_line(r.action);
                ASSERT_EQ(named, r.current);
            }
            if (r.kind == ResumeKind::Complete || r.kind == ResumeKind::NoTasks || r.kind == ResumeKind::Stuck ||
                r.kind == ResumeKind::Stop) {
                if (r.kind == ResumeKind::Stuck) {
                    ASSERT_EQ(r.action.tool, "plan") << "round " << round;
                }
                if (r.kind == ResumeKind::Stop) {  // only a human can move it: no tool, a reason
                    ASSERT_EQ(r.action.tool, "") << "round " << round;
                    ASSERT_FALSE(r.action.stop.empty()) << "round " << round;
                    ASSERT_EQ(cli_line(r.action).rfind("stop: ", 0), 0u) << "round " << round;
                }
                break;
            }
            ASSERT_LT(step, limit) << "round " << round << ": following the steps loops at " << cli_line(r.action);
            const std::string key = cli_line(r.action) + "|" + r.current;
            ASSERT_TRUE(seen.insert(key).second) << "round " << round << ": the same step twice: " << key;
            follow(s, r.action, seq);
        }
    }
}

TEST(ResumePointProperty, AStartedTaskIsResumedOnlyWhenReadyAndBlockersShowTheirReason) {
    std::mt19937 rng(7);
    for (int round = 0; round < 3000; ++round) {
        const Scenario s = random_scenario(rng);
        const ResumePoint r = resume_point(s.plan, s.facts);
        for (const StartedTask& t : r.started) {
            const std::string resume =
                (t.elsewhere ? "In progress in another checkout: " : "Resume ") + describe_started(t);
            const bool listed = std::find(r.steps.begin(), r.steps.end(), resume) != r.steps.end();
            ASSERT_EQ(listed, is_ready(s.plan, t.id)) << "round " << round << ": " << t.id;
        }
        // A task only other checkouts started is current only when nothing else is ready.
        const auto elsewhere = [&](const std::string& id) {
            return std::any_of(r.started.begin(), r.started.end(),
                               [&](const StartedTask& t) { return t.id == id && t.elsewhere; });
        };
        if (!r.current.empty() && elsewhere(r.current)) {
            for (const PlanTaskOutline& t : s.plan) {
                if (t.status.is(TaskStatus::Blocked) || !is_ready(s.plan, t.id)) continue;
                const auto w = s.facts.find(t.id);
                const bool blocked_by_work = w != s.facts.end() && w->second.last_status.is(TaskStatus::Blocked);
                ASSERT_TRUE(elsewhere(t.id) || blocked_by_work) << "round " << round << ": " << t.id << " was ready";
            }
        }
        for (const BlockedTask& b : blocked_tasks(s.plan, s.facts)) {
            const PlanTaskOutline* t = find(s.plan, b.id);
            ASSERT_NE(t, nullptr);
            const auto w = s.facts.find(b.id);
            ASSERT_EQ(b.reason, w == s.facts.end() ? "" : w->second.blocked_reason);
        }
    }
}

TEST(CliLine, AClaimsTaskIsItsOperand) {
    EXPECT_EQ(cli_line(NextAction{"claim", {{"task", "task-7", false}}, "", ""}), "small claim task-7");
    EXPECT_EQ(cli_line(NextAction{"claim", {{"task", "a b", false}}, "", ""}), "small claim 'a b'");
}

}  // namespace
}  // namespace small
