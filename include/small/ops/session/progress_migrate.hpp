// The logic behind `small progress migrate`: the explicit repair D7 allows.
// It rewrites existing timestamps to the canonical 9-digit UTC form, bumping
// every timestamp that is not strictly after the previous one by 1 ns. Only
// the timestamp scalars change (comments and formatting elsewhere are kept)
// when they can be located in the source; otherwise the whole file is
// re-emitted. A long log is read and rewritten in windows of whole entries,
// to the same bytes. Fail-fast: any missing or unparseable timestamp aborts before
// anything is written.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/base/timestamp.hpp"
#include "small/doc/entry_windows.hpp"
#include "small/model/workspace.hpp"

namespace small {

struct ProgressMigrateRequest {
    WorkspaceScope scope = WorkspaceScope::Root;
    bool dry_run = false;  // report what would change, write nothing
    std::chrono::milliseconds lock_wait{10'000};
    // A long log is planned and rewritten in these windows (memory flat in
    // its length); a short one, or one windows cannot follow, is read whole.
    LogWindows windows;
};

struct TimestampChange {
    std::size_t index = 0;  // 0-based entry index
    std::string before;     // as found
    std::string after;      // canonical
};

struct ProgressMigrateResult {
    std::string file;                     // absolute path of progress.small.yml
    std::size_t entries = 0;              // entries in the log
    std::vector<TimestampChange> changes; // empty: already canonical
    bool written = false;                 // the file was rewritten
    bool whole_file_rewritten = false;    // fallback: re-emitted (comments lost)
    std::string warning;                  // then: file, line and why (D20)
};

Result<ProgressMigrateResult> progress_migrate_command(const FileSystem& fs, const WorkspacePaths& ws,
                                               const ProgressMigrateRequest& req);

}  // namespace small
