// The resume point end to end (D18): the next step the primer, the handoff,
// status and doctor name on a plan with dependencies and a blocker; the
// handoff's staleness; a complete run that does not loop; the run re-pinned
// before its work starts; and two agents in two worktrees resumed from the
// primer alone, before and after their branches merge.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/git_fixture.hpp"
#include "support/run_binary.hpp"

namespace small_e2e {
namespace {

using Env = std::vector<std::pair<std::string, std::optional<std::string>>>;

std::string run_next(const RunResult& brief) {
    const std::size_t at = brief.out.rfind("Run next: ");
    return at == std::string::npos ? "" : brief.out.substr(at + 10, brief.out.find('\n', at) - at - 10);
}

class ResumeE2E : public ::testing::Test {
protected:
    void SetUp() override {
        env_ = isolated_git_env(tmp_.path());
        fs::create_directory(repo());
    }
    fs::path repo() const { return tmp_.path() / "repo"; }

    RunResult small(const std::vector<std::string>& args, const fs::path& cwd = {}) {
        return run_in(cwd.empty() ? repo() : cwd, args, env_);
    }
    void ok(const std::vector<std::string>& args, const fs::path& cwd = {}) {
        const RunResult r = small(args, cwd);
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    RunResult git(const std::vector<std::string>& args, const fs::path& cwd = {}) {
        RunOptions o;
        o.cwd = cwd.empty() ? repo() : cwd;
        o.env = env_;
        o.program = "/usr/bin/git";
        return run_small(args, o);
    }
    void git_ok(const std::vector<std::string>& args, const fs::path& cwd = {}) {
        const RunResult r = git(args, cwd);
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    std::string brief_next(const fs::path& cwd = {}) { return run_next(small({"status", "--brief"}, cwd)); }

    // task-1 (the template's) .. task-5: 3 after 2, 4 after 3, 5 after 4.
    void five_task_plan() {
        ok({"init", "--no-agents", "--intent", "Five tasks"});
        for (const char* title : {"Parse", "Decide the edge case", "Implement", "Document"}) ok({"plan", "--add", title});
        ok({"plan", "--depends", "task-3:task-2"});
        ok({"plan", "--depends", "task-4:task-3"});
        ok({"plan", "--depends", "task-5:task-4"});
    }

    // A repository whose main has the driver, task-1 completed and `titles`
    // added, and worktrees wt-a and wt-b on branches a and b.
    void two_worktrees(const std::vector<std::string>& titles) {
        git_ok({"init", "-q", "-b", "main"});
        ok({"init", "--no-agents", "--intent", "Two agents"});
        for (const std::string& title : titles) ok({"plan", "--add", title});
        ok({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "set up"});
        ok({"handoff"});
        ok({"hooks", "install", "git"});
        git_ok({"add", "-A"});
        git_ok({"commit", "-q", "-m", "base"});
        for (const char* branch : {"a", "b"}) {
            git_ok({"worktree", "add", "-q", "-b", branch, worktree(branch).string(), "main"});
        }
    }
    fs::path worktree(const std::string& branch) const { return tmp_.path() / ("wt-" + branch); }

    TempDir tmp_;
    Env env_;
};

// A task blocked by its work, then unblocked with the step the primer
// suggests (`small plan --pending`): every view and write reads the one status
// the human decided, not the blocked work entry before it; a later plan edit
// that is bookkeeping (--title) changes nothing.
TEST_F(ResumeE2E, AHumanUnblockingATaskIsTheStatusEveryViewAndWriteReads) {
    five_task_plan();
    ok({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "set up"});
    ok({"checkpoint", "--task", "task-2", "--status", "in_progress", "--evidence", "started"});
    ok({"checkpoint", "--task", "task-2", "--status", "blocked", "--evidence", "needs a decision from ops"});
    EXPECT_TRUE(contains(run_next(small({"status", "--brief"})), "stop: task-2 waits on a human"));
    EXPECT_EQ(small({"claim", "task-2"}).exit_code, 1);  // blocked: nothing to claim
    ok({"plan", "--pending", "task-2"});
    ok({"plan", "--title", "task-2", "Parse (ops said yes)"});

    const RunResult primer = small({"status", "--brief"});
    EXPECT_TRUE(contains(primer.out, "task-2")) << primer;
    EXPECT_FALSE(contains(primer.out, "waits on a human")) << primer;
    EXPECT_EQ(run_next(primer), "small checkpoint --task task-2 --status in_progress") << primer;
    const RunResult ready = small({"ready", "--json"});
    ASSERT_EQ(ready.exit_code, 0) << ready;
    EXPECT_TRUE(contains(ready.out, "\"task-2\"")) << ready;
    const RunResult board = small({"board", "--json"});
    ASSERT_EQ(board.exit_code, 0) << board;
    std::string column_of_task_2;
    const nlohmann::json doc = nlohmann::json::parse(board.out);
    for (const nlohmann::json& column : doc["columns"]) {
        for (const nlohmann::json& t : column["tasks"]) {
            if (t["id"] == "task-2") column_of_task_2 = column["status"].get<std::string>();
        }
    }
    EXPECT_EQ(column_of_task_2, "pending") << board;
    const RunResult shown = small({"plan", "show", "task-2"});
    EXPECT_TRUE(contains(shown.out, "status: pending")) << shown;
    const RunResult claim = small({"claim", "task-2"});
    EXPECT_EQ(claim.exit_code, 0) << claim;
    ok({"checkpoint", "--task", "task-2", "--status", "in_progress", "--evidence", "resumed"});
    EXPECT_EQ(run_next(small({"status", "--brief"})),
              "small checkpoint --task task-2 --status completed --evidence \"<what proves it is done>\"");
}

TEST_F(ResumeE2E, PlanEditsAreNotWorkAndNoUntouchedTaskIsResumed) {
    five_task_plan();
    const RunResult h = small({"handoff"});
    ASSERT_EQ(h.exit_code, 0) << h;
    EXPECT_FALSE(contains(h.err, "Warning")) << h;  // the plan edits' log lines are bookkeeping
    EXPECT_FALSE(contains(h.out, "Resume task-")) << h;
    EXPECT_TRUE(contains(h.out, "current_task_id: \"task-1\"")) << h;
    EXPECT_EQ(brief_next(), "small checkpoint --task task-1 --status in_progress");
}

TEST_F(ResumeE2E, ABlockedDependencyIsNamedWithItsReasonAndItsDependentsWait) {
    five_task_plan();
    ok({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "parsed"});
    ok({"checkpoint", "--task", "task-2", "--status", "completed", "--evidence", "decided"});
    ok({"checkpoint", "--task", "task-3", "--status", "blocked", "--evidence", "need a decision: error or inf?"});
    ok({"progress", "add", "--task", "task-4", "--status", "in_progress", "--evidence", "started early"});
    for (int i = 0; i < 3; ++i) ok({"progress", "add", "--task", "meta/notes", "--status", "completed", "--evidence", "note"});

    const RunResult brief = small({"status", "--brief"});
    // Only a human can unblock task-3 (issue 37): stop, with the reason, shown once.
    EXPECT_EQ(run_next(brief),
              "stop: task-3 waits on a human (need a decision: error or inf?); write the handoff and end the session")
        << brief;
    std::size_t shown = 0;
    for (std::size_t at = brief.out.find("need a decision"); at != std::string::npos;
         at = brief.out.find("need a decision", at + 1)) {
        ++shown;
    }
    EXPECT_EQ(shown, 1u) << brief;  // however old the entry, and only once

    const RunResult h = small({"handoff"});
    ASSERT_EQ(h.exit_code, 0) << h;
    EXPECT_TRUE(contains(h.out, "current_task_id: \"task-3\"")) << h;
    EXPECT_TRUE(contains(h.out, "Waits on a human: task-3: Decide the edge case — need a decision: error or inf? (a "
                                "human unblocks it: small plan --pending task-3)"))
        << h;
    EXPECT_TRUE(contains(h.out, "Wait: task-4: Implement")) << h;
    EXPECT_FALSE(contains(h.out, "Resume task-4")) << h;

    const RunResult status = small({"status"});
    EXPECT_TRUE(contains(status.out, "Next task: none — stop: task-3 waits on a human (need a decision: error or "
                                     "inf?); the handoff is up to date: end the session"))
        << status;
    EXPECT_FALSE(contains(status.out, "Blocked: task-3")) << "the reason is shown once: " << status;
    const RunResult doctor = small({"doctor"});
    EXPECT_TRUE(contains(doctor.out, "need a decision")) << doctor;
    EXPECT_FALSE(contains(doctor.out, "task-4 --status completed")) << doctor;
}

TEST_F(ResumeE2E, AStaleHandoffIsSaidEverywhereAndTheVerdictStays) {
    five_task_plan();
    ok({"handoff"});
    EXPECT_TRUE(contains(small({"status"}).out, "Next task: task-1"));
    EXPECT_FALSE(contains(small({"status"}).out, "stale"));
    ok({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "parsed"});

    const RunResult status = small({"status"});
    EXPECT_TRUE(contains(status.out, "Handoff: stale (the plan changed and 1 work entry was added")) << status;
    EXPECT_TRUE(contains(status.out, "Next task: task-2")) << status;  // from the plan, not the stale handoff
    const RunResult as_json = small({"status", "--json"});
    const json doc = json::parse(as_json.out);
    EXPECT_EQ(doc["handoff"]["stale"], true) << as_json;
    const RunResult brief = small({"status", "--brief"});
    EXPECT_TRUE(contains(brief.out, "Handoff: stale — ")) << brief;
    EXPECT_TRUE(contains(brief.out, "Start task-2")) << brief;  // the steps computed now
    EXPECT_FALSE(contains(brief.out, "task-1: Initial task")) << brief;
    const RunResult check = small({"check", "--strict"});
    EXPECT_EQ(check.exit_code, 0) << check;  // a warning only
    EXPECT_TRUE(contains(check.out + check.err, "[HANDOFF-STALE]")) << check;
    const RunResult doctor = small({"doctor"});
    EXPECT_TRUE(contains(doctor.out + doctor.err, "Handoff is stale")) << doctor;

    ok({"handoff"});
    EXPECT_FALSE(contains(small({"status"}).out, "stale"));
    const RunResult fresh = small({"check", "--strict"});
    EXPECT_FALSE(contains(fresh.out + fresh.err, "HANDOFF-STALE")) << fresh;
}

TEST_F(ResumeE2E, FollowingRunNextFinishesAndNeverLoops) {
    five_task_plan();
    std::vector<std::string> seen;
    for (int step = 0; step < 20; ++step) {
        std::string next = brief_next();
        ASSERT_FALSE(next.empty());
        if (next.rfind("small ", 0) != 0) {
            EXPECT_TRUE(contains(next, "the run is complete")) << next;
            break;
        }
        for (const std::string& s : seen) ASSERT_NE(s, next) << "Run next repeats itself";
        seen.push_back(next);
        // Fill the placeholder and run it, as an obedient agent would.
        std::vector<std::string> args;
        std::string word;
        bool quoted = false;
        for (char c : next.substr(6) + " ") {
            if (c == '"') quoted = !quoted;
            else if (c == ' ' && !quoted) {
                if (!word.empty()) args.push_back(word == "<what proves it is done>" ? "done" : word);
                word.clear();
            } else word += c;
        }
        ok(args);
        ASSERT_LT(step, 19) << "no end after 20 steps";
    }
    EXPECT_EQ(seen.back(), "small handoff");  // the one write left once every task is done
    const RunResult doctor = small({"doctor"});
    EXPECT_FALSE(contains(doctor.out, "Run: small handoff")) << doctor;
}

TEST_F(ResumeE2E, HandoffNextAddsTheSessionsOwnSteps) {
    five_task_plan();
    ok({"handoff", "--next", "Ask about the flag name", "--next", "Then write the docs"});
    const std::string handoff = read_file(repo() / ".small" / "handoff.small.yml");
    const std::size_t first = handoff.find("Ask about the flag name");
    ASSERT_NE(first, std::string::npos) << handoff;
    EXPECT_LT(handoff.find("Start task-1"), first) << handoff;
    EXPECT_LT(first, handoff.find("Then write the docs")) << handoff;
    EXPECT_EQ(handoff.rfind("# small: computed from plan ", 0), 0u) << handoff;
}

TEST_F(ResumeE2E, StartRePinsARunWhoseWorkHasNotStarted) {
    ok({"init", "--no-agents", "--intent", "First words"});
    write_file(repo() / ".small" / "intent.small.yml",
               "small_version: \"1.0.0\"\nowner: \"human\"\nintent: \"What the human meant\"\nscope:\n  include: []\n"
               "  exclude: []\nsuccess_criteria: []\n");
    const RunResult note = small({"replay-id"});
    ASSERT_EQ(note.exit_code, 0) << note;
    EXPECT_TRUE(contains(note.err, "run `small start` to re-pin it")) << note;
    const RunResult start = small({"start"});
    EXPECT_EQ(start.exit_code, 0) << start;
    EXPECT_TRUE(contains(start.out, "Re-pinned the run")) << start;
    const RunResult after = small({"replay-id"});
    EXPECT_EQ(after.err, "") << after;

    // Once work is recorded the pin stays, and the note says what applies then.
    ok({"progress", "add", "--task", "task-1", "--status", "in_progress", "--evidence", "working"});
    ok({"plan", "--add", "Changes the manifest"});
    const RunResult worked = small({"start"});
    EXPECT_FALSE(contains(worked.out, "Re-pinned")) << worked;
    EXPECT_TRUE(contains(small({"replay-id"}).err, "`small reset` starts a new run"));
}

TEST_F(ResumeE2E, TwoAgentsInTwoWorktreesResumeFromThePrimerBeforeAndAfterTheMerge) {
    two_worktrees({"Alpha's task", "Beta's task"});  // task-2, task-3
    const fs::path a = worktree("a"), b = worktree("b");

    ok({"checkpoint", "--task", "task-2", "--status", "in_progress", "--evidence", "alpha starts"}, a);
    ok({"checkpoint", "--task", "task-3", "--status", "in_progress", "--evidence", "beta starts"}, b);
    ok({"handoff"}, a);
    ok({"handoff"}, b);
    // Each side resumes its own task from the primer alone.
    EXPECT_EQ(brief_next(a), "small checkpoint --task task-2 --status completed --evidence \"<what proves it is done>\"");
    EXPECT_EQ(brief_next(b), "small checkpoint --task task-3 --status completed --evidence \"<what proves it is done>\"");
    ok({"checkpoint", "--task", "task-2", "--status", "completed", "--evidence", "alpha done"}, a);
    ok({"checkpoint", "--task", "task-3", "--status", "completed", "--evidence", "beta done"}, b);
    ok({"handoff"}, a);
    ok({"handoff"}, b);
    git_ok({"commit", "-q", "-am", "alpha"}, a);
    git_ok({"commit", "-q", "-am", "beta"}, b);

    // The octopus strategy commits a handoff computed from the merged plan and log.
    const RunResult merge = git({"merge", "--no-edit", "-s", "small", "a", "b"});
    ASSERT_EQ(merge.exit_code, 0) << merge;
    EXPECT_TRUE(git({"status", "--porcelain"}).out.empty());
    const RunResult status = small({"status"});
    EXPECT_FALSE(contains(status.out, "stale")) << status;
    EXPECT_TRUE(contains(status.out, "Next task: No active task (run complete)")) << status;
    const std::string handoff = read_file(repo() / ".small" / "handoff.small.yml");
    EXPECT_TRUE(contains(handoff, "Run complete.")) << handoff;
    const RunResult check = small({"check", "--strict"});
    EXPECT_EQ(check.exit_code, 0) << check;
    EXPECT_FALSE(contains(check.out + check.err, "HANDOFF-STALE")) << check;
    EXPECT_TRUE(contains(brief_next(), "the run is complete"));

    // Two plain merges with the driver: the handoff is one side's, and readers say so.
    git_ok({"checkout", "-q", "-b", "plain", "main~1"});
    git_ok({"merge", "-q", "--no-edit", "a"});
    const RunResult second = git({"merge", "--no-edit", "b"});
    ASSERT_EQ(second.exit_code, 0) << second;
    EXPECT_TRUE(contains(second.out + second.err, "run: small handoff")) << second;
    EXPECT_TRUE(contains(small({"status"}).out, "Handoff: stale"));
    EXPECT_EQ(brief_next(), "small handoff");
    ok({"handoff"});
    EXPECT_TRUE(contains(brief_next(), "the run is complete"));
}

// After merging the other agent's branch, each worktree still resumes its
// own task (its entry is older than the merged-in one); a fresh clone, which
// did no work itself, reads the log alone.
TEST_F(ResumeE2E, AWorktreeNeverResumesATaskOnlyTheOtherBranchStarted) {
    two_worktrees({"Alpha's task", "Beta's task", "Later"});  // task-2 .. task-4
    const fs::path a = worktree("a"), b = worktree("b");

    ok({"checkpoint", "--task", "task-3", "--status", "in_progress", "--evidence", "beta starts"}, b);
    ok({"checkpoint", "--task", "task-2", "--status", "in_progress", "--evidence", "alpha starts"}, a);  // newer
    ok({"handoff"}, a);
    ok({"handoff"}, b);
    git_ok({"commit", "-q", "-am", "alpha"}, a);
    git_ok({"commit", "-q", "-am", "beta"}, b);

    // Beta merges alpha's branch with the strategy, which rewrites the handoff
    // here: from the merged plan and log only (the newest work, alpha's
    // task-2), never from beta's own work, so any checkout writes it alike.
    // Beta's primer still resumes its own task-3.
    const RunResult merge = git({"merge", "--no-edit", "-s", "small", "a"}, b);
    ASSERT_EQ(merge.exit_code, 0) << merge;
    const std::string handoff = read_file(b / ".small" / "handoff.small.yml");
    EXPECT_TRUE(contains(handoff, "current_task_id: \"task-2\"")) << handoff;
    EXPECT_FALSE(contains(handoff, ", mine ")) << handoff;
    EXPECT_EQ(brief_next(b), "small checkpoint --task task-3 --status completed --evidence \"<what proves it is done>\"");
    ok({"handoff"}, b);  // "after the merge, run: small handoff": nothing changes
    EXPECT_EQ(read_file(b / ".small" / "handoff.small.yml"), handoff);
    // Alpha merges beta's (a fast-forward: beta's handoff arrives as it is):
    // its own task-2 stays current; the handoff is not stale here, and
    // alpha's `small handoff` writes the very same file (the sides converge).
    ASSERT_EQ(git({"merge", "--no-edit", "-s", "small", "b"}, a).exit_code, 0);
    EXPECT_EQ(brief_next(a), "small checkpoint --task task-2 --status completed --evidence \"<what proves it is done>\"");
    const RunResult primer = small({"status", "--brief"}, a);
    EXPECT_FALSE(contains(primer.out, "stale")) << primer;
    EXPECT_FALSE(contains(primer.out, "computed in another checkout")) << primer;
    EXPECT_TRUE(contains(primer.out, "Resume task-2")) << primer;
    ok({"handoff"}, a);
    EXPECT_EQ(read_file(a / ".small" / "handoff.small.yml"), handoff);
    EXPECT_TRUE(git({"status", "--porcelain"}, a).out.empty()) << git({"status", "--porcelain"}, a);
    EXPECT_FALSE(contains(small({"status", "--brief"}, a).out, "stale"));
    // A checkout that knows none of its own work (CI) does not call it stale.
    const RunResult strict = small({"check", "--strict"}, b);
    EXPECT_FALSE(contains(strict.out + strict.err, "HANDOFF-STALE")) << strict;
    // Beta finishes: the next is the task nobody started, not alpha's.
    ok({"checkpoint", "--task", "task-3", "--status", "completed", "--evidence", "beta done"}, b);
    EXPECT_EQ(brief_next(b), "small checkpoint --task task-4 --status in_progress");
    // Main's own work was task-1: after the merge it starts the free task-4,
    // not alpha's task-2.
    git_ok({"merge", "-q", "--no-edit", "-s", "small", "b"});
    EXPECT_EQ(brief_next(), "small checkpoint --task task-4 --status in_progress");
    // A fresh clone knows nothing of its own work: the newest work entry decides.
    git_ok({"clone", "-q", repo().string(), (tmp_.path() / "clone").string()}, tmp_.path());
    EXPECT_EQ(brief_next(tmp_.path() / "clone"),
              "small checkpoint --task task-2 --status completed --evidence \"<what proves it is done>\"");
}

}  // namespace
}  // namespace small_e2e
