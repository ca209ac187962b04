// RealFileSystem against a temporary directory, and MemoryFileSystem.
#include "small/base/filesystem.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "support/fixtures.hpp"

namespace small {
namespace {

using testing::contains;

namespace fs = std::filesystem;

std::vector<std::string> names(const std::vector<DirEntry>& entries) {
    std::vector<std::string> out;
    for (const auto& e : entries) out.push_back(e.name);
    return out;
}

const DirEntry* entry(const std::vector<DirEntry>& entries, std::string_view name) {
    for (const auto& e : entries) {
        if (e.name == name) return &e;
    }
    return nullptr;
}

class FileSystemReal : public ::testing::Test {
protected:
    std::string path(std::string_view name) const { return tmp_.path(std::string(name)); }
    void write(std::string_view name, const std::string& content) const {
        std::ofstream out(path(name), std::ios::binary);
        out << content;
        ASSERT_TRUE(out.good());
    }

    testing::TempDir tmp_;
    const std::string dir_ = tmp_.root();
    RealFileSystem real_;
};

TEST_F(FileSystemReal, StatDoesNotFollowALinkAndInspectTellsWhy) {
    write("f", "12345");
    fs::create_directory(path("d"));
    fs::create_symlink(path("nowhere"), path("link"));
    const std::optional<FileInfo> file = real_.stat(path("f"));
    ASSERT_TRUE(file.has_value());
    EXPECT_EQ(file->kind, FileKind::Regular);
    EXPECT_EQ(file->size, 5u);
    EXPECT_NE(file->mtime_sec, 0);
    EXPECT_EQ(real_.stat(path("d"))->kind, FileKind::Directory);
    EXPECT_EQ(real_.stat(path("link"))->kind, FileKind::Symlink);
    EXPECT_FALSE(real_.stat(path("absent")).has_value());
    EXPECT_EQ(*real_.read_link(path("link")), path("nowhere"));
    EXPECT_FALSE(real_.read_link(path("f")).ok());

    Result<std::optional<FileInfo>> absent = real_.inspect(path("absent"));
    ASSERT_TRUE(absent.ok());
    EXPECT_FALSE(absent->has_value());
    // Below a file: not "nothing there" but a reason (ENOTDIR).
    Result<std::optional<FileInfo>> below_file = real_.inspect(path("f") + "/x");
    ASSERT_FALSE(below_file.ok());
    EXPECT_TRUE(contains(below_file.error().message, "cannot stat")) << below_file.error().message;
}

TEST_F(FileSystemReal, RealPathResolvesLinksOfTheExistingPart) {
    fs::create_directory(path("target"));
    fs::create_directory_symlink(path("target"), path("alias"));
    EXPECT_EQ(*real_.real_path(path("alias") + "/not-yet"), path("target") + "/not-yet");
    EXPECT_EQ(real_.write_access_errno(path("target")), 0);
    EXPECT_EQ(real_.write_access_errno(path("absent")), ENOENT);
}

TEST(MemoryFileSystemDoor, StatAndRealPathByDefault) {
    MemoryFileSystem mem;
    mem.add_file("/w/a", "abc");
    mem.add_symlink("/w/l");
    EXPECT_EQ(mem.stat("/w/a")->kind, FileKind::Regular);
    EXPECT_EQ(mem.stat("/w/a")->size, 3u);
    EXPECT_EQ(mem.stat("/w")->kind, FileKind::Directory);
    EXPECT_EQ(mem.stat("/w/l")->kind, FileKind::Symlink);
    EXPECT_FALSE(mem.stat("/w/b").has_value());
    EXPECT_FALSE(mem.inspect("/w/b")->has_value());
    EXPECT_EQ(*mem.real_path("/w/./x/../a"), "/w/a");
    EXPECT_EQ(mem.write_access_errno("/w"), 0);
}

TEST_F(FileSystemReal, ReadsAFile) {
    write("a.yml", "hello\nworld\n");
    const auto r = real_.read_file(path("a.yml"));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(*r, "hello\nworld\n");
}

TEST_F(FileSystemReal, ReadsEmptyAndBinaryAndLargeFiles) {
    write("empty", "");
    const auto empty = real_.read_file(path("empty"));
    ASSERT_TRUE(empty.ok());
    EXPECT_EQ(*empty, "");

    const std::string binary("a\0b\xff\r\n", 6);
    write("bin", binary);
    const auto bin = real_.read_file(path("bin"));
    ASSERT_TRUE(bin.ok());
    EXPECT_EQ(*bin, binary);

    std::string large;
    for (int i = 0; i < 50000; ++i) large += "line " + std::to_string(i) + "\n";
    write("large", large);
    const auto big = real_.read_file(path("large"));
    ASSERT_TRUE(big.ok());
    EXPECT_EQ(big->size(), large.size());
    EXPECT_EQ(*big, large);
}

TEST_F(FileSystemReal, ReadsThroughASymlink) {
    write("target", "via link");
    fs::create_symlink(path("target"), path("link"));
    const auto r = real_.read_file(path("link"));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, "via link");
}

TEST_F(FileSystemReal, MissingFileIsASystemError) {
    const std::string missing = path("nope.yml");
    const auto r = real_.read_file(missing);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::System);
    EXPECT_TRUE(contains(r.error().message, missing)) << r.error().message;
    EXPECT_TRUE(contains(r.error().message, "No such file")) << r.error().message;
    EXPECT_EQ(r.error().file, missing);
}

TEST_F(FileSystemReal, DirectoryIsNotAFile) {
    fs::create_directory(path("sub"));
    const auto r = real_.read_file(path("sub"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::System);
    EXPECT_TRUE(contains(r.error().message, path("sub"))) << r.error().message;
    EXPECT_TRUE(contains(r.error().message, "directory")) << r.error().message;
}

TEST_F(FileSystemReal, ExistsChecks) {
    write("f", "x");
    fs::create_directory(path("d"));
    fs::create_symlink(path("d"), path("dlink"));
    fs::create_symlink(path("f"), path("flink"));
    fs::create_symlink(path("gone"), path("dangling"));
    EXPECT_TRUE(real_.file_exists(path("f")));
    EXPECT_FALSE(real_.directory_exists(path("f")));
    EXPECT_TRUE(real_.directory_exists(path("d")));
    EXPECT_FALSE(real_.file_exists(path("d")));
    EXPECT_TRUE(real_.directory_exists(dir_));
    EXPECT_FALSE(real_.file_exists(path("missing")));
    EXPECT_FALSE(real_.directory_exists(path("missing")));
    // exists checks follow links (a read would too).
    EXPECT_TRUE(real_.file_exists(path("flink")));
    EXPECT_TRUE(real_.directory_exists(path("dlink")));
    EXPECT_FALSE(real_.file_exists(path("dangling")));
    EXPECT_FALSE(real_.directory_exists(path("dangling")));
}

TEST_F(FileSystemReal, ListDirectorySortedWithDirectoriesFlagged) {
    write("b.txt", "b");
    write("a.txt", "a");
    write("C", "upper");
    write(".hidden", "h");
    fs::create_directory(path("sub"));
    write("sub/inner", "not listed");
    fs::create_symlink(path("sub"), path("link-to-dir"));
    fs::create_symlink(path("gone"), path("dangling"));
    const auto r = real_.list_directory(dir_);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(names(*r),
              (std::vector<std::string>{".hidden", "C", "a.txt", "b.txt", "dangling", "link-to-dir", "sub"}));
    ASSERT_NE(entry(*r, "sub"), nullptr);
    EXPECT_TRUE(entry(*r, "sub")->is_directory);
    EXPECT_FALSE(entry(*r, "a.txt")->is_directory);
    EXPECT_FALSE(entry(*r, ".hidden")->is_directory);
    // Symbolic links are reported as files, even when they point at a directory.
    ASSERT_NE(entry(*r, "link-to-dir"), nullptr);
    EXPECT_FALSE(entry(*r, "link-to-dir")->is_directory);
    ASSERT_NE(entry(*r, "dangling"), nullptr);
    EXPECT_FALSE(entry(*r, "dangling")->is_directory);
}

TEST_F(FileSystemReal, ListDirectoryWithOnlyADanglingLink) {
    fs::create_directory(path("d"));
    fs::create_symlink(path("gone"), path("d/zz-dangling"));
    const auto r = real_.list_directory(path("d"));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(names(*r), (std::vector<std::string>{"zz-dangling"}));
}

TEST_F(FileSystemReal, ListEmptyDirectory) {
    fs::create_directory(path("empty"));
    const auto r = real_.list_directory(path("empty"));
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->empty());
}

TEST_F(FileSystemReal, ListMissingDirectoryOrFileFails) {
    const auto missing = real_.list_directory(path("missing"));
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().kind, Error::Kind::System);
    EXPECT_TRUE(contains(missing.error().message, path("missing"))) << missing.error().message;
    write("plain", "x");
    const auto file = real_.list_directory(path("plain"));
    ASSERT_FALSE(file.ok());
    EXPECT_EQ(file.error().kind, Error::Kind::System);
    EXPECT_TRUE(contains(file.error().message, path("plain"))) << file.error().message;
}

// ------------------------------------------------------------ MemoryFileSystem

TEST(FileSystemMemory, ReadAndExists) {
    MemoryFileSystem m;
    m.add_file("/r/a.yml", "alpha");
    const auto r = m.read_file("/r/a.yml");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, "alpha");
    m.add_file("/r/a.yml", "replaced");
    EXPECT_EQ(*m.read_file("/r/a.yml"), "replaced");
    EXPECT_TRUE(m.file_exists("/r/a.yml"));
    EXPECT_FALSE(m.directory_exists("/r/a.yml"));
    EXPECT_TRUE(m.directory_exists("/r"));
    EXPECT_FALSE(m.file_exists("/r"));
    EXPECT_FALSE(m.file_exists("/r/b.yml"));
    EXPECT_FALSE(m.directory_exists("/r/a"));  // "/r/a.yml" is not below "/r/a"
}

TEST(FileSystemMemory, MissingFileIsASystemError) {
    MemoryFileSystem m;
    const auto r = m.read_file("/nope/x.yml");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::System);
    EXPECT_TRUE(contains(r.error().message, "/nope/x.yml")) << r.error().message;
    EXPECT_EQ(r.error().file, "/nope/x.yml");
}

TEST(FileSystemMemory, ListingHasImplicitDirectories) {
    MemoryFileSystem m;
    m.add_file("/r/a/b/c.txt", "c");
    m.add_file("/r/x.txt", "x");
    m.add_file("/r/a/top.txt", "t");
    m.add_directory("/r/empty");
    m.add_file("/r2/other.txt", "o");  // shares a name prefix with /r
    const auto r = m.list_directory("/r");
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(names(*r), (std::vector<std::string>{"a", "empty", "x.txt"}));
    EXPECT_TRUE(entry(*r, "a")->is_directory);
    EXPECT_TRUE(entry(*r, "empty")->is_directory);
    EXPECT_FALSE(entry(*r, "x.txt")->is_directory);

    const auto a = m.list_directory("/r/a");
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(names(*a), (std::vector<std::string>{"b", "top.txt"}));
    EXPECT_TRUE(entry(*a, "b")->is_directory);
    EXPECT_FALSE(entry(*a, "top.txt")->is_directory);

    EXPECT_TRUE(m.directory_exists("/r/a/b"));
    const auto empty = m.list_directory("/r/empty");
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty->empty());
}

TEST(FileSystemMemory, ListingSortsByName) {
    MemoryFileSystem m;
    for (const char* name : {"zeta", "Alpha", "beta", ".dot", "_u"}) m.add_file(std::string("/d/") + name, "");
    const auto r = m.list_directory("/d");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(names(*r), (std::vector<std::string>{".dot", "Alpha", "_u", "beta", "zeta"}));
}

TEST(FileSystemMemory, ListingMissingOrFileFails) {
    MemoryFileSystem m;
    m.add_file("/r/f", "x");
    const auto missing = m.list_directory("/nope");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().kind, Error::Kind::System);
    EXPECT_TRUE(contains(missing.error().message, "/nope")) << missing.error().message;
    EXPECT_FALSE(m.list_directory("/r/f").ok());
}

TEST(FileSystemMemory, UsableThroughTheInterface) {
    MemoryFileSystem m;
    m.add_file("/w/.small/plan.small.yml", "tasks: []\n");
    const FileSystem& fs = m;
    EXPECT_TRUE(fs.directory_exists("/w/.small"));
    EXPECT_TRUE(fs.file_exists("/w/.small/plan.small.yml"));
    EXPECT_EQ(*fs.read_file("/w/.small/plan.small.yml"), "tasks: []\n");
}

constexpr std::int64_t kSec = 1'000'000'000;

small::FileStamp stamp_at(std::int64_t ctime_ns, std::int64_t mtime_ns) {
    return small::FileStamp{100, mtime_ns, ctime_ns, small::FileIdentity{7, 42}};
}

TEST(FileStampRule, AnOldStampThatStillHoldsProvesTheFileUnchanged) {
    const small::FileStamp recorded = stamp_at(50 * kSec + 123, 50 * kSec + 123);
    EXPECT_TRUE(small::stamp_proves_unchanged(recorded, 60 * kSec, recorded, 61 * kSec));
}

TEST(FileStampRule, AnyDifferenceInSizeTimesOrIdentityProvesNothing) {
    const small::FileStamp recorded = stamp_at(50 * kSec + 123, 50 * kSec + 123);
    small::FileStamp other = recorded;
    other.size = 101;
    EXPECT_FALSE(small::stamp_proves_unchanged(recorded, 60 * kSec, other, 61 * kSec));
    other = recorded;
    other.ctime_ns += 1;  // a write, or a touch that put mtime back
    EXPECT_FALSE(small::stamp_proves_unchanged(recorded, 60 * kSec, other, 61 * kSec));
    other = recorded;
    other.identity.inode = 43;  // replaced by a rename
    EXPECT_FALSE(small::stamp_proves_unchanged(recorded, 60 * kSec, other, 61 * kSec));
}

TEST(FileStampRule, AStampRecordedWithinTheGranularityOfItsChangeIsRacy) {
    // Nanosecond times: 100 ms of granularity.
    const small::FileStamp fine = stamp_at(50 * kSec + 123, 50 * kSec + 123);
    EXPECT_FALSE(small::stamp_proves_unchanged(fine, 50 * kSec + 123 + 50'000'000, fine, 70 * kSec));
    EXPECT_TRUE(small::stamp_proves_unchanged(fine, 50 * kSec + 123 + 100'000'000, fine, 70 * kSec));
    // Whole-second times (FAT, HFS+): 2 s.
    const small::FileStamp coarse = stamp_at(50 * kSec, 50 * kSec);
    EXPECT_FALSE(small::stamp_proves_unchanged(coarse, 51 * kSec + 900'000'000, coarse, 70 * kSec));
    EXPECT_TRUE(small::stamp_proves_unchanged(coarse, 52 * kSec, coarse, 70 * kSec));
    // An mtime set into the future is racy too.
    const small::FileStamp ahead = stamp_at(50 * kSec + 123, 90 * kSec + 123);
    EXPECT_FALSE(small::stamp_proves_unchanged(ahead, 60 * kSec, ahead, 61 * kSec));
}

TEST(FileStampRule, AClockSetBackProvesNothing) {
    const small::FileStamp recorded = stamp_at(50 * kSec + 123, 50 * kSec + 123);
    EXPECT_FALSE(small::stamp_proves_unchanged(recorded, 60 * kSec, recorded, 59 * kSec));
}

TEST(FileStampRule, OnlyRegularFilesHaveAStamp) {
    small::FileInfo info;
    info.kind = small::FileKind::Symlink;
    EXPECT_FALSE(small::stamp_of(info));
    info.kind = small::FileKind::Regular;
    info.size = 5;
    info.mtime_sec = 3;
    info.mtime_nsec = 4;
    info.ctime_sec = 6;
    info.ctime_nsec = 7;
    ASSERT_TRUE(small::stamp_of(info));
    EXPECT_EQ(small::stamp_of(info)->mtime_ns, 3 * kSec + 4);
    EXPECT_EQ(small::stamp_of(info)->ctime_ns, 6 * kSec + 7);
}

TEST_F(FileSystemReal, TheChangeClockIsTheOneFileTimesComeFrom) {
    const std::optional<std::int64_t> before = real_.change_clock_ns();
    ASSERT_TRUE(before);
    write("clocked", "x");
    const std::optional<small::FileInfo> info = real_.stat(path("clocked"));
    ASSERT_TRUE(info);
    // A change made after the clock was read is never stamped earlier.
    EXPECT_GE(small::stamp_of(*info)->ctime_ns, *before);
    EXPECT_GE(small::stamp_of(*info)->mtime_ns, *before);
}

// The test folder is on a local filesystem (a temp dir); a missing path
// proves nothing.
TEST_F(FileSystemReal, ALocalFolderTakesItsTimesFromTheChangeClock) {
    write("here", "x");
    EXPECT_TRUE(real_.times_from_change_clock(path("here")));
    EXPECT_FALSE(real_.times_from_change_clock(path("nowhere/at/all")));
}

}  // namespace
}  // namespace small
