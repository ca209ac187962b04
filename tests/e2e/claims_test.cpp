// Claims across worktrees and machines (D19), with real git: all worktrees
// of one repository share the claims at once (8 processes x 100 rounds of
// `claim --next` over 4 worktrees: no task held twice, no claim lost), and
// two clones of a bare remote race for the same task 100 times with exactly
// one winner each time. Plus the command line: ready, claim, release,
// claims, the refusal of another agent's task, --offline.
#include <filesystem>
#include <future>
#include <map>
#include <set>
#include <thread>

#include "support/git_fixture.hpp"

namespace small_e2e {
namespace {

namespace fs = std::filesystem;

std::string plan_with(int tasks) {
    std::string plan = "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n";
    for (int i = 1; i <= tasks; ++i) {
        plan += "  - id: task-" + std::to_string(i) + "\n    title: Task " + std::to_string(i) + "\n    status: pending\n";
    }
    return plan;
}

class ClaimsE2E : public GitRepoE2E {
protected:
    // A committed workspace whose plan has `tasks` pending tasks.
    void workspace_with(int tasks, const fs::path& dir) {
        ASSERT_EQ(small({"init", "--intent", "Claims", "--no-agents"}, dir).exit_code, 0);
        write_file(dir / ".small/plan.small.yml", plan_with(tasks));
        git_ok({"add", "-A"}, dir);
        git_ok({"commit", "-qm", "plan"}, dir);
    }
    RunResult small_as(const std::string& agent, const std::vector<std::string>& args, const fs::path& cwd) {
        RunOptions o;
        o.cwd = cwd;
        o.env = env_;
        o.env.push_back({"SMALL_AGENT", agent});
        o.timeout = std::chrono::milliseconds(120'000);
        return run_small(args, o);
    }
    void SetUp() override {
        GitRepoE2E::SetUp();
        if (IsSkipped()) return;
        git_ok({"init", "-q", "-b", "main"});
    }
};

TEST_F(ClaimsE2E, ReadyClaimReleaseAndTheRefusalOfAnotherAgentsTask) {
    workspace_with(2, repo());
    RunResult r = small_as("alice", {"claim", "task-1", "--ttl", "30m"}, repo());
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Claimed task-1 for alice until")) << r;
    EXPECT_TRUE(contains(r.out, "this machine only")) << "no remote: " << r;

    r = small_as("bob", {"ready"}, repo());
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.out, "task-2: Task 2\n");
    r = small_as("bob", {"claim", "task-1"}, repo());
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "claimed by alice until")) << r;
    r = small_as("bob", {"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "x"}, repo());
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "claimed by alice")) << r;

    const json claims = run_json(repo(), {"claims", "--json"}, 0);
    ASSERT_EQ(claims["claims"].size(), 1u) << claims.dump();
    EXPECT_EQ(claims["claims"][0]["agent"], "alice");
    EXPECT_EQ(claims["claims"][0]["state"], "live");
    EXPECT_FALSE(fs::exists(repo() / ".small/claims.json"));
    EXPECT_TRUE(fs::exists(repo() / ".git/small/claims.json")) << "shared by every worktree";

    r = small_as("alice", {"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "done"}, repo());
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(run_json(repo(), {"claims", "--json"}, 0)["claims"].size(), 0u) << "completing released it";
    r = small({"check", "--strict"});
    EXPECT_EQ(r.exit_code, 0) << "claims add nothing the schemas or S4 forbid: " << r;
}

// A lease on a task the plan has completed (as a merge brings it in, the
// holder's release not yet seen) holds nothing: the primer, status --all and
// the board do not show it as a live hold, and `claims` says it is settled.
TEST_F(ClaimsE2E, ClaimsAreListedAsPeopleCountTaskIds) {
    workspace_with(12, repo());
    for (const char* task : {"task-12", "task-8", "task-10"}) ASSERT_EQ(small_as("alice", {"claim", task}, repo()).exit_code, 0);
    const RunResult r = small_as("alice", {"claims"}, repo());
    ASSERT_EQ(r.exit_code, 0) << r;
    const auto at = [&](const char* task) { return r.out.find(std::string(task) + " "); };
    ASSERT_NE(at("task-8"), std::string::npos) << r;
    EXPECT_LT(at("task-8"), at("task-10")) << r;
    EXPECT_LT(at("task-10"), at("task-12")) << r;
}

TEST_F(ClaimsE2E, ALeaseOnACompletedTaskIsNotShownAsALiveHold) {
    workspace_with(3, repo());
    RunResult r = small_as("alice", {"claim", "task-2", "--ttl", "30m"}, repo());
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(small_as("bob", {"status", "--brief"}, repo()).out, "alice holds task-2"));
    // The merged plan says task-2 is completed (written as a merge would).
    std::string plan = plan_with(3);
    plan.replace(plan.find("status: pending", plan.find("task-2")), 15, "status: completed");
    write_file(repo() / ".small/plan.small.yml", plan);

    const RunResult primer = small_as("bob", {"status", "--brief"}, repo());
    EXPECT_FALSE(contains(primer.out, "alice holds task-2")) << primer;
    const RunResult all = small_as("bob", {"status", "--all"}, repo());
    EXPECT_TRUE(contains(all.out, "Claims: none live")) << all;
    const RunResult board = small_as("bob", {"board", "--json"}, repo());
    ASSERT_EQ(board.exit_code, 0) << board;
    EXPECT_FALSE(contains(board.out, "alice until")) << board;
    const json claims = run_json(repo(), {"claims", "--json"}, 0);
    ASSERT_EQ(claims["claims"].size(), 1u) << claims.dump();
    EXPECT_EQ(claims["claims"][0]["settled"], true) << claims.dump();
    r = small_as("bob", {"claims"}, repo());
    EXPECT_TRUE(contains(r.out, "task-2  alice  settled; lease ends")) << r;
}

// Every write that starts or completes a task respects claims, not only
// progress add and checkpoint: the plan's status flags and apply's task.
TEST_F(ClaimsE2E, PlanStatusFlagsAndApplyRefuseAnotherAgentsTask) {
    workspace_with(2, repo());
    ASSERT_EQ(small_as("alice", {"claim", "task-1"}, repo()).exit_code, 0);
    ASSERT_EQ(small_as("alice", {"claim", "task-2"}, repo()).exit_code, 0);
    const std::string plan_before = read_file(repo() / ".small/plan.small.yml");
    const std::string log_before = read_file(repo() / ".small/progress.small.yml");

    RunResult r = small_as("bob", {"plan", "--done", "task-1"}, repo());
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "claimed by alice")) << r;
    r = small_as("bob", {"plan", "--in-progress", "task-1"}, repo());
    EXPECT_EQ(r.exit_code, 1) << r;
    r = small_as("bob", {"apply", "--task", "task-2", "--auto-checkpoint", "--cmd", "touch ran"}, repo());
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "claimed by alice")) << r;
    EXPECT_TRUE(contains(r.err, "nothing was run")) << r;
    EXPECT_FALSE(fs::exists(repo() / "ran"));
    EXPECT_EQ(read_file(repo() / ".small/plan.small.yml"), plan_before) << "refused: nothing written";
    EXPECT_EQ(read_file(repo() / ".small/progress.small.yml"), log_before) << "refused: nothing written";

    r = small_as("bob", {"plan", "--in-progress", "task-1", "--force"}, repo());
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(read_file(repo() / ".small/progress.small.yml"), "claim: ")) << "the entry records the claim";

    ASSERT_EQ(small_as("alice", {"plan", "--done", "task-1"}, repo()).exit_code, 0);
    r = small_as("alice", {"apply", "--task", "task-2", "--auto-checkpoint", "--cmd", "true"}, repo());
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(run_json(repo(), {"claims", "--json"}, 0)["claims"].size(), 0u) << "completing released both";
}

// A review found `apply` publishing "completed" for a command that failed
// (the entry said blocked): every side then took the task for done.
TEST_F(ClaimsE2E, AFailedApplySettlesTheTaskBlockedNotCompleted) {
    workspace_with(2, repo());
    RunResult r = small_as("bob", {"apply", "--task", "task-1", "--auto-checkpoint", "--cmd", "false"}, repo());
    ASSERT_EQ(r.exit_code, 1) << r;
    const json table = run_json(repo(), {"claims", "--json"}, 0);
    ASSERT_EQ(table["settled"].size(), 1u) << table.dump();
    EXPECT_EQ(table["settled"][0]["status"], "blocked") << table.dump();
    EXPECT_EQ(table["settled"][0]["reason"], "Command failed with exit code 1") << table.dump();
    // Not another agent's completion: alice may complete it.
    r = small_as("alice", {"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "fixed"}, repo());
    EXPECT_EQ(r.exit_code, 0) << r;
}

TEST_F(ClaimsE2E, EightProcessesOverFourWorktreesNeverHoldATaskTwice) {
    constexpr int kRounds = 100, kProcesses = 8, kWorktrees = 4;
    workspace_with(kRounds * kProcesses, repo());
    std::vector<fs::path> trees = {repo()};
    for (int i = 1; i < kWorktrees; ++i) {
        const fs::path wt = tmp_.path() / ("wt" + std::to_string(i));
        git_ok({"worktree", "add", "-q", "-b", "b" + std::to_string(i), wt.string()});
        trees.push_back(wt);
    }
    std::map<std::string, std::string> holder;  // task -> agent, from the commands' own output
    for (int round = 0; round < kRounds; ++round) {
        std::vector<RunResult> results(kProcesses);
        std::vector<std::thread> threads;
        for (int p = 0; p < kProcesses; ++p) {
            threads.emplace_back([&, p] {
                // A new agent each time: `--next` gives an agent the task it already holds.
                const std::string agent = "agent-" + std::to_string(round) + "-" + std::to_string(p);
                results[p] = small_as(agent, {"claim", "--next", "--json"}, trees[p % kWorktrees]);
            });
        }
        for (std::thread& t : threads) t.join();
        for (int p = 0; p < kProcesses; ++p) {
            ASSERT_EQ(results[p].exit_code, 0) << "round " << round << ": " << results[p];
            const json j = json::parse(results[p].out);
            const std::string task = j["claim"]["task"];
            ASSERT_EQ(holder.count(task), 0u) << "round " << round << ": " << task << " claimed twice";
            holder[task] = j["claim"]["agent"];
        }
    }
    const json table = run_json(repo(), {"claims", "--json"}, 0);
    ASSERT_EQ(table["claims"].size(), holder.size()) << "no claim lost";
    for (const json& c : table["claims"]) EXPECT_EQ(holder[c["task"]], c["agent"]) << c.dump();
}

// D19 item 4: a handoff written in a worktree names what that agent holds
// or may take, never another agent's live claim; the primer says whose is what.
TEST_F(ClaimsE2E, EachAgentsHandoffAndPrimerNameItsOwnTaskNeverAnothersClaim) {
    workspace_with(3, repo());
    const fs::path wt = tmp_.path() / "wt";
    git_ok({"worktree", "add", "-q", "-b", "b", wt.string()});
    ASSERT_EQ(small_as("alice", {"claim", "--next"}, repo()).exit_code, 0);
    ASSERT_EQ(small_as("bob", {"claim", "--next"}, wt).exit_code, 0);

    RunResult r = small_as("bob", {"status", "--brief"}, wt);
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Current: task-2")) << r;
    EXPECT_TRUE(contains(r.out, "You (bob) hold task-2 until")) << r;
    EXPECT_TRUE(contains(r.out, "alice holds task-1 until")) << r;
    EXPECT_TRUE(contains(r.out, "Run next: small checkpoint --task task-2 --status in_progress")) << r;

    ASSERT_EQ(small_as("bob", {"handoff"}, wt).exit_code, 0);
    const std::string handoff = read_file(wt / ".small/handoff.small.yml");
    EXPECT_TRUE(contains(handoff, "current_task_id: \"task-2\"")) << handoff;
    EXPECT_FALSE(contains(handoff, "task-1")) << "alice's task is hers: " << handoff;

    // Bob may not start alice's task; once she completes it, it is done
    // for bob too (D21), though her plan has not reached his branch.
    r = small_as("bob", {"progress", "add", "--task", "task-1", "--status", "in_progress"}, wt);
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "claimed by alice")) << r;
    ASSERT_EQ(small_as("alice", {"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "done"}, repo())
                  .exit_code, 0);
    r = small_as("bob", {"ready"}, wt);
    EXPECT_TRUE(contains(r.out, "task-2: Task 2 (you hold it until")) << r;
    EXPECT_FALSE(contains(r.out, "task-1")) << "settled in alice's checkout: " << r;
}

class RemoteClaimsE2E : public ClaimsE2E {
protected:
    fs::path bare() const { return tmp_.path() / "remote.git"; }
    fs::path clone(int i) const { return tmp_.path() / ("clone" + std::to_string(i)); }
    void SetUp() override {
        ClaimsE2E::SetUp();
        if (IsSkipped()) return;
        workspace_with(100, repo());
        git_ok({"init", "-q", "--bare", bare().string()}, tmp_.path());
        git_ok({"push", "-q", bare().string(), "main"});
        for (int i = 1; i <= 2; ++i) git_ok({"clone", "-q", "-b", "main", bare().string(), clone(i).string()}, tmp_.path());
    }
};

TEST_F(RemoteClaimsE2E, TwoClonesRaceForEachTaskAndExactlyOneWins) {
    for (int round = 1; round <= 100; ++round) {
        const std::string task = "task-" + std::to_string(round);
        RunResult a, b;
        std::thread ta([&] { a = small_as("alice", {"claim", task}, clone(1)); });
        std::thread tb([&] { b = small_as("bob", {"claim", task}, clone(2)); });
        ta.join();
        tb.join();
        ASSERT_EQ((a.exit_code == 0) + (b.exit_code == 0), 1) << "round " << round << "\n" << a << b;
        const RunResult& loser = a.exit_code == 0 ? b : a;
        const std::string winner = a.exit_code == 0 ? "alice" : "bob";
        ASSERT_EQ(loser.exit_code, 1) << loser;
        EXPECT_TRUE(contains(loser.err, "claimed by " + winner)) << loser;
        EXPECT_TRUE(contains((a.exit_code == 0 ? a : b).out, "published to origin")) << a << b;
    }
    // The remote holds all hundred, each once.
    const std::string table = git_out({"--git-dir", bare().string(), "log", "-1", "--format=%B", "refs/small/claims"});
    for (int round = 1; round <= 100; ++round) {
        EXPECT_TRUE(contains(table, "\"task\":\"task-" + std::to_string(round) + "\"")) << round;
    }
}

TEST_F(RemoteClaimsE2E, AnOfflineClaimIsPublishedLaterOrReportedNeverMerged) {
    RunResult r = small_as("alice", {"claim", "task-1", "--offline"}, clone(1));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "offline: not published to origin")) << r;
    r = small_as("bob", {"claim", "task-1"}, clone(2));
    ASSERT_EQ(r.exit_code, 0) << "the remote never heard of alice's claim: " << r;
    r = small_as("alice", {"claim", "task-2"}, clone(1));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, "offline claim of task-1 by alice was not published")) << r;
    EXPECT_TRUE(contains(r.err, "bob holds task-1")) << r;
    const json mine = run_json(clone(1), {"claims", "--json"}, 0);
    ASSERT_EQ(mine["claims"].size(), 2u) << mine.dump();
    EXPECT_EQ(mine["claims"][0]["agent"], "bob") << "the remote's claim replaced the offline one";

    r = small_as("carol", {"claim", "task-3", "--offline"}, clone(2));
    ASSERT_EQ(r.exit_code, 0) << r;
    r = small_as("carol", {"release", "task-1", "--force"}, clone(2));
    ASSERT_EQ(r.exit_code, 0) << r;
    const std::string table = git_out({"--git-dir", bare().string(), "log", "-1", "--format=%B", "refs/small/claims"});
    EXPECT_TRUE(contains(table, "\"task\":\"task-3\"")) << "the offline claim travelled with the next change: " << table;
    EXPECT_FALSE(contains(table, "\"task\":\"task-1\"")) << table;
}

// D21, issue 36's third reproduction: a claim made before the repository
// had a remote is published by the first exchange with one, so another
// clone cannot take the task.
TEST_F(ClaimsE2E, AClaimMadeBeforeTheRemoteExistedIsPublishedWithTheFirstExchange) {
    workspace_with(2, repo());
    RunResult r = small_as("alice", {"claim", "task-1"}, repo());
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "this machine only")) << r;
    json claim = run_json(repo(), {"claims", "--json"}, 0);
    EXPECT_FALSE(claim["claims"][0]["published"].get<bool>()) << "JSON says what the text says: " << claim.dump();
    const fs::path bare = tmp_.path() / "bare.git";
    git_ok({"init", "-q", "--bare", "-b", "main", bare.string()}, tmp_.path());
    git_ok({"remote", "add", "origin", bare.string()}, repo());
    git_ok({"push", "-q", "origin", "main"}, repo());
    r = small_as("alice", {"claim", "task-2"}, repo());
    ASSERT_EQ(r.exit_code, 0) << r;
    claim = run_json(repo(), {"claims", "--json"}, 0);
    ASSERT_EQ(claim["claims"].size(), 2u) << "task-1's claim is still there: " << claim.dump();
    EXPECT_TRUE(claim["claims"][0]["published"].get<bool>()) << claim.dump();
    const fs::path other = tmp_.path() / "b";
    git_ok({"clone", "-q", bare.string(), other.string()}, tmp_.path());
    r = small_as("bob", {"claim", "task-1"}, other);
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "claimed by alice")) << r;
}

// D21, the second reproduction: a task completed in one worktree is not
// handed out in another, and `claim` says who settled it, where and when.
TEST_F(ClaimsE2E, ATaskCompletedInOneWorktreeIsNeverHandedOutInAnother) {
    workspace_with(3, repo());
    const fs::path wt = tmp_.path() / "wt-c";
    git_ok({"worktree", "add", "-q", "-b", "c", wt.string()}, repo());
    RunResult r = small_as("agent-a", {"claim", "task-2"}, repo());
    ASSERT_EQ(r.exit_code, 0) << r;
    r = small_as("agent-a", {"checkpoint", "--task", "task-2", "--status", "completed", "--evidence", "done"}, repo());
    ASSERT_EQ(r.exit_code, 0) << r;
    r = small_as("agent-c", {"ready"}, wt);
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_FALSE(contains(r.out, "task-2")) << r;
    r = small_as("agent-c", {"claim", "task-2"}, wt);
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "completed by agent-a on main")) << r;
    for (int i = 0; i < 2; ++i) {
        r = small_as("agent-c", {"claim", "--next"}, wt);
        ASSERT_EQ(r.exit_code, 0) << r;
        EXPECT_FALSE(contains(r.out, "task-2")) << r;
        r = small_as("agent-c", {"checkpoint", "--task", i == 0 ? "task-1" : "task-3", "--status", "completed", "--evidence", "x"}, wt);
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    r = small_as("agent-c", {"status", "--brief"}, wt);
    EXPECT_TRUE(contains(r.out, "task-2")) << "the primer names what another side settled: " << r;
    EXPECT_FALSE(contains(r.out, "Start task-2")) << r;
    EXPECT_FALSE(contains(r.out, "  - task-2 T")) << "not among the primer's Next: " << r;
    EXPECT_TRUE(contains(r.out, "Settled on another side: task-2")) << r;
    r = small_as("agent-c", {"checkpoint", "--task", "task-2", "--status", "in_progress", "--evidence", "again"}, wt);
    EXPECT_EQ(r.exit_code, 1) << "finished work is not started again without --force: " << r;
}

// D21, the first reproduction: two worktrees adding a task each get
// different ids, and their branches merge without a conflict in .small/.
TEST_F(ClaimsE2E, TwoWorktreesAddingATaskGetDifferentIds) {
    workspace_with(2, repo());
    const fs::path wt = tmp_.path() / "wt-b";
    git_ok({"worktree", "add", "-q", "-b", "b", wt.string()}, repo());
    RunResult a = small_as("a", {"plan", "--add", "Docs"}, repo());
    RunResult b = small_as("b", {"plan", "--add", "Benchmarks"}, wt);
    ASSERT_EQ(a.exit_code, 0) << a;
    ASSERT_EQ(b.exit_code, 0) << b;
    EXPECT_TRUE(contains(a.out, "task-3")) << a;
    EXPECT_TRUE(contains(b.out, "task-4")) << b;
    git_ok({"commit", "-qam", "b adds"}, wt);
    git_ok({"commit", "-qam", "a adds"}, repo());
    // A branch created later (and a worktree) is seen too.
    git_ok({"checkout", "-q", "-b", "c"}, repo());
    RunResult c = small_as("c", {"plan", "--add", "Release"}, repo());
    ASSERT_EQ(c.exit_code, 0) << c;
    EXPECT_TRUE(contains(c.out, "task-5")) << c;
    // A branch no work tree has checked out, with an id added by hand: its
    // committed plan counts too.
    const fs::path far = tmp_.path() / "wt-far";
    git_ok({"worktree", "add", "-q", "-b", "far", far.string(), "main"}, repo());
    write_file(tmp_.path() / "far.yml", "- id: task-40\n  title: Far away\n");
    ASSERT_EQ(small_as("f", {"plan", "--from", (tmp_.path() / "far.yml").string()}, far).exit_code, 0);
    git_ok({"commit", "-qam", "far"}, far);
    git_ok({"worktree", "remove", far.string()}, repo());
    c = small_as("c", {"plan", "--add", "After far"}, repo());
    ASSERT_EQ(c.exit_code, 0) << c;
    EXPECT_TRUE(contains(c.out, "task-41")) << c;
    c = small_as("c", {"plan", "--add", "Again"}, repo());
    EXPECT_TRUE(contains(c.out, "task-42")) << "the second add reads the branch from the cache: " << c;
}

TEST_F(RemoteClaimsE2E, TwoClonesAddingATaskGetDifferentIdsThroughTheRemote) {
    RunResult a = small_as("alice", {"plan", "--add", "Docs"}, clone(1));
    RunResult b = small_as("bob", {"plan", "--add", "Benchmarks"}, clone(2));
    ASSERT_EQ(a.exit_code, 0) << a;
    ASSERT_EQ(b.exit_code, 0) << b;
    EXPECT_TRUE(contains(a.out, "task-101")) << a;
    // One exchange reserves a block of ten for the clone: bob's is above it.
    EXPECT_TRUE(contains(b.out, "task-111")) << b;
    a = small_as("alice", {"plan", "--add", "More docs"}, clone(1));
    EXPECT_TRUE(contains(a.out, "task-102")) << "taken from alice's block: " << a;
    const std::string table = git_out({"--git-dir", bare().string(), "log", "-1", "--format=%B", "refs/small/claims"});
    EXPECT_TRUE(contains(table, "\"last_task_number\": 120")) << table;
}

TEST_F(RemoteClaimsE2E, ATaskCompletedInOneCloneIsSettledInTheOther) {
    RunResult r = small_as("alice", {"claim", "task-3"}, clone(1));
    ASSERT_EQ(r.exit_code, 0) << r;
    r = small_as("alice", {"checkpoint", "--task", "task-3", "--status", "completed", "--evidence", "done"}, clone(1));
    ASSERT_EQ(r.exit_code, 0) << r;
    r = small_as("bob", {"claim", "task-3"}, clone(2));
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "completed by alice")) << r;
    r = small_as("bob", {"claims"}, clone(2));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "task-3  completed by alice")) << r;
    r = small_as("bob", {"ready"}, clone(2));
    EXPECT_FALSE(contains(r.out, "task-3:")) << r;
}

// A refused claim keeps what its exchange with the remote learned (D21): a
// task completed in the other clone is no longer offered, nor startable,
// without a `small claims` first.
TEST_F(RemoteClaimsE2E, ARefusedClaimStoresTheTableItFetched) {
    RunResult r = small_as("alice", {"claim", "task-1"}, clone(1));
    ASSERT_EQ(r.exit_code, 0) << r;
    r = small_as("alice", {"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "done"}, clone(1));
    ASSERT_EQ(r.exit_code, 0) << r;
    r = small_as("alice", {"claim", "task-2"}, clone(1));
    ASSERT_EQ(r.exit_code, 0) << r;
    r = small_as("bob", {"claim", "task-1"}, clone(2));
    ASSERT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "completed by alice")) << r;
    r = small_as("bob", {"ready"}, clone(2));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_FALSE(contains(r.out, "task-1:")) << "the refusal's fetch was kept: " << r;
    EXPECT_FALSE(contains(r.out, "task-2:")) << "alice's claim was learned too: " << r;
    EXPECT_FALSE(contains(r.err, "never fetched")) << r;
    const json table = run_json(clone(2), {"claims", "--offline", "--json", "--agent", "bob"}, 0);
    ASSERT_EQ(table["settled"].size(), 1u) << table.dump();
    EXPECT_EQ(table["settled"][0]["task"], "task-1") << table.dump();
    ASSERT_EQ(table["claims"].size(), 1u) << table.dump();
    EXPECT_EQ(table["claims"][0]["agent"], "alice") << table.dump();
}

// D19 in team mode: a fresh clone says its claims were never fetched, its
// next step claims (never starts unclaimed), and a start claims the task
// through the remote first, so a second agent can neither claim nor start it.
TEST_F(RemoteClaimsE2E, WithAClaimsRemoteTheNextStepClaimsAndAStartClaimsFirst) {
    RunResult r = small_as("alice", {"status", "--brief"}, clone(1));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Run next: small claim task-1\n")) << r;
    EXPECT_TRUE(contains(r.out, "claims not yet fetched from the remote")) << r;
    r = small_as("alice", {"ready"}, clone(1));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, "never fetched from the remote")) << r;

    // alice starts task-1 without `small claim`: the start claims it on the remote.
    r = small_as("alice", {"checkpoint", "--task", "task-1", "--status", "in_progress"}, clone(1));
    ASSERT_EQ(r.exit_code, 0) << r;
    const std::string remote = git_out({"--git-dir", bare().string(), "log", "-1", "--format=%B", "refs/small/claims"});
    EXPECT_TRUE(contains(remote, "\"task\":\"task-1\"")) << remote;
    EXPECT_TRUE(contains(remote, "\"agent\":\"alice\"")) << remote;
    r = small_as("alice", {"status", "--brief"}, clone(1));
    EXPECT_FALSE(contains(r.out, "claims not yet fetched")) << r;
    EXPECT_TRUE(contains(r.out, "Run next: small checkpoint --task task-1 --status completed")) << r;

    // bob, in the other clone, never fetched: his primer offers task-1 as a claim, and the claim is refused.
    r = small_as("bob", {"status", "--brief"}, clone(2));
    EXPECT_TRUE(contains(r.out, "Run next: small claim task-1\n")) << r;
    r = small_as("bob", {"checkpoint", "--task", "task-1", "--status", "in_progress"}, clone(2));
    EXPECT_EQ(r.exit_code, 1) << "the start asked the remote first: " << r;
    EXPECT_TRUE(contains(r.err, "claimed by alice")) << r;
    EXPECT_TRUE(contains(r.err, "small claim task-1")) << r;
    r = small_as("bob", {"progress", "add", "--task", "task-1", "--status", "in_progress", "--evidence", "x"}, clone(2));
    EXPECT_EQ(r.exit_code, 1) << r;
    r = small_as("bob", {"plan", "--in-progress", "task-1"}, clone(2));
    EXPECT_EQ(r.exit_code, 1) << r;
    r = small_as("bob", {"claim", "task-1"}, clone(2));
    EXPECT_EQ(r.exit_code, 1) << r;
    r = small_as("bob", {"ready"}, clone(2));
    EXPECT_FALSE(contains(r.out, "task-1:")) << r;
    r = small_as("bob", {"status", "--brief"}, clone(2));
    EXPECT_TRUE(contains(r.out, "Run next: small claim task-2\n")) << r;
    r = small_as("bob", {"claim", "--next"}, clone(2));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Claimed task-2 for bob")) << r;
    r = small_as("bob", {"status", "--brief"}, clone(2));
    EXPECT_TRUE(contains(r.out, "Run next: small checkpoint --task task-2 --status in_progress")) << "bob holds it: " << r;
}

// The primer's step and its `Run next` agree in team mode: both claim. MCP
// `resume` names the same call (next_call: the claim tool with the task).
TEST_F(RemoteClaimsE2E, ThePrimersStepAndMcpResumeClaimBeforeStarting) {
    RunResult r = small_as("alice", {"status", "--brief", "--max-bytes", "20000"}, clone(1));  // 100 tasks: room for the steps
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Run next: small claim task-1\n")) << r;
    EXPECT_TRUE(contains(r.out, "Claim task-1: Task 1, then start it")) << r;
    EXPECT_FALSE(contains(r.out, "Start task-1")) << r;

    RunOptions o;
    o.cwd = clone(1);
    o.env = env_;
    o.env.push_back({"SMALL_AGENT", "alice"});
    o.timeout = std::chrono::milliseconds(120'000);
    o.stdin_text = json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                        {"params", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()},
                                    {"clientInfo", {{"name", "e2e"}, {"version", "1"}}}}}}.dump() +
                   "\n" + json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"},
                               {"params", {{"name", "resume"}, {"arguments", {{"max_bytes", 20000}}}}}}.dump() + "\n";
    RunResult mcp = run_small({"mcp"}, o);
    ASSERT_NE(mcp.out.rfind("{\"id\":2"), std::string::npos) << mcp;
    std::string last = mcp.out.substr(mcp.out.rfind("{\"id\":2"));
    json resume = json::parse(last.substr(0, last.find('\n')));
    const json& call = resume["result"]["structuredContent"]["next_call"];
    EXPECT_EQ(call["tool"], "claim") << resume.dump();
    EXPECT_EQ(call["arguments"]["task"], "task-1") << resume.dump();
    const std::string text = resume["result"]["content"][0]["text"].get<std::string>();
    EXPECT_TRUE(contains(text, "Claim task-1: Task 1, then start it")) << text;
    EXPECT_FALSE(contains(text, "Start task-1")) << text;

    // Once alice holds it, the next call starts it.
    ASSERT_EQ(small_as("alice", {"claim", "task-1"}, clone(1)).exit_code, 0);
    mcp = run_small({"mcp"}, o);
    last = mcp.out.substr(mcp.out.rfind("{\"id\":2"));
    resume = json::parse(last.substr(0, last.find('\n')));
    EXPECT_EQ(resume["result"]["structuredContent"]["next_call"]["tool"], "checkpoint") << resume.dump();
}

// A start refused because another side completed the task says so, and
// never `small claim X` "once it is free": a completed task never is.
TEST_F(RemoteClaimsE2E, AStartOfATaskCompletedElsewhereSaysItIsSettledNotBusy) {
    ASSERT_EQ(small_as("alice", {"claim", "task-1"}, clone(1)).exit_code, 0);
    RunResult r = small_as("alice", {"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "done"}, clone(1));
    ASSERT_EQ(r.exit_code, 0) << r;
    r = small_as("bob", {"checkpoint", "--task", "task-1", "--status", "in_progress"}, clone(2));
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "task task-1 was completed by alice")) << r;
    EXPECT_TRUE(contains(r.err, "take the next ready task")) << r;
    EXPECT_FALSE(contains(r.err, "once it is free")) << r;
    EXPECT_FALSE(contains(r.err, "small claim task-1")) << r;
}

// A completion with a claims remote asks the remote first: another agent's
// claim published a moment ago, unknown to this clone's table, refuses it
// (as it would had this clone known), and --force still completes it.
TEST_F(RemoteClaimsE2E, ACompletionAsksTheRemoteFirst) {
    RunResult r = small_as("alice", {"claims"}, clone(1));  // alice's table: exchanged, nobody holds anything
    ASSERT_EQ(r.exit_code, 0) << r;
    r = small_as("bob", {"claim", "task-1"}, clone(2));
    ASSERT_EQ(r.exit_code, 0) << r;
    const json before = run_json(clone(1), {"claims", "--offline", "--json", "--agent", "alice"}, 0);
    ASSERT_EQ(before["claims"].size(), 0u) << "alice's clone has not heard of bob's claim yet: " << before.dump();

    r = small_as("alice", {"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "done"}, clone(1));
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "claimed by bob")) << r;
    r = small_as("alice", {"progress", "add", "--task", "task-1", "--status", "completed", "--evidence", "done"}, clone(1));
    EXPECT_EQ(r.exit_code, 1) << r;
    r = small_as("alice", {"plan", "--done", "task-1"}, clone(1));
    EXPECT_EQ(r.exit_code, 1) << r;

    // Her own published claim needs no exchange, and completes.
    ASSERT_EQ(small_as("alice", {"claim", "task-2"}, clone(1)).exit_code, 0);
    r = small_as("alice", {"checkpoint", "--task", "task-2", "--status", "completed", "--evidence", "done"}, clone(1));
    EXPECT_EQ(r.exit_code, 0) << r;
    r = small_as("alice", {"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "done", "--force"},
                 clone(1));
    EXPECT_EQ(r.exit_code, 0) << r;
}

// A call that claims first and then writes nothing gives the claim back
// (second read): a `plan --done` refused on its second task left the first
// one's claim standing on every side for its lease (1 h).
TEST_F(RemoteClaimsE2E, ACallRefusedAfterItClaimedGivesTheClaimBack) {
    ASSERT_EQ(small_as("bob", {"claim", "task-2"}, clone(2)).exit_code, 0);
    RunResult r = small_as("alice", {"plan", "--done", "task-1", "--done", "task-2"}, clone(1));
    ASSERT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "claimed by bob")) << r;
    const std::string table = git_out({"--git-dir", bare().string(), "log", "-1", "--format=%B", "refs/small/claims"});
    EXPECT_TRUE(contains(table, "\"task\":\"task-2\"")) << table;
    EXPECT_FALSE(contains(table, "\"task\":\"task-1\"")) << "alice's call wrote nothing: " << table;
    r = small_as("bob", {"claim", "task-1"}, clone(2));
    EXPECT_EQ(r.exit_code, 0) << "task-1 is free again: " << r;
    // A call that writes keeps its claim until the settlement ends it.
    r = small_as("alice", {"checkpoint", "--task", "task-3", "--status", "in_progress"}, clone(1));
    ASSERT_EQ(r.exit_code, 0) << r;
    r = small_as("bob", {"claim", "task-3"}, clone(2));
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "claimed by alice")) << r;
}

// A start whose write failed after its change was journaled stands (the next
// writer completes it): its claim stays with it, where a refused call gives
// its claim back (second read).
TEST_F(RemoteClaimsE2E, AStartWhoseWriteIsJournaledKeepsItsClaim) {
    RunOptions o;
    o.cwd = clone(1);
    o.env = env_;
    o.env.push_back({"SMALL_AGENT", "alice"});
    o.env.push_back({"LD_PRELOAD", std::string(SMALL_FAULT_FSYNC)});
    o.env.push_back({"SMALL_FAULT_FSYNC_PATH", (clone(1) / ".small").string()});
    o.timeout = std::chrono::milliseconds(120'000);
    RunResult r = run_small({"checkpoint", "--task", "task-4", "--status", "in_progress"}, o);
    ASSERT_NE(r.exit_code, 0) << r;
    ASSERT_TRUE(contains(r.err, "journaled")) << r;
    r = small_as("bob", {"claim", "task-4"}, clone(2));
    EXPECT_EQ(r.exit_code, 1) << "the journaled start keeps alice's claim: " << r;
    EXPECT_TRUE(contains(r.err, "claimed by alice")) << r;
}

// Team play: two agents that skipped the claim both completed one task, in
// turn and at once; the second completion was accepted and took over the
// first one's settlement. A completion claims first, as a start does.
TEST_F(RemoteClaimsE2E, ACompletionOfATaskAnotherAgentCompletedIsRefused) {
    RunResult r = small_as("bob", {"checkpoint", "--task", "task-3", "--status", "completed", "--evidence", "by bob"}, clone(2));
    ASSERT_EQ(r.exit_code, 0) << r;
    r = small_as("alice", {"checkpoint", "--task", "task-3", "--status", "completed", "--evidence", "by alice"}, clone(1));
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "completed by bob")) << r;
    // The same agent completing again (a run after a kill) is not refused.
    r = small_as("bob", {"checkpoint", "--task", "task-3", "--status", "completed", "--evidence", "again"}, clone(2));
    EXPECT_EQ(r.exit_code, 0) << r;
    // At once: one of the two completions lands.
    auto alice = std::async(std::launch::async, [&] {
        return small_as("alice", {"checkpoint", "--task", "task-4", "--status", "completed", "--evidence", "a"}, clone(1));
    });
    const RunResult b = small_as("bob", {"checkpoint", "--task", "task-4", "--status", "completed", "--evidence", "b"}, clone(2));
    const RunResult a = alice.get();
    EXPECT_EQ((a.exit_code == 0) + (b.exit_code == 0), 1) << a << b;
}

// A git killed while it fetched the claims (a SIGKILLed `small` takes its
// git with it) left refs/small-remotes/origin/claims.lock behind: git then
// refused every later fetch into that ref, and each exchange of the clone
// was taken for an unreachable remote for good (found by sim.agents, seed
// 99: completions released their claims on this machine only). A lock that
// old is stale under the claims lock: removed, and the exchange goes on.
TEST_F(RemoteClaimsE2E, AStaleLockOfTheTrackingRefLeftByAKilledGitIsCleared) {
    ASSERT_EQ(small_as("alice", {"claim", "task-1"}, clone(1)).exit_code, 0);
    const fs::path lock = clone(1) / ".git/refs/small-remotes/origin/claims.lock";
    ASSERT_TRUE(fs::exists(lock.parent_path())) << "the tracking ref's folder";
    write_file(lock, "");
    fs::last_write_time(lock, fs::file_time_type::clock::now() - std::chrono::minutes(1));
    ASSERT_EQ(small_as("bob", {"claim", "task-2"}, clone(2)).exit_code, 0);

    RunResult r = small_as("alice", {"claim", "task-3"}, clone(1));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "published to origin")) << r;
    EXPECT_FALSE(fs::exists(lock));
    r = small_as("alice", {"ready"}, clone(1));
    EXPECT_FALSE(contains(r.out, "task-2:")) << "bob's claim was fetched: " << r;

    // A fresh lock (a fetch under way) is waited for, then taken as stale too.
    write_file(lock, "");
    r = small_as("alice", {"claim", "task-4"}, clone(1));
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "published to origin")) << r;
}

// Without a remote the next step still starts the task (one side: nothing to claim against).
TEST_F(ClaimsE2E, WithoutARemoteTheNextStepStartsTheTask) {
    workspace_with(2, repo());
    RunResult r = small_as("alice", {"status", "--brief"}, repo());
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Run next: small checkpoint --task task-1 --status in_progress")) << r;
    EXPECT_FALSE(contains(r.out, "not yet fetched")) << r;
}

// D21: a forged table on the remote is input, validated record by record.
TEST_F(RemoteClaimsE2E, AForgedRemoteTableIsReportedAndIgnored) {
    const std::string forged =
        "mallory forges\n\n{\"version\": 1, \"claims\": [\n"
        "  {\"task\":\"task-5\",\"agent\":\"mallory\",\"host\":\"h\",\"claimed_at\":\"2026-01-01T00:00:00.000000000Z\","
        "\"renewed_at\":\"2026-01-01T00:00:00.000000000Z\",\"expires_at\":\"9999-12-31T00:00:00.000000000Z\",\"ttl_seconds\":3600},\n"
        "  {\"task\":\"task-6\\nFAKE-ROW\",\"agent\":\"m\",\"host\":\"h\",\"claimed_at\":\"2026-01-01T00:00:00.000000000Z\","
        "\"renewed_at\":\"2026-01-01T00:00:00.000000000Z\",\"expires_at\":\"2026-01-01T01:00:00.000000000Z\",\"ttl_seconds\":3600}\n]}\n";
    const fs::path msg = tmp_.path() / "forged.txt";
    write_file(msg, forged);
    const std::string tree = git_out({"hash-object", "-w", "-t", "tree", "/dev/null"}, clone(1));
    const std::string commit = git_out({"commit-tree", tree.substr(0, 40), "-F", msg.string()}, clone(1));
    git_ok({"push", "-q", "origin", commit.substr(0, 40) + ":refs/small/claims"}, clone(1));
    RunResult r = small_as("bob", {"claim", "task-5"}, clone(2));
    ASSERT_EQ(r.exit_code, 0) << "the forged lease is not honoured: " << r;
    EXPECT_TRUE(contains(r.err, "more than its ttl")) << r;
    EXPECT_TRUE(contains(r.err, "holds a character outside")) << r;
    r = small_as("bob", {"claims"}, clone(2));
    EXPECT_FALSE(contains(r.out, "FAKE-ROW")) << r;
}

// D21: a `small claim` killed while its push is under way leaves no git
// behind, and the remote as it was (the push is held in the remote's
// pre-receive hook, which marks that it started and sleeps). SIGKILL: the
// guardian ends git's whole group; SIGTERM: forwarded, then the command
// says what happened.
TEST_F(RemoteClaimsE2E, AKilledClaimLeavesNoGitBehindAndTheRemoteAsItWas) {
    const fs::path hook = bare() / "hooks" / "pre-receive";
    write_file(hook, "#!/bin/sh\ntouch \"$SMALL_TEST_MARK\"\nexec sleep 30.0417\n");
    fs::permissions(hook, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
    for (const std::string sig : {"KILL", "TERM"}) {
        const fs::path mark = tmp_.path() / ("started-" + sig);
        const std::string script =
            "SMALL_TEST_MARK='" + mark.string() + "'; export SMALL_TEST_MARK\n"
            "small claim task-7 --agent t2 >'" + mark.string() + ".out' 2>'" + mark.string() + ".err' & pid=$!\n"
            "i=0; while [ ! -e \"$SMALL_TEST_MARK\" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done\n"
            "kill -" + sig + " $pid; wait $pid; echo \"exit=$?\"; cat '" + mark.string() + ".err'\n"
            "sleep 5\n"
            "ps -eo args | grep -c '[s]leep 30.0417' || true\n";
        RunOptions o;
        o.cwd = clone(1);
        o.env = env_;
        o.program = "/bin/sh";
        o.timeout = std::chrono::milliseconds(60'000);
        const RunResult r = run_small({"-c", script}, o);
        ASSERT_TRUE(fs::exists(mark)) << "the push reached the hook: " << r;
        EXPECT_TRUE(contains(r.out, "\n0\n")) << "no hook (nor git) outlived small: " << r;
        const std::string refs = git_out({"--git-dir", bare().string(), "for-each-ref", "refs/small/"});
        EXPECT_EQ(refs, "") << "the remote is as it was (" << sig << "): " << r;
        if (sig == "TERM") {
            EXPECT_TRUE(contains(r.out, "exit=2")) << r;
            EXPECT_TRUE(contains(r.out, "interrupted by SIGTERM")) << r;
        }
    }
    fs::remove(hook);
    RunResult next = small_as("t3", {"claim", "task-7"}, clone(1));
    EXPECT_EQ(next.exit_code, 0) << "no orphan fails the next command: " << next;
    for (const auto& e : fs::directory_iterator(clone(1) / ".git" / "small")) {
        EXPECT_FALSE(e.path().string().ends_with(".tmp")) << e.path();
    }
}

}  // namespace
}  // namespace small_e2e
