// base/git_repo (libgit2) and check/evidence_check on real temporary
// repositories made with the git binary: no commits, detached HEAD, a
// shallow clone, a linked worktree, and no repository at all.
#include <git2.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "small/base/filesystem.hpp"
#include "small/check/evidence_check.hpp"
#include "small/base/git.hpp"
#include "small/base/path.hpp"
#include "small/domain/scope_drift.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

namespace fs = std::filesystem;
using namespace small::testing;

constexpr const char* kGit = "/usr/bin/git";

class GitRepoTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(kGit)) GTEST_SKIP() << "git is not installed";
        // Isolated from the user's configuration, for git and libgit2 alike.
        ::setenv("HOME", tmp_.path("").c_str(), 1);
        ::setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
        ::setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
        for (const char* v : {"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"}) ::setenv(v, "t", 1);
        for (const char* v : {"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"}) ::setenv(v, "t@example.com", 1);
    }
    std::string root() const { return tmp_.ws().root; }
    // Runs git in `dir` (default: the root); the test fails when git does.
    std::string git(const std::string& args, const std::string& dir = "") {
        const std::string out = tmp_.ws().small_dir + "/git.out";  // .small*: never counted
        const std::string cmd = "cd '" + (dir.empty() ? root() : dir) + "' && " + kGit + " " + args + " > '" + out + "' 2>&1";
        const int rc = std::system(cmd.c_str());
        EXPECT_EQ(rc, 0) << cmd << "\n" << small::testing::read_text(out);
        std::string text = small::testing::read_text(out);
        while (!text.empty() && text.back() == '\n') text.pop_back();
        return text;
    }
    void commit_file(const std::string& name, const std::string& text, const std::string& message) {
        write_text(tmp_.path(name), text);
        git("add '" + name + "'");
        git("commit -q -m '" + message + "'");
    }
    GitRepo open(const std::string& dir = "") {
        Result<std::optional<GitRepo>> r = GitRepo::discover(dir.empty() ? root() : dir);
        EXPECT_TRUE(r.ok() && r->has_value());
        return std::move(r->value());
    }
    TempWorkspace tmp_;
};

TEST_F(GitRepoTest, OutsideAnyRepositoryIsNotAnError) {
    Result<std::optional<GitRepo>> r = GitRepo::discover(root());
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_FALSE(r->has_value());
    Result<GitRepo> named = open_workspace_repo(root(), "small drift");
    ASSERT_FALSE(named.ok());
    EXPECT_EQ(named.error().kind, Error::Kind::Usage);
    EXPECT_NE(named.error().message.find("not in a git repository"), std::string::npos);
    RealFileSystem real;
    Result<EvidenceReport> ev = check_evidence(real, tmp_.ws());
    ASSERT_FALSE(ev.ok());
    EXPECT_EQ(ev.error().kind, Error::Kind::Usage);
}

TEST_F(GitRepoTest, RepositoryWithNoCommits) {
    git("init -q");
    write_text(tmp_.path("a.txt"), "a\n");
    GitRepo repo = open();
    EXPECT_TRUE(repo.head_unborn());
    Result<std::optional<std::string>> head = repo.head();
    ASSERT_TRUE(head.ok());
    EXPECT_FALSE(head->has_value());
    EXPECT_TRUE(repo.head_ancestors()->empty());
    EXPECT_FALSE(repo.resolve_commit("HEAD").ok());
    EXPECT_FALSE(repo.first_parent_at_or_before(1LL << 40)->has_value());
    Result<std::vector<std::string>> changed = repo.changed_files("");
    ASSERT_TRUE(changed.ok()) << changed.error().message;
    EXPECT_EQ(*changed, (std::vector<std::string>{".small/git.out", "a.txt"}));
    EXPECT_TRUE(*repo.dirty());
}

TEST_F(GitRepoTest, CommitsAncestryAndDetachedHead) {
    git("init -q");
    commit_file("a.txt", "1\n", "one");
    const std::string first = git("rev-parse HEAD");
    commit_file("a.txt", "2\n", "two");
    const std::string second = git("rev-parse HEAD");
    write_text(tmp_.path(".git/info/exclude"), ".small/\n");
    GitRepo repo = open();
    EXPECT_FALSE(*repo.dirty());
    EXPECT_EQ(*repo.resolve_commit(first.substr(0, 7)), first);
    EXPECT_EQ(*repo.resolve_commit(first), first);
    EXPECT_EQ(*repo.resolve_commit("HEAD~1"), first);
    EXPECT_FALSE(repo.resolve_commit("0000000").ok());
    EXPECT_NE(repo.resolve_commit("no-such-branch").error().message.find("unknown revision"), std::string::npos);
    EXPECT_TRUE(*repo.is_ancestor_of_head(first));
    EXPECT_TRUE(*repo.is_ancestor_of_head(second));
    EXPECT_EQ(repo.head_ancestors()->size(), 2u);
    EXPECT_GT(*repo.commit_time(first), 0);

    git("checkout -q --detach " + first);
    GitRepo detached = open();
    EXPECT_TRUE(detached.head_detached());
    EXPECT_EQ(**detached.head(), first);
    EXPECT_FALSE(*detached.is_ancestor_of_head(second));  // exists, but not reachable from HEAD
    EXPECT_EQ(*detached.resolve_commit(second), second);
    EXPECT_EQ(detached.head_ancestors()->count(second), 0u);
}

TEST_F(GitRepoTest, ChangedFilesCoverCommittedStagedUnstagedAndUntrackedButNotIgnored) {
    git("init -q");
    commit_file(".gitignore", "*.log\n", "base");
    commit_file("keep.txt", "k\n", "keep");
    const std::string base = git("rev-parse HEAD~1");
    commit_file("committed.txt", "c\n", "after base");
    write_text(tmp_.path("staged.txt"), "s\n");
    git("add staged.txt");
    write_text(tmp_.path("keep.txt"), "changed\n");  // unstaged
    fs::create_directories(tmp_.path("new/dir"));
    write_text(tmp_.path("new/dir/untracked.txt"), "u\n");
    write_text(tmp_.path("noise.log"), "ignored\n");
    GitRepo repo = open();
    Result<std::vector<std::string>> changed = repo.changed_files(base);
    ASSERT_TRUE(changed.ok()) << changed.error().message;
    // .small/ is untracked in this repository: it is listed here; drift drops it.
    std::vector<std::string> want = {"committed.txt", "keep.txt", "new/dir/untracked.txt", "staged.txt"};
    std::vector<std::string> got;
    for (const std::string& p : *changed) {
        if (p.rfind(".small", 0) != 0) got.push_back(p);
    }
    EXPECT_EQ(got, want);
    EXPECT_TRUE(*repo.dirty());
}

TEST_F(GitRepoTest, ShallowCloneAndLinkedWorktree) {
    git("init -q");
    commit_file("a.txt", "1\n", "one");
    commit_file("a.txt", "2\n", "two");
    const std::string first = git("rev-parse HEAD~1");
    const std::string clone = tmp_.path("clone");
    git("clone -q --depth 1 file://" + root() + " '" + clone + "'");
    GitRepo shallow = open(clone);
    EXPECT_TRUE(shallow.shallow());
    EXPECT_EQ(shallow.head_ancestors()->size(), 1u);
    EXPECT_FALSE(shallow.resolve_commit(first).ok());  // history the clone lacks

    const std::string wt = tmp_.path("wt");
    git("worktree add -q --detach '" + wt + "' HEAD~1");
    GitRepo linked = open(wt);
    EXPECT_EQ(fs::path(linked.workdir()).lexically_normal(), fs::path(wt + "/").lexically_normal());
    EXPECT_EQ(**linked.head(), first);
    EXPECT_TRUE(linked.head_detached());
    EXPECT_EQ(path_in_workdir(linked.workdir(), wt + "/sub"), std::optional<std::string>("sub"));
    EXPECT_EQ(path_in_workdir(linked.workdir(), root()), std::nullopt);
}

// `small hooks` reads and writes merge.small.* in the repository's own
// config file only: a value from the global file is neither seen nor
// touched, and a linked worktree shares its main repository's file.
TEST_F(GitRepoTest, LocalConfigIsTheRepositorysOwnFileOnly) {
    git("init -q");
    const std::string home = tmp_.path("home");
    fs::create_directory(home);
    const std::string global_text = "[merge \"small\"]\n\tdriver = global %A\n";
    write_text(home + "/.gitconfig", global_text);
    git_libgit2_init();  // libgit2 found the global file's folder from HOME once: point it at this one
    ASSERT_EQ(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, home.c_str()), 0);
    git_config* all = nullptr;  // what reading every level would give
    ASSERT_EQ(git_config_open_default(&all), 0);
    git_buf seen = GIT_BUF_INIT;
    EXPECT_EQ(git_config_get_string_buf(&seen, all, "merge.small.driver"), 0);
    EXPECT_STREQ(seen.ptr, "global %A");
    git_buf_dispose(&seen);
    git_config_free(all);
    GitRepo repo = open();
    EXPECT_EQ(*repo.local_config("merge.small.driver"), std::nullopt);
    Result<bool> absent = repo.unset_local_config("merge.small.driver");
    ASSERT_TRUE(absent.ok()) << absent.error().message;
    EXPECT_FALSE(*absent);

    ASSERT_TRUE(repo.set_local_config("merge.small.driver", "small merge %O %A %B %P").ok());
    ASSERT_TRUE(repo.set_local_config("merge.small.recursive", "binary").ok());
    EXPECT_EQ(git("config --local --get merge.small.driver"), "small merge %O %A %B %P");
    EXPECT_EQ(*repo.local_config("merge.small.driver"), std::optional<std::string>("small merge %O %A %B %P"));
    commit_file("a.txt", "a\n", "one");
    const std::string wt = tmp_.path("wt");
    git("worktree add -q --detach '" + wt + "'");
    EXPECT_EQ(*open(wt).local_config("merge.small.driver"), std::optional<std::string>("small merge %O %A %B %P"));

    Result<bool> removed = open(wt).unset_local_config("merge.small.driver");
    ASSERT_TRUE(removed.ok()) << removed.error().message;
    EXPECT_TRUE(*removed);
    EXPECT_EQ(*repo.local_config("merge.small.driver"), std::nullopt);
    EXPECT_EQ(*repo.local_config("merge.small.recursive"), std::optional<std::string>("binary"));
    EXPECT_EQ(small::testing::read_text(home + "/.gitconfig"), global_text);
    git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, nullptr);
    git_libgit2_shutdown();
}

// `small hooks` asks libgit2 what it once asked a git process (`git
// rev-parse --git-path hooks`, `git config --get`): the answers must be git's.
class GitRepoHooksTest : public GitRepoTest {
protected:
    void TearDown() override {
        ::unsetenv("GIT_CONFIG_SYSTEM");
        ::setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
        ::setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
    }
    // git's hooks folder as seen from `dir`, absolute (git prints it relative to `dir`).
    std::string git_hooks_dir(const std::string& dir) {
        return absolute_path(dir, git("rev-parse --git-path hooks", dir));
    }
    void expect_git_hooks_dir(const std::string& dir) {
        Result<std::string> ours = open(dir).hooks_dir();
        ASSERT_TRUE(ours.ok()) << ours.error().message;
        EXPECT_EQ(*ours, git_hooks_dir(dir)) << "from " << dir;
    }
    std::string config_file(const std::string& name, const std::string& text) {
        const std::string path = tmp_.path(name);
        write_text(path, text);
        return path;
    }
    // A repository with one commit, a folder `sub` and a linked worktree (returned).
    std::string repository_with_worktree() {
        git("init -q");
        commit_file("a.txt", "a\n", "one");
        fs::create_directories(tmp_.path("sub"));
        const std::string wt = tmp_.path("wt");
        git("worktree add -q --detach '" + wt + "'");
        return wt;
    }
};

TEST_F(GitRepoHooksTest, HooksDirIsGitsInARepositoryASubfolderAndAWorktree) {
    const std::string wt = repository_with_worktree();
    fs::create_directories(tmp_.path("sub/deep"));
    for (const std::string& dir : {root(), tmp_.path("sub/deep"), wt}) expect_git_hooks_dir(dir);
    EXPECT_EQ(*open(wt).hooks_dir(), root() + "/.git/hooks");  // the common folder's
    EXPECT_EQ(open(wt).config_path(), absolute_path(wt, git("rev-parse --git-path config", wt)));
    EXPECT_EQ(open(wt).commondir(), root() + "/.git");
}

TEST_F(GitRepoHooksTest, HooksPathAbsoluteRelativeAndFromHome) {
    const std::string wt = repository_with_worktree();
    for (const std::string& value : {tmp_.path("abs-hooks"), std::string(".githooks"), std::string("../up"),
                                    std::string("~/home-hooks")}) {
        git("config core.hooksPath '" + value + "'");
        // A relative value is relative to the top of the work tree it runs in.
        for (const std::string& dir : {root(), tmp_.path("sub"), wt}) expect_git_hooks_dir(dir);
    }
}

TEST_F(GitRepoHooksTest, GitConfigGlobalAndNoSystemAreHonoured) {
    git("init -q");
    fs::create_directories(tmp_.path("sub"));
    const std::string global = config_file("global.gitconfig", "[core]\n\thooksPath = " + tmp_.path("global-hooks") +
                                                                  "\n[merge \"small\"]\n\tdriver = global %A\n");
    ::setenv("GIT_CONFIG_GLOBAL", global.c_str(), 1);
    expect_git_hooks_dir(tmp_.path("sub"));
    EXPECT_EQ(*open().hooks_dir(), tmp_.path("global-hooks"));
    EXPECT_EQ(*open().effective_config("merge.small.driver"), std::optional<std::string>("global %A"));
    EXPECT_EQ(*open().local_config("merge.small.driver"), std::nullopt);  // not the repository's own

    const std::string system = config_file("system.gitconfig", "[core]\n\thooksPath = system-hooks\n");
    ::setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
    ::setenv("GIT_CONFIG_SYSTEM", system.c_str(), 1);
    expect_git_hooks_dir(root());
    EXPECT_EQ(*open().hooks_dir(), root() + "/.git/hooks");  // GIT_CONFIG_NOSYSTEM=1
    for (const char* off : {"0", "false"}) {
        ::setenv("GIT_CONFIG_NOSYSTEM", off, 1);
        expect_git_hooks_dir(tmp_.path("sub"));
        EXPECT_EQ(*open().hooks_dir(), root() + "/system-hooks");
    }
    git("config core.hooksPath local-hooks");  // the repository's own file wins over the others
    expect_git_hooks_dir(root());
    EXPECT_EQ(*open().effective_config("merge.small.driver"), std::nullopt);
}

TEST_F(GitRepoHooksTest, AWorktreesOwnConfigIsReadWhenEnabled) {
    const std::string wt = repository_with_worktree();
    git("config extensions.worktreeConfig true");
    git("config --worktree core.hooksPath wt-hooks", wt);
    expect_git_hooks_dir(wt);
    expect_git_hooks_dir(root());
    EXPECT_EQ(*open(wt).hooks_dir(), wt + "/wt-hooks");
}

TEST_F(GitRepoTest, EvidenceRulesNameTheEntry) {
    git("init -q");
    commit_file("a.txt", "1\n", "one");
    const std::string kept = git("rev-parse HEAD");
    commit_file("a.txt", "2\n", "two");
    const std::string dropped = git("rev-parse HEAD");
    git("reset -q --hard HEAD~1");  // `dropped` still exists but HEAD no longer reaches it
    write_text(tmp_.ws().small_dir + "/progress.small.yml",
                "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n"
                "  - task_id: \"t1\"\n    timestamp: \"2026-01-01T00:00:00.000000001Z\"\n    evidence: \"x\"\n"
                "    commit: \"" + kept.substr(0, 7) + "\"\n"
                "  - task_id: \"t2\"\n    timestamp: \"2026-01-01T00:00:00.000000002Z\"\n    evidence: \"x\"\n"
                "    commit: \"" + dropped + "\"\n"
                "  - task_id: \"t3\"\n    timestamp: \"2026-01-01T00:00:00.000000003Z\"\n    evidence: \"x\"\n"
                "    commit: \"abcdef0\"\n"
                "    link: \"not a url\"\n");
    RealFileSystem real;
    Result<EvidenceReport> ev = check_evidence(real, tmp_.ws());
    ASSERT_TRUE(ev.ok()) << ev.error().message;
    EXPECT_EQ(ev->commits, 3u);
    EXPECT_EQ(ev->links, 1u);
    ASSERT_EQ(ev->findings.size(), 3u);
    EXPECT_EQ(ev->findings[0].rule, "EV-COMMIT-UNREACHABLE");
    EXPECT_EQ(ev->findings[0].mark.line, 11u);
    EXPECT_GT(ev->findings[0].mark.column, 12u);
    EXPECT_EQ(ev->findings[1].rule, "EV-COMMIT-UNKNOWN");
    EXPECT_EQ(ev->findings[1].mark.line, 15u);
    EXPECT_EQ(ev->findings[2].rule, "EV-LINK");
    EXPECT_EQ(ev->findings[2].mark.line, 16u);
}

}  // namespace
}  // namespace small
