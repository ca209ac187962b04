// WorkspaceLock across real processes: busy errors naming the holder, no
// stale lock after a holder dies, and serialised read-modify-write.
#include "small/store/workspace_lock.hpp"

#include <gtest/gtest.h>

#include "support/fixtures.hpp"
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "small/store/atomic_file.hpp"

namespace small {
namespace {

using namespace small::testing;

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

long elapsed_ms(Clock::time_point since) {
    return static_cast<long>(std::chrono::duration_cast<milliseconds>(Clock::now() - since).count());
}

// Exit code of `pid` (128+signal when killed); -1 after `limit` (the child
// is then killed so that a broken test never hangs CI).
int wait_for(pid_t pid, std::chrono::seconds limit = std::chrono::seconds(60)) {
    const auto deadline = Clock::now() + limit;
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (Clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            return -1;
        }
        std::this_thread::sleep_for(milliseconds(2));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

enum class HolderEnd { Release, ExitWithoutRelease, WaitForKill };

// A child process that takes the lock, reports "ready", then ends as told.
// The parent ends it by closing `release_fd` (or killing it).
struct Holder {
    pid_t pid = -1;
    int release_fd = -1;
    bool ready = false;
};

Holder start_holder(const WorkspacePaths& ws, HolderEnd end) {
    int ready_pipe[2];
    int release_pipe[2];
    if (::pipe(ready_pipe) != 0 || ::pipe(release_pipe) != 0) return {};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::alarm(30);  // never outlive a broken test
        ::close(ready_pipe[0]);
        ::close(release_pipe[1]);
        Result<WorkspaceLock> lock = WorkspaceLock::acquire(real_fs, ws, std::chrono::seconds(5));
        if (!lock) ::_exit(2);
        [[maybe_unused]] const ssize_t w = ::write(ready_pipe[1], "R", 1);
        if (end == HolderEnd::ExitWithoutRelease) ::_exit(0);  // no destructor runs
        char c = 0;
        [[maybe_unused]] const ssize_t r = ::read(release_pipe[0], &c, 1);
        lock->release();
        ::_exit(0);
    }
    ::close(ready_pipe[1]);
    ::close(release_pipe[0]);
    char c = 0;
    Holder holder{pid, release_pipe[1], ::read(ready_pipe[0], &c, 1) == 1};
    ::close(ready_pipe[0]);
    return holder;
}

TEST(WorkspaceLock, AcquireCreatesTheLockFileAndRecordsThePid) {
    TempWorkspace t;
    {
        Result<WorkspaceLock> lock = WorkspaceLock::acquire(real_fs, t.ws(), milliseconds(100));
        ASSERT_TRUE(lock) << lock.error().message;
        EXPECT_TRUE(lock->held());
        EXPECT_EQ(lock->path(), t.path(".small-cache/lock"));
        const std::string recorded = read_text(t.path(".small-cache/lock"));
        EXPECT_EQ(parse_lock_holder_pid(recorded), ::getpid()) << recorded;
        EXPECT_NE(recorded.find("acquired_at: "), std::string::npos) << recorded;
    }
    EXPECT_EQ(read_text(t.path(".small-cache/lock")), "");
    EXPECT_TRUE(fs::is_empty(t.path(".small")));  // nothing added inside .small/
}

TEST(WorkspaceLock, SecondAcquireInTheSameProcessIsBusy) {
    TempWorkspace t;
    Result<WorkspaceLock> first = WorkspaceLock::acquire(real_fs, t.ws(), milliseconds(0));
    ASSERT_TRUE(first);
    const auto start = Clock::now();
    Result<WorkspaceLock> second = WorkspaceLock::acquire(real_fs, t.ws(), milliseconds(60));
    ASSERT_FALSE(second);
    EXPECT_GE(elapsed_ms(start), 60);
    EXPECT_EQ(second.error().kind, Error::Kind::Busy);  // exit code 3 in the CLI (D4)
    EXPECT_TRUE(starts_with(second.error().message, "workspace is locked by pid " + std::to_string(::getpid()) + " "))
        << second.error().message;
    first->release();
    EXPECT_FALSE(first->held());
    EXPECT_TRUE(WorkspaceLock::acquire(real_fs, t.ws(), milliseconds(0)));
}

TEST(WorkspaceLock, MoveTransfersOwnership) {
    TempWorkspace t;
    Result<WorkspaceLock> acquired = WorkspaceLock::acquire(real_fs, t.ws(), milliseconds(0));
    ASSERT_TRUE(acquired);
    WorkspaceLock moved = std::move(acquired).value();
    EXPECT_TRUE(moved.held());
    EXPECT_FALSE(WorkspaceLock::acquire(real_fs, t.ws(), milliseconds(0)));
    {
        WorkspaceLock last = std::move(moved);
        EXPECT_FALSE(moved.held());  // NOLINT(bugprone-use-after-move): moved-from state is specified
    }
    EXPECT_TRUE(WorkspaceLock::acquire(real_fs, t.ws(), milliseconds(0)));
}

TEST(WorkspaceLock, OtherProcessTimesOutNamingTheHolder) {
    TempWorkspace t;
    const Holder holder = start_holder(t.ws(), HolderEnd::Release);
    ASSERT_TRUE(holder.ready);

    const auto start = Clock::now();
    Result<WorkspaceLock> attempt = WorkspaceLock::acquire(real_fs, t.ws(), milliseconds(150));
    const long waited = elapsed_ms(start);
    ASSERT_FALSE(attempt);
    EXPECT_TRUE(starts_with(attempt.error().message, "workspace is locked by pid " + std::to_string(holder.pid) + " "))
        << attempt.error().message;
    EXPECT_NE(attempt.error().message.find(t.path(".small-cache/lock")), std::string::npos);
    EXPECT_GE(waited, 150);
    EXPECT_LT(waited, 3000);

    ::close(holder.release_fd);
    EXPECT_EQ(wait_for(holder.pid), 0);
    const auto again = Clock::now();
    EXPECT_TRUE(WorkspaceLock::acquire(real_fs, t.ws(), std::chrono::seconds(5)));
    EXPECT_LT(elapsed_ms(again), 1000);
}

TEST(WorkspaceLock, WaiterGetsTheLockWhenTheHolderReleases) {
    TempWorkspace t;
    const Holder holder = start_holder(t.ws(), HolderEnd::Release);
    ASSERT_TRUE(holder.ready);
    std::thread releaser([&] {
        std::this_thread::sleep_for(milliseconds(100));
        ::close(holder.release_fd);
    });
    const auto start = Clock::now();
    Result<WorkspaceLock> lock = WorkspaceLock::acquire(real_fs, t.ws(), std::chrono::seconds(10));
    releaser.join();
    ASSERT_TRUE(lock) << lock.error().message;
    EXPECT_GE(elapsed_ms(start), 90);
    EXPECT_LT(elapsed_ms(start), 5000);
    EXPECT_EQ(wait_for(holder.pid), 0);
}

TEST(WorkspaceLock, HolderExitingWithoutReleaseLeavesNoStaleLock) {
    TempWorkspace t;
    const Holder holder = start_holder(t.ws(), HolderEnd::ExitWithoutRelease);
    ASSERT_TRUE(holder.ready);
    EXPECT_EQ(wait_for(holder.pid), 0);
    ::close(holder.release_fd);
    // The dead holder's pid is still in the file; the kernel knows better.
    EXPECT_EQ(parse_lock_holder_pid(read_text(t.path(".small-cache/lock"))), holder.pid);
    const auto start = Clock::now();
    Result<WorkspaceLock> lock = WorkspaceLock::acquire(real_fs, t.ws(), std::chrono::seconds(5));
    ASSERT_TRUE(lock) << lock.error().message;
    EXPECT_LT(elapsed_ms(start), 1000);
}

TEST(WorkspaceLock, KilledHolderLeavesNoStaleLock) {
    TempWorkspace t;
    const Holder holder = start_holder(t.ws(), HolderEnd::WaitForKill);
    ASSERT_TRUE(holder.ready);
    ASSERT_FALSE(WorkspaceLock::acquire(real_fs, t.ws(), milliseconds(0)));
    ::kill(holder.pid, SIGKILL);
    EXPECT_EQ(wait_for(holder.pid), 128 + SIGKILL);
    ::close(holder.release_fd);
    const auto start = Clock::now();
    Result<WorkspaceLock> lock = WorkspaceLock::acquire(real_fs, t.ws(), std::chrono::seconds(5));
    ASSERT_TRUE(lock) << lock.error().message;
    EXPECT_LT(elapsed_ms(start), 1000);
}

TEST(WorkspaceLock, SerialisesReadModifyWriteAcrossProcesses) {
    constexpr int kProcesses = 8;
    constexpr int kIterations = 50;
    TempWorkspace t;
    const std::string counter = t.path(".small/counter");
    ASSERT_TRUE(write_file_atomic(real_fs, t.ws(), counter, "0"));

    std::vector<pid_t> children;
    for (int p = 0; p < kProcesses; ++p) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            for (int i = 0; i < kIterations; ++i) {
                Result<WorkspaceLock> lock = WorkspaceLock::acquire(real_fs, t.ws(), std::chrono::seconds(30));
                if (!lock) ::_exit(2);
                const int value = std::stoi(read_text(counter));
                if (!write_file_atomic(real_fs, t.ws(), counter, std::to_string(value + 1))) ::_exit(3);
            }
            ::_exit(0);
        }
        children.push_back(pid);
    }
    for (const pid_t pid : children) EXPECT_EQ(wait_for(pid), 0) << "child " << pid;
    EXPECT_EQ(read_text(counter), std::to_string(kProcesses * kIterations));
    EXPECT_TRUE(fs::is_empty(t.path(".small-cache/tmp")));
}

TEST(WorkspaceLock, RefusesASymlinkedLockFile) {
    TempWorkspace t;
    const std::string outside = t.path("outside.txt");
    std::ofstream(outside) << "keep\n";
    fs::create_directory(t.path(".small-cache"));
    ASSERT_EQ(::symlink(outside.c_str(), t.path(".small-cache/lock").c_str()), 0);
    Result<WorkspaceLock> lock = WorkspaceLock::acquire(real_fs, t.ws(), milliseconds(0));
    ASSERT_FALSE(lock);
    EXPECT_NE(lock.error().message.find("symbolic link"), std::string::npos) << lock.error().message;
    EXPECT_EQ(read_text(outside), "keep\n");
}

TEST(WorkspaceLock, ParsesTheHolderPidTolerantly) {
    EXPECT_EQ(parse_lock_holder_pid(""), 0);
    EXPECT_EQ(parse_lock_holder_pid("pid: 12"), 0);  // still being written
    EXPECT_EQ(parse_lock_holder_pid("pid: 12\n"), 12);
    EXPECT_EQ(parse_lock_holder_pid("pid: 4242\nacquired_at: 2025-01-01T00:00:00.000000000Z\n"), 4242);
    EXPECT_EQ(parse_lock_holder_pid("pid: x1\n"), 0);
    EXPECT_EQ(parse_lock_holder_pid("pid: -3\n"), 0);
    EXPECT_EQ(parse_lock_holder_pid("garbage\n"), 0);
}

// Sets or unsets SMALL_LOCK_TIMEOUT_MS for one scope.
class ScopedTimeoutEnv {
public:
    explicit ScopedTimeoutEnv(const char* value) {
        if (const char* old = std::getenv(kName)) saved_ = old;
        if (value != nullptr) {
            ::setenv(kName, value, 1);
        } else {
            ::unsetenv(kName);
        }
    }
    ~ScopedTimeoutEnv() {
        if (saved_) {
            ::setenv(kName, saved_->c_str(), 1);
        } else {
            ::unsetenv(kName);
        }
    }

private:
    static constexpr const char* kName = "SMALL_LOCK_TIMEOUT_MS";
    std::optional<std::string> saved_;
};

TEST(WorkspaceLock, DefaultWaitComesFromTheEnvironment) {
    const std::vector<std::pair<const char*, long>> cases = {
        {nullptr, 10'000}, {"", 10'000},        {"250", 250},      {"0", 0},
        {"abc", 10'000},   {"-5", 10'000},      {"12ms", 10'000},  {" 7", 10'000},
        {"7200000", 3'600'000}, {"99999999999999999999999", 3'600'000}};
    for (const auto& [value, expected] : cases) {
        ScopedTimeoutEnv env(value);
        EXPECT_EQ(default_lock_wait().count(), expected) << (value ? value : "(unset)");
    }
}

}  // namespace
}  // namespace small
