// store/backup: copies of the files a command replaces (D15).
#include "small/store/backup.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/fixtures.hpp"

namespace small {
namespace {

using namespace small::testing;

void write(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

const Instant kNow{1795449158, 123456789};  // 2026-11-23T15:52:38.123456789Z

TEST(Backup, CopiesTheExistingFilesIntoAStampedFolder) {
    TempWorkspace t;
    write(t.ws().path_of("plan.small.yml"), "plan bytes\n");
    write(t.ws().path_of("workspace.small.yml"), "ws bytes\n");
    RealFileSystem fs;
    Result<Backup> b =
        backup_artifacts(fs, t.ws(), "checkout", {"intent.small.yml", "plan.small.yml", "workspace.small.yml"}, kNow);
    ASSERT_TRUE(b) << b.error().describe();
    EXPECT_EQ(b->dir, t.path(".small-cache/backups/20261123T155238.123456789Z-checkout"));
    EXPECT_EQ(b->files, (std::vector<std::string>{"plan.small.yml", "workspace.small.yml"}));
    EXPECT_EQ(read_text(b->dir + "/plan.small.yml"), "plan bytes\n");
    EXPECT_EQ(read_text(b->dir + "/workspace.small.yml"), "ws bytes\n");
    EXPECT_FALSE(std::filesystem::exists(b->dir + "/intent.small.yml"));
    // No side folder is left behind.
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(t.path(".small-cache/backups"))) ++entries;
    EXPECT_EQ(entries, 1u);
}

TEST(Backup, NothingToCopyCreatesNoFolder) {
    TempWorkspace t;
    RealFileSystem fs;
    Result<Backup> b = backup_artifacts(fs, t.ws(), "fix-versions", {"plan.small.yml"}, kNow);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->dir, "");
    EXPECT_FALSE(std::filesystem::exists(t.path(".small-cache/backups")));
}

TEST(Backup, ASecondBackupInTheSameInstantGetsItsOwnFolder) {
    TempWorkspace t;
    write(t.ws().path_of("plan.small.yml"), "one\n");
    RealFileSystem fs;
    Result<Backup> first = backup_artifacts(fs, t.ws(), "fix", {"plan.small.yml"}, kNow);
    write(t.ws().path_of("plan.small.yml"), "two\n");
    Result<Backup> second = backup_artifacts(fs, t.ws(), "fix", {"plan.small.yml"}, kNow);
    ASSERT_TRUE(first && second);
    EXPECT_NE(first->dir, second->dir);
    EXPECT_EQ(read_text(first->dir + "/plan.small.yml"), "one\n");
    EXPECT_EQ(read_text(second->dir + "/plan.small.yml"), "two\n");
}

TEST(Backup, RefusesNamesThatLeaveSmallAndBadReasons) {
    TempWorkspace t;
    RealFileSystem fs;
    for (const char* name : {"../AGENTS.md", "..", ".", "", "sub/plan.small.yml"}) {
        Result<Backup> b = backup_artifacts(fs, t.ws(), "fix", {name}, kNow);
        ASSERT_FALSE(b) << name;
        EXPECT_EQ(b.error().kind, Error::Kind::Internal) << name;
    }
    EXPECT_FALSE(backup_artifacts(fs, t.ws(), "../x", {"plan.small.yml"}, kNow));
    EXPECT_FALSE(backup_artifacts(fs, t.ws(), "", {"plan.small.yml"}, kNow));
}

TEST(Backup, ALinkedCacheFolderIsRefused) {
    TempWorkspace t;
    TempWorkspace elsewhere;
    write(t.ws().path_of("plan.small.yml"), "plan\n");
    std::filesystem::create_symlink(elsewhere.path(""), t.path(".small-cache"));
    RealFileSystem fs;
    Result<Backup> b = backup_artifacts(fs, t.ws(), "fix", {"plan.small.yml"}, kNow);
    ASSERT_FALSE(b);
    EXPECT_FALSE(std::filesystem::exists(elsewhere.path("backups")));
}

}  // namespace
}  // namespace small
