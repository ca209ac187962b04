// base/git.hpp's first mechanism: git's own files read as text, over the
// in-memory FileSystem (no repository, no libgit2).
#include "small/base/git.hpp"

#include <gtest/gtest.h>

namespace small {
namespace {

const std::string kMain(40, 'a');
const std::string kTopic(40, 'b');
const std::string kPacked(40, 'c');

// A repository at /repo with a linked worktree at /wt on branch topic.
MemoryFileSystem repository_with_worktree() {
    MemoryFileSystem fs;
    fs.add_file("/repo/.git/HEAD", "ref: refs/heads/main\n");
    fs.add_file("/repo/.git/refs/heads/main", kMain + "\n");
    fs.add_file("/repo/.git/refs/heads/team/topic", kTopic + "\n");
    fs.add_file("/repo/.git/packed-refs", "# pack-refs with: peeled fully-peeled sorted\n" + kPacked +
                                              " refs/heads/old\n" + kPacked + " refs/heads/main\n" + kPacked +
                                              " refs/tags/v1\n");
    fs.add_file("/repo/.git/worktrees/wt/gitdir", "/wt/.git\n");
    fs.add_file("/repo/.git/worktrees/wt/HEAD", "ref: refs/heads/team/topic\n");
    fs.add_file("/repo/.git/worktrees/wt/commondir", "../..\n");
    fs.add_file("/repo/.git/worktrees/gone/HEAD", "ref: refs/heads/old\n");  // no gitdir: left out
    fs.add_file("/wt/.git", "gitdir: /repo/.git/worktrees/wt\n");
    return fs;
}

TEST(GitFiles, BranchTipsPreferLooseRefsAndSkipTags) {
    const MemoryFileSystem fs = repository_with_worktree();
    const std::map<std::string, std::string> tips = read_branch_tips(fs, "/repo/.git");
    const std::map<std::string, std::string> expected = {
        {"refs/heads/main", kMain}, {"refs/heads/old", kPacked}, {"refs/heads/team/topic", kTopic}};
    EXPECT_EQ(tips, expected);
}

TEST(GitFiles, WorkTreesNameTheirRootAndTheRefTheyCheckOut) {
    const MemoryFileSystem fs = repository_with_worktree();
    const std::vector<GitWorkTreeHead> trees = read_work_tree_heads(fs, "/repo/.git");
    ASSERT_EQ(trees.size(), 2u);
    EXPECT_EQ(trees[0].root, "/repo");
    EXPECT_EQ(trees[0].head_ref, "refs/heads/main");
    EXPECT_EQ(trees[1].root, "/wt");
    EXPECT_EQ(trees[1].head_ref, "refs/heads/team/topic");
}

TEST(GitFiles, DetachedHeadNamesNoRef) {
    MemoryFileSystem fs = repository_with_worktree();
    fs.add_file("/repo/.git/worktrees/wt/HEAD", kTopic + "\n");
    const std::vector<GitWorkTreeHead> trees = read_work_tree_heads(fs, "/repo/.git");
    ASSERT_EQ(trees.size(), 2u);
    EXPECT_EQ(trees[1].head_ref, "");
}

TEST(GitFiles, FactsOfALinkedWorktreeComeFromTheSharedRefs) {
    const MemoryFileSystem fs = repository_with_worktree();
    const GitFacts facts = read_git_facts(fs, "/wt");
    EXPECT_EQ(facts.branch, "team/topic");
    EXPECT_EQ(facts.sha, kTopic);
    const std::optional<GitDirs> dirs = find_git_dirs(fs, "/wt");
    ASSERT_TRUE(dirs.has_value());
    EXPECT_EQ(dirs->git_dir, "/repo/.git/worktrees/wt");
    EXPECT_EQ(dirs->work_tree, "/wt");
}

TEST(GitFiles, NoRepositoryMeansNothing) {
    MemoryFileSystem fs;
    fs.add_file("/plain/file", "x");
    EXPECT_TRUE(read_branch_tips(fs, "/plain/.git").empty());
    EXPECT_EQ(read_git_facts(fs, "/plain").sha, "");
    EXPECT_FALSE(find_git_dirs(fs, "/plain").has_value());
}

}  // namespace
}  // namespace small
