// Snapshots into the run store (see run_store.hpp).
#include "small/run_store.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "small/atomic_file.hpp"
#include "small/replay_id.hpp"

namespace small {

namespace {

constexpr ArtifactType kSnapshotTypes[] = {ArtifactType::Intent, ArtifactType::Constraints, ArtifactType::Plan,
                                           ArtifactType::Handoff};

using Files = std::vector<std::pair<std::string, std::string>>;  // file name, bytes

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

Status write_snapshot(const WorkspacePaths& ws, const std::string& runs, const std::string& key,
                      const std::string& dir, const Files& files) {
    const std::string partial = runs + "/." + key + ".partial";
    std::error_code ec;
    std::filesystem::remove_all(partial, ec);  // a leftover of an interrupted snapshot
    if (Status s = ensure_directory(ws, partial); !s) return s;
    for (const auto& [name, bytes] : files) {
        if (Status s = write_file_atomic(ws, partial + "/" + name, bytes); !s) return s;
    }
    if (::rename(partial.c_str(), dir.c_str()) != 0) {
        const int err = errno;
        std::filesystem::remove_all(partial, ec);
        return Error::system("cannot move " + partial + " to " + dir + ": " + std::strerror(err));
    }
    return fsync_directory(runs);
}

}  // namespace

Result<std::string> snapshot_run(const FileSystem& fs, const WorkspacePaths& ws, const std::string& key) {
    if (!is_valid_replay_id(key)) {
        return Error::invalid("internal error: snapshot key \"" + key + "\" is not a 64-hex replay id");
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
        if (Status s = write_snapshot(ws, runs, name, dir, *files); !s) return s.error();
        return dir;
    }
}

Result<std::string> snapshot_before_replace(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id) {
    if (is_valid_replay_id(run_id)) return snapshot_run(fs, ws, run_id);
    Result<Files> files = artifacts_to_copy(fs, ws);
    if (!files) return files.error();
    std::string data = "SMALL|1.0.0|snapshot|";
    for (const auto& [name, bytes] : *files) data += name + "\n" + std::to_string(bytes.size()) + "\n" + bytes;
    return snapshot_run(fs, ws, sha256_hex(data));
}

}  // namespace small
