// Scope drift: files the run changed outside the intent's scope, for
// `small drift` and `small doctor`
// (docs/git.md "Scope drift").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/layout.hpp"
#include "small/model/scope_glob.hpp"

namespace small {

struct DriftOptions {
    std::optional<std::string> since;  // a revision; else the run's start
};

struct DriftFile {
    std::string path;  // relative to the workspace root
    DriftKind kind = DriftKind::None;
    std::string glob;  // the exclude glob that matched (Excluded only)
};

struct DriftReport {
    bool has_scope = false;  // intent.small.yml has include or exclude globs
    // Where the comparison starts: "since" (--since), "run_start" (the
    // commit at the run's start), "head" (no run start known: uncommitted
    // changes only), "empty" (no commit before the run: every file).
    std::string base_source;
    std::string base;  // full commit id, "" for "empty"
    std::string run_start;  // the run's start timestamp, "" when unknown
    std::size_t changed = 0;  // changed files below the workspace root, SMALL's own excluded
    std::vector<DriftFile> files;  // sorted by path
};

// Usage error (exit 2) outside a git repository or for a bad --since.
Result<DriftReport> scope_drift(const FileSystem& fs, const WorkspacePaths& ws, const DriftOptions& options);

}  // namespace small
