// Snapshots into the run store (see run_store.hpp).
#include "small/store/run_store.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/model/workspace.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/folder_publish.hpp"
#include "small/model/replay_id.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

namespace {

constexpr ArtifactType kSnapshotTypes[] = {ArtifactType::Intent, ArtifactType::Constraints, ArtifactType::Plan,
                                           ArtifactType::Handoff};

using Files = FolderFiles;  // file name, bytes

// The bytes of those of `types` that exist in .small/.
Result<Files> artifacts_to_copy(const FileSystem& fs, const WorkspacePaths& ws,
                                std::span<const ArtifactType> types = kSnapshotTypes) {
    Files files;
    for (ArtifactType t : types) {
        const std::string name = artifact_file_name(t);
        if (!fs.file_exists(ws.path_of(name))) continue;
        Result<std::string> bytes = fs.read_file_no_follow(ws.small_dir, name);
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
        Result<std::string> have = fs.read_file_no_follow(dir, name);
        if (!have || *have != want->second) return false;
    }
    return true;
}

// Undoes this command's own folders (best effort).
void remove_made(const std::string& runs, const std::string& dir, bool runs_created) {
    discard_tree(dir);
    if (runs_created) discard_empty_folder(runs);
}

Status write_snapshot(const FileSystem& fs, const WorkspacePaths& ws, const std::string& runs, const std::string& dir,
                      const Files& files, bool& runs_created) {
    runs_created = !fs.stat(runs);
    Status written = write_folder_atomic(fs, ws, dir, files);
    if (!written && runs_created) discard_empty_folder(runs);
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
    const std::string runs = runtime_path(ws.root, kRunsDirName);
    for (int n = 1;; ++n) {
        const std::string name = n == 1 ? key : key + "." + std::to_string(n);
        const std::string dir = runs + "/" + name;
        if (fs.directory_exists(dir)) {
            if (holds_exactly(fs, dir, *files)) return dir;
            continue;  // an older snapshot of the same run: never overwritten
        }
        bool runs_created = false;
        if (Status s = write_snapshot(fs, ws, runs, dir, *files, runs_created); !s) return s.error();
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

void discard_unused_snapshot(const FileSystem& fs, const WorkspacePaths& ws, const SnapshotMade& made) {
    if (made.dir.empty()) return;
    // A journaled change will still replace the artifacts: keep their copy.
    if (fs.stat(runtime_path(ws.root, kChangeJournalName))) return;
    remove_made(runtime_path(ws.root, kRunsDirName), made.dir, made.runs_created);
    (void)fsync_directory(ws.root);
}

}  // namespace small

// ---- The `small run` commands' view of the store ----

namespace small {

namespace {

constexpr const char* kMetaFileName = "meta.json";

Error not_a_link(const std::string& path) {
    return Error::invalid(path + " is a symbolic link; the run store must hold plain folders and files (D7)");
}

// The folder's mtime, for snapshots without meta.json.
Instant folder_time(const FileSystem& fs, const std::string& dir) {
    const std::optional<FileInfo> info = fs.stat(dir);
    if (!info) return {};
    return Instant{info->mtime_sec, info->mtime_nsec};
}

std::string json_string(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Status read_meta(const FileSystem& fs, SnapshotInfo& info) {
    const std::string path = info.dir + "/" + kMetaFileName;
    if (fs.is_symlink(path)) return not_a_link(path);
    if (!fs.file_exists(path)) return ok_status();
    Result<std::string> text = fs.read_file_no_follow(info.dir, std::string(kMetaFileName));
    if (!text) return text.error();
    const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        return Error::invalid(path + ": not a JSON object; move the folder aside or re-create it with `small run snapshot --force`");
    }
    info.has_meta = true;
    SnapshotMeta& m = info.meta;
    m.replay_id = json_string(j, "replayId"), m.created_at = json_string(j, "created_at");
    m.git_sha = json_string(j, "git_sha"), m.branch = json_string(j, "branch");
    m.cli_version = json_string(j, "cli_version"), m.workspace_kind = json_string(j, "workspace_kind");
    m.source_dir = json_string(j, "source_dir");
    const auto dirty = j.find("git_dirty");
    if (dirty != j.end() && dirty->is_boolean()) m.git_dirty = dirty->get<bool>();
    return ok_status();
}

Status read_handoff(const FileSystem& fs, SnapshotInfo& info) {
    const std::string path = info.dir + "/" + std::string(kHandoffFileName);
    if (!fs.file_exists(path)) return ok_status();
    Result<Document> doc = load_yaml_file(fs, path, path);
    if (!doc) return doc.error();
    const NodeRef root = doc->root();
    info.summary = std::string(trim(root.find("summary").as_string()));
    const NodeRef steps = root.find("resume").find("next_steps");
    for (std::size_t i = 0; steps.is_sequence() && i < steps.size(); ++i) {
        if (steps.item(i).is_string()) info.next_steps.emplace_back(steps.item(i).as_string());
    }
    return ok_status();
}

// Fills `info` from its folder; the first problem is returned (what was
// read before it stays filled in).
Status read_snapshot(const FileSystem& fs, SnapshotInfo& info) {
    for (ArtifactType t : kArtifactTypes) {
        const std::string name = artifact_file_name(t);
        if (fs.is_symlink(info.dir + "/" + name)) return not_a_link(info.dir + "/" + name);
        if (fs.file_exists(info.dir + "/" + name)) info.files.push_back(name);
    }
    Status meta = read_meta(fs, info);
    if (info.meta.replay_id.empty()) info.meta.replay_id = snapshot_run_id(info.name);
    Result<Instant> created = parse_lenient_timestamp(info.meta.created_at);
    info.created = created ? *created : folder_time(fs, info.dir);
    if (info.meta.created_at.empty()) info.meta.created_at = format_timestamp_utc9(info.created);
    if (!meta) return meta;
    return read_handoff(fs, info);
}

Status refuse_linked_store(const FileSystem& fs, const std::string& store) {
    return fs.is_symlink(store) ? Status(not_a_link(store)) : ok_status();
}

}  // namespace

bool is_snapshot_name(std::string_view name) {
    if (name.size() < 64 || !is_lower_hex(name.substr(0, 64))) return false;
    if (name.size() == 64) return true;
    const std::string_view n = name.substr(64);
    if (n.size() < 2 || n.size() > 7 || n[0] != '.' || n[1] < '1' || n[1] > '9') return false;
    return std::all_of(n.begin() + 1, n.end(), [](char c) { return c >= '0' && c <= '9'; }) && n != ".1";
}

std::string snapshot_run_id(std::string_view name) { return std::string(name.substr(0, 64)); }

std::string run_store_dir(const WorkspacePaths& ws, const std::string& store_flag) {
    if (store_flag.empty()) return runtime_path(ws.root, kRunsDirName);
    return absolute_path(ws.root, store_flag);
}

Result<SnapshotInfo> load_snapshot(const FileSystem& fs, const std::string& store, const std::string& name) {
    if (!is_snapshot_name(name)) {
        return Error::usage("invalid replay id \"" + name + "\": expected 64 lower-case hex digits (see `small run list`)");
    }
    if (Status s = refuse_linked_store(fs, store); !s) return s.error();
    SnapshotInfo info;
    info.name = name;
    info.dir = store + "/" + name;
    if (fs.is_symlink(info.dir)) return not_a_link(info.dir);
    if (!fs.directory_exists(info.dir)) {
        return Error::invalid("run snapshot not found: " + name + " (in " + store + "; see `small run list`)");
    }
    if (Status s = read_snapshot(fs, info); !s) return s.error();
    return info;
}

Result<std::vector<SnapshotInfo>> list_snapshots(const FileSystem& fs, const std::string& store) {
    if (Status s = refuse_linked_store(fs, store); !s) return s.error();
    std::vector<SnapshotInfo> out;
    if (!fs.directory_exists(store)) return out;
    Result<std::vector<DirEntry>> entries = fs.list_directory(store);
    if (!entries) return entries.error();
    for (const DirEntry& e : *entries) {
        if (!e.is_directory || !is_snapshot_name(e.name)) continue;
        SnapshotInfo info;
        info.name = e.name;
        info.dir = store + "/" + e.name;
        if (Status s = read_snapshot(fs, info); !s) info.problem = s.error().message;
        out.push_back(std::move(info));
    }
    std::stable_sort(out.begin(), out.end(), [](const SnapshotInfo& a, const SnapshotInfo& b) {
        return a.created != b.created ? a.created > b.created : a.name < b.name;
    });
    return out;
}

std::string snapshot_meta_json(const SnapshotMeta& m) {
    nlohmann::ordered_json j;
    j["replayId"] = m.replay_id;
    j["created_at"] = m.created_at;
    j["git_sha"] = m.git_sha;
    j["git_dirty"] = m.git_dirty ? nlohmann::ordered_json(*m.git_dirty) : nlohmann::ordered_json();
    j["branch"] = m.branch;
    j["cli_version"] = m.cli_version;
    j["workspace_kind"] = m.workspace_kind;
    j["source_dir"] = m.source_dir;
    return j.dump(2);
}

Result<RunSnapshotWritten> write_run_snapshot(const FileSystem& fs, const WorkspacePaths& ws, const RunSnapshotRequest& req) {
    if (!is_snapshot_name(req.name)) return Error::internal("snapshot name \"" + req.name + "\" is not a replay id");
    if (Status s = refuse_linked_store(fs, req.store); !s) return s.error();
    // The artifacts that exist, copied streamed (a long log costs no memory
    // of its size), then meta.json.
    const FolderFill files = [&](FolderSink& sink) -> Status {
        for (ArtifactType t : kArtifactTypes) {
            const std::string name = artifact_file_name(t);
            if (!fs.file_exists(ws.path_of(name))) continue;
            if (Result<CopiedFile> copied = sink.copy(ws.small_dir, name); !copied) return copied.error();
        }
        return sink.write(kMetaFileName, snapshot_meta_json(req.meta));
    };
    RunSnapshotWritten out;
    out.dir = req.store + "/" + req.name;
    if (fs.is_symlink(out.dir)) return not_a_link(out.dir);
    const bool exists = fs.directory_exists(out.dir);
    if (exists && !req.force) return Error::invalid("run snapshot exists, pass --force to overwrite: " + out.dir);
    if (!exists) {
        if (Status s = write_folder_atomic(fs, ws, out.dir, files); !s) return s.error();
        return out;
    }
    // --force: build the new folder beside the old one, swap the two in one
    // step (readers see the old or the new folder, never none), drop the old.
    const std::string side = req.store + "/." + req.name + ".replacement";
    discard_tree(side);  // a leftover of an interrupted --force (the store is no link)
    if (Status s = write_folder_atomic(fs, ws, side, files); !s) return s.error();
    if (Status s = publish_folder(side, out.dir, true); !s) return s.error();
    out.replaced = true;
    return out;
}

Result<RunIdentity> current_run_identity(const FileSystem& fs, const WorkspacePaths& ws, const std::string& pinned) {
    const std::string name(kHandoffFileName);
    if (!fs.file_exists(ws.path_of(name))) {
        return Error::invalid(ws.display_of(name) + " not found (run 'small handoff' first)");
    }
    Result<Document> doc = load_yaml_file(fs, ws.path_of(name), ws.display_of(name));
    if (!doc) return doc.error();
    const NodeRef root = doc->root();
    RunIdentity out;
    out.summary = std::string(trim(root.find("summary").as_string()));
    const NodeRef value = root.find("replayId").find("value");
    if (!value.valid() || (value.is_string() && trim(value.as_string()).empty())) {
        return Error::invalid(ws.display_of(name) + " missing replayId, run: small handoff --summary \"<summary>\"");
    }
    const std::string id(trim(value.as_string()));
    if (!value.is_string() || !is_valid_replay_id(id)) {
        Error e = Error::invalid(ws.display_of(name) + " has invalid replayId " + shown_value(value) +
                                 ": expected 64 hex digits; it is never used as a folder name");
        e.hint = "run 'small handoff' to write the run's id";
        return e;
    }
    out.id = !pinned.empty() ? pinned : lower_ascii(id);
    return out;
}

}  // namespace small
