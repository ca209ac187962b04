// The library against hostile files: FIFOs, devices, oversized files, a
// symlinked .small, targets a write would refuse, leftovers of a failed
// snapshot, and the one rule for the pinned run id.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <tuple>

#include <gtest/gtest.h>

#include "small/store/atomic_file.hpp"
#include "small/base/filesystem.hpp"
#include "small/model/replay_id.hpp"
#include "small/domain/run_state.hpp"
#include "small/store/run_store.hpp"
#include "small/model/workspace.hpp"
#include "small/store/workspace_change.hpp"
#include "small/doc/yaml.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using namespace small::testing;

namespace fs = std::filesystem;

void write(const std::string& path, const std::string& bytes) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
}

// ------------------------------------------------------------ read_file

TEST(ReadFileSafety, AFifoIsRefusedWithoutWaitingForAWriter) {
    TempWorkspace t;
    const std::string fifo = t.path("pipe");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    const auto start = std::chrono::steady_clock::now();
    Result<std::string> r = RealFileSystem().read_file(fifo);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));  // would block forever
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(r.error().message, fifo + ": it is a FIFO (named pipe), not a regular file"))
        << r.error().message;
}

TEST(ReadFileSafety, ADeviceIsRefusedInsteadOfReadForever) {
    Result<std::string> r = RealFileSystem().read_file("/dev/zero");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.error().message, "/dev/zero: it is a character device")) << r.error().message;
}

TEST(ReadFileSafety, AFileOverTheLimitIsRefusedUnread) {
    TempWorkspace t;
    const std::string big = t.path("big.yml");
    const int fd = ::open(big.c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(kMaxFileBytes + 1)), 0);  // sparse: costs no disk
    ::close(fd);
    Result<std::string> r = RealFileSystem().read_file(big);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(r.error().message, "larger than 256 MiB")) << r.error().message;
    // Exactly at the limit is still read.
    ASSERT_EQ(::truncate(big.c_str(), static_cast<off_t>(kMaxFileBytes)), 0);
    Result<std::string> at_limit = RealFileSystem().read_file(big);
    ASSERT_TRUE(at_limit.ok()) << at_limit.error().describe();
    EXPECT_EQ(at_limit->size(), kMaxFileBytes);
}

TEST(ReadFileSafety, SymlinksAreReportedAsSuch) {
    TempWorkspace t;
    write(t.path("file"), "x");
    fs::create_symlink(t.path("file"), t.path("to-file"));
    fs::create_symlink(t.path("nowhere"), t.path("dangling"));
    const RealFileSystem real;
    EXPECT_TRUE(real.is_symlink(t.path("to-file")));
    EXPECT_TRUE(real.is_symlink(t.path("dangling")));
    EXPECT_FALSE(real.is_symlink(t.path("file")));
    EXPECT_FALSE(real.is_symlink(t.path("absent")));
}

// Issue 24 (requirement 4): reads that must not be redirected refuse a link
// as the file or as its folder, in the open itself.
TEST(ReadFileSafety, NoFollowReadsRefuseALinkedFileOrFolder) {
    TempWorkspace t;
    write(t.path("dir/file"), "inside");
    write(t.path("outside/file"), "outside");
    fs::create_symlink(t.path("outside/file"), t.path("dir/link"));
    fs::create_directory_symlink(t.path("outside"), t.path("linked-dir"));
    const RealFileSystem real;
    MemoryFileSystem fake;
    fake.add_file(t.path("dir/file"), "inside");
    fake.add_symlink(t.path("dir/link"));
    fake.add_symlink(t.path("linked-dir"));
    for (const FileSystem* fs : {static_cast<const FileSystem*>(&real), static_cast<const FileSystem*>(&fake)}) {
        Result<std::string> ok = fs->read_file_no_follow(t.path("dir"), "file");
        ASSERT_TRUE(ok.ok()) << ok.error().describe();
        EXPECT_EQ(*ok, "inside");
        Result<FileRange> range = fs->read_range_no_follow(t.path("dir"), "file", 2, 3);
        ASSERT_TRUE(range.ok()) << range.error().describe();
        EXPECT_EQ(range->bytes, "sid");
        EXPECT_EQ(range->file_size, 6u);
        for (const auto& [dir, name, link] : {std::tuple{t.path("dir"), "link", t.path("dir/link")},
                                              std::tuple{t.path("linked-dir"), "file", t.path("linked-dir")}}) {
            Result<std::string> whole = fs->read_file_no_follow(dir, name);
            ASSERT_FALSE(whole.ok());
            EXPECT_EQ(whole.error().kind, Error::Kind::Invalid);
            EXPECT_TRUE(contains(whole.error().message, link + ": it is a symbolic link")) << whole.error().message;
            EXPECT_FALSE(fs->read_range_no_follow(dir, name, 0, 10).ok());
        }
    }
    EXPECT_FALSE(real.read_file_no_follow(t.path("dir"), "absent").ok());
    EXPECT_FALSE(real.read_file_no_follow(t.path("dir"), "../outside/file").ok()) << "one plain name only";
}

// ------------------------------------------------------------ a symlinked .small

TEST(LinkedSmallDir, DiscoveryStopsAtADanglingLink) {
    MemoryFileSystem fs;
    fs.add_directory("/home/.small");  // a parent's workspace
    fs.add_symlink("/home/proj/.small");
    const WorkspacePaths ws = locate_workspace(fs, std::nullopt, "/home/proj/src");
    EXPECT_EQ(ws.root, "/home/proj");  // not /home: writes must not land there
}

TEST(LinkedSmallDir, BeginMutationRefusesItBeforeAnythingElse) {
    MemoryFileSystem fs;
    fs.add_symlink("/w/.small");
    WorkspacePaths ws;
    ws.root = "/w";
    ws.small_dir = "/w/.small";
    Result<MutationSession> s = begin_mutation(fs, ws, MutationRequest{});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, Error::Kind::Invalid);  // a refusal (exit 1), not "missing" (exit 2)
    EXPECT_TRUE(contains(s.error().message, "refusing to write through /w/.small: it is a symbolic link"))
        << s.error().message;
}

// ------------------------------------------------------------ check_replaceable

TEST(CheckReplaceable, AcceptsWhatAWriteWouldAndRefusesTheRestWithoutWriting) {
    TempWorkspace t;
    const WorkspacePaths& ws = t.ws();
    write(ws.path_of("plan.small.yml"), "a: 1\n");
    EXPECT_TRUE(check_replaceable(real_fs, ws, ws.path_of("plan.small.yml")).ok());
    EXPECT_TRUE(check_replaceable(real_fs, ws, ws.path_of("new.small.yml")).ok());               // absent: fine
    EXPECT_TRUE(check_replaceable(real_fs, ws, ws.root + "/.small-runs/x/plan.small.yml").ok());  // folders created later
    EXPECT_FALSE(fs::exists(ws.root + "/.small-runs"));                                  // ... but not by the check

    fs::create_symlink(ws.path_of("plan.small.yml"), ws.path_of("link.small.yml"));
    const Status link = check_replaceable(real_fs, ws, ws.path_of("link.small.yml"));
    ASSERT_FALSE(link.ok());
    EXPECT_TRUE(contains(link.error().message, "symbolic link")) << link.error().message;

    fs::create_directory_symlink(t.path("elsewhere"), ws.root + "/.small-runs");
    EXPECT_FALSE(check_replaceable(real_fs, ws, ws.root + "/.small-runs/x/plan.small.yml").ok());
    EXPECT_FALSE(check_replaceable(real_fs, ws, ws.root + "/README.md").ok());  // outside the D7 list
}

// ------------------------------------------------------------ the run store

TEST(RunStoreCleanup, AnUnusedSnapshotIsRemovedWithTheFolderItCreated) {
    TempWorkspace t;
    const WorkspacePaths& ws = t.ws();
    write(ws.path_of("intent.small.yml"), "small_version: \"1.0.0\"\n");
    const RealFileSystem real;
    SnapshotMade made;
    Result<std::string> dir = snapshot_run(real, ws, std::string(64, 'a'), &made);
    ASSERT_TRUE(dir.ok()) << dir.error().describe();
    EXPECT_EQ(made.dir, *dir);
    EXPECT_TRUE(made.runs_created);
    discard_unused_snapshot(RealFileSystem(), ws, made);
    EXPECT_FALSE(fs::exists(ws.root + "/.small-runs"));

    // A reused snapshot is not this command's to remove.
    Result<std::string> again = snapshot_run(real, ws, std::string(64, 'a'));
    ASSERT_TRUE(again.ok());
    Result<std::string> reused = snapshot_run(real, ws, std::string(64, 'a'), &made);
    ASSERT_TRUE(reused.ok());
    EXPECT_EQ(*reused, *again);
    EXPECT_TRUE(made.dir.empty());
    discard_unused_snapshot(RealFileSystem(), ws, made);
    EXPECT_TRUE(fs::is_directory(*again));
}

TEST(RunStoreCleanup, ASnapshotIsKeptWhileAChangeIsJournaled) {
    TempWorkspace t;
    const WorkspacePaths& ws = t.ws();
    write(ws.path_of("plan.small.yml"), "tasks: []\n");
    SnapshotMade made;
    ASSERT_TRUE(snapshot_run(RealFileSystem(), ws, std::string(64, 'b'), &made).ok());
    write(ws.root + "/" + kChangeJournalName, "pending");  // its roll-forward replaces the plan
    discard_unused_snapshot(RealFileSystem(), ws, made);
    EXPECT_TRUE(fs::is_directory(made.dir));
}

TEST(RunStoreCleanup, AFailedSnapshotLeavesNoPartialFolder) {
    TempWorkspace t;
    const WorkspacePaths& ws = t.ws();
    write(ws.path_of("plan.small.yml"), "tasks: []\n");
    // A file where the snapshot folder goes: the final rename fails.
    const std::string key(64, 'c');
    write(ws.root + "/.small-runs/" + key, "in the way\n");
    Result<std::string> r = snapshot_run(RealFileSystem(), ws, key);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.error().message, "cannot move")) << r.error().message;
    EXPECT_FALSE(fs::exists(ws.root + "/.small-runs/." + key + ".partial"));
    EXPECT_TRUE(fs::is_regular_file(ws.root + "/.small-runs/" + key));  // not ours: kept
}

// ------------------------------------------------------------ replay ids name their file

TEST(ReplayIdErrors, ANonFiniteNumberIsReportedAtItsFileLineAndColumn) {
    Result<Document> intent = parse_yaml("owner: human\nx: .inf\n", "intent");
    Result<Document> plan = parse_yaml("tasks: []\n", "plan");
    ASSERT_TRUE(intent.ok() && plan.ok());
    WorkspacePaths ws;
    ws.root = "/w";
    ws.small_dir = "/w/.small";
    Result<std::string> id = compute_replay_id(intent->root(), plan->root(), NodeRef(), manifest_files(ws));
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(id.error().describe(),
              ".small/intent.small.yml:2:4: number '.inf' cannot be represented in canonical JSON (not finite)");
    EXPECT_FALSE(id.error().hint.empty());
    // Without file names the member is named, as before.
    Result<std::string> bare = compute_replay_id(intent->root(), plan->root(), NodeRef());
    ASSERT_FALSE(bare.ok());
    EXPECT_EQ(bare.error().message, "intent: number '.inf' cannot be represented in canonical JSON (not finite)");
}

}  // namespace
}  // namespace small
