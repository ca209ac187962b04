#include "small/store/workspace_lock.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <string_view>
#include <thread>
#include <utility>

#include "small/store/atomic_file.hpp"
#include "small/base/timestamp.hpp"

namespace small {

namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

constexpr milliseconds kDefaultWait{10'000};
constexpr milliseconds kMaxWait{3'600'000};
constexpr milliseconds kFirstPoll{2};
constexpr milliseconds kLongestPoll{20};

std::string lock_path_of(const WorkspacePaths& ws) {
    std::string root = ws.root;
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    return (root == "/" ? "" : root) + "/" + kLockFileName;
}

std::string now_utc() {
    timespec ts {};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return format_timestamp_utc9(Instant{static_cast<std::int64_t>(ts.tv_sec), static_cast<std::uint32_t>(ts.tv_nsec)});
}

// Informational only (the kernel knows who holds the lock).
std::string holder_record() { return "pid: " + std::to_string(::getpid()) + "\nacquired_at: " + now_utc() + "\n"; }

Error busy_error(const std::string& record, const std::string& path, milliseconds waited, std::string_view what) {
    const pid_t pid = parse_lock_holder_pid(record);
    const std::string who = pid > 0 ? std::to_string(pid) : std::string("unknown");
    return Error::busy(std::string(what) + " is locked by pid " + who + " (" + path + "); gave up after " +
                         std::to_string(waited.count()) + " ms. Another small command is changing this " +
                         std::string(what) + "; retry when it has finished (SMALL_LOCK_TIMEOUT_MS sets the wait)");
}

milliseconds next_poll(milliseconds poll) { return std::min(kLongestPoll, poll * 3 / 2 + milliseconds(1)); }

}  // namespace

std::chrono::milliseconds default_lock_wait() {
    const char* raw = std::getenv("SMALL_LOCK_TIMEOUT_MS");
    if (raw == nullptr || *raw == '\0') return kDefaultWait;
    const std::string_view text(raw);
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range && end == text.data() + text.size()) return kMaxWait;
    if (ec != std::errc() || end != text.data() + text.size()) return kDefaultWait;
    const auto capped = std::min<std::uint64_t>(value, static_cast<std::uint64_t>(kMaxWait.count()));
    return milliseconds(static_cast<milliseconds::rep>(capped));
}

pid_t parse_lock_holder_pid(const std::string& contents) {
    constexpr std::string_view kKey = "pid: ";
    if (contents.rfind(kKey, 0) != 0) return 0;
    const std::size_t end_of_line = contents.find('\n');
    if (end_of_line == std::string::npos) return 0;  // still being written
    pid_t pid = 0;
    const char* first = contents.data() + kKey.size();
    const char* last = contents.data() + end_of_line;
    const auto [end, ec] = std::from_chars(first, last, pid);
    if (ec != std::errc() || end != last || pid <= 0) return 0;
    return pid;
}

Result<std::unique_ptr<HeldLock>> acquire_lock_file(const FileSystem& fs, const std::string& path,
                                                    std::chrono::milliseconds wait, std::string_view what) {
    const Clock::time_point start = Clock::now();
    milliseconds poll = kFirstPoll;
    while (true) {
        Result<LockAttempt> attempt = fs.try_lock_file(path, holder_record());
        if (!attempt) return attempt.error();
        if (attempt->lock) return std::move(attempt->lock);
        const auto waited = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
        if (waited >= wait) return busy_error(attempt->holder_record, path, waited, what);
        std::this_thread::sleep_for(std::min(poll, wait - waited));
        poll = next_poll(poll);
    }
}

Result<WorkspaceLock> WorkspaceLock::acquire(const FileSystem& fs, const WorkspacePaths& ws,
                                             std::chrono::milliseconds wait) {
    std::string root = ws.root;
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    if (Status dir = ensure_directory(fs, ws, runtime_path(root, kCacheDirName)); !dir) return dir.error();
    const std::string path = lock_path_of(ws);
    Result<std::unique_ptr<HeldLock>> held = acquire_lock_file(fs, path, wait, "workspace");
    if (!held) return held.error();
    return WorkspaceLock(std::move(*held), path);
}

}  // namespace small
