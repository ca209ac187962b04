// The one exclusive lock per workspace taken by every mutating command
// (D7, D12). Readers take no lock: writes are atomic.
//
// The lock is an flock() on `<root>/.small-cache/lock`, outside `.small/`.
// The kernel drops an flock when the last descriptor of its open file
// description is closed, which includes the death of the process for any
// reason (SIGKILL, crash, _exit): a dead holder never leaves a stale lock,
// so there is no pid check and no lock breaking. The pid written into the
// file is only for the "locked by" message.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/layout.hpp"

namespace small {

// SMALL_LOCK_TIMEOUT_MS when set to a non-negative integer (capped at one
// hour), else 10 s.
std::chrono::milliseconds default_lock_wait();

class WorkspaceLock {
public:
    // Takes the lock, polling until `wait` has elapsed (a zero wait tries
    // once). When it stays busy the error message starts with
    // "workspace is locked by pid <N>" and names the lock file; its kind is
    // Error::Kind::Busy (exit code 3, D4).
    static Result<WorkspaceLock> acquire(const FileSystem& fs, const WorkspacePaths& ws, std::chrono::milliseconds wait);

    WorkspaceLock(WorkspaceLock&& other) noexcept = default;
    WorkspaceLock& operator=(WorkspaceLock&& other) noexcept = default;
    WorkspaceLock(const WorkspaceLock&) = delete;
    WorkspaceLock& operator=(const WorkspaceLock&) = delete;
    ~WorkspaceLock() = default;

    // Releases early (also done by the destructor).
    void release() { held_.reset(); }
    bool held() const { return held_ != nullptr; }
    const std::string& path() const { return path_; }

private:
    WorkspaceLock(std::unique_ptr<HeldLock> held, std::string path) : held_(std::move(held)), path_(std::move(path)) {}
    std::unique_ptr<HeldLock> held_;
    std::string path_;
};

// The pid recorded in a lock file's contents ("pid: <N>" line); 0 when the
// contents are empty or partial (the holder may be writing them).
pid_t parse_lock_holder_pid(const std::string& contents);

// Takes the lock file `path` (its folder must exist), polling as
// WorkspaceLock::acquire does; busy: "<what> is locked by pid <N> (path)…".
Result<std::unique_ptr<HeldLock>> acquire_lock_file(const FileSystem& fs, const std::string& path,
                                                    std::chrono::milliseconds wait, std::string_view what);

}  // namespace small
