// store/folder_publish (scratch folders): selftest's directory. Only what it made is removed; a
// caller's directory is used only when new or empty, and never followed
// through a symbolic link.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "small/ops/maintenance/selftest.hpp"
#include "small/store/folder_publish.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

namespace stdfs = std::filesystem;

class ScratchDirTest : public ::testing::Test {
protected:
    std::string at(const std::string& rel) const { return tmp_.path(rel); }
    static void touch(const std::string& path) { testing::write_text(path, "x\n"); }
    testing::TempDir tmp_;
    const std::string root_ = tmp_.root();
};

TEST_F(ScratchDirTest, AFreshTemporaryDirectoryIsMadeAndRemoved) {
    ::setenv("TMPDIR", root_.c_str(), 1);
    Result<ScratchDir> dir = make_scratch_dir(std::nullopt, "/", "p-");
    ::unsetenv("TMPDIR");
    ASSERT_TRUE(dir) << dir.error().message;
    EXPECT_EQ(dir->path.rfind(root_ + "/p-", 0), 0u) << dir->path;
    touch(dir->path + "/file");
    stdfs::create_directories(dir->path + "/sub/deeper");
    ASSERT_TRUE(remove_scratch_dir(*dir, {{"file", "sub"}, {}}));
    EXPECT_TRUE(stdfs::is_empty(root_));
}

TEST_F(ScratchDirTest, MissingParentsAreMadeAndOnlyThoseRemoved) {
    stdfs::create_directory(at("have"));
    Result<ScratchDir> dir = make_scratch_dir(std::string("have/a/b"), root_, "p-");
    ASSERT_TRUE(dir) << dir.error().message;
    EXPECT_EQ(dir->path, at("have/a/b"));
    EXPECT_EQ(dir->created, (std::vector<std::string>{at("have/a"), at("have/a/b")}));
    touch(at("have/a/b/f"));
    ASSERT_TRUE(remove_scratch_dir(*dir, {{"f"}, {}}));
    EXPECT_TRUE(stdfs::is_directory(at("have")));
    EXPECT_FALSE(stdfs::exists(at("have/a")));
}

TEST_F(ScratchDirTest, AParentSomeoneElseFilledStays) {
    Result<ScratchDir> dir = make_scratch_dir(at("a/b"), "/", "p-");
    ASSERT_TRUE(dir);
    touch(at("a/theirs"));
    EXPECT_FALSE(remove_scratch_dir(*dir, {})) << "a is not empty: refused, not forced";
    EXPECT_TRUE(stdfs::exists(at("a/theirs")));
    EXPECT_FALSE(stdfs::exists(at("a/b")));
}

TEST_F(ScratchDirTest, AnEmptyDirectoryIsUsedAndKept) {
    stdfs::create_directory(at("empty"));
    Result<ScratchDir> dir = make_scratch_dir(std::string("empty/"), root_, "p-");
    ASSERT_TRUE(dir) << dir.error().message;
    EXPECT_TRUE(dir->existed);
    EXPECT_TRUE(dir->created.empty());
    stdfs::create_directories(at("empty/.small"));
    touch(at("empty/.small/plan.small.yml"));
    ASSERT_TRUE(remove_scratch_dir(*dir, {{".small/plan.small.yml"}, {".small"}}));
    EXPECT_TRUE(stdfs::is_directory(at("empty")));
    EXPECT_TRUE(stdfs::is_empty(at("empty")));
}

TEST_F(ScratchDirTest, RefusalsTouchNothing) {
    stdfs::create_directory(at("full"));
    touch(at("full/mine"));
    touch(at("file"));
    stdfs::create_directory(at("target"));
    stdfs::create_directory_symlink(at("target"), at("link"));
    stdfs::create_symlink(at("nowhere"), at("dangling"));
    for (const char* bad : {"full", "file", "link", "dangling", "file/below"}) {
        Result<ScratchDir> dir = make_scratch_dir(std::string(bad), root_, "p-");
        ASSERT_FALSE(dir) << bad;
        EXPECT_EQ(dir.error().kind, Error::Kind::Invalid) << bad;
        EXPECT_NE(dir.error().message.find("nothing was touched"), std::string::npos) << dir.error().message;
    }
    EXPECT_TRUE(stdfs::exists(at("full/mine")));
    EXPECT_TRUE(stdfs::is_empty(at("target")));
    EXPECT_FALSE(stdfs::exists(at("nowhere")));
}

TEST_F(ScratchDirTest, ADirectorySwappedForALinkIsLeftAlone) {
    Result<ScratchDir> dir = make_scratch_dir(at("made"), "/", "p-");
    ASSERT_TRUE(dir);
    stdfs::create_directory(at("victim"));
    touch(at("victim/precious"));
    stdfs::remove(at("made"));
    stdfs::create_directory_symlink(at("victim"), at("made"));
    EXPECT_FALSE(remove_scratch_dir(*dir, {{"precious"}, {}}));
    EXPECT_TRUE(stdfs::exists(at("victim/precious")));
    EXPECT_TRUE(stdfs::is_symlink(at("made")));
}

// Issue 24: files another process wrote into the directory during the run
// were removed with it. Only the listed entries go; a folder left holding
// anything else stays, and the error names what is in it.
TEST_F(ScratchDirTest, OnlyWhatTheCallerMadeIsRemoved) {
    Result<ScratchDir> dir = make_scratch_dir(at("made"), "/", "p-");
    ASSERT_TRUE(dir);
    stdfs::create_directories(at("made/.small"));
    touch(at("made/.small/plan.small.yml"));
    stdfs::create_directories(at("made/cache/deeper"));
    touch(at("made/cache/deeper/f"));
    touch(at("made/mine"));
    touch(at("made/user-1"));
    const Status s = remove_scratch_dir(*dir, {{".small/plan.small.yml", "cache", "mine"}, {".small"}});
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "left " + at("made") + " in place: it holds user-1, which selftest did not create");
    EXPECT_TRUE(stdfs::exists(at("made/user-1")));
    for (const char* gone : {"made/.small", "made/cache", "made/mine"}) EXPECT_FALSE(stdfs::exists(at(gone))) << gone;

    // A file inside a listed folder keeps that folder.
    Result<ScratchDir> kept = make_scratch_dir(at("kept"), "/", "p-");
    ASSERT_TRUE(kept);
    stdfs::create_directories(at("kept/.small"));
    touch(at("kept/.small/user-2"));
    const Status t = remove_scratch_dir(*kept, {{".small/plan.small.yml"}, {".small"}});
    ASSERT_FALSE(t);
    EXPECT_NE(t.error().message.find("it holds user-2"), std::string::npos) << t.error().message;
    EXPECT_TRUE(stdfs::exists(at("kept/.small/user-2")));
}

// ops/selftest with a runner that records the steps instead of running them.
TEST_F(ScratchDirTest, SelftestRunsTheStepsInOrderAndStopsAtTheFirstFailure) {
    std::vector<std::string> ran;
    SelftestRequest req;
    req.dir = at("st");
    const auto runner = [&](const SelftestStep& s, const std::string& workdir, std::size_t i, std::size_t n) {
        EXPECT_EQ(workdir, at("st"));
        EXPECT_TRUE(stdfs::is_directory(workdir));
        EXPECT_EQ(i, ran.size());
        EXPECT_EQ(n, selftest_steps(workdir, req.scope).size());
        ran.push_back(s.name);
        return SelftestStepOutcome{s.name == "handoff" ? 1 : 0, s.name == "handoff" ? "boom" : ""};
    };
    Result<SelftestResult> r = selftest_command(req, runner);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->failed);
    EXPECT_EQ(ran.front(), "init");
    EXPECT_EQ(ran.back(), "handoff");
    EXPECT_EQ(r->steps.back().outcome.error, "boom");
    EXPECT_FALSE(stdfs::exists(at("st"))) << "removed after a failure too";

    req.keep = true;
    ran.clear();
    ASSERT_TRUE(selftest_command(req, runner));
    EXPECT_TRUE(stdfs::is_directory(at("st")));
}

TEST_F(ScratchDirTest, SelftestRefusesTheExamplesScopeBeforeMakingAnything) {
    SelftestRequest req;
    req.dir = at("st");
    req.scope = WorkspaceScope::Examples;
    bool called = false;
    Result<SelftestResult> r = selftest_command(req, [&](const SelftestStep&, const std::string&, std::size_t, std::size_t) {
        called = true;
        return SelftestStepOutcome{};
    });
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, Error::Kind::Usage);
    EXPECT_FALSE(called);
    EXPECT_FALSE(stdfs::exists(at("st")));
}

TEST(SelftestSteps, EveryStepNamesTheDirectory) {
    for (const SelftestStep& s : selftest_steps("/w", WorkspaceScope::Root)) {
        EXPECT_NE(std::find(s.args.begin(), s.args.end(), "/w"), s.args.end()) << s.name;
    }
}

}  // namespace
}  // namespace small
