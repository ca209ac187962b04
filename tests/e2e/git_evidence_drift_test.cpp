// `small verify --evidence`, `small drift` and doctor's git lines end to
// end: the real binary on repositories made with the real git.
#include <algorithm>
#include <cstdio>

#include "support/git_fixture.hpp"

namespace small_e2e {
namespace {

class GitEvidenceE2E : public GitRepoE2E {
protected:
    // A workspace committed in a fresh repository, with a scope.
    void workspace(const std::string& include, const std::string& exclude) {
        git_out({"init", "-q", "-b", "main"});
        RunResult r = small({"init", "--no-agents"});
        ASSERT_EQ(r.exit_code, 0) << r;
        const fs::path intent = repo() / ".small" / "intent.small.yml";
        std::string text = read_file(intent);
        text.replace(text.find("include: []"), 11, "include: [" + include + "]");
        text.replace(text.find("exclude: []"), 11, "exclude: [" + exclude + "]");
        write_file(intent, text);
        git_out({"add", "-A"});
        git_out({"commit", "-q", "-m", "base"});
    }
    std::string commit_file(const std::string& name, const std::string& message) {
        fs::create_directories((repo() / name).parent_path());
        write_file(repo() / name, message + "\n");
        git_out({"add", name});
        git_out({"commit", "-q", "-m", message});
        return git_out({"rev-parse", "HEAD"});
    }
    RunResult progress_with_commit(const std::string& task, const std::string& commit) {
        return small({"progress", "add", "--task", task, "--status", "in_progress", "--evidence", "work",
                      "--commit", commit});
    }

};

TEST_F(GitEvidenceE2E, OutsideARepositoryBothCommandsExitTwoAndPlainVerifyIsUnchanged) {
    ASSERT_EQ(small({"init", "--no-agents"}).exit_code, 0);
    const RunResult plain = small({"verify"});
    EXPECT_EQ(plain.exit_code, 0) << plain;
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"verify", "--evidence"}, std::vector<std::string>{"drift"}}) {
        const RunResult r = small(args);
        EXPECT_EQ(r.exit_code, 2) << r;
        EXPECT_NE(r.err.find("not in a git repository"), std::string::npos) << r;
    }
    const RunResult doctor = small({"doctor"});
    EXPECT_EQ(doctor.out.find("Git Evidence"), std::string::npos) << doctor;
}

TEST_F(GitEvidenceE2E, ARebaseMakesACommitEvidenceUnreachable) {
    workspace("\"src/**\"", "");
    commit_file("src/a.c", "feature one");
    const std::string rebased = commit_file("src/b.c", "feature two");
    ASSERT_EQ(progress_with_commit("task-1", rebased.substr(0, 10)).exit_code, 0);
    RunResult ok = small({"verify", "--evidence"});
    EXPECT_EQ(ok.exit_code, 0) << ok;

    // Rewrite the last commit: the evidence now names a commit HEAD cannot reach.
    git_out({"commit", "-q", "--amend", "-m", "feature two, reworded"});
    const RunResult bad = small({"verify", "--evidence"});
    EXPECT_EQ(bad.exit_code, 1) << bad;
    EXPECT_NE((bad.out + bad.err).find("EV-COMMIT-UNREACHABLE"), std::string::npos) << bad;
    EXPECT_NE((bad.out + bad.err).find(".small/progress.small.yml:"), std::string::npos) << bad;
    // The plain verdict ignores git.
    EXPECT_EQ(small({"verify", "--strict"}).exit_code, 0);

    const RunResult json = small({"verify", "--evidence", "--json"});
    EXPECT_EQ(json.exit_code, 1) << json;
    EXPECT_NE(json.out.find("\"rule\": \"EV-COMMIT-UNREACHABLE\""), std::string::npos) << json;
    const RunResult doctor = small({"doctor"});
    EXPECT_EQ(doctor.exit_code, 1) << doctor;
    EXPECT_NE(doctor.err.find("Git Evidence"), std::string::npos) << doctor;

    const RunResult added = progress_with_commit("task-1", "deadbeef");
    ASSERT_EQ(added.exit_code, 0) << added;
    const RunResult unknown = small({"verify", "--evidence"});
    EXPECT_NE((unknown.out + unknown.err).find("EV-COMMIT-UNKNOWN"), std::string::npos) << unknown;
}

TEST_F(GitEvidenceE2E, ACompletedTaskWhoseCommitPredatesTheRunIsStale) {
    git_out({"init", "-q", "-b", "main"});
    write_file(repo() / "a.txt", "a\n");
    git_out({"add", "a.txt"});
    env_.push_back({"GIT_COMMITTER_DATE", "2020-01-01T00:00:00Z"});
    git_out({"commit", "-q", "-m", "old"});
    env_.pop_back();
    const std::string old = git_out({"rev-parse", "HEAD"});
    ASSERT_EQ(small({"init", "--no-agents"}).exit_code, 0);  // the run starts now
    const RunResult done =
        small({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "done", "--commit", old});
    ASSERT_EQ(done.exit_code, 0) << done;
    const RunResult r = small({"verify", "--evidence"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_NE(r.err.find("[EV-STALE]"), std::string::npos) << r;
    const std::string fresh = commit_file("b.txt", "new work");
    ASSERT_EQ(small({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "again", "--commit", fresh})
                  .exit_code,
              0);
    const RunResult ok = small({"verify", "--evidence"});
    EXPECT_EQ(ok.exit_code, 0) << ok;  // the newest completed entry is what counts
}

// Issue 39: a long log (8 MB or more) is checked in windows, memory flat in
// its length; a finding sends the check to the whole read, which gives it
// its exact position.
TEST_F(GitEvidenceE2E, ALongLogIsCheckedInWindowsAndAFindingKeepsItsPosition) {
    git_out({"init", "-q", "-b", "main"});
    write_file(repo() / "a.txt", "a\n");
    git_out({"add", "a.txt"});
    env_.push_back({"GIT_COMMITTER_DATE", "2020-01-01T00:00:00Z"});
    git_out({"commit", "-q", "-m", "old"});
    env_.pop_back();
    const std::string old = git_out({"rev-parse", "HEAD"});
    ASSERT_EQ(small({"init", "--no-agents"}).exit_code, 0);  // the run starts now
    const std::string fresh = commit_file("b.txt", "new work");
    // Older entries of no run before the run's first one: about 9 MB.
    const fs::path log_path = repo() / ".small" / "progress.small.yml";
    std::string log = read_file(log_path);
    const std::size_t first = log.find("  - timestamp:");
    ASSERT_NE(first, std::string::npos);
    std::string filler;
    for (int i = 0; i < 60000; ++i) {
        char ts[48];
        std::snprintf(ts, sizeof ts, "2026-01-01T%02d:%02d:%02d.%09dZ", i / 3600, i / 60 % 60, i % 60, i);
        filler += std::string("  - timestamp: \"") + ts + "\"\n    task_id: \"task-1\"\n    status: \"in_progress\"\n" +
                  "    evidence: \"earlier step " + std::to_string(i) + " of the long log\"\n";
        if (i % 1000 == 0) filler += "    commit: \"" + fresh + "\"\n";
    }
    log.insert(first, filler);
    write_file(log_path, log);
    ASSERT_GT(log.size(), std::size_t{8} << 20);

    ASSERT_EQ(small({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "done", "--commit", fresh})
                  .exit_code,
              0);
    const RunResult ok = small({"verify", "--evidence"});
    EXPECT_EQ(ok.exit_code, 0) << ok;

    const RunResult stale =
        small({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "again", "--commit", old});
    ASSERT_EQ(stale.exit_code, 0) << stale;
    const std::string now = read_file(log_path);
    const std::size_t at = now.find("commit: \"" + old);
    ASSERT_NE(at, std::string::npos);
    const std::string line = std::to_string(std::count(now.begin(), now.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1);
    const RunResult r = small({"verify", "--evidence"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_NE(r.err.find("[EV-STALE]"), std::string::npos) << r;
    EXPECT_NE(r.err.find(".small/progress.small.yml:" + line + ":"), std::string::npos) << "line " << line << "\n" << r;
    const RunResult doctor = small({"doctor"});
    EXPECT_EQ(doctor.exit_code, 1) << doctor;
    EXPECT_NE(doctor.err.find(".small/progress.small.yml:" + line + ":"), std::string::npos) << doctor;
}

TEST_F(GitEvidenceE2E, DriftReportsFilesOutsideTheScopeAndInsideExclusions) {
    workspace("\"src/**\", \"docs/*.md\"", "\"src/gen/**\"");
    RunResult none = small({"drift"});
    EXPECT_EQ(none.exit_code, 0) << none;
    commit_file("src/ok.c", "in scope");          // committed
    write_file(repo() / "src" / "gen" / "x.c", "x\n");  // untracked, excluded
    write_file(repo() / "README.md", "r\n");             // untracked, outside
    write_file(repo() / "docs" / "a.md", "d\n");        // untracked, in scope
    write_file(repo() / "AGENTS.md", "a\n");             // SMALL's own: never drift
    write_file(repo() / ".gitignore", "*.log\n");
    write_file(repo() / "noise.log", "ignored\n");       // ignored by git
    const RunResult r = small({"drift"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_NE(r.out.find("README.md: outside the scope"), std::string::npos) << r;
    EXPECT_NE(r.out.find("src/gen/x.c: excluded by 'src/gen/**'"), std::string::npos) << r;
    EXPECT_EQ(r.out.find("AGENTS.md:"), std::string::npos) << r;
    EXPECT_EQ(r.out.find("noise.log"), std::string::npos) << r;
    EXPECT_EQ(r.out.find("src/ok.c"), std::string::npos) << r;

    // --since HEAD: the committed file is no longer counted; a bad revision is exit 2.
    const RunResult since = small({"drift", "--since", "HEAD", "--json"});
    EXPECT_EQ(since.exit_code, 1) << since;
    EXPECT_NE(since.out.find("\"source\": \"since\""), std::string::npos) << since;
    EXPECT_EQ(small({"drift", "--since", "no-such-rev"}).exit_code, 2);

    const RunResult doctor = small({"doctor"});
    EXPECT_NE(doctor.err.find("[WARN] Scope Drift: 2 changed file(s)"), std::string::npos) << doctor;
}

// Issue 21: the files `small hooks install` manages are small's, not the
// run's: the agent settings, and .gitattributes while small's merge line is
// all that changed in it.
TEST_F(GitEvidenceE2E, DriftLeavesOutTheFilesHooksInstallManages) {
    // .gitattributes is committed before the run starts: drift's base is the
    // newest commit at or before the run's first second, and a commit made
    // after `small init` may fall in the next second on a loaded machine.
    git_out({"init", "-q", "-b", "main"});
    write_file(repo() / ".gitattributes", "*.png binary\n");
    git_out({"add", ".gitattributes"});
    git_out({"commit", "-q", "-m", "attributes"});
    workspace("\"src/**\"", "");
    for (const char* target : {"git", "claude", "codex"}) {
        const RunResult r = small({"hooks", "install", target});
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    ASSERT_TRUE(fs::exists(repo() / ".claude" / "settings.json"));
    ASSERT_TRUE(fs::exists(repo() / ".codex" / "hooks.json"));
    ASSERT_EQ(read_file(repo() / ".gitattributes"), "*.png binary\n.small/*.small.yml merge=small\n");
    const RunResult clean = small({"drift", "--json"});
    EXPECT_EQ(clean.exit_code, 0) << clean;
    EXPECT_NE(clean.out.find("\"changed\": 0"), std::string::npos) << clean;
    git_out({"add", "-A"});
    git_out({"commit", "-q", "-m", "hooks"});
    EXPECT_EQ(small({"drift"}).exit_code, 0);
    EXPECT_EQ(small({"drift", "--since", "HEAD~1"}).exit_code, 0);  // the commit before the hooks

    // Another change to .gitattributes is the run's.
    write_file(repo() / ".gitattributes", "*.png binary\n.small/*.small.yml merge=small\n*.jpg binary\n");
    const RunResult drift = small({"drift"});
    EXPECT_EQ(drift.exit_code, 1) << drift;
    EXPECT_NE(drift.out.find(".gitattributes: outside the scope"), std::string::npos) << drift;
    const RunResult doctor = small({"doctor"});
    EXPECT_NE(doctor.err.find("[WARN] Scope Drift: 1 changed file(s) outside the intent's scope: .gitattributes"),
              std::string::npos)
        << doctor;
}

TEST_F(GitEvidenceE2E, AnIntentWithoutScopeHasNoDriftAndRunSnapshotsRecordDirtiness) {
    workspace("", "");
    write_file(repo() / "anything.txt", "x\n");
    const RunResult r = small({"drift", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(r.out.find("\"has_scope\": false"), std::string::npos) << r;
    const RunResult snap = small({"run", "snapshot", "--json"});
    ASSERT_EQ(snap.exit_code, 0) << snap;
    EXPECT_NE(snap.out.find("\"git_dirty\": true"), std::string::npos) << snap;
}

TEST_F(GitEvidenceE2E, WorksInALinkedWorktreeAndARepositoryWithNoCommits) {
    git_out({"init", "-q", "-b", "main"});
    ASSERT_EQ(small({"init", "--no-agents"}).exit_code, 0);
    const RunResult empty = small({"verify", "--evidence"});
    EXPECT_EQ(empty.exit_code, 0) << empty;
    EXPECT_EQ(small({"drift"}).exit_code, 0);
    git_out({"add", "-A"});
    git_out({"commit", "-q", "-m", "base"});
    const fs::path wt = tmp_.path() / "wt";
    git_out({"worktree", "add", "-q", "-b", "agent-2", wt.string()});
    RunOptions o;
    o.cwd = wt;
    o.env = env_;
    const RunResult r = run_small({"verify", "--evidence"}, o);
    EXPECT_EQ(r.exit_code, 0) << r;
}

}  // namespace
}  // namespace small_e2e
