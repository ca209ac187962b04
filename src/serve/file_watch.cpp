// FileWatch over inotify: one descriptor for the watches, a pipe to wake a
// waiter. See file_watch.hpp.
#include "small/serve/file_watch.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace small {

namespace {

constexpr std::uint32_t kChanges = IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                   IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;

}  // namespace

Result<FileWatch> FileWatch::create() {
    Fd notify(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
    if (!notify.valid()) return Error::system(std::string("cannot watch files (inotify): ") + std::strerror(errno));
    int ends[2];
    if (::pipe2(ends, O_NONBLOCK | O_CLOEXEC) != 0) {
        return Error::system(std::string("cannot watch files (pipe): ") + std::strerror(errno));
    }
    return FileWatch(std::move(notify), Fd(ends[0]), Fd(ends[1]));
}

bool FileWatch::add(const std::string& folder, std::vector<std::string> names) {
    const int wd = ::inotify_add_watch(notify_.get(), folder.c_str(), kChanges | IN_ONLYDIR);
    if (wd < 0) return false;
    names_[wd] = std::move(names);
    return true;
}

// True when one of the `n` bytes of events read is a change that counts.
bool FileWatch::counts(const char* events, std::size_t n) const {
    bool any = false;
    for (std::size_t at = 0; at + sizeof(inotify_event) <= n;) {
        inotify_event event{};
        std::memcpy(&event, events + at, sizeof event);
        const std::string name(event.len ? events + at + sizeof event : "");
        const auto filter = names_.find(event.wd);
        if (filter == names_.end() || filter->second.empty() ||
            std::find(filter->second.begin(), filter->second.end(), name) != filter->second.end()) {
            any = true;
        }
        at += sizeof(inotify_event) + event.len;
    }
    return any;
}

// True when a change that counts was read.
bool FileWatch::drain() {
    alignas(inotify_event) std::array<char, 16384> buffer{};
    bool any = false;
    for (;;) {
        const ssize_t n = ::read(notify_.get(), buffer.data(), buffer.size());
        if (n > 0) {
            any = any || counts(buffer.data(), static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        return any;
    }
}

bool FileWatch::wait(std::chrono::milliseconds timeout, std::chrono::milliseconds settle) {
    std::array<pollfd, 2> fds{{{notify_.get(), POLLIN, 0}, {wake_read_.get(), POLLIN, 0}}};
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(timeout.count()));
    if (ready <= 0 || (fds[1].revents & POLLIN)) return false;
    bool changed = drain();
    // Debounce: a write is several events (the staged file, the rename, the cache).
    for (;;) {
        pollfd more{notify_.get(), POLLIN, 0};
        if (::poll(&more, 1, static_cast<int>(settle.count())) <= 0) break;
        changed = drain() || changed;
    }
    return changed;
}

void FileWatch::wake() {
    const char byte = 1;
    (void)!::write(wake_write_.get(), &byte, 1);
}

}  // namespace small
