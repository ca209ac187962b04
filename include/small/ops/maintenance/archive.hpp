// `small archive` and `small archive --verify DIR` (inspection.md §4.3, D3,
// D7): a copy of the artifacts with a SHA-256 manifest, and its re-check.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/layout.hpp"

namespace small {

inline constexpr std::string_view kArchiveManifestName = "archive.small.yml";

// The names `--include` accepts: the five artifacts and workspace.small.yml.
bool is_archive_file_name(std::string_view name);
// All of them, in canonical order (the default of --include).
std::vector<std::string> archive_file_names();

struct ArchiveRequest {
    std::optional<std::string> out;    // absolute (the CLI resolves a relative --out against the cwd)
    std::vector<std::string> include;  // empty = archive_file_names()
    std::chrono::milliseconds lock_wait{10'000};
};

struct ArchivedFile {
    std::string name, sha256;
    std::size_t bytes = 0;
};

struct ArchiveResult {
    std::string dir;
    std::string replay_id;
    std::string archived_at;
    std::vector<ArchivedFile> files;
    bool replaced = false;  // the default folder of this run held an older archive, now replaced whole
};

// Copies the included files that exist (a missing one is skipped, as in the
// reference) with the manifest archive.small.yml into a new folder: the
// default `<root>/.small-archive/<run id>/` (an older archive of the run is
// replaced whole, by one exchange), or `--out`, which must be new or empty
// (its files would mix with the new ones) and not a symbolic link. Appends
// an `archive` entry to the run index. Usage error for an --include name
// that is not one of archive_file_names().
Result<ArchiveResult> archive_command(const FileSystem& fs, const WorkspacePaths& ws, const ArchiveRequest& req);

struct ArchiveCheck {
    std::string name;
    std::string status;  // ok, mismatch, missing, unlisted (a file the manifest does not name), invalid (a bad name)
    std::string expected, actual;  // sha256 values ("" when not applicable)
};

struct ArchiveVerifyResult {
    std::string dir;
    std::string replay_id;
    std::vector<ArchiveCheck> files;  // manifest order, then unlisted files by name
    bool ok() const;
};

// Re-reads every file the manifest of `dir` names and compares its SHA-256;
// files the manifest does not name are reported as `unlisted`. Errors: no
// manifest or one that does not parse (Invalid, file:line:column), `dir` a
// symbolic link or missing.
Result<ArchiveVerifyResult> archive_verify_command(const FileSystem& fs, const std::string& dir);

}  // namespace small
