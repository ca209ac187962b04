// write_file_atomic / FileSystem::append_file on a real disk: contents, modes,
// refusals, full disks (RLIMIT_FSIZE in a forked child) and SIGKILL at
// random instants.
#include "small/store/atomic_file.hpp"

#include <gtest/gtest.h>

#include "support/fixtures.hpp"
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace small {
namespace {

using namespace small::testing;
using test_support::ChildOutcome;
using test_support::run_in_child;


namespace fs = std::filesystem;

std::vector<std::string> names_in(const std::string& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

mode_t permissions_of(const std::string& path) {
    struct stat st {};
    ::lstat(path.c_str(), &st);
    return st.st_mode & 07777;
}

// In a child: a disk that is "full" beyond `limit` bytes per file, with
// EFBIG instead of the default SIGXFSZ death.
void limit_file_size(rlim_t limit) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit rl{limit, limit};
    ::setrlimit(RLIMIT_FSIZE, &rl);
}

TEST(AtomicFile, CreatesAndReplacesContent) {
    TempWorkspace t;
    const std::string target = t.path(".small/plan.small.yml");
    ASSERT_TRUE(write_file_atomic(real_fs, t.ws(), target, "first\n"));
    EXPECT_EQ(read_text(target), "first\n");
    ASSERT_TRUE(write_file_atomic(real_fs, t.ws(), target, "second, longer\n"));
    EXPECT_EQ(read_text(target), "second, longer\n");
    ASSERT_TRUE(write_file_atomic(real_fs, t.ws(), target, ""));
    EXPECT_EQ(read_text(target), "");

    EXPECT_EQ(names_in(t.path(".small")), std::vector<std::string>{"plan.small.yml"});
    EXPECT_TRUE(names_in(t.path(".small-cache/tmp")).empty());
}

// stage_file_atomic + publish: nothing is in place before publish; a staged
// file never published leaves nothing behind; the same path rules apply.
TEST(AtomicFile, StagedFileAppearsOnlyWhenPublished) {
    TempWorkspace t;
    const std::string target = t.path(".small/plan.small.yml");
    write_text(target, "old\n");
    {
        Result<StagedFile> staged = stage_file_atomic(real_fs, t.ws(), target, "new\n");
        ASSERT_TRUE(staged) << staged.error().describe();
        EXPECT_EQ(read_text(target), "old\n");
        EXPECT_EQ(names_in(t.path(".small-cache/tmp")).size(), 1u) << "the bytes are staged";
        ASSERT_TRUE((*staged)->publish());
        EXPECT_EQ(read_text(target), "new\n");
        EXPECT_FALSE((*staged)->publish()) << "published once";
    }
    {
        Result<StagedFile> dropped = stage_file_atomic(real_fs, t.ws(), target, "never\n");
        ASSERT_TRUE(dropped);
    }
    EXPECT_EQ(read_text(target), "new\n");
    EXPECT_TRUE(names_in(t.path(".small-cache/tmp")).empty()) << "an unpublished stage is removed";
    std::filesystem::create_symlink(target, t.path(".small/link.yml"));
    EXPECT_FALSE(stage_file_atomic(real_fs, t.ws(), t.path(".small/link.yml"), "x\n"));
    EXPECT_FALSE(stage_file_atomic(real_fs, t.ws(), t.path("outside.txt"), "x\n"));
    EXPECT_TRUE(names_in(t.path(".small-cache/tmp")).empty());
}

// remove_file: the file only; the workspace's folders stay even when emptied
// (an agent settings file's folder goes: tests/unit/ops/hooks_test.cpp).
TEST(AtomicFile, RemoveFileLeavesTheWorkspacesFolders) {
    TempWorkspace t;
    ASSERT_TRUE(ensure_directory(real_fs, t.ws(), t.path(".small-cache/drafts")));
    write_text(t.path(".small-cache/drafts/a.yml"), "a\n");
    write_text(t.path(".small-cache/drafts/b.yml"), "b\n");
    ASSERT_TRUE(remove_file(real_fs, t.ws(), t.path(".small-cache/drafts/a.yml"), WriteScope::Workspace));
    EXPECT_TRUE(std::filesystem::exists(t.path(".small-cache/drafts"))) << "b.yml is still in it";
    ASSERT_TRUE(remove_file(real_fs, t.ws(), t.path(".small-cache/drafts/b.yml"), WriteScope::Workspace));
    EXPECT_FALSE(std::filesystem::exists(t.path(".small-cache/drafts/b.yml")));
    EXPECT_TRUE(std::filesystem::is_directory(t.path(".small-cache/drafts")));
    ASSERT_TRUE(remove_file(real_fs, t.ws(), t.path(".small-cache/drafts/b.yml"), WriteScope::Workspace)) << "missing: nothing";
    ASSERT_TRUE(remove_file(real_fs, t.ws(), t.path(".small-cache/gone/x.yml"), WriteScope::Workspace)) << "no folder: nothing";
    write_text(t.path(".small/plan.small.yml"), "x\n");
    ASSERT_TRUE(remove_file(real_fs, t.ws(), t.path(".small/plan.small.yml"), WriteScope::Workspace));
    EXPECT_TRUE(std::filesystem::is_directory(t.ws().small_dir)) << ".small/ stays, even empty";
    write_text(t.path("AGENTS.md"), "x\n");
    ASSERT_TRUE(remove_file(real_fs, t.ws(), t.path("AGENTS.md"), WriteScope::Workspace));
    EXPECT_TRUE(std::filesystem::is_directory(t.ws().root));
    EXPECT_FALSE(remove_file(real_fs, t.ws(), t.path("../outside.txt"), WriteScope::Workspace));
}

// Assigning over a staged file that was never published removes its temporary file.
TEST(AtomicFile, AStagedFileAssignedOverLeavesNoTemporaryFile) {
    TempWorkspace t;
    const std::string target = t.path(".small/plan.small.yml");
    Result<StagedFile> first = stage_file_atomic(real_fs, t.ws(), target, "one\n");
    Result<StagedFile> second = stage_file_atomic(real_fs, t.ws(), target, "two\n");
    ASSERT_TRUE(first && second);
    EXPECT_EQ(names_in(t.path(".small-cache/tmp")).size(), 2u);
    *first = std::move(*second);
    EXPECT_EQ(names_in(t.path(".small-cache/tmp")).size(), 1u) << "the first stage's file went";
    ASSERT_TRUE((*first)->publish());
    EXPECT_EQ(read_text(target), "two\n");
    EXPECT_TRUE(names_in(t.path(".small-cache/tmp")).empty());
}

TEST(AtomicFile, WritesAtTheRootAndInOtherSmallFolders) {
    TempWorkspace t;
    ASSERT_TRUE(write_file_atomic(real_fs, t.ws(), t.path("AGENTS.md"), "# agents\n"));
    ASSERT_TRUE(ensure_directory(real_fs, t.ws(), t.path(".small-cache/drafts")));
    ASSERT_TRUE(write_file_atomic(real_fs, t.ws(), t.path(".small-cache/drafts/intent.small.yml"), "draft\n"));
    EXPECT_EQ(read_text(t.path("AGENTS.md")), "# agents\n");
    EXPECT_EQ(read_text(t.path(".small-cache/drafts/intent.small.yml")), "draft\n");
}

TEST(AtomicFile, NewFileGetsModeAndExistingFileKeepsIt) {
    TempWorkspace t;
    const std::string fresh = t.path(".small/intent.small.yml");
    ASSERT_TRUE(write_file_atomic(real_fs, t.ws(), fresh, "x\n", {.mode = 0600}));
    EXPECT_EQ(permissions_of(fresh), 0600u);

    const std::string kept = t.path(".small/plan.small.yml");
    write_text(kept, "old\n");
    ASSERT_EQ(::chmod(kept.c_str(), 0640), 0);
    ASSERT_TRUE(write_file_atomic(real_fs, t.ws(), kept, "new\n"));
    EXPECT_EQ(read_text(kept), "new\n");
    EXPECT_EQ(permissions_of(kept), 0640u);
}

TEST(AtomicFile, RefusesSymlinkedTarget) {
    TempWorkspace t;
    const std::string outside = t.path("outside.txt");
    write_text(outside, "precious\n");
    const std::string target = t.path(".small/plan.small.yml");
    ASSERT_EQ(::symlink(outside.c_str(), target.c_str()), 0);

    const Status s = write_file_atomic(real_fs, t.ws(), target, "overwritten\n");
    ASSERT_FALSE(s);
    EXPECT_TRUE(contains(s.error().message, "symbolic link")) << s.error().message;
    EXPECT_TRUE(contains(s.error().message, target)) << s.error().message;
    EXPECT_EQ(read_text(outside), "precious\n");
    EXPECT_TRUE(fs::is_symlink(target));
    EXPECT_TRUE(names_in(t.path(".small-cache/tmp")).empty());
}

TEST(AtomicFile, RefusesSymlinkedDirectoryOnTheWay) {
    TempWorkspace t;
    const std::string elsewhere = t.path("elsewhere");
    fs::create_directory(elsewhere);
    ASSERT_EQ(::symlink(elsewhere.c_str(), t.path(".small/ext").c_str()), 0);

    const Status s = write_file_atomic(real_fs, t.ws(), t.path(".small/ext/notes.yml"), "x\n");
    ASSERT_FALSE(s);
    EXPECT_TRUE(contains(s.error().message, "symbolic link")) << s.error().message;
    EXPECT_TRUE(names_in(elsewhere).empty());
    EXPECT_FALSE(ensure_directory(real_fs, t.ws(), t.path(".small/ext/sub")));
    EXPECT_TRUE(names_in(elsewhere).empty());
}

TEST(AtomicFile, RefusesPathsOutsideTheSmallFolders) {
    TempWorkspace t;
    for (const std::string& bad : {t.path("README.md"), t.path(".small/../README.md"), t.path(".small//x"),
                                   t.path(".smallish/x"), std::string("/etc/small-test"), t.path("")}) {
        const Status s = write_file_atomic(real_fs, t.ws(), bad, "x\n");
        ASSERT_FALSE(s) << bad;
        EXPECT_EQ(s.error().kind, Error::Kind::Invalid) << bad;
        EXPECT_TRUE(contains(s.error().message, "refusing to write")) << s.error().message;
    }
    EXPECT_FALSE(fs::exists(t.path("README.md")));
    EXPECT_FALSE(fs::exists("/etc/small-test"));
}

TEST(AtomicFile, RefusesDirectoryTargetAndMissingParent) {
    TempWorkspace t;
    fs::create_directory(t.path(".small/ext"));
    const Status dir = write_file_atomic(real_fs, t.ws(), t.path(".small/ext"), "x\n");
    ASSERT_FALSE(dir);
    EXPECT_TRUE(contains(dir.error().message, "not a regular file")) << dir.error().message;

    const Status missing = write_file_atomic(real_fs, t.ws(), t.path(".small/nope/x.yml"), "x\n");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().kind, Error::Kind::System);
    EXPECT_TRUE(contains(missing.error().message, "No such file or directory")) << missing.error().message;
}

// Root ignores folder permissions: as root, the write runs as user nobody.
TEST(AtomicFile, ReadOnlyDirectoryFailsAndLeavesTargetUntouched) {
    TempWorkspace t;
    const std::string target = t.path(".small/plan.small.yml");
    write_text(target, "old\n");
    ASSERT_EQ(::chmod(t.path(".small").c_str(), 0555), 0);

    as_unprivileged(t.ws().root, [&] {
        const Status s = write_file_atomic(real_fs, t.ws(), target, "new\n");
        ASSERT_FALSE(s);
        EXPECT_EQ(s.error().kind, Error::Kind::System);
        EXPECT_TRUE(contains(s.error().message, target)) << s.error().message;
        EXPECT_TRUE(contains(s.error().message, std::strerror(EACCES))) << s.error().message;
    });
    ::chmod(t.path(".small").c_str(), 0755);
    EXPECT_EQ(read_text(target), "old\n");
    EXPECT_TRUE(names_in(t.path(".small-cache/tmp")).empty());
}

TEST(AtomicFile, FullDiskLeavesTargetUntouched) {
    TempWorkspace t;
    const std::string target = t.path(".small/progress.small.yml");
    const std::string before(10'000, 'o');
    write_text(target, before);
    const std::string bigger(200'000, 'n');

    const ChildOutcome child = run_in_child([&](std::string& message) {
        limit_file_size(64 * 1024);
        const Status s = write_file_atomic(real_fs, t.ws(), target, bigger);
        if (s) return 1;
        message = s.error().message;
        return s.error().kind == Error::Kind::System ? 0 : 2;
    });
    EXPECT_EQ(child.code, 0) << child.message;
    EXPECT_TRUE(contains(child.message, target)) << child.message;
    EXPECT_TRUE(contains(child.message, std::strerror(EFBIG))) << child.message;
    EXPECT_EQ(read_text(target), before);
    EXPECT_EQ(names_in(t.path(".small")), std::vector<std::string>{"progress.small.yml"});
    EXPECT_TRUE(names_in(t.path(".small-cache/tmp")).empty());
}

TEST(AtomicFile, SigkillMidWriteLeavesOneCompleteDocument) {
    TempWorkspace t;
    const std::string target = t.path(".small/plan.small.yml");
    const std::string doc_a = "a: |\n" + std::string(1 << 20, 'a') + "\n";
    const std::string doc_b = "b: |\n" + std::string(1 << 20, 'b') + "\n";
    ASSERT_TRUE(write_file_atomic(real_fs, t.ws(), target, doc_a));

    std::mt19937 rng(12345);  // fixed seed: same kill schedule every run
    std::uniform_int_distribution<int> delay_us(0, 30'000);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(6);
    int iterations = 0;
    int saw_a = 0;
    int saw_b = 0;
    std::size_t leftovers = 0;
    // On a loaded machine a writer may not finish one rename within 30 ms:
    // then the delays grow and the test runs longer, until one has.
    const auto extended = deadline + std::chrono::seconds(20);
    for (; (iterations < 300 && std::chrono::steady_clock::now() < deadline) ||
           (saw_b == 0 && std::chrono::steady_clock::now() < extended);
         ++iterations) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            // Each child starts with the document the target does not hold.
            const bool start_with_b = read_text(target) == doc_a;
            for (unsigned i = 0;; ++i) {
                const bool b = (i % 2 == 0) == start_with_b;
                if (!write_file_atomic(real_fs, t.ws(), target, b ? doc_b : doc_a)) ::_exit(3);
            }
        }
        const int stretch = saw_b == 0 ? 1 + iterations / 50 : 1;
        std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng) * stretch));
        ::kill(pid, SIGKILL);
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFSIGNALED(status)) << "writer stopped by itself (exit " << WEXITSTATUS(status) << ")";

        const std::string now = read_text(target);
        ASSERT_TRUE(now == doc_a || now == doc_b) << "iteration " << iterations << ": " << now.size() << " bytes, "
                                                   << "starting with " << now.substr(0, 8);
        (now == doc_a ? saw_a : saw_b)++;
        ASSERT_EQ(names_in(t.path(".small")), std::vector<std::string>{"plan.small.yml"}) << "iteration " << iterations;

        // The dead writer's temp file (if any) is recognised and removed.
        const Result<std::size_t> removed = remove_stale_temp_files(real_fs, t.ws());
        ASSERT_TRUE(removed) << removed.error().message;
        leftovers += *removed;
        ASSERT_TRUE(names_in(t.path(".small-cache/tmp")).empty());
    }
    std::cout << "[          ] " << iterations << " kills: " << saw_a << " left a, " << saw_b << " left b, " << leftovers
              << " temp files removed\n";
    EXPECT_GE(iterations, 20);
    EXPECT_GT(saw_a, 0);
    EXPECT_GT(saw_b, 0);  // some renames completed, so kills hit all phases
}

TEST(AtomicFile, StaleTempCleanupKeepsFilesOfLiveWriters) {
    TempWorkspace t;
    ASSERT_TRUE(ensure_directory(real_fs, t.ws(), t.path(".small-cache/tmp")));
    const std::string mine = t.path(".small-cache/tmp/" + std::to_string(::getpid()) + ".1-0.plan.small.yml.tmp");
    const std::string foreign = t.path(".small-cache/tmp/notes.txt");
    write_text(mine, "x");
    write_text(foreign, "x");
    const Result<std::size_t> removed = remove_stale_temp_files(real_fs, t.ws());
    ASSERT_TRUE(removed);
    EXPECT_EQ(*removed, 0u);
    EXPECT_TRUE(fs::exists(mine));
    EXPECT_TRUE(fs::exists(foreign));
}

TEST(AtomicFile, FsyncDirectory) {
    TempWorkspace t;
    EXPECT_TRUE(real_fs.sync_directory(t.path(".small")));
    const Status missing = real_fs.sync_directory(t.path("missing"));
    ASSERT_FALSE(missing);
    EXPECT_TRUE(contains(missing.error().message, t.path("missing")));
}

TEST(AtomicFileAppend, AppendsBytes) {
    TempWorkspace t;
    const std::string target = t.path(".small/progress.small.yml");
    write_text(target, "entries:\n");
    ASSERT_TRUE(real_fs.append_file(target, "  - one\n", 9));
    ASSERT_TRUE(real_fs.append_file(target, "  - two\n", 17));
    ASSERT_TRUE(real_fs.append_file(target, "", 25));
    EXPECT_EQ(read_text(target), "entries:\n  - one\n  - two\n");
}

TEST(AtomicFileAppend, SizeMismatchChangesNothing) {
    TempWorkspace t;
    const std::string target = t.path(".small/progress.small.yml");
    write_text(target, "entries:\n");
    const Status s = real_fs.append_file(target, "  - late\n", 5);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(s.error().message, "the file changed since it was read")) << s.error().message;
    EXPECT_EQ(read_text(target), "entries:\n");
}

TEST(AtomicFileAppend, RefusesSymlinkAndMissingFile) {
    TempWorkspace t;
    const std::string outside = t.path("outside.txt");
    write_text(outside, "keep\n");
    const std::string link = t.path(".small/progress.small.yml");
    ASSERT_EQ(::symlink(outside.c_str(), link.c_str()), 0);
    const Status s = real_fs.append_file(link, "x\n", 5);
    ASSERT_FALSE(s);
    EXPECT_TRUE(contains(s.error().message, "symbolic link")) << s.error().message;
    EXPECT_EQ(read_text(outside), "keep\n");

    const std::string missing = t.path(".small/missing.yml");
    const Status m = real_fs.append_file(missing, "x\n", 0);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().kind, Error::Kind::System);
    EXPECT_FALSE(fs::exists(missing));
}

TEST(AtomicFileAppend, FailureHalfWayRestoresTheExactBytes) {
    TempWorkspace t;
    const std::string target = t.path(".small/progress.small.yml");
    std::string before = "entries:\n";
    for (int i = 0; i < 400; ++i) before += "  - entry " + std::to_string(i) + "\n";
    write_text(target, before);
    const std::string entry(8'000, 'e');

    const ChildOutcome child = run_in_child([&](std::string& message) {
        limit_file_size(before.size() + 2'000);  // room for a quarter of the entry
        const Status s = real_fs.append_file(target, entry, before.size());
        if (s) return 1;
        message = s.error().message;
        return s.error().kind == Error::Kind::System ? 0 : 2;
    });
    EXPECT_EQ(child.code, 0) << child.message;
    EXPECT_TRUE(contains(child.message, std::strerror(EFBIG))) << child.message;
    EXPECT_TRUE(contains(child.message, "nothing was appended")) << child.message;
    EXPECT_EQ(read_text(target), before);
}

}  // namespace
}  // namespace small
