// `small selftest`: the real commands on a directory it makes, and the
// directory rules that keep it from deleting anything it did not create
// (the reference removes a caller's --dir recursively, inspection.md §5.2 17).
#include <atomic>
#include <fstream>
#include <thread>

#include "support/run_binary.hpp"

namespace small_e2e {
namespace {

using Env = std::vector<std::pair<std::string, std::optional<std::string>>>;

class SelftestE2E : public ::testing::Test {
protected:
    // TMPDIR points into the test's own folder, so a leftover is visible.
    RunResult selftest(std::vector<std::string> args, Env env = {}) {
        args.insert(args.begin(), "selftest");
        env.emplace_back("TMPDIR", tmp_root().string());
        return run_in(cwd(), args, env);
    }
    json selftest_json(std::vector<std::string> args, int exit_code, Env env = {}) {
        args.push_back("--json");
        const RunResult r = selftest(args, env);
        EXPECT_EQ(r.exit_code, exit_code) << r;
        const std::optional<json> doc = parse_single_json(r.out);
        EXPECT_TRUE(doc) << r;
        return doc.value_or(json::object());
    }
    fs::path cwd() const { return tmp_.path() / "cwd"; }
    fs::path tmp_root() const { return tmp_.path() / "tmp"; }
    std::size_t leftovers() const {
        return static_cast<std::size_t>(std::distance(fs::directory_iterator(tmp_root()), fs::directory_iterator()));
    }
    void SetUp() override {
        fs::create_directories(cwd());
        fs::create_directories(tmp_root());
    }

    // A refused --dir: exit 1, the reason named, no step run, nothing made.
    void expect_refused(const std::string& dir, const std::string& reason) {
        const RunResult r = selftest({"--dir", dir});
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, reason)) << r;
        EXPECT_TRUE(contains(r.err, "nothing was touched")) << r;
        EXPECT_FALSE(contains(r.out, "[1/")) << r;
        EXPECT_EQ(leftovers(), 0u);
    }

    TempDir tmp_;
};

TEST_F(SelftestE2E, PassesInAFreshTemporaryDirectoryAndRemovesIt) {
    const RunResult r = selftest({});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "SMALL Selftest")) << r;
    EXPECT_TRUE(contains(r.out, "Workspace: " + tmp_root().string() + "/small-selftest-")) << r;
    EXPECT_TRUE(contains(r.out, "] verify... OK")) << r;
    EXPECT_TRUE(contains(r.out, "All selftest steps passed!")) << r;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(leftovers(), 0u) << "the temporary directory is removed";
    EXPECT_TRUE(fs::is_empty(cwd())) << "nothing is written where it was run";
}

TEST_F(SelftestE2E, JsonListsEveryStepThatRan) {
    const json doc = selftest_json({}, 0);
    EXPECT_EQ(doc["command"], "selftest");
    EXPECT_EQ(doc["kept"], false);
    ASSERT_TRUE(doc["steps"].is_array());
    ASSERT_GE(doc["steps"].size(), 8u);
    EXPECT_EQ(doc["steps"][0]["name"], "init");
    for (const json& step : doc["steps"]) EXPECT_EQ(step["ok"], true) << step.dump();
    EXPECT_FALSE(fs::exists(doc["workspace"].get<std::string>()));
}

TEST_F(SelftestE2E, KeepLeavesANewNestedDirectory) {
    const RunResult r = selftest({"--dir", "a/b/st", "--keep"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Workspace preserved at: " + (cwd() / "a/b/st").string())) << r;
    for (const char* f : {"intent", "constraints", "plan", "progress", "handoff", "workspace"}) {
        EXPECT_TRUE(fs::is_regular_file(cwd() / "a/b/st/.small" / (std::string(f) + ".small.yml"))) << f;
    }
}

TEST_F(SelftestE2E, WithoutKeepTheDirectoriesItMadeGoAgain) {
    fs::create_directories(cwd() / "a");
    const RunResult r = selftest({"--dir", "a/b/c"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(fs::is_directory(cwd() / "a")) << "a existed before: kept";
    EXPECT_FALSE(fs::exists(cwd() / "a/b")) << "a/b and a/b/c were made by selftest: removed";
}

TEST_F(SelftestE2E, AnExistingEmptyDirectoryIsKeptAndLeftEmpty) {
    fs::create_directories(cwd() / "empty");
    const RunResult r = selftest({"--dir", "empty"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(fs::is_directory(cwd() / "empty"));
    EXPECT_TRUE(fs::is_empty(cwd() / "empty"));
}

// Issue 24: files another process wrote into --dir during the run (user-1 …
// user-11) were deleted with selftest's own. Writes start once init made
// .small/ (an earlier file would make the directory non-empty, refused).
TEST_F(SelftestE2E, FilesOthersWriteIntoTheDirectoryDuringTheRunAreKept) {
    const fs::path shared = cwd() / "shared";
    fs::create_directories(shared);
    std::atomic<bool> done{false};
    RunResult r;
    std::thread runner([&] {
        r = selftest({"--dir", "shared"});
        done = true;
    });
    while (!done && !fs::exists(shared / ".small")) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::vector<fs::path> written;
    for (int i = 1; !done; ++i) {
        const fs::path p = shared / ("user-" + std::to_string(i));
        if (std::ofstream(p) << "mine\n") written.push_back(p);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // pacing only
    }
    runner.join();
    EXPECT_EQ(r.exit_code, 0) << r;
    ASSERT_FALSE(written.empty()) << r;
    for (const fs::path& p : written) EXPECT_EQ(read_file(p), "mine\n") << p;
    for (const char* ours : {".small", ".small-cache", "AGENTS.md", ".gitignore"}) {
        EXPECT_FALSE(fs::exists(shared / ours)) << ours;
    }
}

TEST_F(SelftestE2E, ANonEmptyDirectoryIsRefusedUntouched) {
    fs::create_directories(cwd() / "full/sub");
    write_file(cwd() / "full/keep.txt", "mine\n");
    expect_refused("full", "is not empty");
    EXPECT_EQ(read_file(cwd() / "full/keep.txt"), "mine\n");
    EXPECT_TRUE(fs::is_directory(cwd() / "full/sub"));
    EXPECT_FALSE(fs::exists(cwd() / "full/.small"));
}

TEST_F(SelftestE2E, TheCurrentProjectIsRefused) {
    ASSERT_EQ(run_in(cwd(), {"init"}).exit_code, 0);
    const std::string plan = read_file(cwd() / ".small/plan.small.yml");
    expect_refused(".", "is not empty");
    expect_refused(cwd().string(), "is not empty");
    EXPECT_EQ(read_file(cwd() / ".small/plan.small.yml"), plan);
}

TEST_F(SelftestE2E, AFileIsRefusedUntouched) {
    write_file(cwd() / "file", "data\n");
    expect_refused("file", "is not a directory");
    EXPECT_EQ(read_file(cwd() / "file"), "data\n");
    expect_refused("file/below", "which is not a directory");
}

TEST_F(SelftestE2E, ASymbolicLinkIsRefusedEvenToAnEmptyDirectory) {
    fs::create_directories(tmp_.path() / "elsewhere");
    fs::create_directory_symlink(tmp_.path() / "elsewhere", cwd() / "link");
    expect_refused("link", "is a symbolic link");
    EXPECT_TRUE(fs::is_empty(tmp_.path() / "elsewhere"));
    EXPECT_TRUE(fs::is_symlink(cwd() / "link"));
    fs::create_symlink(tmp_.path() / "nowhere", cwd() / "dangling");
    expect_refused("dangling", "is a symbolic link");
    EXPECT_FALSE(fs::exists(tmp_.path() / "nowhere"));
}

TEST_F(SelftestE2E, ExamplesScopeIsAUsageErrorBeforeAnythingIsMade) {
    const RunResult r = selftest({"--workspace", "examples"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "repo-root")) << r;
    EXPECT_EQ(leftovers(), 0u);
    EXPECT_EQ(selftest({"--workspace", "nonsense"}).exit_code, 2);
    EXPECT_EQ(selftest({"--workspace", "root"}).exit_code, 0);
}

TEST_F(SelftestE2E, AFailingStepIsNamedAndTheDirectoryStillGoes) {
    // A schema folder that does not exist makes the verify step fail.
    const Env env = {{"SMALL_SPEC_DIR", (tmp_.path() / "no-schemas").string()}};
    const RunResult r = selftest({}, env);
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.out, "FAILED")) << r;
    EXPECT_TRUE(contains(r.err, "selftest failed at step \"verify\"")) << r;
    EXPECT_TRUE(contains(r.err, "--keep")) << r;
    EXPECT_EQ(leftovers(), 0u);

    const json doc = selftest_json({"--dir", "kept", "--keep"}, 1, env);
    EXPECT_EQ(doc["failed_step"], "verify") << doc.dump(2);
    EXPECT_EQ(doc["error"]["kind"], "invalid");
    EXPECT_EQ(doc["steps"].back()["ok"], false);
    EXPECT_TRUE(doc["steps"].back().contains("error"));
    EXPECT_TRUE(fs::is_directory(cwd() / "kept/.small"));
}

TEST_F(SelftestE2E, QuietPrintsNothingOnSuccess) {
    const RunResult r = selftest({"--quiet"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "");
}

}  // namespace
}  // namespace small_e2e
