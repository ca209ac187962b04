// `small fix` end to end: the real binary on temporary workspaces. The
// repairs' details are unit-tested (tests/unit/fix_test.cpp); here: flags,
// exit codes, text, and that the tool's own checks pass afterwards.
#include <gtest/gtest.h>

#include "support/run_binary.hpp"

namespace {

using namespace small_e2e;

class FixE2E : public ::testing::Test {
protected:
    void SetUp() override {
        const RunResult r = run_in(root(), {"init", "--no-agents"});
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    const fs::path& root() const { return tmp_.path(); }
    fs::path small_file(const std::string& name) const { return root() / ".small" / name; }
    RunResult run(const std::vector<std::string>& args) const { return run_in(root(), args); }
    std::string run_id() const {
        const std::string ws = read_file(small_file("workspace.small.yml"));
        const std::size_t at = ws.find("replay_id: \"") + 12;
        return ws.substr(at, 64);
    }

private:
    TempDir tmp_;
};

TEST_F(FixE2E, NothingSelectedIsAUsageErrorAndWritesNothing) {
    const std::string plan = read_file(small_file("plan.small.yml"));
    const RunResult r = run({"fix"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "no fix selected")) << r;
    EXPECT_EQ(read_file(small_file("plan.small.yml")), plan);
}

TEST_F(FixE2E, NothingToFixExitsZeroAndMakesNoBackup) {
    const RunResult r = run({"fix", "--all", "--orphan-progress"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Nothing to fix.")) << r;
    EXPECT_TRUE(contains(r.out, "No orphan progress entries found.")) << r;
    EXPECT_FALSE(fs::exists(root() / ".small-cache" / "backups"));
}

TEST_F(FixE2E, VersionsKeepsCommentsAndLintFormatStrictPasses) {
    const fs::path intent = small_file("intent.small.yml");
    std::string text = read_file(intent);
    text.replace(text.find("small_version: \"1.0.0\""), 22, "# mine\nsmall_version: '1.0.0'  # pinned");
    write_file(intent, text);
    EXPECT_EQ(run({"lint", "--format-strict"}).exit_code, 1);
    const RunResult dry = run({"fix", "--versions", "--dry-run"});
    EXPECT_EQ(dry.exit_code, 0) << dry;
    EXPECT_TRUE(contains(dry.out, "Would change (1):")) << dry;
    EXPECT_EQ(read_file(intent), text);
    const RunResult r = run({"fix", "--versions"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, ".small/intent.small.yml: '1.0.0' -> \"1.0.0\"")) << r;
    EXPECT_TRUE(contains(r.out, "Backup of the rewritten files: ")) << r;
    EXPECT_TRUE(contains(read_file(intent), "# mine\nsmall_version: \"1.0.0\"  # pinned\n"));
    EXPECT_EQ(run({"lint", "--format-strict"}).exit_code, 0);
}

TEST_F(FixE2E, OrphanProgressAppendsAndCheckStrictThenPasses) {
    const fs::path progress = small_file("progress.small.yml");
    const std::string orphan = "  - timestamp: \"2030-01-01T00:00:00.000000000Z\"\n    task_id: \"reset\"\n"
                               "    status: \"completed\"\n    evidence: \"old tool\"\n    replayId: \"" + run_id() + "\"\n";
    write_file(progress, read_file(progress) + orphan);
    const std::string before = read_file(progress);
    const RunResult failing = run({"check", "--strict"});
    EXPECT_EQ(failing.exit_code, 1) << failing;
    const RunResult r = run({"fix", "--orphan-progress"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "reset -> meta/reset (operational)")) << r;
    EXPECT_TRUE(contains(r.out, "Recorded progress entries: meta/reset, meta/reconcile-plan")) << r;
    const std::string after = read_file(progress);
    EXPECT_EQ(after.substr(0, before.size()), before) << "the log only grows";
    const RunResult passing = run({"check", "--strict"});
    EXPECT_EQ(passing.exit_code, 0) << passing;
}

TEST_F(FixE2E, RuntimeLayoutMovesLegacyStores) {
    fs::create_directories(root() / ".small" / "runs" / "r1");
    write_file(root() / ".small" / "runs" / "r1" / "meta.json", "{}\n");
    const RunResult r = run({"fix", "--runtime-layout"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, ".small/runs -> .small-runs (1 item(s))")) << r;
    EXPECT_EQ(read_file(root() / ".small-runs" / "r1" / "meta.json"), "{}\n");
    EXPECT_FALSE(fs::exists(root() / ".small" / "runs"));
    EXPECT_TRUE(contains(read_file(small_file("progress.small.yml")), "meta/reconcile-runtime-layout"));
    EXPECT_EQ(run({"check", "--strict"}).exit_code, 0);
}

TEST_F(FixE2E, RuntimeLayoutRefusesALinkInsideALegacyStore) {
    fs::create_directories(root() / ".small" / "runs" / "r1");
    write_file(root() / ".small" / "runs" / "r1" / "meta.json", "{}\n");
    fs::create_directories(root() / "outside");
    fs::create_directory_symlink(root() / "outside", root() / ".small" / "runs" / "r2");
    const RunResult r = run({"fix", "--runtime-layout"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err + r.out, "refusing to migrate .small/runs/r2: it is a symbolic link")) << r;
    EXPECT_TRUE(fs::is_symlink(root() / ".small" / "runs" / "r2"));
    EXPECT_TRUE(fs::exists(root() / ".small" / "runs" / "r1" / "meta.json"));
    EXPECT_FALSE(fs::exists(root() / ".small-runs"));
}

TEST_F(FixE2E, WorkspaceRecreatesAndValidatesKind) {
    fs::remove(small_file("workspace.small.yml"));
    const RunResult bad = run({"fix", "workspace", "--kind", "bogus"});
    EXPECT_EQ(bad.exit_code, 2) << bad;
    EXPECT_FALSE(fs::exists(small_file("workspace.small.yml")));
    const RunResult r = run({"fix", "workspace"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Created workspace.small.yml")) << r;
    EXPECT_EQ(run({"verify"}).exit_code, 0);
    const RunResult again = run({"fix", "workspace"});
    EXPECT_TRUE(contains(again.out, "Checked workspace.small.yml")) << again;
    EXPECT_TRUE(contains(again.out, "No changes needed")) << again;
}

TEST_F(FixE2E, AllRepairsAMissingWorkspaceFileUnderTheDefaultScope) {
    fs::remove(small_file("workspace.small.yml"));
    const RunResult r = run({"fix", "--all"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(fs::exists(small_file("workspace.small.yml")));
    EXPECT_EQ(run({"check", "--strict"}).exit_code, 0);
}

// A read-only file is "do not change": the fix stops before its backup and
// before any write, the other file it would have fixed included.
TEST_F(FixE2E, AReadOnlyFileStopsTheFixBeforeAnyWrite) {
    for (const char* name : {"intent.small.yml", "plan.small.yml"}) {
        std::string text = read_file(small_file(name));
        text.replace(text.find("small_version: \"1.0.0\""), 22, "small_version: 1.0.0");
        write_file(small_file(name), text);
    }
    fs::permissions(small_file("plan.small.yml"), fs::perms(0444));
    // Root may write a read-only file: as root, the fix runs as user nobody.
    RunOptions opts = unprivileged(root());
    opts.cwd = root();
    const std::string intent = read_file(small_file("intent.small.yml"));
    const RunResult r = run_small({"fix", "--versions"}, opts);
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "read-only")) << r;
    EXPECT_EQ(read_file(small_file("intent.small.yml")), intent);
    EXPECT_FALSE(fs::exists(root() / ".small-cache" / "backups")) << r;
}

}  // namespace
