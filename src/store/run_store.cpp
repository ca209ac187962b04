// Snapshots into the run store (see run_store.hpp).
#include "small/store/run_store.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "small/store/atomic_file.hpp"
#include "small/model/replay_id.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

namespace {

constexpr ArtifactType kSnapshotTypes[] = {ArtifactType::Intent, ArtifactType::Constraints, ArtifactType::Plan,
                                           ArtifactType::Handoff};

using Files = FolderFiles;  // file name, bytes

Result<Files> artifacts_to_copy(const FileSystem& fs, const WorkspacePaths& ws) {
    Files files;
    for (ArtifactType t : kSnapshotTypes) {
        const std::string name = artifact_file_name(t);
        if (!fs.file_exists(ws.path_of(name))) continue;
        Result<std::string> bytes = fs.read_file(ws.path_of(name));
        if (!bytes) return bytes.error();
        files.emplace_back(name, std::move(*bytes));
    }
    return files;
}

// Whether `dir` holds exactly `files` among the snapshot's artifact names.
bool holds_exactly(const FileSystem& fs, const std::string& dir, const Files& files) {
    for (ArtifactType t : kSnapshotTypes) {
        const std::string name = artifact_file_name(t);
        const std::string path = dir + "/" + name;
        const Files::const_iterator want =
            std::find_if(files.begin(), files.end(), [&name](const auto& f) { return f.first == name; });
        if (want == files.end()) {
            if (fs.file_exists(path)) return false;
            continue;
        }
        Result<std::string> have = fs.read_file(path);
        if (!have || *have != want->second) return false;
    }
    return true;
}

// Undoes this command's own folders (best effort).
void remove_made(const std::string& runs, const std::string& dir, bool runs_created) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    if (runs_created) std::filesystem::remove(runs, ec);  // only if still empty
}

Status write_snapshot(const WorkspacePaths& ws, const std::string& runs, const std::string& dir, const Files& files,
                      bool& runs_created) {
    struct stat st {};
    runs_created = ::lstat(runs.c_str(), &st) != 0;
    Status written = write_folder_atomic(ws, dir, files);
    if (!written && runs_created) {
        std::error_code ec;
        std::filesystem::remove(runs, ec);  // only if still empty
    }
    return written;
}

}  // namespace

Result<std::string> snapshot_run(const FileSystem& fs, const WorkspacePaths& ws, const std::string& key,
                                 SnapshotMade* made) {
    if (made) *made = SnapshotMade{};
    if (!is_valid_replay_id(key)) {
        return Error::internal("snapshot key \"" + key + "\" is not a 64-hex replay id");
    }
    Result<Files> files = artifacts_to_copy(fs, ws);
    if (!files) return files.error();
    if (files->empty()) return std::string();
    const std::string runs = ws.root + "/.small-runs";
    for (int n = 1;; ++n) {
        const std::string name = n == 1 ? key : key + "." + std::to_string(n);
        const std::string dir = runs + "/" + name;
        if (fs.directory_exists(dir)) {
            if (holds_exactly(fs, dir, *files)) return dir;
            continue;  // an older snapshot of the same run: never overwritten
        }
        bool runs_created = false;
        if (Status s = write_snapshot(ws, runs, dir, *files, runs_created); !s) return s.error();
        if (made) *made = SnapshotMade{dir, runs_created};
        return dir;
    }
}

Result<std::string> snapshot_before_replace(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id,
                                            SnapshotMade* made) {
    if (is_valid_replay_id(run_id)) return snapshot_run(fs, ws, run_id, made);
    Result<Files> files = artifacts_to_copy(fs, ws);
    if (!files) return files.error();
    std::string data = "SMALL|1.0.0|snapshot|";
    for (const auto& [name, bytes] : *files) data += name + "\n" + std::to_string(bytes.size()) + "\n" + bytes;
    return snapshot_run(fs, ws, sha256_hex(data), made);
}

void discard_unused_snapshot(const WorkspacePaths& ws, const SnapshotMade& made) {
    if (made.dir.empty()) return;
    // A journaled change will still replace the artifacts: keep their copy.
    struct stat st {};
    if (::lstat((ws.root + "/" + kChangeJournalName).c_str(), &st) == 0) return;
    remove_made(ws.root + "/.small-runs", made.dir, made.runs_created);
    (void)fsync_directory(ws.root);
}

}  // namespace small
