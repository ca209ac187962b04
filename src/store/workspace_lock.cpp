#include "small/store/workspace_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
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

// O_CLOEXEC: a command run by `small apply` must not inherit the lock. (A
// fork() without exec would share it until both processes close it.)
Result<int> open_lock_file(const std::string& path) {
    while (true) {
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) return fd;
        if (errno == EINTR) continue;
        if (errno == ELOOP) {
            return Error::invalid("refusing to use " + path + ": it is a symbolic link");
        }
        return Error::from_errno("cannot open the workspace lock", path, errno);
    }
}

// 0 when locked, EWOULDBLOCK when another process holds it, else errno.
int try_flock(int fd) {
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EINTR) return errno == EAGAIN ? EWOULDBLOCK : errno;
    }
    return 0;
}

// Someone may have deleted or replaced the lock file between our open()
// and flock(); a lock on an unlinked inode excludes nobody.
bool still_the_lock_file(int fd, const std::string& path) {
    struct stat held {};
    struct stat named {};
    if (::fstat(fd, &held) != 0 || ::lstat(path.c_str(), &named) != 0) return false;
    return held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

std::string now_utc() {
    timespec ts {};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return format_timestamp_utc9(Instant{static_cast<std::int64_t>(ts.tv_sec), static_cast<std::uint32_t>(ts.tv_nsec)});
}

// Informational only (the kernel knows who holds the lock): failures to
// record it are ignored.
void record_holder(int fd) {
    const std::string text = "pid: " + std::to_string(::getpid()) + "\nacquired_at: " + now_utc() + "\n";
    if (::ftruncate(fd, 0) != 0) return;
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

std::string read_holder_text(int fd) {
    std::string text(256, '\0');
    ssize_t n = -1;
    do {
        n = ::pread(fd, text.data(), text.size(), 0);
    } while (n < 0 && errno == EINTR);
    text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return text;
}

Error busy_error(int fd, const std::string& path, milliseconds waited) {
    const pid_t pid = parse_lock_holder_pid(read_holder_text(fd));
    const std::string who = pid > 0 ? std::to_string(pid) : std::string("unknown");
    return Error::busy("workspace is locked by pid " + who + " (" + path + "); gave up after " +
                         std::to_string(waited.count()) +
                         " ms. Another small command is changing this workspace; retry when it has finished "
                         "(SMALL_LOCK_TIMEOUT_MS sets the wait)");
}

// A descriptor that is not (yet) the held lock; closing it unlocks.
struct LockFd {
    int fd = -1;
    explicit LockFd(int f) : fd(f) {}
    LockFd(const LockFd&) = delete;
    LockFd& operator=(const LockFd&) = delete;
    LockFd& operator=(LockFd&& other) noexcept {
        if (fd >= 0) ::close(fd);
        fd = std::exchange(other.fd, -1);
        return *this;
    }
    ~LockFd() {
        if (fd >= 0) ::close(fd);
    }
};

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

Result<WorkspaceLock> WorkspaceLock::acquire(const WorkspacePaths& ws, std::chrono::milliseconds wait) {
    std::string root = ws.root;
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    if (Status dir = ensure_directory(ws, runtime_path(root, kCacheDirName)); !dir) return dir.error();
    const std::string path = lock_path_of(ws);
    const Clock::time_point start = Clock::now();
    milliseconds poll = kFirstPoll;

    Result<int> opened = open_lock_file(path);
    if (!opened) return opened.error();
    LockFd candidate(*opened);
    while (true) {
        const int err = try_flock(candidate.fd);
        if (err == 0 && still_the_lock_file(candidate.fd, path)) {
            record_holder(candidate.fd);
            return WorkspaceLock(std::exchange(candidate.fd, -1), path);
        }
        if (err == 0) {  // locked a replaced file: start over on the new one
            opened = open_lock_file(path);
            if (!opened) return opened.error();
            candidate = LockFd(*opened);
            continue;
        }
        if (err != EWOULDBLOCK) return Error::from_errno("cannot lock", path, err);
        const auto waited = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
        if (waited >= wait) return busy_error(candidate.fd, path, waited);
        std::this_thread::sleep_for(std::min(poll, wait - waited));
        poll = next_poll(poll);
    }
}

WorkspaceLock::WorkspaceLock(WorkspaceLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

WorkspaceLock& WorkspaceLock::operator=(WorkspaceLock&& other) noexcept {
    if (this != &other) {
        release();
        fd_ = std::exchange(other.fd_, -1);
        path_ = std::move(other.path_);
    }
    return *this;
}

WorkspaceLock::~WorkspaceLock() { release(); }

void WorkspaceLock::release() {
    if (fd_ < 0) return;
    // Clearing the holder record is cosmetic; it happens while we still
    // hold the lock, so it never erases a later holder's record.
    [[maybe_unused]] const int ignored = ::ftruncate(fd_, 0);
    ::close(fd_);
    fd_ = -1;
}

}  // namespace small
