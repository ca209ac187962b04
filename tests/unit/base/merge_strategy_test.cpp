// find_merge_strategy (base/merge_strategy.hpp): where git would find
// git-merge-small, and the one command that makes it findable when it would
// not (issue 21: a small copied alone onto PATH has no strategy).
#include "small/base/merge_strategy.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include "support/fixtures.hpp"

namespace small {
namespace {

using namespace small::testing;

// The real disk, with chosen folders that this process may not write in
// (the tests run as root, whom the disk never refuses).
class ReadOnlyFolders final : public FileSystem {
public:
    explicit ReadOnlyFolders(std::set<std::string> folders) : folders_(std::move(folders)) {}
    Result<std::string> read_file(const std::string& path) const override { return real_fs.read_file(path); }
    bool file_exists(const std::string& path) const override { return real_fs.file_exists(path); }
    bool directory_exists(const std::string& path) const override { return real_fs.directory_exists(path); }
    bool is_symlink(const std::string& path) const override { return real_fs.is_symlink(path); }
    std::optional<FileInfo> stat(const std::string& path) const override { return real_fs.stat(path); }
    std::optional<std::string> real_path(const std::string& path) const override { return real_fs.real_path(path); }
    int write_access_errno(const std::string& path) const override {
        return folders_.count(path) ? EACCES : real_fs.write_access_errno(path);
    }
    Result<std::vector<DirEntry>> list_directory(const std::string& path) const override {
        return real_fs.list_directory(path);
    }

private:
    std::set<std::string> folders_;
};

class MergeStrategyReachTest : public ::testing::Test {
protected:
    void SetUp() override {
        for (const char* folder : {"bin", "other", "exec", "empty"}) std::filesystem::create_directory(tmp_.path(folder));
        program(tmp_.path("bin/small"));
    }
    static void program(const std::string& path, mode_t mode = 0755) {
        write_text(path, "#!/bin/sh\n");
        ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    }
    std::string path_of(std::initializer_list<const char*> folders) const {
        std::string out;
        for (const char* f : folders) out += (out.empty() ? "" : ":") + tmp_.path(f);
        return out;
    }
    MergeStrategyReach find(const FileSystem& fs, const std::string& path, std::vector<std::string> exec = {}) const {
        return find_merge_strategy(fs, path, exec, tmp_.path("self/small"));
    }

    TempDir tmp_;
};

TEST_F(MergeStrategyReachTest, ALinkBesideSmallOnPathIsFound) {
    std::filesystem::create_symlink("small", tmp_.path("bin/git-merge-small"));
    const MergeStrategyReach r = find(real_fs, path_of({"empty", "bin"}));
    EXPECT_EQ(r.found, tmp_.path("bin/git-merge-small"));
    EXPECT_EQ(r.small, tmp_.path("bin/small"));
    EXPECT_EQ(r.fix, "");
}

TEST_F(MergeStrategyReachTest, GitsExecPathComesFirst) {
    program(tmp_.path("exec/git-merge-small"));
    program(tmp_.path("other/git-merge-small"));
    const MergeStrategyReach r = find(real_fs, path_of({"other", "bin"}), {tmp_.path("exec")});
    EXPECT_EQ(r.found, tmp_.path("exec/git-merge-small"));
}

TEST_F(MergeStrategyReachTest, SmallAloneGetsTheLinkBesideIt) {
    const MergeStrategyReach r = find(real_fs, "relative/bin:" + path_of({"other", "bin"}));
    EXPECT_EQ(r.found, "");
    EXPECT_EQ(r.small, tmp_.path("bin/small"));
    EXPECT_EQ(r.fix, "ln -s small " + tmp_.path("bin/git-merge-small"));
    EXPECT_TRUE(contains(r.problem, "git merge -s small")) << r.problem;
    EXPECT_TRUE(contains(r.problem, "link it beside " + tmp_.path("bin/small"))) << r.problem;
}

TEST_F(MergeStrategyReachTest, WhatIsNotAProgramDoesNotCount) {
    program(tmp_.path("other/git-merge-small"), 0644);                        // not executable
    std::filesystem::create_symlink("nowhere", tmp_.path("empty/git-merge-small"));  // dangling
    std::filesystem::create_directory(tmp_.path("exec/git-merge-small"));          // a folder
    const MergeStrategyReach r = find(real_fs, path_of({"other", "empty", "bin"}), {tmp_.path("exec")});
    EXPECT_EQ(r.found, "");
    EXPECT_EQ(r.fix, "ln -s small " + tmp_.path("bin/git-merge-small"));
}

TEST_F(MergeStrategyReachTest, SmallsFolderNotWritableLinksIntoAnotherFolderOnPath) {
    const ReadOnlyFolders fs({tmp_.path("bin")});
    const MergeStrategyReach r = find(fs, path_of({"bin", "other"}));
    EXPECT_EQ(r.fix, "ln -s " + tmp_.path("bin/small") + " " + tmp_.path("other/git-merge-small"));
    const ReadOnlyFolders none({tmp_.path("bin"), tmp_.path("other")});
    EXPECT_EQ(find(none, path_of({"bin", "other"})).fix, "sudo ln -s small " + tmp_.path("bin/git-merge-small"));
}

TEST_F(MergeStrategyReachTest, SmallNotOnPathNamesItsOwnFolder) {
    const MergeStrategyReach r = find(real_fs, path_of({"other"}));
    EXPECT_EQ(r.small, "");
    EXPECT_EQ(r.fix, "ln -s small " + tmp_.path("self/git-merge-small"));
    EXPECT_TRUE(contains(r.problem, "small itself is not on PATH")) << r.problem;
    EXPECT_TRUE(contains(r.problem, "add " + tmp_.path("self") + " to PATH")) << r.problem;
}

TEST_F(MergeStrategyReachTest, AFolderThatNeedsQuotingIsQuoted) {
    std::filesystem::create_directory(tmp_.path("my bin"));
    program(tmp_.path("my bin/small"));
    EXPECT_EQ(find(real_fs, tmp_.path("my bin")).fix, "ln -s small '" + tmp_.path("my bin/git-merge-small") + "'");
}

}  // namespace
}  // namespace small
