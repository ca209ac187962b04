// FileWatch: folders watched for changes (Linux inotify), for `small serve`,
// which tells its pages when a side's files change instead of letting them
// poll. It says only that something under a watched folder changed, not
// what: the caller reads the state again. Folders are not watched
// recursively; a folder that does not exist yet is skipped (add it again
// later). A wake() from another thread ends a wait early (shutdown).
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "small/base/fd.hpp"
#include "small/base/result.hpp"

namespace small {

class FileWatch {
public:
    // System error when inotify cannot be had (limits, no kernel support).
    static Result<FileWatch> create();

    // Watches `folder` for files written, created, removed or renamed in
    // it; with `names`, only changes to those entries count (a repository's
    // own folder, whose index a reader may refresh). False (and nothing
    // watched) when it is not a readable folder. Adding a folder again
    // replaces its names.
    bool add(const std::string& folder, std::vector<std::string> names = {});

    // Waits up to `timeout` for a change; true when one came (every event
    // waiting is consumed). After a change, further events within `settle`
    // are taken too: a write's several renames are one change (debounce).
    bool wait(std::chrono::milliseconds timeout, std::chrono::milliseconds settle);

    // Ends a wait() in progress on another thread (it returns false).
    void wake();

private:
    FileWatch(Fd notify, Fd wake_read, Fd wake_write)
        : notify_(std::move(notify)), wake_read_(std::move(wake_read)), wake_write_(std::move(wake_write)) {}
    bool drain();
    bool counts(const char* events, std::size_t n) const;
    Fd notify_, wake_read_, wake_write_;
    std::map<int, std::vector<std::string>> names_;  // by watch descriptor: the entries that count (empty: all)
};

}  // namespace small
