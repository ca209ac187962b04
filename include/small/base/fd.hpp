// Fd: owns one POSIX file descriptor and closes it when destroyed. Where a
// close() error matters (after writing data that must be durable), call
// close_checked() and report what it returns.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace small {

class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Fd& operator=(Fd&& other) noexcept {
        if (this != &other) {
            reset();
            fd_ = std::exchange(other.fd_, -1);
        }
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }

    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }

    // Closes the descriptor now, ignoring errors (nothing left to flush).
    void reset() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }
    // Gives the descriptor up without closing it (e.g. to fdopendir()).
    int release() { return std::exchange(fd_, -1); }
    // 0 or errno. On Linux the descriptor is gone even when close() fails
    // (EINTR included), so it is never retried.
    int close_checked() {
        const int fd = std::exchange(fd_, -1);
        if (fd < 0) return 0;
        return ::close(fd) == 0 || errno == EINTR ? 0 : errno;
    }

private:
    int fd_ = -1;
};

}  // namespace small
