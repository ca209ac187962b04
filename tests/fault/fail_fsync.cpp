// Fault injection for the end-to-end tests, loaded with LD_PRELOAD into the
// real `small`: an fsync or fdatasync of the file or folder named by
// SMALL_FAULT_FSYNC_PATH (exactly, as /proc/self/fd shows it; "prefix*" and
// "*suffix" match every path that starts or ends so) fails with EIO, once: the
// first matching call after SMALL_FAULT_FSYNC_SKIP others (default 0). Other
// calls go to the C library. It lets a test break one durable step of a write
// and check what the workspace is left with. With SMALL_FAULT_FSYNC_TOUCH set
// to a file, the matching call succeeds instead, after appending a comment
// line to that file: a hand edit landing at that very step. Test-only: never
// installed.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::atomic<long> g_matches{0};

bool matches(int fd) {
    const char* want = std::getenv("SMALL_FAULT_FSYNC_PATH");
    if (want == nullptr || *want == '\0') return false;
    char buf[4096];
    const std::string link = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t n = ::readlink(link.c_str(), buf, sizeof buf - 1);
    if (n < 0) return false;
    const std::string path(buf, static_cast<std::size_t>(n));
    const std::string pattern(want);
    if (pattern.size() > 1 && pattern.back() == '*') return path.rfind(pattern.substr(0, pattern.size() - 1), 0) == 0;
    if (pattern.size() > 1 && pattern.front() == '*') return path.ends_with(pattern.substr(1));
    return path == pattern;
}

bool fail_now(int fd) {
    if (!matches(fd)) return false;
    const char* skip = std::getenv("SMALL_FAULT_FSYNC_SKIP");
    const long pass = skip ? std::strtol(skip, nullptr, 10) : 0;
    return g_matches.fetch_add(1) == pass;
}

// SMALL_FAULT_FSYNC_TOUCH: append a line to that file (false when unset).
bool touched() {
    const char* file = std::getenv("SMALL_FAULT_FSYNC_TOUCH");
    if (file == nullptr || *file == '\0') return false;
    const int fd = ::open(file, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd >= 0) {
        const char line[] = "# edited by hand while small ran\n";
        [[maybe_unused]] const ssize_t n = ::write(fd, line, sizeof line - 1);
        ::close(fd);
    }
    return true;
}

template <typename Fn>
int call_next(const char* name, int fd) {
    static Fn next = nullptr;
    if (next == nullptr) next = reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, name));
    return next(fd);
}

}  // namespace

extern "C" int fsync(int fd) {
    if (fail_now(fd) && !touched()) {
        errno = EIO;
        return -1;
    }
    return call_next<int (*)(int)>("fsync", fd);
}

extern "C" int fdatasync(int fd) {
    if (fail_now(fd) && !touched()) {
        errno = EIO;
        return -1;
    }
    return call_next<int (*)(int)>("fdatasync", fd);
}
