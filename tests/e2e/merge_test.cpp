// `small merge` as a real git merge driver: repositories, branches,
// worktrees with parallel `small` sessions, merges in both directions, an
// octopus, a rebase and a cherry-pick, and a real plan conflict.
#include <algorithm>
#include <future>
#include <set>

#include "support/git_fixture.hpp"

namespace small_e2e {
namespace {

class MergeE2E : public GitRepoE2E {
protected:
    void SetUp() override {
        GitRepoE2E::SetUp();
        if (IsSkipped()) return;
        git_ok({"init", "-q", "-b", "main"});
        ASSERT_EQ(small({"init", "--no-agents"}).exit_code, 0);
        git_ok({"config", "merge.small.name", "small"});
        git_ok({"config", "merge.small.driver", "small merge %O %A %B %P"});
        write_file(repo() / ".gitattributes", ".small/*.small.yml merge=small\n");
        git_ok({"add", "-A"});
        git_ok({"commit", "-q", "-m", "base"});
    }

    fs::path progress(const fs::path& wt) const { return wt / ".small" / "progress.small.yml"; }

    // A task added the way ids still collide (D21 reserves `plan --add`'s
    // ids across worktrees): by hand, with the next id this plan alone
    // would give, through `plan --from`.
    RunResult add_by_hand(const std::string& title, const fs::path& dir) {
        const std::string plan = read_file(dir / ".small" / "plan.small.yml");
        int max = 0;
        for (std::size_t at = plan.find("id: "); at != std::string::npos; at = plan.find("id: ", at + 1)) {
            std::size_t n = at + 4 + (plan[at + 4] == '"' || plan[at + 4] == '\'' ? 1 : 0);
            if (plan.compare(n, 5, "task-") == 0) max = std::max(max, std::atoi(plan.c_str() + n + 5));
        }
        const fs::path item = tmp_.path() / "by-hand.yml";
        write_file(item, "- id: task-" + std::to_string(max + 1) + "\n  title: \"" + title + "\"\n");
        return small({"plan", "--from", item.string()}, dir);
    }

    // A worktree on a new branch from main.
    fs::path worktree(const std::string& branch) {
        const fs::path wt = tmp_.path() / ("wt-" + branch);
        git_ok({"worktree", "add", "-q", "-b", branch, wt.string(), "main"});
        return wt;
    }
    // One agent's session: progress entries and a checkpoint, then a commit.
    void session(const fs::path& wt, const std::string& tag, int entries) {
        for (int i = 0; i < entries; ++i) {
            const RunResult r = small({"progress", "add", "--task", "task-1", "--status", "in_progress", "--evidence",
                                       tag + " step " + std::to_string(i)},
                                      wt);
            ASSERT_EQ(r.exit_code, 0) << r;
        }
        git_ok({"add", "-A"}, wt);
        git_ok({"commit", "-q", "-m", tag}, wt);
    }
    void parallel_sessions(const std::vector<std::pair<fs::path, std::string>>& agents, int entries) {
        std::vector<std::future<void>> runs;
        for (const auto& [wt, tag] : agents) {
            runs.push_back(std::async(std::launch::async, [this, wt, tag, entries] { session(wt, tag, entries); }));
        }
        for (auto& r : runs) r.get();
    }
    // The evidence lines of the log (each entry has exactly one).
    static std::vector<std::string> evidences(const std::string& log) {
        std::vector<std::string> out;
        std::size_t at = 0;
        while ((at = log.find("evidence: \"", at)) != std::string::npos) {
            const std::size_t end = log.find('"', at + 11);
            out.push_back(log.substr(at + 11, end - at - 11));
            at = end;
        }
        return out;
    }
    void expect_each_once(const std::string& log, const std::vector<std::string>& tags, int entries) {
        const std::vector<std::string> ev = evidences(log);
        for (const std::string& tag : tags) {
            for (int i = 0; i < entries; ++i) {
                const std::string want = tag + " step " + std::to_string(i);
                EXPECT_EQ(std::count(ev.begin(), ev.end(), want), 1) << want << "\n" << log;
            }
        }
    }
    void expect_verified(const fs::path& wt) {
        const RunResult v = small({"verify", "--strict"}, wt);
        EXPECT_EQ(v.exit_code, 0) << v;
    }

    // Workspaces in folders of the given names (each with its own
    // .gitattributes line, as `small hooks install git` writes it), committed on main.
    void add_workspaces(const std::vector<std::string>& names) {
        for (const std::string& name : names) {
            fs::create_directory(repo() / name);
            ASSERT_EQ(small({"init", "--no-agents"}, repo() / name).exit_code, 0) << name;
            write_file(repo() / name / ".gitattributes", ".small/*.small.yml merge=small\n");
        }
        git_ok({"add", "-A"});
        git_ok({"commit", "-q", "-m", "workspaces"});
    }
    // One progress entry in each named workspace of `wt`, then a commit.
    void log_in_each(const fs::path& wt, const std::vector<std::string>& names, const std::string& tag) {
        for (const std::string& name : names) {
            const RunResult r = small(
                {"progress", "add", "--task", "task-1", "--status", "in_progress", "--evidence", tag + " step 0"},
                wt / name);
            ASSERT_EQ(r.exit_code, 0) << r;
        }
        git_ok({"add", "-A"}, wt);
        git_ok({"commit", "-q", "-m", tag}, wt);
    }
    // A suggested command, run as pasted into a shell at `cwd`.
    RunResult paste(const std::string& command, const fs::path& cwd) {
        RunOptions o;
        o.cwd = cwd;
        o.env = env_;
        o.program = "/bin/sh";
        return run_small({"-c", command}, o);
    }
    // The text between `open` and the next `close` after it ("" when absent).
    static std::string between(const std::string& text, const std::string& open, const std::string& close) {
        const std::size_t from = text.find(open);
        if (from == std::string::npos) return "";
        const std::size_t start = from + open.size();
        const std::size_t end = text.find(close, start);
        return end == std::string::npos ? "" : text.substr(start, end - start);
    }
    // Folder names a shell or an argument parser could misread.
    static const std::vector<std::string>& awkward_names() {
        static const std::vector<std::string> names = {"-x", "--help", "with space", "quo'te\"s", "$(touch pwned)",
                                                       "new\nline"};
        return names;
    }
    void expect_nothing_ran(const std::vector<fs::path>& places) {
        for (const fs::path& p : places) EXPECT_FALSE(fs::exists(p / "pwned")) << p;
    }
    // PATH for every later git and small: `folder` (holding small), then the system's.
    void path_only(const fs::path& folder) {
        for (auto& [name, value] : env_) {
            if (name == "PATH") value = folder.string() + ":/usr/bin:/bin";
        }
    }

};

TEST_F(MergeE2E, ParallelWorktreesMergeCleanlyTheSameInBothDirections) {
    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    parallel_sessions({{a, "alpha"}, {b, "beta"}}, 3);
    ASSERT_EQ(
        small({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "alpha done"}, a).exit_code, 0);
    git_ok({"commit", "-qam", "alpha checkpoint"}, a);

    // a merges b, and (in a second worktree of b's commit) b merges a.
    const RunResult ab = git({"merge", "-q", "--no-edit", "b"}, a);
    ASSERT_EQ(ab.exit_code, 0) << ab;
    const fs::path b2 = tmp_.path() / "wt-b2";
    git_ok({"worktree", "add", "-q", "-b", "b2", b2.string(), "b"});
    const RunResult ba = git({"merge", "-q", "--no-edit", "a~1"}, b2);  // a before its merge
    ASSERT_EQ(ba.exit_code, 0) << ba;
    git_ok({"merge", "-q", "--no-edit", "a"}, b2);  // then the checkpoint: fast-forward content

    const std::string merged = read_file(progress(a));
    expect_each_once(merged, {"alpha", "beta"}, 3);
    EXPECT_EQ(read_file(progress(b2)), merged);
    EXPECT_EQ(read_file(a / ".small" / "plan.small.yml"), read_file(b2 / ".small" / "plan.small.yml"));
    expect_verified(a);
    // The ancestor's bytes are the merged file's prefix.
    const RunResult base = git({"show", "main:.small/progress.small.yml"});
    ASSERT_EQ(base.exit_code, 0);
    EXPECT_EQ(merged.rfind(base.out, 0), 0u);
}

// Two agents at once, each with plan edits, progress entries and a
// checkpoint on its own task: both merge directions give the same plan and
// log; the handoff (changed on both sides) is regenerated after the merge.
TEST_F(MergeE2E, ParallelPlanProgressAndCheckpointSessionsMergeInBothDirections) {
    ASSERT_EQ(small({"plan", "--add", "Alpha work"}).exit_code, 0);
    ASSERT_EQ(small({"plan", "--add", "Beta work"}).exit_code, 0);
    git_ok({"commit", "-qam", "two tasks"});
    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    auto agent = [this](const fs::path& wt, const std::string& task, const std::string& tag) {
        EXPECT_EQ(small({"plan", "--in-progress", task}, wt).exit_code, 0);
        session(wt, tag, 2);
        const RunResult c =
            small({"checkpoint", "--task", task, "--status", "completed", "--evidence", tag + " done"}, wt);
        EXPECT_EQ(c.exit_code, 0) << c;
        EXPECT_EQ(small({"handoff", "--summary", tag + " finished its task"}, wt).exit_code, 0);
        git_ok({"commit", "-qam", tag + " checkpoint"}, wt);
    };
    std::future<void> ra = std::async(std::launch::async, [&] { agent(a, "task-2", "alpha"); });
    std::future<void> rb = std::async(std::launch::async, [&] { agent(b, "task-3", "beta"); });
    ra.get();
    rb.get();

    const fs::path a2 = tmp_.path() / "wt-a2";
    git_ok({"worktree", "add", "-q", "-b", "a2", a2.string(), "a"});
    const RunResult ab = git({"merge", "--no-edit", "b"}, a2);
    ASSERT_EQ(ab.exit_code, 0) << ab;
    // Said once per merge, by one of the three drivers that ran.
    const std::string advice = "after the merge, run: small handoff";
    EXPECT_TRUE(contains(ab.err, advice)) << ab;
    EXPECT_EQ(ab.err.find(advice), ab.err.rfind(advice)) << ab;
    // Both sides' summaries are in the merged handoff.
    const std::string merged_handoff = read_file(a2 / ".small" / "handoff.small.yml");
    EXPECT_TRUE(contains(merged_handoff,
                         "summary: \"alpha finished its task Merged with another side, whose "
                         "handoff said: beta finished its task\"\n"))
        << merged_handoff;
    const fs::path b2 = tmp_.path() / "wt-b2";
    git_ok({"worktree", "add", "-q", "-b", "b2", b2.string(), "b"});
    git_ok({"merge", "-q", "--no-edit", "a"}, b2);

    const std::string plan = read_file(a2 / ".small" / "plan.small.yml");
    EXPECT_EQ(read_file(b2 / ".small" / "plan.small.yml"), plan);
    EXPECT_EQ(read_file(progress(b2)), read_file(progress(a2)));
    expect_each_once(read_file(progress(a2)), {"alpha", "beta"}, 2);
    for (const char* done : {"alpha done", "beta done"}) {
        EXPECT_TRUE(contains(read_file(progress(a2)), done)) << done;
    }
    EXPECT_TRUE(contains(plan, "title: \"Alpha work\"\n    status: \"completed\"")) << plan;
    EXPECT_TRUE(contains(plan, "title: \"Beta work\"\n    status: \"completed\"")) << plan;
    for (const fs::path& wt : {a2, b2}) {
        const RunResult h = small({"handoff"}, wt);
        EXPECT_EQ(h.exit_code, 0) << h;
        expect_verified(wt);
    }
}

TEST_F(MergeE2E, SymmetricMergeOfTheSameTwoBranches) {
    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    parallel_sessions({{a, "alpha"}, {b, "beta"}}, 2);
    const fs::path a2 = tmp_.path() / "wt-a2";
    git_ok({"worktree", "add", "-q", "-b", "a2", a2.string(), "a"});
    git_ok({"merge", "-q", "--no-edit", "b"}, a2);
    const fs::path b2 = tmp_.path() / "wt-b2";
    git_ok({"worktree", "add", "-q", "-b", "b2", b2.string(), "b"});
    git_ok({"merge", "-q", "--no-edit", "a"}, b2);
    EXPECT_EQ(read_file(progress(a2)), read_file(progress(b2)));
    expect_each_once(read_file(progress(a2)), {"alpha", "beta"}, 2);
    expect_verified(b2);
}

TEST_F(MergeE2E, ThreeBranchesMergeTheSameInAnyOrderAndAsAnOctopus) {
    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    const fs::path c = worktree("c");
    parallel_sessions({{a, "alpha"}, {b, "beta"}, {c, "gamma"}}, 2);
    // git's octopus strategy never runs merge drivers (it merges with merge-one-file):
    // it stops before writing a merge commit, and HEAD stays where it was.
    const RunResult head = git({"rev-parse", "HEAD"});
    const RunResult octopus = git({"merge", "-q", "--no-edit", "a", "b", "c"});
    EXPECT_NE(octopus.exit_code, 0) << octopus;
    git({"merge", "--abort"});
    git_ok({"reset", "-q", "--hard", head.out.substr(0, 40)});
    // small's strategy does the octopus: one commit with four parents.
    const fs::path o = tmp_.path() / "wt-octopus";
    git_ok({"worktree", "add", "-q", "-b", "octopus", o.string(), head.out.substr(0, 40)});
    const RunResult small_octopus = git({"merge", "--no-edit", "-s", "small", "a", "b", "c"}, o);
    ASSERT_EQ(small_octopus.exit_code, 0) << small_octopus;
    // HEAD was behind every branch, so the commit's parents are the three tips.
    const std::string tips = git({"rev-parse", "a", "b", "c"}).out;
    const RunResult parents = git({"log", "-1", "--format=%P", "HEAD"}, o);
    std::string want = tips;
    for (char& ch : want) ch = ch == '\n' ? ' ' : ch;
    EXPECT_EQ(parents.out, want.substr(0, want.size() - 1) + "\n") << parents;
    EXPECT_TRUE(git({"status", "--porcelain"}, o).out.empty());
    // One branch after the other, in two orders: the same log, every entry once.
    for (const char* branch : {"a", "b", "c"}) git_ok({"merge", "-q", "--no-edit", branch});
    const fs::path r = tmp_.path() / "wt-reverse";
    git_ok({"worktree", "add", "-q", "-b", "reverse", r.string(), head.out.substr(0, 40)});
    for (const char* branch : {"c", "b", "a"}) git_ok({"merge", "-q", "--no-edit", branch}, r);
    const std::string merged = read_file(progress(repo()));
    expect_each_once(merged, {"alpha", "beta", "gamma"}, 2);
    EXPECT_EQ(read_file(progress(r)), merged);
    EXPECT_EQ(read_file(progress(o)), merged);
    expect_verified(repo());
    expect_verified(r);
    expect_verified(o);
}

TEST_F(MergeE2E, TheOctopusStrategyLeavesARealConflictOfTheLastBranchAndRefusesAnEarlierOne) {
    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    const fs::path c = worktree("c");
    session(a, "alpha", 1);
    // A title changed differently on two branches (ids added on both are renamed, D21).
    ASSERT_EQ(small({"plan", "--title", "task-1", "Write the parser"}, b).exit_code, 0);
    git_ok({"commit", "-qam", "b task"}, b);
    ASSERT_EQ(small({"plan", "--title", "task-1", "Write the docs"}, c).exit_code, 0);
    git_ok({"commit", "-qam", "c task"}, c);
    const RunResult head = git({"rev-parse", "HEAD"});
    // c conflicts with b, and c is last: the conflict is left to resolve.
    const RunResult last = git({"merge", "--no-edit", "-s", "small", "a", "b", "c"});
    EXPECT_EQ(last.exit_code, 1) << last;
    EXPECT_TRUE(contains(git({"diff", "--name-only", "--diff-filter=U"}).out, ".small/plan.small.yml"));
    EXPECT_TRUE(fs::exists(repo() / ".git" / "MERGE_HEAD"));
    const RunResult ex = small({"merge", "--explain", ".small/plan.small.yml"});
    EXPECT_EQ(ex.exit_code, 1) << ex;
    EXPECT_TRUE(contains(ex.err, "task task-1 field `title` changed differently on both sides")) << ex;
    git({"merge", "--abort"});
    git_ok({"reset", "-q", "--hard", head.out.substr(0, 40)});
    // The conflict with an earlier branch: the strategy gives up and git restores the tree.
    const RunResult early = git({"merge", "--no-edit", "-s", "small", "b", "c", "a"});
    EXPECT_EQ(early.exit_code, 2) << early;
    EXPECT_TRUE(contains(early.out + early.err, "merge the branches one after another")) << early;
    EXPECT_EQ(git({"rev-parse", "HEAD"}).out, head.out);
    EXPECT_TRUE(git({"status", "--porcelain", "--untracked-files=no"}).out.empty());
    EXPECT_FALSE(fs::exists(repo() / ".git" / "MERGE_HEAD"));
}

TEST_F(MergeE2E, TheOctopusStrategyRefusesStagedChangesAndKeepsAOneSidedModeChange) {
    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    session(a, "alpha", 1);
    session(b, "beta", 1);
    git_ok({"update-index", "--chmod=+x", ".small/progress.small.yml"}, b);
    git_ok({"commit", "-qm", "b: executable log"}, b);
    session(repo(), "main", 1);
    const RunResult head = git({"rev-parse", "HEAD"});
    // Staged but not committed: the merge would commit it, so it is refused.
    write_file(repo() / "notes.txt", "staged\n");
    git_ok({"add", "notes.txt"});
    const RunResult staged = git({"merge", "--no-edit", "-s", "small", "a", "b"});
    EXPECT_EQ(staged.exit_code, 2) << staged;
    EXPECT_TRUE(contains(staged.err, "your staged changes would be committed with the merge")) << staged;
    EXPECT_EQ(git({"rev-parse", "HEAD"}).out, head.out);
    git_ok({"rm", "-q", "--cached", "notes.txt"});
    fs::remove(repo() / "notes.txt");
    const RunResult merged = git({"merge", "--no-edit", "-s", "small", "a", "b"});
    ASSERT_EQ(merged.exit_code, 0) << merged;
    EXPECT_TRUE(contains(merged.out, "Trying simple merge with b")) << merged;  // branches by name
    expect_each_once(read_file(progress(repo())), {"alpha", "beta", "main"}, 1);
    EXPECT_TRUE(contains(git({"ls-files", "-s", ".small/progress.small.yml"}).out, "100755")) << "b's mode kept";
}

TEST_F(MergeE2E, RebaseAndCherryPickOfAppendedEntries) {
    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    parallel_sessions({{a, "alpha"}, {b, "beta"}}, 2);
    const RunResult rebased = git({"rebase", "-q", "a"}, b);
    ASSERT_EQ(rebased.exit_code, 0) << rebased;
    expect_each_once(read_file(progress(b)), {"alpha", "beta"}, 2);
    expect_verified(b);

    const fs::path c = worktree("c");
    session(c, "gamma", 1);
    const RunResult picked = git({"cherry-pick", "c"}, a);
    ASSERT_EQ(picked.exit_code, 0) << picked;
    expect_each_once(read_file(progress(a)), {"alpha", "gamma"}, 1);
    expect_verified(a);
}

// After a merge has interleaved two branches' entries by time, the usual
// follow-ups still merge: syncing the branch with main, a rebase of several
// commits, a cherry-pick of a later commit and a revert (the log keeps its
// entries: it is append-only).
TEST_F(MergeE2E, HistoryAfterAnInterleavingMergeStaysMergeable) {
    const fs::path a = worktree("a");
    session(repo(), "m1", 1);
    session(a, "a1", 1);
    session(repo(), "m2", 1);
    git_ok({"merge", "-q", "--no-edit", "a"});  // main: m1, a1, m2 by time
    session(a, "a2", 1);
    const RunResult sync = git({"merge", "--no-edit", "main"}, a);
    ASSERT_EQ(sync.exit_code, 0) << sync;
    expect_each_once(read_file(progress(a)), {"m1", "a1", "m2", "a2"}, 1);
    expect_verified(a);
    git_ok({"merge", "-q", "--no-edit", "a"});  // and back: a fast-forward
    EXPECT_EQ(read_file(progress(repo())), read_file(progress(a)));

    // A branch of two commits rebased onto a main that moved on meanwhile.
    const fs::path r = worktree("r");
    session(r, "r1", 1);
    session(repo(), "m3", 1);
    session(r, "r2", 1);
    const RunResult rebased = git({"rebase", "main"}, r);
    ASSERT_EQ(rebased.exit_code, 0) << rebased;
    expect_each_once(read_file(progress(r)), {"m3", "r1", "r2"}, 1);
    expect_verified(r);

    // The second of two commits cherry-picked: the first one's entry comes along.
    const fs::path c = worktree("c");
    session(c, "c1", 1);
    session(c, "c2", 1);
    session(repo(), "m4", 1);
    const RunResult picked = git({"cherry-pick", "c"});
    ASSERT_EQ(picked.exit_code, 0) << picked;
    expect_each_once(read_file(progress(repo())), {"m4", "c1", "c2"}, 1);
    expect_verified(repo());

    // A revert of an earlier commit that appended entries (and changed code)
    // undoes the code and keeps the entries. (Reverting the newest commit is
    // a trivial merge for git: the driver does not run and they go.)
    write_file(repo() / "code.txt", "v1\n");
    session(repo(), "m5", 1);
    session(repo(), "m6", 1);
    ASSERT_TRUE(fs::exists(repo() / "code.txt"));
    const std::string before = read_file(progress(repo()));
    const RunResult reverted = git({"revert", "--no-edit", "HEAD~1"});
    ASSERT_EQ(reverted.exit_code, 0) << reverted;
    expect_each_once(read_file(progress(repo())), {"m4", "c1", "c2", "m5", "m6"}, 1);
    EXPECT_EQ(read_file(progress(repo())), before);
    EXPECT_FALSE(fs::exists(repo() / "code.txt"));
    expect_verified(repo());
}

// A cherry-pick names no merge the driver can read the other file of
// (D21): the same id added on both sides stays a conflict there.
TEST_F(MergeE2E, SameNewTaskIdInACherryPickIsARealConflictExplained) {
    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    ASSERT_EQ(add_by_hand("Write the parser", a).exit_code, 0);
    git_ok({"commit", "-qam", "a task"}, a);
    ASSERT_EQ(add_by_hand("Write the docs", b).exit_code, 0);
    git_ok({"commit", "-qam", "b task"}, b);
    const RunResult r = git({"cherry-pick", "b"}, a);
    EXPECT_NE(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out + r.err, "plan.small.yml")) << r;
    const RunResult unmerged = git({"diff", "--name-only", "--diff-filter=U"}, a);
    EXPECT_TRUE(contains(unmerged.out, ".small/plan.small.yml")) << unmerged;
    // CURRENT is left as it was: a's plan, not a half-merged file.
    EXPECT_TRUE(contains(read_file(a / ".small" / "plan.small.yml"), "Write the parser"));

    // The three stages, given to `small merge --explain` by hand.
    for (const auto& [stage, name] : {std::pair{"1", "o.yml"}, {"2", "a.yml"}, {"3", "b.yml"}}) {
        const RunResult show = git({"show", std::string(":") + stage + ":.small/plan.small.yml"}, a);
        ASSERT_EQ(show.exit_code, 0) << show;
        write_file(tmp_.path() / name, show.out);
    }
    const std::string cur = (tmp_.path() / "a.yml").string();
    const RunResult ex = small({"merge", "--explain", (tmp_.path() / "o.yml").string(), cur,
                                (tmp_.path() / "b.yml").string(), ".small/plan.small.yml"});
    EXPECT_EQ(ex.exit_code, 1) << ex;
    EXPECT_TRUE(contains(ex.err, "task id task-2 was added on both sides")) << ex;
    EXPECT_TRUE(contains(ex.err, "small plan --add")) << ex;
    const RunResult js = small({"merge", "--json", (tmp_.path() / "o.yml").string(), cur,
                                (tmp_.path() / "b.yml").string(), ".small/plan.small.yml"});
    EXPECT_EQ(js.exit_code, 1) << js;
    EXPECT_TRUE(contains(js.out, "\"id\":\"task-2\"") || contains(js.out, "\"id\": \"task-2\"")) << js;

    // The same from git's index, by path (from a subfolder too), and in doctor.
    const RunResult idx = small({"merge", "--explain", ".small/plan.small.yml"}, a);
    EXPECT_EQ(idx.exit_code, 1) << idx;
    EXPECT_TRUE(contains(idx.err, "1 conflict(s) in git's index")) << idx;
    EXPECT_TRUE(contains(idx.err, "task id task-2 was added on both sides with different content (current: "
                                  "\"Write the parser\", other: \"Write the docs\")"))
        << idx;
    EXPECT_TRUE(contains(idx.err, "to resolve: keep both tasks under different ids")) << idx;
    EXPECT_EQ(small({"merge", "--explain", "plan.small.yml"}, a / ".small").exit_code, 1);
    // An absolute path, from outside the repository: found from the file's folder.
    EXPECT_EQ(small({"merge", "--explain", (a / ".small" / "plan.small.yml").string()}, tmp_.path()).exit_code, 1);
    const RunResult doc = small({"doctor"}, a);
    EXPECT_EQ(doc.exit_code, 1) << doc;
    EXPECT_TRUE(contains(doc.out + doc.err, ".small/plan.small.yml is unmerged: 1 conflict(s)")) << doc;
    EXPECT_TRUE(contains(doc.out + doc.err, "task id task-2 was added on both sides")) << doc;
    const RunResult dj = small({"doctor", "--json"}, a);
    EXPECT_TRUE(contains(dj.out, "\"category\":\"Merge\"") || contains(dj.out, "\"category\": \"Merge\"")) << dj;

    // Resolved as docs/git.md says: the doctor's Merge line goes away.
    git_ok({"checkout", "--ours", "--", ".small/plan.small.yml"}, a);
    ASSERT_EQ(small({"plan", "--add", "Write the docs"}, a).exit_code, 0);
    git_ok({"add", ".small"}, a);
    git_ok({"commit", "-q", "--no-edit"}, a);
    const RunResult after = small({"doctor"}, a);
    EXPECT_FALSE(contains(after.out + after.err, "unmerged")) << after;
    EXPECT_TRUE(contains(read_file(a / ".small" / "plan.small.yml"), "Write the docs"));
    expect_verified(a);
    const RunResult none = small({"merge", "--explain", ".small/plan.small.yml"}, a);
    EXPECT_EQ(none.exit_code, 1) << none;
    EXPECT_TRUE(contains(none.err, "git's index holds no unresolved conflict for .small/plan.small.yml")) << none;
}

// D21: two clones (offline: neither sees the other's ids) each add a task
// under the same id and work on it. The merge renames the incoming side's
// task with its entries and records it; merges in both directions, again
// after more work on both sides, stay clean and lose or repeat no entry.
class RenameE2E : public MergeE2E {
protected:
    // A clone of the repository with no remote (nothing to reserve ids
    // through) and the driver registered, on a branch `b`.
    fs::path offline_clone() {
        const fs::path c = tmp_.path() / "clone";
        git_ok({"clone", "-q", repo().string(), c.string()});
        git_ok({"remote", "remove", "origin"}, c);
        git_ok({"config", "merge.small.name", "small"}, c);
        git_ok({"config", "merge.small.driver", "small merge -- %O %A %B %P"}, c);
        git_ok({"checkout", "-q", "-b", "b"}, c);
        return c;
    }
    void work(const fs::path& at, const std::string& task, const std::string& evidence) {
        const RunResult r =
            small({"progress", "add", "--task", task, "--status", "in_progress", "--evidence", evidence}, at);
        ASSERT_EQ(r.exit_code, 0) << r;
        git_ok({"commit", "-qam", evidence}, at);
    }
    void add_task(const fs::path& at, const std::string& title) {
        const RunResult r = small({"plan", "--add", title}, at);
        ASSERT_EQ(r.exit_code, 0) << r;
        ASSERT_TRUE(contains(r.out + r.err, "task-2")) << r;  // both sides get the same id
        git_ok({"commit", "-qam", "add " + title}, at);
    }
    // The task id of the entry whose evidence is `evidence` (each once).
    static std::string task_of(const std::string& log, const std::string& evidence) {
        const std::size_t at = log.find("evidence: \"" + evidence + "\"");
        if (at == std::string::npos || log.find("evidence: \"" + evidence + "\"", at + 1) != std::string::npos) {
            return "(" + evidence + " not once)";
        }
        const std::size_t id = log.rfind("task_id: \"", at);
        return log.substr(id + 10, log.find('"', id + 10) - id - 10);
    }
    static std::size_t count(const std::string& text, const std::string& what) {
        std::size_t n = 0;
        for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
        return n;
    }
    void expect_renamed_state(const fs::path& at, const std::vector<std::pair<std::string, std::string>>& entries) {
        const std::string plan = read_file(at / ".small" / "plan.small.yml");
        EXPECT_TRUE(contains(plan, "id: \"task-2\"\n    title: \"Write the parser\"")) << at << "\n" << plan;
        EXPECT_TRUE(contains(plan, "id: \"task-3\"\n    title: \"Write the docs\"")) << at << "\n" << plan;
        const std::string log = read_file(progress(at));
        for (const auto& [evidence, task] : entries) EXPECT_EQ(task_of(log, evidence), task) << at << "\n" << log;
        EXPECT_EQ(count(log, "small merge: renamed task-2 -> task-3 (title \\\"Write the docs\\\")"), 1u) << log;
        const RunResult strict = small({"check", "--strict"}, at);
        EXPECT_EQ(strict.exit_code, 0) << at << "\n" << strict;
    }
    // Both sides add task-2 and work on it; the clone's branch is fetched as `b`.
    fs::path colliding_sides() {
        const fs::path c = offline_clone();
        add_task(c, "Write the docs");
        work(c, "task-2", "docs started");
        add_task(repo(), "Write the parser");
        work(repo(), "task-2", "parser started");
        git_ok({"fetch", "-q", c.string(), "b:b"});
        return c;
    }
    // After the first merge: more work on both sides, merged both ways twice.
    void merge_back_and_forth(const fs::path& c, const std::vector<std::string>& strategy) {
        // The clone still calls the docs task task-2.
        work(c, "task-2", "docs continued");
        work(repo(), "task-2", "parser continued");
        std::vector<std::string> pull = {"pull", "--no-rebase", "--no-edit"};
        pull.insert(pull.end(), strategy.begin(), strategy.end());
        auto from = [&](std::vector<std::string> args, const std::string& where, const std::string& branch) {
            args.push_back(where);
            args.push_back(branch);
            return args;
        };
        const RunResult back = git(from(pull, repo().string(), "main"), c);
        ASSERT_EQ(back.exit_code, 0) << back;
        const std::vector<std::pair<std::string, std::string>> so_far = {{"docs started", "task-3"},
                                                                         {"parser started", "task-2"},
                                                                         {"docs continued", "task-3"},
                                                                         {"parser continued", "task-2"}};
        expect_renamed_state(c, so_far);
        // More work on both sides (the clone now knows the docs task as task-3), then both ways again.
        work(c, "task-3", "docs finished");
        work(repo(), "task-2", "parser finished");
        const RunResult forth = git(from(pull, c.string(), "b"));
        ASSERT_EQ(forth.exit_code, 0) << forth;
        const RunResult back2 = git(from(pull, repo().string(), "main"), c);
        ASSERT_EQ(back2.exit_code, 0) << back2;
        std::vector<std::pair<std::string, std::string>> all = so_far;
        all.push_back({"docs finished", "task-3"});
        all.push_back({"parser finished", "task-2"});
        for (const fs::path& at : {repo(), c}) expect_renamed_state(at, all);
        EXPECT_EQ(read_file(progress(repo())), read_file(progress(c)));
        EXPECT_TRUE(git({"diff", "--name-only", "--diff-filter=U"}).out.empty());
    }
};

TEST_F(RenameE2E, GitMergeWithTheDriverRenamesTheIncomingTaskAndStaysCleanBothWays) {
    const fs::path c = colliding_sides();
    {
        // The driver as git runs it, by hand: the three versions, and GITHEAD_<id> naming OTHER.
        const std::string other = git_out({"rev-parse", "b"});
        const std::string base = git_out({"merge-base", "HEAD", "b"});
        for (const auto& [rev, name] : {std::pair{base, "o.yml"}, {std::string("HEAD"), "a.yml"}, {other, "b.yml"}}) {
            write_file(tmp_.path() / name, git_out({"show", rev + ":.small/progress.small.yml"}) + "\n");
        }
        Env env = env_;
        env.emplace_back("GITHEAD_" + other, "b");
        const RunResult js = run_in(repo(),
                                    {"merge", "--json", (tmp_.path() / "o.yml").string(),
                                     (tmp_.path() / "a.yml").string(), (tmp_.path() / "b.yml").string(),
                                     ".small/progress.small.yml"},
                                    env);
        EXPECT_EQ(js.exit_code, 0) << js;
        EXPECT_TRUE(contains(js.out, "task-2 -> task-3 (\\\"Write the docs\\\")")) << js;
        EXPECT_TRUE(contains(read_file(tmp_.path() / "a.yml"), "small merge: renamed task-2 -> task-3"));
        // Without the variable the driver cannot see the merge: nothing is renamed.
        const RunResult plain = small({"merge", "--json", (tmp_.path() / "o.yml").string(),
                                       (tmp_.path() / "o.yml").string(), (tmp_.path() / "b.yml").string(),
                                       ".small/progress.small.yml"});
        EXPECT_TRUE(contains(plain.out, "\"renamed\":[]") || contains(plain.out, "\"renamed\": []")) << plain;
    }
    const RunResult r = git({"merge", "--no-edit", "b"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, "renamed OTHER's task task-2 -> task-3 (\"Write the docs\")")) << r;
    EXPECT_EQ(count(r.err, "renamed OTHER's task"), 1u) << r;
    EXPECT_EQ(count(r.err, "after the merge, run: small handoff"), 1u) << r;
    expect_renamed_state(repo(), {{"docs started", "task-3"}, {"parser started", "task-2"}});
    // The plan --add lines: one per side, the incoming one under the new id (its text keeps the old id: history).
    const std::string merged = read_file(progress(repo()));
    EXPECT_TRUE(contains(merged,
                         "task_id: \"task-3\"\n    status: \"pending\"\n    evidence: \"Added task task-2 via "
                         "small plan --add\"\n    notes: \"Write the docs\""))
        << merged;

    // What was renamed: merge --explain and doctor read the record.
    const RunResult ex = small({"merge", "--explain", ".small/plan.small.yml"});
    EXPECT_EQ(ex.exit_code, 1) << ex;  // no conflict in git's index
    EXPECT_TRUE(contains(ex.err, "renamed")) << ex;
    EXPECT_TRUE(contains(ex.err, "task-2 -> task-3 (\"Write the docs\")")) << ex;
    const RunResult doc = small({"doctor"});
    EXPECT_TRUE(contains(doc.out + doc.err, "1 task id(s) renamed by merges")) << doc;
    EXPECT_TRUE(contains(doc.out + doc.err, "task-2 -> task-3 (\"Write the docs\")")) << doc;

    merge_back_and_forth(c, {});
}

TEST_F(RenameE2E, TheStrategyRenamesTheSameWay) {
    const fs::path c = colliding_sides();
    const RunResult r = git({"merge", "--no-edit", "-s", "small", "b"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_FALSE(contains(r.out + r.err, "after the merge, run")) << r;  // the strategy writes the handoff
    expect_renamed_state(repo(), {{"docs started", "task-3"}, {"parser started", "task-2"}});
    merge_back_and_forth(c, {"-s", "small"});
}

TEST_F(RenameE2E, TheOtherDirectionFirstRenamesTheOtherTask) {
    // The clone merges main first: main's task is the incoming one there.
    const fs::path c = colliding_sides();
    const RunResult r = git({"pull", "--no-rebase", "--no-edit", repo().string(), "main"}, c);
    ASSERT_EQ(r.exit_code, 0) << r;
    const std::string plan = read_file(c / ".small" / "plan.small.yml");
    EXPECT_TRUE(contains(plan, "id: \"task-2\"\n    title: \"Write the docs\"")) << plan;
    EXPECT_TRUE(contains(plan, "id: \"task-3\"\n    title: \"Write the parser\"")) << plan;
    EXPECT_EQ(task_of(read_file(progress(c)), "parser started"), "task-3");
    EXPECT_EQ(small({"check", "--strict"}, c).exit_code, 0);
    // Main takes the clone's merge (main's task-2 moves to task-3 there too).
    work(repo(), "task-2", "parser continued");
    const RunResult back = git({"pull", "--no-rebase", "--no-edit", c.string(), "b"});
    ASSERT_EQ(back.exit_code, 0) << back;
    const std::string log = read_file(progress(repo()));
    EXPECT_EQ(task_of(log, "parser started"), "task-3") << log;
    EXPECT_EQ(task_of(log, "parser continued"), "task-3") << log;
    EXPECT_EQ(task_of(log, "docs started"), "task-2") << log;
    EXPECT_EQ(small({"check", "--strict"}).exit_code, 0);
}

TEST_F(MergeE2E, ExplainingOneFileNeedsExplainAndARepository) {
    const RunResult one = small({"merge", ".small/plan.small.yml"});
    EXPECT_EQ(one.exit_code, 2) << one;
    EXPECT_TRUE(contains(one.err, "--explain")) << one;
    const RunResult two = small({"merge", "a", "b"});
    EXPECT_EQ(two.exit_code, 2) << two;
    const fs::path outside = tmp_.path() / "outside";
    fs::create_directory(outside);
    write_file(outside / "plan.small.yml", "x\n");
    const RunResult no_repo = small({"merge", "--explain", "plan.small.yml"}, outside);
    EXPECT_EQ(no_repo.exit_code, 2) << no_repo;
    EXPECT_TRUE(contains(no_repo.err, "is not in a git repository")) << no_repo;
}

TEST_F(MergeE2E, AWorkspaceInASubfolderIsExplainedByEitherPath) {
    const fs::path sub = repo() / "sub";
    fs::create_directory(sub);
    ASSERT_EQ(small({"init", "--no-agents"}, sub).exit_code, 0);
    write_file(repo() / ".gitattributes", ".small/*.small.yml merge=small\nsub/.small/*.small.yml merge=small\n");
    git_ok({"add", "-A"});
    git_ok({"commit", "-qm", "sub workspace"});
    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    ASSERT_EQ(add_by_hand("Write the parser", a / "sub").exit_code, 0);
    git_ok({"commit", "-qam", "a task"}, a);
    ASSERT_EQ(add_by_hand("Write the docs", b / "sub").exit_code, 0);
    git_ok({"commit", "-qam", "b task"}, b);
    const RunResult r = git({"cherry-pick", "b"}, a);
    EXPECT_NE(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, "small merge --explain sub/.small/plan.small.yml")) << r;
    // git's path works from the workspace folder too, as does the local one.
    for (const char* path : {"sub/.small/plan.small.yml", ".small/plan.small.yml"}) {
        const RunResult ex = small({"merge", "--explain", path}, a / "sub");
        EXPECT_EQ(ex.exit_code, 1) << ex;
        EXPECT_TRUE(contains(ex.err, "task id task-2 was added on both sides")) << ex;
    }
    const RunResult doc = small({"doctor"}, a / "sub");
    EXPECT_TRUE(contains(doc.out + doc.err, "sub/.small/plan.small.yml is unmerged: 1 conflict(s)")) << doc;
    const RunResult top = small({"doctor"}, a);  // the root workspace has no conflict
    EXPECT_FALSE(contains(top.out + top.err, "is unmerged")) << top;
}

TEST_F(MergeE2E, AFileDeletedOnOneSideAndChangedOnTheOtherIsNamed) {
    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    git_ok({"rm", "-q", ".small/constraints.small.yml"}, a);
    git_ok({"commit", "-qm", "drop constraints"}, a);
    write_file(b / ".small" / "constraints.small.yml",
               read_file(b / ".small" / "constraints.small.yml") + "# reviewed\n");
    git_ok({"commit", "-qam", "touch constraints"}, b);
    EXPECT_NE(git({"merge", "--no-edit", "b"}, a).exit_code, 0);
    const RunResult idx = small({"merge", "--explain", ".small/constraints.small.yml"}, a);
    EXPECT_EQ(idx.exit_code, 1) << idx;
    EXPECT_TRUE(contains(idx.err, ".small/constraints.small.yml was deleted on this side and changed on the other side"))
        << idx;
    const RunResult doc = small({"doctor"}, a);
    EXPECT_EQ(doc.exit_code, 1) << doc;
    EXPECT_TRUE(contains(doc.out + doc.err, "git checkout --theirs -- .small/constraints.small.yml")) << doc;
}

TEST_F(MergeE2E, HooksInstallRegistersTheDriverAndUninstallRemovesIt) {
    git_ok({"config", "--remove-section", "merge.small"});
    fs::remove(repo() / ".gitattributes");
    git_ok({"commit", "-qam", "no driver"});
    const RunResult dry = small({"hooks", "install", "git", "--dry-run"});
    ASSERT_EQ(dry.exit_code, 0) << dry;
    EXPECT_TRUE(contains(dry.out, "+.small/*.small.yml merge=small")) << dry;
    EXPECT_TRUE(contains(dry.out, "git config merge.small.driver \"small merge -- %O %A %B %P\"")) << dry;
    EXPECT_FALSE(fs::exists(repo() / ".gitattributes"));
    EXPECT_NE(git({"config", "--get", "merge.small.driver"}).exit_code, 0);

    ASSERT_EQ(small({"hooks", "install", "git"}).exit_code, 0);
    ASSERT_EQ(small({"hooks", "install", "git"}).exit_code, 0);  // added once
    EXPECT_EQ(read_file(repo() / ".gitattributes"), ".small/*.small.yml merge=small\n");
    EXPECT_EQ(git({"config", "--get", "merge.small.driver"}).out, "small merge -- %O %A %B %P\n");
    git_ok({"add", ".gitattributes"});
    git_ok({"commit", "-qm", "driver"});
    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    parallel_sessions({{a, "alpha"}, {b, "beta"}}, 1);
    const RunResult merged = git({"merge", "-q", "--no-edit", "b"}, a);
    ASSERT_EQ(merged.exit_code, 0) << merged;
    expect_each_once(read_file(progress(a)), {"alpha", "beta"}, 1);

    write_file(repo() / ".gitattributes", "*.png binary\n.small/*.small.yml merge=small\n");
    ASSERT_EQ(small({"hooks", "uninstall", "git"}).exit_code, 0);
    EXPECT_EQ(read_file(repo() / ".gitattributes"), "*.png binary\n");
    EXPECT_NE(git({"config", "--get", "merge.small.driver"}).exit_code, 0);
}

TEST_F(MergeE2E, WithoutTheDriverDoctorSaysHowToRedoTheMergeThroughIt) {
    git_ok({"config", "--remove-section", "merge.small"});
    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    parallel_sessions({{a, "alpha"}, {b, "beta"}}, 2);
    EXPECT_NE(git({"merge", "-q", "--no-edit", "b"}, a).exit_code, 0);  // git's line merge conflicts
    const RunResult d = small({"doctor"}, a);
    EXPECT_EQ(d.exit_code, 1) << d;
    EXPECT_TRUE(contains(d.out + d.err, ".small/progress.small.yml is unmerged in git's index, but small's merge driver "
                                "merges it cleanly"))
        << d;
    EXPECT_TRUE(contains(d.out + d.err, "git checkout -m -- .small/progress.small.yml")) << d;
    EXPECT_FALSE(contains(d.out + d.err, "holds unresolved git conflict markers")) << d;  // said once
    EXPECT_TRUE(contains(d.out + d.err, "Failed to load 1 artifact(s)")) << d;
    const RunResult ex = small({"merge", "--explain", ".small/progress.small.yml"}, a);
    EXPECT_EQ(ex.exit_code, 0) << ex;
    EXPECT_TRUE(contains(ex.err, "merges it cleanly (progress rule)")) << ex;

    // Doing what it says finishes the merge with every entry once.
    ASSERT_EQ(small({"hooks", "install", "git"}, a).exit_code, 0);
    git_ok({"checkout", "-m", "--", ".small/progress.small.yml"}, a);
    expect_each_once(read_file(progress(a)), {"alpha", "beta"}, 2);
    git_ok({"add", ".small/progress.small.yml"}, a);
    git_ok({"commit", "-q", "--no-edit"}, a);
    expect_verified(a);
}

TEST_F(MergeE2E, ConflictMarkersCommittedAreNamedByDoctor) {
    git_ok({"config", "--remove-section", "merge.small"});
    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    parallel_sessions({{a, "alpha"}, {b, "beta"}}, 1);
    EXPECT_NE(git({"merge", "-q", "--no-edit", "b"}, a).exit_code, 0);
    git_ok({"add", "-A"}, a);  // the markers staged: git no longer knows it was a conflict
    git_ok({"commit", "-q", "--no-edit"}, a);
    const RunResult d = small({"doctor"}, a);
    EXPECT_EQ(d.exit_code, 1) << d;
    EXPECT_TRUE(contains(d.out + d.err, "progress.small.yml holds unresolved git conflict markers")) << d;
    EXPECT_TRUE(contains(d.out + d.err, "git checkout REV -- .small/progress.small.yml")) << d;
}

TEST_F(MergeE2E, AnUnparseableSideLeavesCurrentUntouched) {
    const std::string base = read_file(progress(repo()));
    write_file(tmp_.path() / "o", base);
    write_file(tmp_.path() / "a", base + "  - [broken\n");
    write_file(tmp_.path() / "b", base);
    const RunResult r = small({"merge", (tmp_.path() / "o").string(), (tmp_.path() / "a").string(),
                               (tmp_.path() / "b").string(), ".small/progress.small.yml"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_EQ(read_file(tmp_.path() / "a"), base + "  - [broken\n");
    fs::create_symlink(tmp_.path() / "b", tmp_.path() / "link");
    const RunResult l = small({"merge", (tmp_.path() / "o").string(), (tmp_.path() / "link").string(),
                               (tmp_.path() / "b").string(), ".small/progress.small.yml"});
    EXPECT_NE(l.exit_code, 0) << l;
}

// Issue 24, defect 7: a workspace folder named like a flag (or with
// spaces, quotes, `$()`, a newline) merges through the driver registered
// with `--`, and through `-s small` (whose default driver has `--` too).
TEST_F(MergeE2E, WorkspaceFoldersOfAnyNameMergeThroughTheDriverAndTheStrategy) {
    const std::vector<std::string>& names = awkward_names();
    add_workspaces(names);
    git_ok({"config", "merge.small.driver", "small merge -- %O %A %B %P"});
    const fs::path a = worktree("a"), b = worktree("b"), c = worktree("c");
    log_in_each(a, names, "alpha");
    log_in_each(b, names, "beta");
    log_in_each(c, names, "gamma");
    const fs::path o = tmp_.path() / "wt-octopus";
    git_ok({"worktree", "add", "-q", "-b", "octopus", o.string(), "main"});

    const RunResult merged = git({"merge", "--no-edit", "b"}, a);
    ASSERT_EQ(merged.exit_code, 0) << merged;
    for (const std::string& name : names) expect_each_once(read_file(progress(a / name)), {"alpha", "beta"}, 1);

    // The strategy's own default driver, with no merge.small.driver set.
    git_ok({"config", "--unset", "merge.small.driver"});
    const RunResult octopus = git({"merge", "--no-edit", "-s", "small", "a", "c"}, o);
    ASSERT_EQ(octopus.exit_code, 0) << octopus;
    for (const std::string& name : names) {
        expect_each_once(read_file(progress(o / name)), {"alpha", "beta", "gamma"}, 1);
        expect_verified(o / name);
    }
    expect_nothing_ran({repo(), a, b, c, o, tmp_.path()});
}

// Today's registered line (no `--`) still merges every folder name that does
// not look like a flag; for `-x` the driver fails, and doctor and
// --explain say how to redo the merge with commands that paste as they are.
TEST_F(MergeE2E, TodaysDriverLineAndTheRepairOfALeadingDashFolder) {
    const std::vector<std::string> names = {"with space", "quo'te\"s", "$(touch pwned)", "new\nline", "-x"};
    add_workspaces(names);
    const fs::path a = worktree("a"), b = worktree("b");
    log_in_each(a, names, "alpha");
    log_in_each(b, names, "beta");
    EXPECT_NE(git({"merge", "--no-edit", "b"}, a).exit_code, 0);
    for (std::size_t i = 0; i + 1 < names.size(); ++i) {
        expect_each_once(read_file(progress(a / names[i])), {"alpha", "beta"}, 1);
    }
    const std::string dashed = "-x/.small/progress.small.yml";
    const RunResult doc = small({"doctor"}, a / "-x");
    EXPECT_EQ(doc.exit_code, 1) << doc;
    EXPECT_TRUE(contains(doc.out + doc.err, dashed + " is unmerged in git's index, but small's merge driver merges it "
                                                     "cleanly"))
        << doc;
    EXPECT_TRUE(contains(doc.out + doc.err, "git checkout -m -- " + dashed + " && git add -- " + dashed)) << doc;
    const RunResult ex = small({"merge", "--explain", "--", dashed}, a);
    ASSERT_EQ(ex.exit_code, 0) << ex;
    const std::string suggested = between(ex.err, "then: ", "\n");
    ASSERT_EQ(suggested, "git checkout -m -- " + dashed + " && git add -- " + dashed) << ex;

    git_ok({"config", "merge.small.driver", "small merge -- %O %A %B %P"});
    const RunResult redo = paste(suggested, a);
    ASSERT_EQ(redo.exit_code, 0) << redo;
    expect_each_once(read_file(progress(a / "-x")), {"alpha", "beta"}, 1);
    EXPECT_TRUE(git({"diff", "--name-only", "--diff-filter=U"}, a).out.empty());
    git_ok({"commit", "-q", "--no-edit"}, a);
    expect_nothing_ran({repo(), a, b, tmp_.path()});
}

// A real conflict in such folders: the driver's "Run `small merge
// --explain …`" and the plan hint's git commands work when pasted.
TEST_F(MergeE2E, ConflictsInAwkwardFoldersSuggestCommandsThatPaste) {
    const std::vector<std::string> names = {"with space", "-x", "new\nline", "quo'te\"s"};
    add_workspaces(names);
    git_ok({"config", "merge.small.driver", "small merge -- %O %A %B %P"});
    const fs::path a = worktree("a"), b = worktree("b");
    for (const auto& [wt, title] : {std::pair{a, "Write the parser"}, {b, "Write the docs"}}) {
        for (const std::string& name : names) ASSERT_EQ(add_by_hand(title, wt / name).exit_code, 0);
        git_ok({"commit", "-qam", title}, wt);
    }
    const RunResult r = git({"cherry-pick", "b"}, a);  // no merge for the driver to rename in (D21)
    EXPECT_NE(r.exit_code, 0) << r;
    for (const std::string& name : names) {
        const std::string plan = name + "/.small/plan.small.yml";
        const std::size_t at = r.err.find("small merge: " + plan + ": 1 conflict(s)");
        ASSERT_NE(at, std::string::npos) << name << "\n" << r;
        const std::string explain = between(r.err.substr(at), "Run `", "`");
        const RunResult ex = paste(explain, a);
        EXPECT_EQ(ex.exit_code, 1) << explain << "\n" << ex;
        EXPECT_TRUE(contains(ex.err, "task id task-2 was added on both sides")) << explain << "\n" << ex;

        // The hint: take CURRENT's plan, add OTHER's task again, stage it.
        const std::string take = between(ex.err, "take CURRENT's plan (`", "`)");
        const RunResult took = paste(take, a);
        ASSERT_EQ(took.exit_code, 0) << take << "\n" << took;
        ASSERT_EQ(small({"plan", "--add", "Write the docs"}, a / name).exit_code, 0);
        const std::string stage = between(ex.err, "(it gets the next free id), then `", "`");
        const RunResult staged = paste(stage, a);
        ASSERT_EQ(staged.exit_code, 0) << stage << "\n" << staged;
    }
    EXPECT_TRUE(git({"diff", "--name-only", "--diff-filter=U"}, a).out.empty());
    git_ok({"commit", "-q", "--no-edit"}, a);
    for (const std::string& name : names) expect_verified(a / name);
}

// Issue 21, item 9: as a new user installs it, only the small binary on PATH
// (the README: it needs no other file). `git merge -s small` needs
// git-merge-small: `hooks install git` warns and doctor reports it, each
// with the one command that links it; pasted, that link is the strategy
// (small itself, called by that name), and the octopus merges.
TEST_F(MergeE2E, WithOnlySmallOnPathTheStrategyIsTheLinkInstallAndDoctorName) {
    for (const char* system : {"/usr/bin/git-merge-small", "/bin/git-merge-small", "/usr/lib/git-core/git-merge-small",
                               "/usr/libexec/git-core/git-merge-small"}) {
        if (fs::exists(system)) GTEST_SKIP() << system << " is installed: the strategy is found without the link";
    }
    const fs::path bin = tmp_.path() / "bin";
    fs::create_directory(bin);
    fs::copy_file(SMALL_BINARY, bin / "small");
    path_only(bin);
    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    parallel_sessions({{a, "alpha"}, {b, "beta"}}, 2);

    const std::string fix = "ln -s small " + (bin / "git-merge-small").string();
    const RunResult install = small({"hooks", "install", "git"});
    ASSERT_EQ(install.exit_code, 0) << install;
    EXPECT_TRUE(contains(install.err, "warning: `git merge -s small` runs git-merge-small")) << install;
    EXPECT_TRUE(contains(install.err, "run: " + fix + "\n")) << install;
    const RunResult json = small({"hooks", "install", "git", "--dry-run", "--json"});
    EXPECT_TRUE(contains(json.out, fix)) << json;
    const RunResult doctor = small({"doctor"});
    EXPECT_TRUE(contains(doctor.err, "[WARN] Merge Strategy: `git merge -s small` runs git-merge-small")) << doctor;
    EXPECT_TRUE(contains(doctor.err, "-> Run: " + fix)) << doctor;
    const RunResult missing = git({"merge", "--no-edit", "-s", "small", "a", "b"});
    EXPECT_NE(missing.exit_code, 0) << missing;
    EXPECT_TRUE(contains(missing.out + missing.err, "Could not find merge strategy")) << missing;

    const RunResult linked = paste(fix, repo());
    ASSERT_EQ(linked.exit_code, 0) << linked;
    EXPECT_TRUE(fs::is_symlink(bin / "git-merge-small"));
    const RunResult again = small({"hooks", "install", "git"});
    EXPECT_FALSE(contains(again.err, "warning")) << again;
    EXPECT_TRUE(contains(small({"doctor"}).out, "[OK] Merge Strategy: git merge -s small runs " +
                                                    (bin / "git-merge-small").string()));
    const RunResult merged = git({"merge", "--no-edit", "-s", "small", "a", "b"});
    ASSERT_EQ(merged.exit_code, 0) << merged;
    EXPECT_TRUE(contains(merged.out, "Merge made by the 'small' strategy")) << merged;
    expect_each_once(read_file(progress(repo())), {"alpha", "beta"}, 2);
    EXPECT_TRUE(git({"status", "--porcelain"}).out.empty());
    expect_verified(repo());
}

// small answers as the strategy by its name, also called by a path (a link
// in git's exec-path, or by hand): "$0", which `git merge-index` runs again
// for each file, is that path. What git never passes it is refused (exit 2,
// git's "cannot do this merge").
TEST_F(MergeE2E, SmallCalledAsGitMergeSmallIsTheStrategy) {
    const fs::path exec = tmp_.path() / "exec";
    fs::create_directory(exec);
    fs::create_symlink(SMALL_BINARY, exec / "git-merge-small");
    RunOptions o;
    o.cwd = repo();
    o.env = env_;
    o.program = (exec / "git-merge-small").string();
    const RunResult bare = run_small({}, o);
    EXPECT_EQ(bare.exit_code, 2) << bare;
    EXPECT_TRUE(contains(bare.err, "git-merge-small: expected BASE... -- HEAD REMOTE...")) << bare;
    const RunResult nothing = run_small({"--", "HEAD"}, o);
    EXPECT_EQ(nothing.exit_code, 2) << nothing;
    EXPECT_TRUE(contains(nothing.err, "git-merge-small: nothing to merge")) << nothing;

    const fs::path a = worktree("a");
    const fs::path b = worktree("b");
    parallel_sessions({{a, "alpha"}, {b, "beta"}}, 1);
    // As git runs it (BASE... -- HEAD REMOTE...), by hand: the merge is left in the index.
    const RunResult merged = run_small({"--", "HEAD", "a", "b"}, o);
    ASSERT_EQ(merged.exit_code, 0) << merged;
    EXPECT_TRUE(contains(merged.out, "Merging the files git could not settle with b")) << merged;
    expect_each_once(read_file(progress(repo())), {"alpha", "beta"}, 1);
    EXPECT_TRUE(git({"diff", "--name-only"}).out.empty());  // the work tree is what the index holds
}

// Issue 21, item 9: after a plain `git merge a b` (git's octopus, which never
// runs merge drivers), doctor and --explain say to merge with `-s small`,
// not that a driver is missing, and the markers get no YAML hint.
TEST_F(MergeE2E, AfterAPlainOctopusDoctorSaysMergeWithSmallsStrategy) {
    const fs::path a = worktree("agent/a");
    const fs::path b = worktree("agent/b");
    parallel_sessions({{a, "alpha"}, {b, "beta"}}, 2);
    const RunResult octopus = git({"merge", "--no-edit", "agent/a", "agent/b"});
    ASSERT_EQ(octopus.exit_code, 1) << octopus;  // the last branch's conflict is left in the index
    const std::string fix = "git merge --abort && git merge -s small agent/a agent/b";
    const RunResult d = small({"doctor"});
    EXPECT_EQ(d.exit_code, 1) << d;
    EXPECT_TRUE(contains(d.err, "git merged 2 branches at once with its octopus strategy, which never runs merge "
                                "drivers")) << d;
    EXPECT_TRUE(contains(d.err, "-> " + fix + "\n")) << d;
    EXPECT_FALSE(contains(d.out + d.err, "small hooks install git")) << d;  // the driver is registered
    EXPECT_FALSE(contains(d.out + d.err, "indent")) << d;
    EXPECT_TRUE(contains(d.err, "starts git's conflict markers")) << d;
    EXPECT_TRUE(contains(d.err, "Finish the merge first (see Merge)")) << d;
    const RunResult ex = small({"merge", "--explain", ".small/progress.small.yml"});
    EXPECT_EQ(ex.exit_code, 0) << ex;
    EXPECT_TRUE(contains(ex.err, "octopus strategy")) << ex;
    EXPECT_TRUE(contains(ex.err, "Run: " + fix + "\n")) << ex;
    const RunResult validate = small({"validate"});
    EXPECT_FALSE(contains(validate.out + validate.err, "indent")) << validate;

    const RunResult done = paste(fix, repo());
    ASSERT_EQ(done.exit_code, 0) << done;
    expect_each_once(read_file(progress(repo())), {"alpha", "beta"}, 2);
    expect_verified(repo());
}

}  // namespace
}  // namespace small_e2e
