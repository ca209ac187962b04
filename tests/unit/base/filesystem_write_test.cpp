// The write half of the door, one contract for both FileSystems: every test
// runs against the real disk (in a temporary folder) and the in-memory fake,
// so a unit test that writes through the fake learns what the disk would do.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <string>

#include "support/fixtures.hpp"
#include "small/base/filesystem.hpp"

namespace small {
namespace {

using testing::TempDir;

// One FileSystem under test and a root folder in it.
class Disk {
public:
    virtual ~Disk() = default;
    virtual const FileSystem& fs() const = 0;
    virtual std::string root() const = 0;
    // What a user (not small) puts there.
    virtual void make_link(const std::string& path) = 0;
    virtual void make_read_only(const std::string& path) = 0;
    std::string at(const std::string& rel) const { return root() + "/" + rel; }
    FileWrite write(const std::string& rel, bool make_parents = false) const {
        return FileWrite{.root = root(), .path = at(rel), .staging_dir = at("tmp"), .make_parents = make_parents};
    }
};

class RealDisk final : public Disk {
public:
    const FileSystem& fs() const override { return fs_; }
    std::string root() const override { return dir_.root(); }
    void make_link(const std::string& path) override { ASSERT_EQ(::symlink("/nowhere", path.c_str()), 0); }
    void make_read_only(const std::string& path) override { ASSERT_EQ(::chmod(path.c_str(), 0444), 0); }

private:
    RealFileSystem fs_;
    TempDir dir_;
};

class FakeDisk final : public Disk {
public:
    FakeDisk() { fs_.add_directory("/root"); }
    const FileSystem& fs() const override { return fs_; }
    std::string root() const override { return "/root"; }
    void make_link(const std::string& path) override { fs_.add_symlink(path); }
    void make_read_only(const std::string& path) override { fs_.set_read_only(path); }

private:
    MemoryFileSystem fs_;
};

class FileSystemWrite : public ::testing::TestWithParam<bool> {
protected:
    FileSystemWrite() {
        if (GetParam()) disk_ = std::make_unique<RealDisk>();
        else disk_ = std::make_unique<FakeDisk>();
    }
    Disk& disk() { return *disk_; }
    const FileSystem& fs() { return disk_->fs(); }
    std::string text(const std::string& rel) {
        Result<std::string> r = fs().read_file(disk().at(rel));
        return r ? *r : "<" + r.error().message + ">";
    }
    // Root may write a read-only file: on the real disk, `body` runs as a user
    // the permission bits apply to (as root, user nobody: other_user.hpp).
    void as_unprivileged_on_disk(const std::function<void()>& body) {
        if (GetParam()) testing::as_unprivileged(disk().root(), body);
        else body();
    }

private:
    std::unique_ptr<Disk> disk_;
};

TEST_P(FileSystemWrite, ReplaceCreatesAndOverwrites) {
    ASSERT_TRUE(fs().replace_file(disk().write("a.txt"), "one\n"));
    EXPECT_EQ(text("a.txt"), "one\n");
    const std::optional<std::string> first = fs().version_stamp(disk().at("a.txt"));
    ASSERT_TRUE(fs().replace_file(disk().write("a.txt"), "two\n"));
    EXPECT_EQ(text("a.txt"), "two\n");
    ASSERT_TRUE(first.has_value());
    EXPECT_NE(fs().version_stamp(disk().at("a.txt")), first) << "a write gives a new version";
}

TEST_P(FileSystemWrite, AStagedWriteIsInvisibleUntilPublished) {
    ASSERT_TRUE(fs().replace_file(disk().write("a.txt"), "old\n"));
    {
        Result<std::unique_ptr<StagedWrite>> staged = fs().stage_file(disk().write("a.txt"), "new\n");
        ASSERT_TRUE(staged) << staged.error().describe();
        EXPECT_EQ(text("a.txt"), "old\n");
        ASSERT_TRUE((*staged)->publish());
        EXPECT_FALSE((*staged)->publish()) << "published once";
    }
    EXPECT_EQ(text("a.txt"), "new\n");
    { ASSERT_TRUE(fs().stage_file(disk().write("a.txt"), "dropped\n")); }
    EXPECT_EQ(text("a.txt"), "new\n") << "an unpublished stage changes nothing";
    Result<std::vector<DirEntry>> staging = fs().list_directory(disk().at("tmp"));
    EXPECT_TRUE(!staging || staging->empty()) << "and leaves nothing behind";
}

TEST_P(FileSystemWrite, MissingFoldersAreMadeOnlyWhenAsked) {
    const Status refused = fs().replace_file(disk().write("d/e/a.txt"), "x");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().kind, Error::Kind::System);
    EXPECT_FALSE(fs().file_exists(disk().at("d/e/a.txt")));
    ASSERT_TRUE(fs().replace_file(disk().write("d/e/a.txt", true), "x"));
    EXPECT_EQ(text("d/e/a.txt"), "x");
    ASSERT_TRUE(fs().make_directories(disk().root(), disk().at("f/g")));
    EXPECT_TRUE(fs().directory_exists(disk().at("f/g")));
}

TEST_P(FileSystemWrite, NoLinkBelowTheRootIsFollowed) {
    disk().make_link(disk().at("link"));
    for (const Status& s : {fs().replace_file(disk().write("link"), "x"),
                            fs().replace_file(disk().write("link/a.txt", true), "x"),
                            fs().make_directories(disk().root(), disk().at("link/sub")),
                            fs().remove_file(disk().root(), disk().at("link")),
                            fs().check_replaceable(disk().root(), disk().at("link"))}) {
        ASSERT_FALSE(s);
        EXPECT_EQ(s.error().kind, Error::Kind::Invalid) << s.error().message;
        EXPECT_NE(s.error().message.find("symbolic link"), std::string::npos) << s.error().message;
    }
    EXPECT_TRUE(fs().is_symlink(disk().at("link"))) << "the link is left as it was";
}

TEST_P(FileSystemWrite, AReadOnlyFileIsNeverReplaced) {
    ASSERT_TRUE(fs().replace_file(disk().write("ro.txt"), "keep\n"));
    disk().make_read_only(disk().at("ro.txt"));
    as_unprivileged_on_disk([&] {
        const Status s = fs().replace_file(disk().write("ro.txt"), "lost\n");
        ASSERT_FALSE(s);
        EXPECT_EQ(s.error().kind, Error::Kind::System);
        EXPECT_NE(s.error().message.find("read-only"), std::string::npos) << s.error().message;
        EXPECT_FALSE(fs().check_replaceable(disk().root(), disk().at("ro.txt")));
    });
    EXPECT_EQ(text("ro.txt"), "keep\n");
}

TEST_P(FileSystemWrite, ARemovalNeedsOnlyTheFolder) {
    // unlink(2): a read-only file in a writable folder is removed (journals
    // and leftovers of another user's crashed command must not block recovery).
    ASSERT_TRUE(fs().replace_file(disk().write("ro.txt"), "x"));
    disk().make_read_only(disk().at("ro.txt"));
    ASSERT_TRUE(fs().remove_file(disk().root(), disk().at("ro.txt")));
    EXPECT_FALSE(fs().file_exists(disk().at("ro.txt")));
}

TEST_P(FileSystemWrite, AReadOnlyFileIsNotCut) {
    ASSERT_TRUE(fs().replace_file(disk().write("ro.txt"), "keep\n"));
    disk().make_read_only(disk().at("ro.txt"));
    as_unprivileged_on_disk([&] {
        EXPECT_FALSE(fs().truncate_file(disk().at("ro.txt"), 0));
        EXPECT_FALSE(fs().append_file(disk().at("ro.txt"), "more", 5));
    });
    EXPECT_EQ(text("ro.txt"), "keep\n");
}

TEST_P(FileSystemWrite, AppendChecksTheExpectedSize) {
    ASSERT_TRUE(fs().replace_file(disk().write("log"), "a\n"));
    ASSERT_TRUE(fs().append_file(disk().at("log"), "b\n", 2));
    const Status stale = fs().append_file(disk().at("log"), "c\n", 2);
    ASSERT_FALSE(stale);
    EXPECT_EQ(stale.error().kind, Error::Kind::Invalid);
    EXPECT_NE(stale.error().message.find("changed since it was read"), std::string::npos);
    EXPECT_EQ(text("log"), "a\nb\n");
    EXPECT_FALSE(fs().append_file(disk().at("absent"), "x", 0)) << "an append never creates";
    ASSERT_TRUE(fs().truncate_file(disk().at("log"), 2));
    EXPECT_EQ(text("log"), "a\n");
}

TEST_P(FileSystemWrite, IdentityOutlivesAppendsNotReplaces) {
    ASSERT_TRUE(fs().replace_file(disk().write("log"), "a\n"));
    const std::optional<FileInfo> before = fs().stat(disk().at("log"));
    ASSERT_TRUE(before);
    ASSERT_TRUE(fs().append_file(disk().at("log"), "b\n", 2));
    const std::optional<FileInfo> appended = fs().stat(disk().at("log"));
    ASSERT_TRUE(appended);
    EXPECT_EQ(appended->identity, before->identity);
    EXPECT_EQ(appended->size, 4u);
    ASSERT_TRUE(fs().replace_file(disk().write("log"), "c\nd\n"));
    const std::optional<FileInfo> replaced = fs().stat(disk().at("log"));
    ASSERT_TRUE(replaced);
    EXPECT_FALSE(replaced->identity == before->identity);
    Result<bool> stale = fs().truncate_file(disk().at("log"), 2, before->identity);
    ASSERT_TRUE(stale);
    EXPECT_FALSE(*stale) << "another file now: nothing is cut";
    EXPECT_EQ(text("log"), "c\nd\n");
    Result<bool> cut = fs().truncate_file(disk().at("log"), 2, replaced->identity);
    ASSERT_TRUE(cut);
    EXPECT_TRUE(*cut);
    EXPECT_EQ(text("log"), "c\n");
}

TEST_P(FileSystemWrite, RemovalsAreQuietAboutWhatIsGone) {
    ASSERT_TRUE(fs().replace_file(disk().write("d/a.txt", true), "x"));
    EXPECT_TRUE(fs().remove_empty_directory(disk().root(), disk().at("d")));
    EXPECT_TRUE(fs().directory_exists(disk().at("d"))) << "a folder that holds something stays";
    ASSERT_TRUE(fs().remove_file(disk().root(), disk().at("d/a.txt")));
    EXPECT_FALSE(fs().file_exists(disk().at("d/a.txt")));
    EXPECT_TRUE(fs().remove_file(disk().root(), disk().at("d/a.txt"))) << "removing what is gone";
    EXPECT_TRUE(fs().remove_file(disk().root(), disk().at("nowhere/a.txt")));
    ASSERT_TRUE(fs().remove_empty_directory(disk().root(), disk().at("d")));
    EXPECT_FALSE(fs().directory_exists(disk().at("d")));
}

TEST_P(FileSystemWrite, RenameNeverReplaces) {
    ASSERT_TRUE(fs().replace_file(disk().write("a"), "a"));
    ASSERT_TRUE(fs().replace_file(disk().write("b"), "b"));
    const Status clash = fs().rename_no_replace(disk().at("a"), disk().at("b"));
    ASSERT_FALSE(clash);
    EXPECT_EQ(text("b"), "b");
    ASSERT_TRUE(fs().rename_no_replace(disk().at("a"), disk().at("c")));
    EXPECT_EQ(text("c"), "a");
    EXPECT_FALSE(fs().file_exists(disk().at("a")));
    ASSERT_TRUE(fs().replace_file(disk().write("d/x", true), "x"));
    ASSERT_TRUE(fs().rename_no_replace(disk().at("d"), disk().at("e"))) << "a folder moves whole";
    EXPECT_EQ(text("e/x"), "x");
}

TEST_P(FileSystemWrite, OneLockHolderAtATime) {
    const std::string lock = disk().at("lock");
    Result<LockAttempt> first = fs().try_lock_file(lock, "pid: 1\n");
    ASSERT_TRUE(first) << first.error().describe();
    ASSERT_TRUE(first->lock);
    Result<LockAttempt> second = fs().try_lock_file(lock, "pid: 2\n");
    ASSERT_TRUE(second);
    EXPECT_FALSE(second->lock);
    EXPECT_EQ(second->holder_record, "pid: 1\n") << "the loser learns who holds it";
    first->lock.reset();
    Result<LockAttempt> third = fs().try_lock_file(lock, "pid: 3\n");
    ASSERT_TRUE(third);
    EXPECT_TRUE(third->lock) << "released with its holder";
}

// Issue 39: a file of any length is streamed through one buffer (a long
// log is archived, snapshotted and verified without being held).
std::string bytes_of(std::size_t n) {
    std::string out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<char>('a' + i % 23));
    return out;
}

TEST_P(FileSystemWrite, AStreamHandsOverTheWholeFileInPieces) {
    const std::string bytes = bytes_of(2 * kStreamPieceBytes + 7);
    ASSERT_TRUE(fs().replace_file(disk().write("log.yml"), bytes));
    std::string seen;
    std::size_t pieces = 0;
    Result<std::uint64_t> size = fs().stream_file_no_follow(disk().root(), "log.yml", [&](std::string_view piece) {
        EXPECT_LE(piece.size(), kStreamPieceBytes);
        seen += piece;
        ++pieces;
        return ok_status();
    });
    ASSERT_TRUE(size) << size.error().describe();
    EXPECT_EQ(*size, bytes.size());
    EXPECT_EQ(seen, bytes);
    EXPECT_GE(pieces, 3u);
}

TEST_P(FileSystemWrite, AStreamStopsAtItsReadersError) {
    ASSERT_TRUE(fs().replace_file(disk().write("log.yml"), bytes_of(kStreamPieceBytes + 1)));
    std::size_t pieces = 0;
    Result<std::uint64_t> r = fs().stream_file_no_follow(disk().root(), "log.yml", [&](std::string_view) {
        ++pieces;
        return Status(Error::system("disk full"));
    });
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "disk full");
    EXPECT_EQ(pieces, 1u);
}

// What a stream hands over is one version of the file: an append (or any
// write) while it is read is refused, never half seen.
TEST_P(FileSystemWrite, AFileThatChangesWhileStreamedIsRefused) {
    const std::string bytes = bytes_of(kStreamPieceBytes + 10);
    ASSERT_TRUE(fs().replace_file(disk().write("log.yml"), bytes));
    bool appended = false;
    Result<std::uint64_t> r = fs().stream_file_no_follow(disk().root(), "log.yml", [&](std::string_view) {
        if (!appended) appended = static_cast<bool>(fs().append_file(disk().at("log.yml"), "more\n", bytes.size()));
        return ok_status();
    });
    ASSERT_TRUE(appended);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, Error::Kind::System);
    EXPECT_NE(r.error().message.find("changed while it was read"), std::string::npos) << r.error().message;
}

TEST_P(FileSystemWrite, AStreamFollowsNoLink) {
    disk().make_link(disk().at("log.yml"));
    Result<std::uint64_t> r =
        fs().stream_file_no_follow(disk().root(), "log.yml", [](std::string_view) { return ok_status(); });
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_NE(r.error().message.find("symbolic link"), std::string::npos) << r.error().message;
}

TEST_P(FileSystemWrite, AStagedCopyIsTheSourceOnceItIsPublished) {
    const std::string bytes = bytes_of(kStreamPieceBytes + 3);
    ASSERT_TRUE(fs().replace_file(disk().write("log.yml"), bytes));
    ASSERT_TRUE(fs().replace_file(disk().write("copy.yml"), "old\n"));
    std::string taken;
    Result<std::unique_ptr<StagedWrite>> staged = fs().stage_copy(
        disk().write("copy.yml"), disk().root(), "log.yml", [&](std::string_view piece) { taken += piece; });
    ASSERT_TRUE(staged) << staged.error().describe();
    EXPECT_EQ(text("copy.yml"), "old\n") << "invisible until published";
    ASSERT_TRUE((*staged)->publish());
    EXPECT_EQ(text("copy.yml"), bytes);
    EXPECT_EQ(taken, bytes) << "the reader saw what was written";
}

TEST_P(FileSystemWrite, ACopyOfAFileThatChangesIsNeverStaged) {
    const std::string bytes = bytes_of(kStreamPieceBytes + 10);
    ASSERT_TRUE(fs().replace_file(disk().write("log.yml"), bytes));
    bool appended = false;
    Result<std::unique_ptr<StagedWrite>> staged =
        fs().stage_copy(disk().write("copy.yml"), disk().root(), "log.yml", [&](std::string_view) {
            if (!appended) appended = static_cast<bool>(fs().append_file(disk().at("log.yml"), "more\n", bytes.size()));
        });
    ASSERT_TRUE(appended);
    ASSERT_FALSE(staged);
    EXPECT_NE(staged.error().message.find("changed while it was read"), std::string::npos) << staged.error().message;
    EXPECT_FALSE(fs().file_exists(disk().at("copy.yml")));
    Result<std::vector<DirEntry>> staging = fs().list_directory(disk().at("tmp"));
    EXPECT_TRUE(!staging || staging->empty()) << "and leaves nothing behind";
}

// A streamed write (a log rewritten window by window) is the pieces its
// producer put, in order, seen only once published; a producer that fails
// stages nothing and leaves nothing behind.
TEST_P(FileSystemWrite, AStreamedWriteIsItsPiecesOnceItIsPublished) {
    ASSERT_TRUE(fs().replace_file(disk().write("log.yml"), "old\n"));
    const std::string piece = bytes_of(kStreamPieceBytes / 3);
    Result<std::unique_ptr<StagedWrite>> staged = fs().stage_stream(disk().write("log.yml"), [&](const PieceSink& put) {
        for (int i = 0; i < 4; ++i) {
            if (Status s = put(piece); !s) return s;
        }
        return put("end\n");
    });
    ASSERT_TRUE(staged) << staged.error().describe();
    EXPECT_EQ(text("log.yml"), "old\n") << "invisible until published";
    ASSERT_TRUE((*staged)->publish());
    EXPECT_EQ(text("log.yml"), piece + piece + piece + piece + "end\n");

    Result<std::unique_ptr<StagedWrite>> failed = fs().stage_stream(disk().write("log.yml"), [&](const PieceSink& put) {
        if (Status s = put(piece); !s) return s;
        return Status(Error::internal("the producer gave up"));
    });
    ASSERT_FALSE(failed);
    EXPECT_NE(failed.error().message.find("the producer gave up"), std::string::npos);
    EXPECT_EQ(text("log.yml"), piece + piece + piece + piece + "end\n");
    Result<std::vector<DirEntry>> staging = fs().list_directory(disk().at("tmp"));
    EXPECT_TRUE(!staging || staging->empty()) << "and leaves nothing behind";
}

INSTANTIATE_TEST_SUITE_P(BothDisks, FileSystemWrite, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "Real" : "Memory"; });

TEST(FileSystemWrite, AFileSystemThatCannotWriteSaysSo) {
    struct ReadOnlyFake final : FileSystem {
        Result<std::string> read_file(const std::string& p) const override { return Error::system("no " + p); }
        bool file_exists(const std::string&) const override { return false; }
        bool directory_exists(const std::string&) const override { return false; }
        Result<std::vector<DirEntry>> list_directory(const std::string&) const override {
            return std::vector<DirEntry>{};
        }
    } fs;
    const Status s = fs.replace_file(FileWrite{.root = "/r", .path = "/r/a", .staging_dir = "/r/t"}, "x");
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().kind, Error::Kind::Internal);
}

// The fake stands in for a disk larger than a test can build: whole reads
// refuse what is over its limit, as the disk refuses what is over
// kMaxFileBytes, while ranges, prefixes and streams read any size.
TEST(MemoryFileSystemLimit, OnlyWholeReadsAreBounded) {
    MemoryFileSystem fs;
    fs.add_file("/w/log.yml", std::string(100, 'x'));
    fs.set_max_read_bytes(64);
    EXPECT_EQ(fs.max_read_bytes(), 64u);
    Result<std::string> whole = fs.read_file("/w/log.yml");
    ASSERT_FALSE(whole);
    EXPECT_EQ(whole.error().kind, Error::Kind::Invalid);
    EXPECT_EQ(whole.error().message,
              "cannot read /w/log.yml: it is larger than 64 bytes, the most small reads from one file; shorten it");
    EXPECT_FALSE(fs.read_file_no_follow("/w", "log.yml"));
    ASSERT_TRUE(fs.stat("/w/log.yml"));
    EXPECT_EQ(fs.stat("/w/log.yml")->size, 100u);
    Result<FileRange> range = fs.read_range("/w/log.yml", 90, 64);
    ASSERT_TRUE(range);
    EXPECT_EQ(range->bytes, std::string(10, 'x'));
    EXPECT_EQ(range->file_size, 100u);
    std::string prefix;
    ASSERT_TRUE(fs.stream_prefix("/w/log.yml", 80, [&](std::string_view piece) { prefix += piece; }));
    EXPECT_EQ(prefix.size(), 80u);
    Result<std::uint64_t> streamed =
        fs.stream_file_no_follow("/w", "log.yml", [](std::string_view) { return ok_status(); });
    ASSERT_TRUE(streamed);
    EXPECT_EQ(*streamed, 100u);
    EXPECT_EQ(RealFileSystem().max_read_bytes(), kMaxFileBytes);
}

}  // namespace
}  // namespace small
