// `small hooks` end to end: a real `git init` repository, real commits
// through the installed pre-commit hook, and the agent settings files.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "support/git_fixture.hpp"

namespace small_e2e {
namespace {

class HooksE2E : public GitRepoE2E {
protected:
    fs::path hooks_dir() const { return repo() / ".git" / "hooks"; }

    // An initialized workspace in a fresh repository, committed once.
    void init_repo_with_workspace() {
        git_ok({"init", "-q"});
        const RunResult r = small({"init", "--no-agents"});
        ASSERT_EQ(r.exit_code, 0) << r;
        write_file(repo() / "README", "hello\n");
        git_ok({"add", "-A"});
        git_ok({"commit", "-q", "-m", "base"});
    }
    void break_plan() {
        const fs::path plan = repo() / ".small" / "plan.small.yml";
        std::string text = read_file(plan);
        ASSERT_NE(text.find("owner: \"agent\""), std::string::npos);
        text.replace(text.find("owner: \"agent\""), 14, "owner: \"human\"");
        write_file(plan, text);
    }
    RunResult commit(const std::string& file, const std::string& message) {
        const RunResult add = git({"add", file});
        EXPECT_EQ(add.exit_code, 0) << add;
        return git({"commit", "-q", "-m", message});
    }

    // A key of the repository's own git config (.git/config), nullopt when unset there.
    std::optional<std::string> local_config(const std::string& key) {
        const RunResult r = git({"config", "--local", "--get", key});
        if (r.exit_code != 0) return std::nullopt;
        std::string value = r.out;
        while (!value.empty() && value.back() == '\n') value.pop_back();
        return value;
    }

    static constexpr const char* kLine = ".small/*.small.yml merge=small";
    static constexpr const char* kDriver = "small merge -- %O %A %B %P";
    static constexpr const char* kOldDriver = "small merge %O %A %B %P";
};

TEST_F(HooksE2E, PreCommitRejectsABrokenWorkspaceAndLetsOtherCommitsThrough) {
    init_repo_with_workspace();
    const RunResult installed = small({"hooks", "install", "git"});
    ASSERT_EQ(installed.exit_code, 0) << installed;
    EXPECT_TRUE(contains(installed.out, (hooks_dir() / "pre-commit").string())) << installed;
    struct stat st {};
    ASSERT_EQ(::stat((hooks_dir() / "pre-commit").c_str(), &st), 0);
    EXPECT_TRUE(st.st_mode & S_IXUSR);

    break_plan();
    const RunResult rejected = commit(".small/plan.small.yml", "broken plan");
    EXPECT_NE(rejected.exit_code, 0) << rejected;
    EXPECT_TRUE(contains(rejected.err, "small check --strict")) << rejected;

    git_ok({"reset", "-q"});
    write_file(repo() / "README", "changed\n");
    const RunResult passed = commit("README", "readme only");
    EXPECT_EQ(passed.exit_code, 0) << passed;

    // Reinstalling is idempotent; uninstall leaves no hook behind.
    const RunResult again = small({"hooks", "install", "git"});
    EXPECT_TRUE(contains(again.out, "unchanged")) << again;
    const RunResult removed = small({"hooks", "uninstall", "git"});
    ASSERT_EQ(removed.exit_code, 0) << removed;
    EXPECT_FALSE(fs::exists(hooks_dir() / "pre-commit"));
    const RunResult now_passes = commit(".small/plan.small.yml", "broken plan, no hook");
    EXPECT_EQ(now_passes.exit_code, 0) << now_passes;
}

// A passing check says nothing (a commit stays quiet); a failing one names
// the finding and what to do.
TEST_F(HooksE2E, PreCommitIsSilentWhenTheCheckPasses) {
    init_repo_with_workspace();
    ASSERT_EQ(small({"hooks", "install", "git"}).exit_code, 0);
    ASSERT_EQ(small({"plan", "--title", "task-1", "Renamed"}).exit_code, 0);
    const RunResult passed = commit(".small", "renamed");
    EXPECT_EQ(passed.exit_code, 0) << passed;
    EXPECT_EQ(passed.out + passed.err, "") << passed;
    break_plan();
    const RunResult rejected = commit(".small/plan.small.yml", "broken plan");
    EXPECT_NE(rejected.exit_code, 0) << rejected;
    EXPECT_TRUE(contains(rejected.out + rejected.err, "plan.small.yml:")) << rejected;
    EXPECT_TRUE(contains(rejected.err, "fails 'small check --strict'")) << rejected;
}

TEST_F(HooksE2E, ExistingHookIsChainedAndRestoredByteForByte) {
    init_repo_with_workspace();
    // A CRLF line (after a comment, so sh ignores the CR) and no final line
    // break; the hook fails when BLOCK exists.
    const std::string original = "#!/bin/sh\necho original-ran >> ran.log #\r\n[ ! -e BLOCK ]";
    const fs::path hook = hooks_dir() / "pre-commit";
    write_file(hook, original);
    ::chmod(hook.c_str(), 0751);

    const RunResult dry = small({"hooks", "install", "git", "--dry-run"});
    ASSERT_EQ(dry.exit_code, 0) << dry;
    EXPECT_TRUE(contains(dry.out, "+++ " + hook.string())) << dry;
    EXPECT_EQ(read_file(hook), original);  // the dry run wrote nothing
    EXPECT_FALSE(fs::exists(hooks_dir() / "pre-commit.small-chained"));

    ASSERT_EQ(small({"hooks", "install", "git"}).exit_code, 0);
    ASSERT_EQ(small({"hooks", "install", "git"}).exit_code, 0);  // no double chaining
    EXPECT_EQ(read_file(hooks_dir() / "pre-commit.small-chained"), original);

    write_file(repo() / "a.txt", "a\n");
    EXPECT_EQ(commit("a.txt", "a").exit_code, 0);
    EXPECT_TRUE(contains(read_file(repo() / "ran.log"), "original-ran"));

    write_file(repo() / "BLOCK", "");
    write_file(repo() / "b.txt", "b\n");
    const RunResult blocked = commit("b.txt", "b");
    EXPECT_NE(blocked.exit_code, 0) << "the original hook's failure still blocks\n" << blocked;
    fs::remove(repo() / "BLOCK");

    const RunResult removed = small({"hooks", "uninstall", "git", "--json"});
    ASSERT_EQ(removed.exit_code, 0) << removed;
    const json doc = json::parse(removed.out);
    EXPECT_EQ(doc["files"].size(), 3u) << removed;  // the hook, the chained original, .gitattributes
    EXPECT_FALSE(fs::exists(repo() / ".gitattributes"));  // small created it, nothing else was in it
    EXPECT_EQ(read_file(hook), original);
    struct stat st {};
    ASSERT_EQ(::stat(hook.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0751u);
    EXPECT_FALSE(fs::exists(hooks_dir() / "pre-commit.small-chained"));
}

TEST_F(HooksE2E, HooksPathIsRespectedAndCreated) {
    init_repo_with_workspace();
    git_ok({"config", "core.hooksPath", ".githooks"});
    const RunResult r = small({"hooks", "install", "git"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(fs::exists(repo() / ".githooks" / "pre-commit")) << r;
    EXPECT_FALSE(fs::exists(hooks_dir() / "pre-commit"));
}

// small asks libgit2, not a git process, where the hooks go: git need not
// be on PATH, and a relative core.hooksPath is relative to the top of the
// work tree (as git runs hooks), not to a workspace in a subfolder.
TEST_F(HooksE2E, HooksGoWhereGitRunsThemWithoutGitOnPath) {
    git_ok({"init", "-q"});
    git_ok({"config", "core.hooksPath", "git-hooks"});
    fs::create_directory(repo() / "sub");
    Env no_git = env_;
    no_git.push_back({"PATH", "/nonexistent"});
    const RunResult r = run_in(repo() / "sub", {"hooks", "install", "git"}, no_git);
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(git_out({"rev-parse", "--git-path", "hooks"}), "git-hooks");
    EXPECT_TRUE(fs::exists(repo() / "git-hooks" / "pre-commit")) << r;
    EXPECT_FALSE(fs::exists(repo() / "sub" / "git-hooks")) << r;
    EXPECT_EQ(local_config("merge.small.driver"), std::optional<std::string>(kDriver));
}

// The global file git reads is the one GIT_CONFIG_GLOBAL names (libgit2 1.5
// alone would read ~/.gitconfig), and GIT_CONFIG_NOSYSTEM turns the system
// file off for small as for git.
TEST_F(HooksE2E, HooksPathFromGitConfigGlobalAndTheSystemFileAsGitReadsThem) {
    init_repo_with_workspace();
    const fs::path global_hooks = tmp_.path() / "global-hooks";
    const fs::path global = tmp_.path() / "global.gitconfig";
    write_file(global, "[core]\n\thooksPath = " + global_hooks.string() + "\n");
    write_file(tmp_.path() / ".gitconfig", "[core]\n\thooksPath = /nonexistent/home-hooks\n");
    env_.push_back({"GIT_CONFIG_GLOBAL", global.string()});
    ASSERT_EQ(git_out({"rev-parse", "--git-path", "hooks"}), global_hooks.string());
    const RunResult r = small({"hooks", "install", "git"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(fs::exists(global_hooks / "pre-commit")) << r;
    ASSERT_EQ(small({"hooks", "uninstall", "git"}).exit_code, 0);

    const fs::path system = tmp_.path() / "system.gitconfig";
    write_file(system, "[core]\n\thooksPath = system-hooks\n");
    env_.push_back({"GIT_CONFIG_GLOBAL", "/dev/null"});
    env_.push_back({"GIT_CONFIG_SYSTEM", system.string()});
    ASSERT_EQ(small({"hooks", "install", "git"}).exit_code, 0);  // GIT_CONFIG_NOSYSTEM=1
    EXPECT_TRUE(fs::exists(hooks_dir() / "pre-commit"));
    ASSERT_EQ(small({"hooks", "uninstall", "git"}).exit_code, 0);
    env_.push_back({"GIT_CONFIG_NOSYSTEM", std::nullopt});
    ASSERT_EQ(git_out({"rev-parse", "--git-path", "hooks"}), "system-hooks");
    const RunResult from_system = small({"hooks", "install", "git"});
    ASSERT_EQ(from_system.exit_code, 0) << from_system;
    EXPECT_TRUE(fs::exists(repo() / "system-hooks" / "pre-commit")) << from_system;
}

TEST_F(HooksE2E, LinkedWorktreeInstallsIntoTheSharedHooksFolder) {
    init_repo_with_workspace();
    const fs::path linked = tmp_.path() / "linked";
    git_ok({"worktree", "add", "-q", linked.string()});
    const RunResult r = small({"hooks", "install", "git"}, linked);
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(fs::exists(hooks_dir() / "pre-commit")) << r;  // git runs the common folder's hooks
    EXPECT_TRUE(contains(r.out, (hooks_dir() / "pre-commit").string())) << r;
}

TEST_F(HooksE2E, WorkspaceInASubfolderIsCheckedWithItsOwnPath) {
    git_ok({"init", "-q"});
    fs::create_directory(repo() / "sub dir");
    ASSERT_EQ(small({"init", "--no-agents"}, repo() / "sub dir").exit_code, 0);
    ASSERT_EQ(small({"hooks", "install", "git"}, repo() / "sub dir").exit_code, 0);
    git_ok({"add", "-A"});
    git_ok({"commit", "-q", "-m", "base"});
    const fs::path plan = repo() / "sub dir" / ".small" / "plan.small.yml";
    std::string text = read_file(plan);
    text.replace(text.find("owner: \"agent\""), 14, "owner: \"human\"");
    write_file(plan, text);
    EXPECT_NE(commit("sub dir/.small/plan.small.yml", "broken").exit_code, 0);
}

// Hook managers choose what to run by the name they were started as
// (husky's hooks do `basename "$0"`): a chained shell hook keeps that name.
TEST_F(HooksE2E, ChainedShellHooksRunUnderThePreCommitName) {
    init_repo_with_workspace();
    const fs::path hook = hooks_dir() / "pre-commit";
    struct Case {
        std::string shebang;
        std::string body;
    };
    const std::vector<Case> cases = {
        {"#!/bin/sh", "name=$(basename \"$0\")\n"},
        {"#!/usr/bin/env bash", "name=$(basename \"$0\"); [[ -n $name ]]\n"},
        {"#!/bin/sh -e", "name=${0##*/}\n"},
    };
    int n = 0;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.shebang);
        write_file(hook, c.shebang + "\n" + c.body +
                             "[ \"$name\" = pre-commit ] || exit 0\n"
                             "echo \"ran as $name with $# args\" >> ran.log\n"
                             "[ ! -e BLOCK ]\n");
        ::chmod(hook.c_str(), 0755);
        ASSERT_EQ(small({"hooks", "install", "git"}).exit_code, 0);
        const std::string file = "f" + std::to_string(++n);
        write_file(repo() / file, "x\n");
        write_file(repo() / "BLOCK", "");
        const RunResult blocked = commit(file, "blocked");
        EXPECT_NE(blocked.exit_code, 0) << "the chained hook ran under its own name and failed\n" << blocked;
        EXPECT_TRUE(contains(read_file(repo() / "ran.log"), "ran as pre-commit with 0 args"));
        fs::remove(repo() / "BLOCK");
        EXPECT_EQ(git({"commit", "-q", "-m", "passes"}).exit_code, 0);
        ASSERT_EQ(small({"hooks", "uninstall", "git"}).exit_code, 0);
        fs::remove(repo() / "ran.log");
    }
}

// A core.hooksPath folder belongs to a hook manager or to the repository:
// small does not move a hook there, and says what to do instead.
TEST_F(HooksE2E, AForeignHookInACoreHooksPathFolderIsNotChained) {
    init_repo_with_workspace();
    git_ok({"config", "core.hooksPath", ".husky/_"});
    const fs::path hook = repo() / ".husky" / "_" / "pre-commit";
    fs::create_directories(hook.parent_path());
    const std::string husky = "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n";
    write_file(hook, husky);
    const RunResult r = small({"hooks", "install", "git"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "core.hooksPath")) << r;
    EXPECT_TRUE(contains(r.err, "small check --strict --dir .")) << r;
    EXPECT_EQ(read_file(hook), husky);
    EXPECT_FALSE(fs::exists(hook.parent_path() / "pre-commit.small-chained"));
    // The refusal writes nothing, the merge driver included, and says how
    // to register that by hand.
    EXPECT_TRUE(contains(r.err, "merge driver was not registered either")) << r;
    const std::string add_line =
        "add the line `.small/*.small.yml merge=small` to " + (repo() / ".gitattributes").string();
    EXPECT_TRUE(contains(r.err, add_line)) << r;
    EXPECT_TRUE(contains(r.err, "git config merge.small.name \"small merge driver\"")) << r;
    EXPECT_TRUE(contains(r.err, "git config merge.small.driver \"small merge -- %O %A %B %P\"")) << r;
    EXPECT_FALSE(fs::exists(repo() / ".gitattributes"));
    EXPECT_FALSE(local_config("merge.small.driver"));

    // Registered by hand as the hint says: the refusal no longer mentions it.
    write_file(repo() / ".gitattributes", std::string(kLine) + "\n");
    git_ok({"config", "merge.small.name", "small merge driver"});
    git_ok({"config", "merge.small.driver", kDriver});
    const RunResult again = small({"hooks", "install", "git"});
    EXPECT_EQ(again.exit_code, 1) << again;
    EXPECT_FALSE(contains(again.err, "merge driver")) << again;
}

// A merge driver git reads from the global config is not the repository's:
// install does not add a second one, uninstall leaves it alone (and does not
// fail on it), and both keep working when run again.
TEST_F(HooksE2E, ADriverInTheGlobalConfigIsNotAddedOrRemovedHere) {
    init_repo_with_workspace();
    const fs::path global = tmp_.path() / "global.gitconfig";
    const std::string global_text =
        "[merge \"small\"]\n\tname = small merge driver\n\tdriver = small merge %O %A %B %P\n";
    write_file(global, global_text);
    env_.push_back({"GIT_CONFIG_GLOBAL", global.string()});

    const RunResult dry = small({"hooks", "install", "git", "--dry-run"});
    ASSERT_EQ(dry.exit_code, 0) << dry;
    EXPECT_FALSE(contains(dry.out, "would set")) << dry;
    const RunResult installed = small({"hooks", "install", "git"});
    ASSERT_EQ(installed.exit_code, 0) << installed;
    EXPECT_TRUE(contains(installed.out, "in a git config file other than this repository's own")) << installed;
    EXPECT_TRUE(contains(installed.out, "not added to this repository's config")) << installed;
    EXPECT_FALSE(local_config("merge.small.driver"));
    EXPECT_FALSE(local_config("merge.small.name"));
    EXPECT_EQ(read_file(repo() / ".gitattributes"), std::string(kLine) + "\n");

    for (int run = 0; run < 2; ++run) {
        const RunResult removed = small({"hooks", "uninstall", "git"});
        ASSERT_EQ(removed.exit_code, 0) << removed;
        EXPECT_TRUE(contains(removed.out, "in a git config file other than this repository's own")) << removed;
        EXPECT_FALSE(fs::exists(hooks_dir() / "pre-commit"));
        EXPECT_FALSE(fs::exists(repo() / ".gitattributes"));
        EXPECT_EQ(read_file(global), global_text);
    }
}

// install and uninstall are a round trip for the git config: a driver of
// the user's is kept, and uninstall removes only the keys small wrote.
TEST_F(HooksE2E, TheUsersOwnDriverAndOtherMergeKeysSurviveInstallAndUninstall) {
    init_repo_with_workspace();
    const std::string mine = "/opt/small/bin/small merge %O %A %B %P";
    git_ok({"config", "merge.small.driver", mine});
    git_ok({"config", "merge.small.recursive", "binary"});
    const RunResult dry = small({"hooks", "install", "git", "--dry-run"});
    ASSERT_EQ(dry.exit_code, 0) << dry;
    EXPECT_FALSE(contains(dry.out, "would set")) << dry;
    const RunResult kept = small({"hooks", "install", "git"});
    ASSERT_EQ(kept.exit_code, 0) << kept;
    EXPECT_TRUE(contains(kept.out, "merge driver already registered as \"" + mine + "\"")) << kept;
    EXPECT_EQ(local_config("merge.small.driver"), mine);
    EXPECT_FALSE(local_config("merge.small.name"));
    const RunResult left = small({"hooks", "uninstall", "git"});
    ASSERT_EQ(left.exit_code, 0) << left;
    EXPECT_TRUE(contains(left.out, "not the command small writes; left alone")) << left;
    EXPECT_EQ(local_config("merge.small.driver"), mine);
    EXPECT_EQ(local_config("merge.small.recursive"), "binary");

    // A command that is not small's is kept too, and said to be used.
    git_ok({"config", "merge.small.driver", "my-merge %A %B"});
    const RunResult foreign = small({"hooks", "install", "git"});
    ASSERT_EQ(foreign.exit_code, 0) << foreign;
    EXPECT_TRUE(contains(foreign.out, "not small's merge driver; kept")) << foreign;
    EXPECT_EQ(local_config("merge.small.driver"), "my-merge %A %B");
    ASSERT_EQ(small({"hooks", "uninstall", "git"}).exit_code, 0);
    EXPECT_EQ(local_config("merge.small.driver"), "my-merge %A %B");

    // Without a driver, install writes small's two keys and uninstall takes
    // exactly those out again.
    git_ok({"config", "--unset", "merge.small.driver"});
    const RunResult installed = small({"hooks", "install", "git"});
    ASSERT_EQ(installed.exit_code, 0) << installed;
    EXPECT_TRUE(contains(installed.out, "set: git config merge.small.driver \"small merge -- %O %A %B %P\""))
        << installed;
    EXPECT_EQ(local_config("merge.small.driver"), kDriver);
    EXPECT_EQ(local_config("merge.small.name"), "small merge driver");
    const RunResult dry_out = small({"hooks", "uninstall", "git", "--dry-run"});
    ASSERT_EQ(dry_out.exit_code, 0) << dry_out;
    EXPECT_TRUE(contains(dry_out.out, "would remove: git config --unset merge.small.driver")) << dry_out;
    EXPECT_EQ(local_config("merge.small.driver"), kDriver);
    const RunResult removed = small({"hooks", "uninstall", "git"});
    ASSERT_EQ(removed.exit_code, 0) << removed;
    EXPECT_TRUE(contains(removed.out, "removed: git config --unset merge.small.name")) << removed;
    EXPECT_FALSE(local_config("merge.small.driver"));
    EXPECT_FALSE(local_config("merge.small.name"));
    EXPECT_EQ(local_config("merge.small.recursive"), "binary");
}

// A refusal of any part leaves everything as it was: the hook is not
// written when .gitattributes is refused, nor the hooks folder created.
TEST_F(HooksE2E, ARefusedGitattributesWritesNothingElse) {
    init_repo_with_workspace();
    git_ok({"config", "core.hooksPath", ".githooks"});
    write_file(tmp_.path() / "attributes", "*.png binary\n");
    fs::create_symlink(tmp_.path() / "attributes", repo() / ".gitattributes");
    for (const char* dry : {"--dry-run", ""}) {
        std::vector<std::string> args = {"hooks", "install", "git"};
        if (*dry) args.push_back(dry);
        const RunResult r = small(args);
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, "symbolic link")) << r;
        EXPECT_TRUE(contains(r.err, "nothing was changed")) << r;
    }
    EXPECT_FALSE(fs::exists(repo() / ".githooks"));
    EXPECT_FALSE(local_config("merge.small.driver"));
    EXPECT_EQ(read_file(tmp_.path() / "attributes"), "*.png binary\n");

    git_ok({"config", "--unset", "core.hooksPath"});
    EXPECT_EQ(small({"hooks", "install", "git"}).exit_code, 1);
    EXPECT_FALSE(fs::exists(hooks_dir() / "pre-commit"));
    EXPECT_FALSE(local_config("merge.small.driver"));
}

// The line follows the file's line breaks; the file goes only when the line
// was all it held.
TEST_F(HooksE2E, GitattributesKeepsItsLineBreaksAndOtherLines) {
    init_repo_with_workspace();
    const fs::path attributes = repo() / ".gitattributes";
    write_file(attributes, "*.png binary\r\n*.jpg binary");
    ASSERT_EQ(small({"hooks", "install", "git"}).exit_code, 0);
    EXPECT_EQ(read_file(attributes), "*.png binary\r\n*.jpg binary\r\n" + std::string(kLine) + "\r\n");
    ASSERT_EQ(small({"hooks", "install", "git"}).exit_code, 0);  // found again: not added twice
    EXPECT_EQ(read_file(attributes), "*.png binary\r\n*.jpg binary\r\n" + std::string(kLine) + "\r\n");
    ASSERT_EQ(small({"hooks", "uninstall", "git"}).exit_code, 0);
    // Unchanged since install: byte for byte, the missing final break too.
    EXPECT_EQ(read_file(attributes), "*.png binary\r\n*.jpg binary");

    // A line install did not add (committed from another clone, or written
    // by hand) is not uninstall's to remove.
    write_file(attributes, std::string(kLine) + "\r\n");
    const RunResult kept = small({"hooks", "uninstall", "git"});
    ASSERT_EQ(kept.exit_code, 0) << kept;
    EXPECT_TRUE(contains(kept.out, "was not added by `small hooks install` (no record of it); left alone")) << kept;
    EXPECT_EQ(read_file(attributes), std::string(kLine) + "\r\n");

    // Installed into a file holding only a blank line, changed by hand
    // since: the line goes, everything else stays.
    write_file(attributes, "\n");
    ASSERT_EQ(small({"hooks", "install", "git"}).exit_code, 0);
    write_file(attributes, "*.gif binary\n\n" + std::string(kLine) + "\n");
    ASSERT_EQ(small({"hooks", "uninstall", "git"}).exit_code, 0);
    EXPECT_EQ(read_file(attributes), "*.gif binary\n\n");
}

// A repository without a workspace: install and uninstall leave no
// staging folder behind.
TEST_F(HooksE2E, OutsideAWorkspaceNothingIsLeftBehind) {
    git_ok({"init", "-q"});
    ASSERT_EQ(small({"hooks", "install", "git"}).exit_code, 0);
    EXPECT_EQ(read_file(repo() / ".gitattributes"), std::string(kLine) + "\n");
    // Only the record of what install added, which uninstall takes away.
    EXPECT_TRUE(fs::exists(repo() / ".small-cache" / "hooks" / "git.json"));
    EXPECT_FALSE(fs::exists(repo() / ".small-cache" / "tmp"));
    write_file(repo() / ".gitattributes", "*.png binary\n" + std::string(kLine) + "\n");
    ASSERT_EQ(small({"hooks", "uninstall", "git"}).exit_code, 0);
    EXPECT_EQ(read_file(repo() / ".gitattributes"), "*.png binary\n");
    EXPECT_FALSE(fs::exists(repo() / ".small-cache"));
}

TEST_F(HooksE2E, HelpNamesTheMergeDriver) {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"hooks", "--help"}, {"hooks", "install", "--help"}, {"hooks", "uninstall", "--help"}}) {
        const RunResult r = small(args);
        EXPECT_EQ(r.exit_code, 0) << r;
        EXPECT_TRUE(contains(r.out, "merge driver")) << r;
        EXPECT_TRUE(contains(r.out, ".gitattributes")) << r;
    }
}

// Each workspace of a repository adds itself to the one hook; uninstalling
// one leaves the others checked.
TEST_F(HooksE2E, TwoWorkspacesInOneRepositoryShareTheHook) {
    git_ok({"init", "-q"});
    for (const char* name : {"a", "b b"}) {
        fs::create_directory(repo() / name);
        ASSERT_EQ(small({"init", "--no-agents"}, repo() / name).exit_code, 0);
        const RunResult r = small({"hooks", "install", "git"}, repo() / name);
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    git_ok({"add", "-A"});
    git_ok({"commit", "-q", "-m", "base"});
    const std::string hook = read_file(hooks_dir() / "pre-commit");
    EXPECT_TRUE(contains(hook, "small_check 'a/'")) << hook;
    EXPECT_TRUE(contains(hook, "small_check 'b b/'")) << hook;
    const auto break_in = [&](const std::string& ws) {
        const fs::path plan = repo() / ws / ".small" / "plan.small.yml";
        std::string text = read_file(plan);
        text.replace(text.find("owner: \"agent\""), 14, "owner: \"human\"");
        write_file(plan, text);
        return commit(ws + "/.small/plan.small.yml", "broken " + ws);
    };
    const RunResult a_broken = break_in("a");
    EXPECT_NE(a_broken.exit_code, 0) << a_broken;
    EXPECT_TRUE(contains(a_broken.err, "a/.small fails")) << a_broken;

    const RunResult b_out = small({"hooks", "uninstall", "git"}, repo() / "b b");
    ASSERT_EQ(b_out.exit_code, 0) << b_out;
    EXPECT_TRUE(contains(b_out.out, "still checks the workspace at a")) << b_out;
    EXPECT_NE(git({"commit", "-q", "-m", "still broken"}).exit_code, 0) << "a is still checked";
    git_ok({"reset", "-q", "--hard"});
    EXPECT_EQ(break_in("b b").exit_code, 0) << "b is no longer checked";

    ASSERT_EQ(small({"hooks", "uninstall", "git"}, repo() / "a").exit_code, 0);
    EXPECT_FALSE(fs::exists(hooks_dir() / "pre-commit"));
}

TEST_F(HooksE2E, AHeldHooksFolderLockIsBusy) {
    init_repo_with_workspace();
    const int fd = ::open(hooks_dir().c_str(), O_RDONLY | O_DIRECTORY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX), 0);
    env_.push_back({"SMALL_LOCK_TIMEOUT_MS", "100"});
    const RunResult r = small({"hooks", "install", "git"});
    ::close(fd);
    EXPECT_EQ(r.exit_code, 3) << r;
    EXPECT_TRUE(contains(r.err, "locked by another `small hooks` command")) << r;
    EXPECT_FALSE(fs::exists(hooks_dir() / "pre-commit"));
    EXPECT_EQ(small({"hooks", "install", "git"}).exit_code, 0);
}

TEST_F(HooksE2E, RefusesSymlinkedHookAndExplainsMissingRepository) {
    const RunResult no_repo = small({"hooks", "install", "git"});
    EXPECT_EQ(no_repo.exit_code, 2) << no_repo;
    EXPECT_TRUE(contains(no_repo.err, "not inside a git work tree")) << no_repo;

    git_ok({"init", "-q"});
    write_file(repo() / "mine.sh", "#!/bin/sh\n");
    fs::create_symlink(repo() / "mine.sh", hooks_dir() / "pre-commit");
    const RunResult linked = small({"hooks", "install", "git"});
    EXPECT_EQ(linked.exit_code, 1) << linked;
    EXPECT_TRUE(contains(linked.err, "symbolic link")) << linked;
    EXPECT_TRUE(fs::is_symlink(hooks_dir() / "pre-commit"));
}

TEST_F(HooksE2E, ClaudeSettingsKeepEveryOtherKeyThroughInstallAndUninstall) {
    ASSERT_EQ(small({"init", "--no-agents"}).exit_code, 0);
    const std::string original =
        "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(make)\"\n    ]\n  },\n  \"hooks\": {\n"
        "    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n"
        "            \"command\": \"notify\"\n          }\n        ]\n      }\n    ]\n  },\n  \"model\": \"x\"\n}\n";
    const fs::path settings = repo() / ".claude" / "settings.json";
    write_file(settings, original);

    const RunResult r = small({"hooks", "install", "claude"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, settings.string())) << r;
    const json doc = json::parse(read_file(settings));
    EXPECT_EQ(doc["hooks"]["SessionStart"][0]["hooks"][0]["command"], "small status --brief");
    EXPECT_EQ(doc["hooks"]["PreCompact"][0]["hooks"][0]["command"], "small status --brief");
    EXPECT_EQ(doc["hooks"]["Stop"][0]["hooks"][0]["command"], "notify");
    EXPECT_EQ(doc["model"], "x");
    const std::string installed = read_file(settings);
    ASSERT_EQ(small({"hooks", "install", "claude"}).exit_code, 0);
    EXPECT_EQ(read_file(settings), installed);

    ASSERT_EQ(small({"hooks", "uninstall", "claude"}).exit_code, 0);
    EXPECT_EQ(read_file(settings), original);
}

TEST_F(HooksE2E, ClaudeAndCodexFilesCreatedAndRemovedWhole) {
    const RunResult dry = small({"hooks", "install", "codex", "--dry-run", "--json"});
    ASSERT_EQ(dry.exit_code, 0) << dry;
    EXPECT_FALSE(fs::exists(repo() / ".codex"));
    ASSERT_EQ(small({"hooks", "install", "codex"}).exit_code, 0);
    const json doc = json::parse(read_file(repo() / ".codex" / "hooks.json"));
    EXPECT_EQ(doc["hooks"]["SessionStart"][0]["matcher"], "startup|resume|clear|compact");
    ASSERT_EQ(small({"hooks", "uninstall", "codex"}).exit_code, 0);
    EXPECT_FALSE(fs::exists(repo() / ".codex"));
    EXPECT_FALSE(fs::exists(repo() / ".small-cache"));  // no workspace: nothing left behind
}

TEST_F(HooksE2E, HostileSettingsAreRefusedAndNothingIsWritten) {
    const fs::path settings = repo() / ".claude" / "settings.json";
    write_file(settings, "{\n  \"a\": 1,\n  oops\n}\n");
    const RunResult bad = small({"hooks", "install", "claude"});
    EXPECT_EQ(bad.exit_code, 1) << bad;
    EXPECT_TRUE(contains(bad.err, "settings.json:3:3")) << bad;
    EXPECT_EQ(read_file(settings), "{\n  \"a\": 1,\n  oops\n}\n");

    fs::remove(settings);
    fs::create_directory(settings);
    const RunResult dir = small({"hooks", "install", "claude"});
    EXPECT_EQ(dir.exit_code, 1) << dir;
    EXPECT_TRUE(contains(dir.err, "not a regular file")) << dir;

    fs::remove_all(repo() / ".claude");
    fs::create_directory(tmp_.path() / "elsewhere");
    fs::create_directory_symlink(tmp_.path() / "elsewhere", repo() / ".claude");
    const RunResult linked = small({"hooks", "install", "claude"});
    EXPECT_EQ(linked.exit_code, 1) << linked;
    EXPECT_FALSE(fs::exists(tmp_.path() / "elsewhere" / "settings.json"));

    fs::remove(repo() / ".claude");
    write_file(settings, "{}\n");
    ::chmod(settings.c_str(), 0444);
    // Root may write a read-only file: as root, this install runs as user nobody.
    RunOptions opts = unprivileged(tmp_.path());
    opts.cwd = repo();
    opts.env = env_;
    const RunResult ro = run_small({"hooks", "install", "claude"}, opts);
    EXPECT_EQ(ro.exit_code, 2) << ro;
    EXPECT_TRUE(contains(ro.err, "read-only")) << ro;
    EXPECT_EQ(read_file(settings), "{}\n");
}

TEST_F(HooksE2E, PrintWritesNothingAndJsonNamesTheFiles) {
    const RunResult printed = small({"hooks", "print", "claude"});
    ASSERT_EQ(printed.exit_code, 0) << printed;
    EXPECT_TRUE(contains(printed.out, "\"SessionStart\"")) << printed;
    EXPECT_FALSE(fs::exists(repo() / ".claude"));
    const RunResult j = small({"hooks", "install", "claude", "--json"});
    ASSERT_EQ(j.exit_code, 0) << j;
    const json doc = json::parse(j.out);
    EXPECT_EQ(doc["command"], "hooks install");
    EXPECT_EQ(doc["files"][0]["path"], (repo() / ".claude" / "settings.json").string());
    EXPECT_EQ(doc["files"][0]["change"], "created");
    EXPECT_EQ(small({"hooks", "install", "vim"}).exit_code, 2);
}

// ---------------------------------------------------------------- issue 24

// What a user set up by hand exactly as small would (the docs' manual steps)
// is not install's, so uninstall leaves it byte for byte.
TEST_F(HooksE2E, UninstallKeepsTheUsersOwnGitattributesLineAndDriverKeys) {
    init_repo_with_workspace();
    const fs::path attributes = repo() / ".gitattributes";
    write_file(attributes, std::string(kLine) + "\n");
    git_ok({"config", "merge.small.name", "small merge driver"});
    git_ok({"config", "merge.small.driver", kDriver});
    const std::string config = read_file(repo() / ".git" / "config");

    const RunResult installed = small({"hooks", "install", "git"});
    ASSERT_EQ(installed.exit_code, 0) << installed;
    const RunResult removed = small({"hooks", "uninstall", "git"});
    ASSERT_EQ(removed.exit_code, 0) << removed;
    EXPECT_EQ(read_file(attributes), std::string(kLine) + "\n");
    EXPECT_EQ(read_file(repo() / ".git" / "config"), config);
    EXPECT_FALSE(fs::exists(hooks_dir() / "pre-commit"));  // the hook install added goes
    EXPECT_TRUE(contains(removed.out, "not set by `small hooks install` here")) << removed;

    // The earlier form of the driver line, set by hand, is small's driver:
    // kept by install (no second one), and by uninstall.
    git_ok({"config", "merge.small.driver", kOldDriver});
    const std::string old_config = read_file(repo() / ".git" / "config");
    const RunResult upgraded = small({"hooks", "install", "git"});
    ASSERT_EQ(upgraded.exit_code, 0) << upgraded;
    EXPECT_TRUE(contains(upgraded.out, "already registered in the earlier form")) << upgraded;
    EXPECT_TRUE(contains(upgraded.out, "git config merge.small.driver \"small merge -- %O %A %B %P\"")) << upgraded;
    EXPECT_EQ(read_file(repo() / ".git" / "config"), old_config);
    ASSERT_EQ(small({"hooks", "uninstall", "git"}).exit_code, 0);
    EXPECT_EQ(read_file(repo() / ".git" / "config"), old_config);
    EXPECT_EQ(read_file(attributes), std::string(kLine) + "\n");
}

// What install did add goes, and only that: a key whose value the user
// changed since stays.
TEST_F(HooksE2E, UninstallRemovesWhatInstallAddedUnlessChangedSince) {
    init_repo_with_workspace();
    git_ok({"config", "merge.small.name", "mine"});
    ASSERT_EQ(small({"hooks", "install", "git"}).exit_code, 0);
    EXPECT_EQ(local_config("merge.small.driver"), kDriver);
    EXPECT_EQ(local_config("merge.small.name"), "mine");
    git_ok({"config", "merge.small.driver", "my-merge %A"});
    const RunResult removed = small({"hooks", "uninstall", "git"});
    ASSERT_EQ(removed.exit_code, 0) << removed;
    EXPECT_TRUE(contains(removed.out, "merge.small.driver changed since `small hooks install` set it")) << removed;
    EXPECT_EQ(local_config("merge.small.driver"), "my-merge %A");
    EXPECT_EQ(local_config("merge.small.name"), "mine");
    EXPECT_FALSE(fs::exists(repo() / ".gitattributes"));
    EXPECT_FALSE(fs::exists(repo() / ".small-cache" / "hooks"));  // nothing left to remember
}

TEST_F(HooksE2E, UninstallKeepsTheUsersOwnClaudeSessionStartEntry) {
    ASSERT_EQ(small({"init", "--no-agents"}).exit_code, 0);
    // The user's own entry, exactly small's, in a compact layout.
    const std::string mine =
        R"({"hooks":{"SessionStart":[{"matcher":"startup|resume|clear|compact","hooks":[{"type":"command",)"
        R"("command":"small status --brief"}]}]}})";
    const fs::path settings = repo() / ".claude" / "settings.json";
    write_file(settings, mine);
    const RunResult installed = small({"hooks", "install", "claude"});
    ASSERT_EQ(installed.exit_code, 0) << installed;
    const json doc = json::parse(read_file(settings));
    EXPECT_EQ(doc["hooks"]["SessionStart"].size(), 1u);  // not added twice
    EXPECT_EQ(doc["hooks"]["PreCompact"][0]["hooks"][0]["command"], "small status --brief");
    const RunResult removed = small({"hooks", "uninstall", "claude"});
    ASSERT_EQ(removed.exit_code, 0) << removed;
    EXPECT_EQ(read_file(settings), mine);

    // Changed since install: only the entry install added goes.
    ASSERT_EQ(small({"hooks", "install", "claude"}).exit_code, 0);
    json changed = json::parse(read_file(settings));
    changed["model"] = "x";
    write_file(settings, changed.dump(2) + "\n");
    ASSERT_EQ(small({"hooks", "uninstall", "claude"}).exit_code, 0);
    const json left = json::parse(read_file(settings));
    EXPECT_EQ(left["model"], "x");
    EXPECT_EQ(left["hooks"]["SessionStart"][0]["hooks"][0]["command"], "small status --brief");
    EXPECT_FALSE(left["hooks"].contains("PreCompact"));

    // Without a record of an install, uninstall removes nothing.
    const std::string before = read_file(settings);
    const RunResult unrecorded = small({"hooks", "uninstall", "claude"});
    ASSERT_EQ(unrecorded.exit_code, 0) << unrecorded;
    EXPECT_TRUE(contains(unrecorded.out, "no record says `small hooks install claude` added it")) << unrecorded;
    EXPECT_EQ(read_file(settings), before);
}

TEST_F(HooksE2E, UninstallKeepsTheUsersEmptyCodexFile) {
    const fs::path settings = repo() / ".codex" / "hooks.json";
    for (const std::string mine : {"{}", "{ }\n"}) {
        SCOPED_TRACE(mine);
        write_file(settings, mine);
        ASSERT_EQ(small({"hooks", "install", "codex"}).exit_code, 0);
        EXPECT_TRUE(contains(read_file(settings), "small status --brief"));
        const RunResult removed = small({"hooks", "uninstall", "codex"});
        ASSERT_EQ(removed.exit_code, 0) << removed;
        EXPECT_EQ(read_file(settings), mine);
        EXPECT_FALSE(fs::exists(repo() / ".small-cache"));  // no workspace: the record went too
    }
}

// A workspace folder whose name holds a line break, quotes, `$()` or starts
// with '-': install writes the hook in the hooks folder (nowhere else), the
// hook checks that workspace, uninstall takes it out again.
TEST_F(HooksE2E, OddFolderNamesAreInstalledCheckedAndUninstalled) {
    git_ok({"init", "-q"});
    const std::vector<std::string> names = {"sp ace", "qu'o\"te", "$(touch pwned)", "-x", "new\nline", "--help"};
    for (const std::string& name : names) {
        fs::create_directory(repo() / name);
        ASSERT_EQ(small({"init", "--no-agents"}, repo() / name).exit_code, 0);
        const RunResult r = small({"hooks", "install", "git"}, repo() / name);
        ASSERT_EQ(r.exit_code, 0) << r;
        // A line break in the path is shown as \n (issue 41: output shows control characters as escapes).
        std::string shown = (repo() / name / ".gitattributes").string();
        if (const auto nl = shown.find('\n'); nl != std::string::npos) shown.replace(nl, 1, "\\n");
        EXPECT_TRUE(contains(r.out, "created: " + shown)) << r;
    }
    EXPECT_EQ(local_config("merge.small.driver"), kDriver);
    // No hook anywhere but the hooks folder, nothing run by the shell.
    for (const auto& entry : fs::recursive_directory_iterator(repo())) {
        const std::string file = entry.path().filename().string();
        EXPECT_FALSE(file.rfind("pre-commit", 0) == 0 && entry.path().parent_path() != hooks_dir()) << entry.path();
        EXPECT_NE(file, "pwned") << entry.path();
    }
    git_ok({"add", "-A"});
    git_ok({"commit", "-q", "-m", "base"});
    for (const std::string& name : names) {
        SCOPED_TRACE(name);
        const fs::path plan = repo() / name / ".small" / "plan.small.yml";
        const std::string good = read_file(plan);
        std::string text = good;
        text.replace(text.find("owner: \"agent\""), 14, "owner: \"human\"");
        write_file(plan, text);
        git_ok({"add", "--", name + "/.small/plan.small.yml"});
        const RunResult rejected = git({"commit", "-q", "-m", "broken"});
        EXPECT_NE(rejected.exit_code, 0) << rejected;
        EXPECT_TRUE(contains(rejected.err, "fails 'small check --strict'")) << rejected;
        write_file(plan, good);
        git_ok({"add", "-A"});
    }
    for (const std::string& name : names) {
        const RunResult r = small({"hooks", "uninstall", "git"}, repo() / name);
        ASSERT_EQ(r.exit_code, 0) << r;
        EXPECT_FALSE(fs::exists(repo() / name / ".gitattributes")) << r;
    }
    EXPECT_FALSE(fs::exists(hooks_dir() / "pre-commit"));
    EXPECT_FALSE(local_config("merge.small.driver"));
}

// A suggested command names a folder starting with '-' so that it can be
// pasted.
TEST_F(HooksE2E, TheLineToAddByHandNamesADashFolderSafely) {
    git_ok({"init", "-q"});
    git_ok({"config", "core.hooksPath", ".husky/_"});
    write_file(repo() / ".husky" / "_" / "pre-commit", "#!/bin/sh\n");
    fs::create_directory(repo() / "-x");
    ASSERT_EQ(small({"init", "--no-agents"}, repo() / "-x").exit_code, 0);
    const RunResult r = small({"hooks", "install", "git"}, repo() / "-x");
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "small check --strict --dir ./-x")) << r;
}

// A write that fails part-way is undone: git cannot lock .git/config (held
// by another git), so neither the hook nor .gitattributes nor the record
// stays.
TEST_F(HooksE2E, AFailedInstallChangesNothing) {
    init_repo_with_workspace();
    const fs::path lock = repo() / ".git" / "config.lock";
    write_file(lock, "");
    const RunResult r = small({"hooks", "install", "git"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_FALSE(fs::exists(hooks_dir() / "pre-commit")) << r;
    EXPECT_FALSE(fs::exists(repo() / ".gitattributes")) << r;
    EXPECT_FALSE(fs::exists(repo() / ".small-cache" / "hooks")) << r;
    EXPECT_FALSE(local_config("merge.small.driver"));
    fs::remove(lock);

    // Uninstall likewise: the hook and .gitattributes stay as installed.
    ASSERT_EQ(small({"hooks", "install", "git"}).exit_code, 0);
    const std::string hook = read_file(hooks_dir() / "pre-commit");
    write_file(lock, "");
    const RunResult out = small({"hooks", "uninstall", "git"});
    EXPECT_EQ(out.exit_code, 2) << out;
    EXPECT_EQ(read_file(hooks_dir() / "pre-commit"), hook);
    EXPECT_EQ(read_file(repo() / ".gitattributes"), std::string(kLine) + "\n");
    fs::remove(lock);
    ASSERT_EQ(small({"hooks", "uninstall", "git"}).exit_code, 0);  // the record was kept
    EXPECT_FALSE(fs::exists(repo() / ".gitattributes"));
    EXPECT_FALSE(local_config("merge.small.driver"));
}

// A read-only .git/config keeps its mode: refused (exit 2, nothing written)
// for a user who may not write it; root writes it and the mode stays.
TEST_F(HooksE2E, AReadOnlyGitConfigKeepsItsMode) {
    init_repo_with_workspace();
    const fs::path config = repo() / ".git" / "config";
    ::chmod(config.c_str(), 0444);
    const RunResult r = small({"hooks", "install", "git"});
    struct stat st {};
    ASSERT_EQ(::stat(config.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0444u);
    if (::geteuid() == 0) {
        EXPECT_EQ(r.exit_code, 0) << r;
        EXPECT_EQ(local_config("merge.small.driver"), kDriver);
        ASSERT_EQ(small({"hooks", "uninstall", "git"}).exit_code, 0);
        ASSERT_EQ(::stat(config.c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 07777, 0444u);
    } else {
        EXPECT_EQ(r.exit_code, 2) << r;
        EXPECT_TRUE(contains(r.err, "read-only")) << r;
        EXPECT_FALSE(fs::exists(hooks_dir() / "pre-commit"));
        EXPECT_FALSE(fs::exists(repo() / ".gitattributes"));
    }
}

// A .git/config that is a link keeps its target's mode: the mode to put
// back after libgit2's rewrite is the file's, never the link's own 0777
// (chmod follows the link, so that would make the config world-writable).
TEST_F(HooksE2E, ALinkedGitConfigKeepsItsTargetsMode) {
    init_repo_with_workspace();
    const fs::path config = repo() / ".git" / "config";
    const fs::path real = repo() / ".git" / "config.real";
    fs::rename(config, real);
    ::chmod(real.c_str(), 0640);
    fs::create_symlink("config.real", config);
    ASSERT_EQ(small({"hooks", "install", "git"}).exit_code, 0);
    struct stat st {};
    ASSERT_EQ(::stat(config.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    ASSERT_EQ(::stat(real.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    EXPECT_EQ(local_config("merge.small.driver"), std::optional<std::string>(kDriver));
}

// `~/` in core.hooksPath needs HOME, as for git: without it the install is
// refused, never written to a folder named `~` inside the work tree.
TEST_F(HooksE2E, AHooksPathUnderHomeWithoutHomeIsRefused) {
    init_repo_with_workspace();
    git_ok({"config", "core.hooksPath", "~/my-hooks"});
    Env no_home = env_;
    no_home.push_back({"HOME", std::nullopt});
    const RunResult r = run_in(repo(), {"hooks", "install", "git"}, no_home);
    EXPECT_NE(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, "HOME is not set")) << r;
    EXPECT_FALSE(fs::exists(repo() / "~")) << r;
    EXPECT_FALSE(fs::exists(repo() / ".gitattributes")) << r;
}

// With .git not writable, install stops before its first write. Root writes
// in any folder: as root, the install runs as user nobody (and git, run as
// root afterwards, is given its repository back).
TEST_F(HooksE2E, AnUnwritableGitFolderChangesNothing) {
    init_repo_with_workspace();
    ::chmod((repo() / ".git").c_str(), 0555);
    RunOptions opts = unprivileged(tmp_.path());
    opts.cwd = repo();
    opts.env = env_;
    const RunResult r = run_small({"hooks", "install", "git"}, opts);
    ::chmod((repo() / ".git").c_str(), 0755);
    if (opts.uid) {
        ASSERT_TRUE(give_back(tmp_.path()));
    }
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "nothing was changed")) << r;
    EXPECT_FALSE(fs::exists(hooks_dir() / "pre-commit"));
    EXPECT_FALSE(fs::exists(repo() / ".gitattributes"));
    EXPECT_FALSE(local_config("merge.small.driver"));
}

TEST_F(HooksE2E, ASymlinkedHooksFolderIsNamedAsALink) {
    init_repo_with_workspace();
    const fs::path real = tmp_.path() / "real-hooks";
    fs::rename(hooks_dir(), real);
    fs::create_directory_symlink(real, hooks_dir());
    for (const char* action : {"install", "uninstall"}) {
        const RunResult r = small({"hooks", action, "git"});
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, "is a symbolic link")) << r;
        EXPECT_FALSE(contains(r.err, "Not a directory")) << r;
    }
    EXPECT_FALSE(fs::exists(real / "pre-commit"));
    EXPECT_FALSE(fs::exists(repo() / ".gitattributes"));
    EXPECT_FALSE(local_config("merge.small.driver"));
}

// The registered line passes git's paths after `--`: a real merge through
// it in a workspace whose folder starts with '-' is clean.
TEST_F(HooksE2E, TheRegisteredDriverMergesInADashFolder) {
    git_ok({"init", "-q", "-b", "main"});
    const fs::path ws = repo() / "-w";
    fs::create_directory(ws);
    ASSERT_EQ(small({"init", "--no-agents"}, ws).exit_code, 0);
    ASSERT_EQ(small({"hooks", "install", "git"}, ws).exit_code, 0);
    git_ok({"add", "-A"});
    git_ok({"commit", "-q", "-m", "base"});
    git_ok({"checkout", "-q", "-b", "side"});
    ASSERT_EQ(small({"progress", "add", "--task", "task-1", "--status", "in_progress", "--evidence", "side work"}, ws)
                  .exit_code,
              0);
    git_ok({"commit", "-qam", "side"});
    git_ok({"checkout", "-q", "main"});
    ASSERT_EQ(small({"progress", "add", "--task", "task-1", "--status", "in_progress", "--evidence", "main work"}, ws)
                  .exit_code,
              0);
    git_ok({"commit", "-qam", "main"});
    const RunResult merged = git({"merge", "-q", "--no-edit", "side"});
    ASSERT_EQ(merged.exit_code, 0) << merged;
    const std::string log = read_file(ws / ".small" / "progress.small.yml");
    EXPECT_TRUE(contains(log, "side work")) << log;
    EXPECT_TRUE(contains(log, "main work")) << log;
}

}  // namespace
}  // namespace small_e2e

namespace small_e2e {
namespace {

// `hooks install vscode`: the YAML language server's schema map merged into
// VS Code's settings in place (comments kept), the schemas beside it.
TEST_F(HooksE2E, VSCodeSchemaMapKeepsTheFileAndUninstallPutsItBack) {
    const std::string original = "{\n\t// my editor\n\t\"editor.tabSize\": 4, // four\n\t\"files.exclude\": {\"**/.git\": true},\n}\n";
    const fs::path settings = repo() / ".vscode" / "settings.json";
    write_file(settings, original);
    const RunResult r = small({"hooks", "install", "vscode"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const std::string installed = read_file(settings);
    EXPECT_TRUE(contains(installed, "\t// my editor\n\t\"editor.tabSize\": 4, // four\n")) << installed;
    EXPECT_TRUE(contains(installed, "\t\t\"./.vscode/small-schemas/plan.schema.json\": [\"**/.small/plan.small.yml\"]"))
        << installed;
    // The editor schemas (issue 41): what schema export writes, workspace.small.yml's too.
    ASSERT_EQ(small({"schema", "export", "exported"}).exit_code, 0);
    for (const std::string name : {"intent", "constraints", "plan", "progress", "handoff", "workspace"}) {
        EXPECT_EQ(read_file(repo() / ".vscode" / "small-schemas" / (name + ".schema.json")),
                  read_file(repo() / "exported" / (name + ".schema.json"))) << name;
    }
    EXPECT_TRUE(contains(installed, "\"./.vscode/small-schemas/workspace.schema.json\": [\"**/.small/workspace.small.yml\"]"))
        << installed;
    const RunResult again = small({"hooks", "install", "vscode", "--json"});
    ASSERT_EQ(again.exit_code, 0) << again;
    EXPECT_EQ(json::parse(again.out)["written"], false) << again;
    EXPECT_EQ(read_file(settings), installed);

    ASSERT_EQ(small({"hooks", "uninstall", "vscode"}).exit_code, 0);
    EXPECT_EQ(read_file(settings), original);
    EXPECT_FALSE(fs::exists(repo() / ".vscode" / "small-schemas"));
}

TEST_F(HooksE2E, VSCodeFilesCreatedAreRemovedWholeAndABrokenFileIsRefused) {
    ASSERT_EQ(small({"hooks", "install", "vscode"}).exit_code, 0);
    EXPECT_TRUE(fs::exists(repo() / ".vscode" / "settings.json"));
    ASSERT_EQ(small({"hooks", "uninstall", "vscode"}).exit_code, 0);
    EXPECT_FALSE(fs::exists(repo() / ".vscode"));

    write_file(repo() / ".vscode" / "settings.json", "{\n  \"a\": 1\n  \"b\": 2\n}\n");
    const RunResult bad = small({"hooks", "install", "vscode"});
    EXPECT_EQ(bad.exit_code, 1) << bad;
    EXPECT_TRUE(contains(bad.err, "settings.json:3:3")) << bad;
    EXPECT_FALSE(fs::exists(repo() / ".vscode" / "small-schemas"));  // decided before the first write
}

TEST_F(HooksE2E, SchemaPrintIsTheBuiltInTextAndExportWritesTheEditorSchemas) {
    const RunResult plan = small({"schema", "print", "plan"});
    ASSERT_EQ(plan.exit_code, 0) << plan;
    EXPECT_EQ(plan.out, read_file(fs::path(SMALL_SOURCE_DIR) / "schemas" / "plan.schema.json"));
    const RunResult typo = small({"schema", "print", "plna"});
    EXPECT_EQ(typo.exit_code, 2) << typo;
    EXPECT_TRUE(contains(typo.err, "did you mean \"plan\"")) << typo;
    const RunResult as_json = small({"schema", "print", "handoff", "--json"});
    ASSERT_EQ(as_json.exit_code, 0) << as_json;
    EXPECT_EQ(json::parse(as_json.out)["schema"]["$id"], "https://smallprotocol.dev/schemas/small/v1.0.0/handoff.schema.json");

    const RunResult exported = small({"schema", "export", "out", "--json"});
    ASSERT_EQ(exported.exit_code, 0) << exported;
    const json doc = json::parse(exported.out);
    ASSERT_EQ(doc["files"].size(), 6u);  // the five and workspace.small.yml's (issue 41)
    EXPECT_EQ(doc["files"][2]["change"], "created");
    const json editor = json::parse(read_file(repo() / "out" / "plan.schema.json"));
    EXPECT_EQ(editor["$id"], json::parse(plan.out)["$id"]);
    EXPECT_EQ(editor["properties"]["tasks"]["items"]["properties"]["status"]["enum"].size(), 5u);
    EXPECT_TRUE(editor["properties"]["tasks"]["items"]["properties"]["title"].contains("description"));
}

}  // namespace
}  // namespace small_e2e
