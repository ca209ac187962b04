// base/recording_filesystem: what a computation read, recorded on the real
// disk and proved unchanged (or not) later. The change clock is passed in,
// so racy and non-racy recordings are chosen, never waited for. Each change
// made after a recording moves what the stamp sees deterministically: the
// file's size, its inode (a rename over it) or a back-dated mtime.
#include "small/base/recording_filesystem.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"

namespace small {
namespace {

namespace stdfs = std::filesystem;
constexpr std::int64_t kSecond = 1'000'000'000;

class RecordingFileSystemTest : public ::testing::Test {
protected:
    void SetUp() override { testing::write_text(file_, "plan: 1\n"); }

    // A clock reading well after every stamp of the folder (a recording made
    // now is not racy), or right at `path`'s change (it is).
    std::int64_t later() const { return *disk_.change_clock_ns() + 10 * kSecond; }
    std::int64_t racy(const std::string& path) const {
        const FileInfo info = *disk_.stat(path);
        return info.ctime_sec * kSecond + info.ctime_nsec;
    }
    // Puts `path`'s mtime far in the past, so that any later change of it
    // (a write, an entry added) moves it.
    static void backdate(const std::string& path) {
        stdfs::last_write_time(path, stdfs::file_time_type::clock::now() - std::chrono::hours(24 * 365));
    }
    // Records what `read` asks of the recording view, with the change clock at `clock`.
    template <typename Read>
    RecordedInputs record(std::int64_t clock, const Read& read) {
        RecordingFileSystem recording(disk_, clock);
        read(static_cast<const FileSystem&>(recording));
        return recording.take();
    }

    RealFileSystem disk_;
    test_support::TempDir tmp_;
    const std::string file_ = tmp_.path("plan.yml");
};

TEST_F(RecordingFileSystemTest, BytesReadAreProvedUnchangedByTheirStamp) {
    const RecordedInputs in = record(later(), [&](const FileSystem& fs) { EXPECT_EQ(*fs.read_file(file_), "plan: 1\n"); });
    EXPECT_TRUE(in.provable);
    ASSERT_EQ(in.contents.count(file_), 1u);
    EXPECT_TRUE(still_the_same(disk_, in, later()));
    testing::write_text(file_, "plan: 12\n");  // a write moves the stamp
    EXPECT_FALSE(still_the_same(disk_, in, later()));
}

// A network filesystem's server stamps its times with its own clock: bytes
// read from it are never proved unchanged by this machine's clock.
TEST(RecordingFileSystem, BytesFromAFilesystemWithRemoteTimesAreNotProvable) {
    for (const bool remote : {false, true}) {
        MemoryFileSystem mem;
        mem.add_file("/a.yml", "x\n");
        mem.set_remote_times(remote);
        RecordingFileSystem recording(mem, std::int64_t{1});
        ASSERT_TRUE(static_cast<const FileSystem&>(recording).read_file("/a.yml"));
        EXPECT_EQ(recording.take().provable, !remote);
    }
}

TEST_F(RecordingFileSystemTest, EveryKindOfReadIsStamped) {
    const RecordedInputs in = record(later(), [&](const FileSystem& fs) {
        EXPECT_TRUE(fs.read_range(file_, 0, 4));
        EXPECT_TRUE(fs.stream_prefix(file_, 4, [](std::string_view) {}));
        EXPECT_TRUE(fs.read_file_no_follow(tmp_.root(), "plan.yml"));
        EXPECT_TRUE(fs.read_file_if_present(file_));
    });
    EXPECT_TRUE(in.provable);
    EXPECT_EQ(in.contents.size(), 1u) << "one file, one stamp";
    EXPECT_TRUE(still_the_same(disk_, in, later()));
    // Replaced by a rename (what every write of small does): a new inode.
    testing::write_text(tmp_.path("new.yml"), "plan: 1\n");
    stdfs::rename(tmp_.path("new.yml"), file_);
    EXPECT_FALSE(still_the_same(disk_, in, later()));
}

TEST_F(RecordingFileSystemTest, ARacyRecordingProvesNothing) {
    const RecordedInputs in = record(racy(file_), [&](const FileSystem& fs) { (void)fs.read_file(file_); });
    EXPECT_TRUE(in.provable);
    EXPECT_FALSE(still_the_same(disk_, in, later())) << "changed within the timestamps' granularity: unprovable";
}

TEST_F(RecordingFileSystemTest, AClockSetBackOrUnknownProvesNothing) {
    const std::int64_t clock = later();
    const RecordedInputs in = record(clock, [&](const FileSystem& fs) { (void)fs.read_file(file_); });
    EXPECT_TRUE(still_the_same(disk_, in, clock));
    EXPECT_FALSE(still_the_same(disk_, in, clock - kSecond));
    EXPECT_FALSE(still_the_same(disk_, in, std::nullopt));
    RecordingFileSystem no_clock(disk_, std::nullopt);
    (void)no_clock.read_file(file_);
    EXPECT_FALSE(still_the_same(disk_, no_clock.take(), clock));
}

TEST_F(RecordingFileSystemTest, AFolderListedIsStampedByItsEntries) {
    backdate(tmp_.root());
    const RecordedInputs in = record(later(), [&](const FileSystem& fs) { EXPECT_EQ(fs.list_directory(tmp_.root())->size(), 1u); });
    EXPECT_TRUE(in.provable);
    EXPECT_TRUE(still_the_same(disk_, in, later()));
    testing::write_text(tmp_.path("stray.txt"), "x");
    EXPECT_FALSE(still_the_same(disk_, in, later()));
}

TEST_F(RecordingFileSystemTest, AReadOfNothingHoldsUntilSomethingIsThere) {
    const std::string missing = tmp_.path("handoff.yml");
    const RecordedInputs in = record(later(), [&](const FileSystem& fs) { EXPECT_FALSE(fs.read_file(missing)); });
    EXPECT_TRUE(in.provable);
    EXPECT_TRUE(still_the_same(disk_, in, later()));
    testing::write_text(missing, "summary: x\n");
    EXPECT_FALSE(still_the_same(disk_, in, later()));
}

TEST_F(RecordingFileSystemTest, QuestionsAreAskedAgain) {
    const std::string dir = tmp_.path("sub");
    const RecordedInputs in = record(later(), [&](const FileSystem& fs) {
        EXPECT_FALSE(fs.directory_exists(dir));
        EXPECT_TRUE(fs.file_exists(file_));
        EXPECT_FALSE(fs.is_symlink(file_));
        EXPECT_TRUE(fs.stat(file_));
        EXPECT_TRUE(fs.version_stamp(file_));
    });
    EXPECT_TRUE(still_the_same(disk_, in, later()));
    EXPECT_TRUE(in.contents.empty()) << "no bytes read: nothing to stamp";
    stdfs::create_directory(dir);
    EXPECT_FALSE(still_the_same(disk_, in, later()));
    stdfs::remove(dir);
    EXPECT_TRUE(still_the_same(disk_, in, later())) << "the same answers again";
    testing::write_text(file_, "plan: 12\n");
    EXPECT_FALSE(still_the_same(disk_, in, later())) << "stat and the version stamp see the write";
}

TEST_F(RecordingFileSystemTest, ALinkReadThroughIsNotProvable) {
    const std::string link = tmp_.path("link.yml");
    stdfs::create_symlink(file_, link);
    const RecordedInputs in = record(later(), [&](const FileSystem& fs) { EXPECT_TRUE(fs.read_file(link)); });
    EXPECT_FALSE(in.provable) << "the link's own stamp says nothing of its target";
}

// A file that changes while it is read (before and after differ), or a
// question answered two ways: the recording cannot be trusted.
TEST_F(RecordingFileSystemTest, AChangeDuringTheComputationIsNotProvable) {
    MemoryFileSystem memory;
    memory.add_file("/ws/plan.yml", "a");
    {
        RecordingFileSystem recording(memory, later());
        EXPECT_FALSE(recording.file_exists("/ws/log.yml"));
        memory.add_file("/ws/log.yml", "b");
        EXPECT_TRUE(recording.file_exists("/ws/log.yml"));
        EXPECT_FALSE(recording.take().provable);
    }
    struct WriterDuringRead final : FileSystem {
        MemoryFileSystem& m;
        explicit WriterDuringRead(MemoryFileSystem& fs) : m(fs) {}
        Result<std::string> read_file(const std::string& path) const override {
            Result<std::string> bytes = m.read_file(path);
            m.add_file(path, "changed meanwhile");
            return bytes;
        }
        bool file_exists(const std::string& path) const override { return m.file_exists(path); }
        bool directory_exists(const std::string& path) const override { return m.directory_exists(path); }
        std::optional<FileInfo> stat(const std::string& path) const override { return m.stat(path); }
        Result<std::vector<DirEntry>> list_directory(const std::string& path) const override { return m.list_directory(path); }
    } writer(memory);
    RecordingFileSystem recording(writer, later());
    EXPECT_TRUE(recording.read_file("/ws/plan.yml"));
    EXPECT_FALSE(recording.take().provable);
}

TEST_F(RecordingFileSystemTest, WritesGoThroughAndMoveTheStampsOfWhatWasRead) {
    RecordingFileSystem recording(disk_, later());
    (void)recording.read_file(file_);
    ASSERT_TRUE(recording.replace_file(FileWrite{tmp_.root(), file_, tmp_.root()}, "plan: 2 written\n"));
    EXPECT_EQ(test_support::read_text(file_), "plan: 2 written\n");
    const RecordedInputs in = recording.take();
    EXPECT_TRUE(in.provable);
    EXPECT_FALSE(still_the_same(disk_, in, later())) << "what was read is no longer there";
}

}  // namespace
}  // namespace small
