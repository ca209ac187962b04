// `small archive` (see archive.hpp).
#include "small/ops/maintenance/archive.hpp"

#include <algorithm>

#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/replay_id.hpp"
#include "small/model/workspace.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/folder_publish.hpp"
#include "small/store/progress_log.hpp"
#include "small/store/run_index.hpp"
#include "small/store/run_store.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

namespace {

Result<std::vector<std::string>> included_names(const std::vector<std::string>& include) {
    if (include.empty()) return archive_file_names();
    std::vector<std::string> out;
    for (const std::string& raw : include) {
        const std::string name(trim(raw));
        if (!is_archive_file_name(name)) {
            return Error::usage("--include \"" + raw + "\" is not an artifact file name; use one of: intent.small.yml, "
                                "constraints.small.yml, plan.small.yml, progress.small.yml, handoff.small.yml, "
                                "workspace.small.yml");
        }
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    }
    return out;
}

std::string manifest_text(const ArchiveResult& r, const std::string& source_dir) {
    YamlValue m = YamlValue::object();
    m["small_version"] = std::string(kProtocolVersion);
    m["archived_at"] = r.archived_at;
    m["source_dir"] = source_dir;
    m["replayId"] = r.replay_id;
    m["files"] = YamlValue::array();
    for (const ArchivedFile& f : r.files) m["files"].push_back({{"name", f.name}, {"sha256", f.sha256}});
    return emit_document(m);
}

bool inside(const std::string& path, const std::string& dir) {
    return path == dir || path.rfind(dir + "/", 0) == 0;
}

}  // namespace

bool is_archive_file_name(std::string_view name) {
    const std::vector<std::string> names = archive_file_names();
    return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> archive_file_names() {
    std::vector<std::string> out;
    for (ArtifactType t : kArtifactTypes) out.push_back(artifact_file_name(t));
    out.emplace_back(kWorkspaceFileName);
    return out;
}

Result<ArchiveResult> archive_command(const FileSystem& fs, const WorkspacePaths& ws, const ArchiveRequest& req) {
    Result<std::vector<std::string>> names = included_names(req.include);
    if (!names) return names.error();
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{WorkspaceScope::Any, false, req.lock_wait});
    if (!session) return session.error();
    Result<RunIdentity> run = current_run_identity(fs, ws, session->run_replay_id);
    if (!run) return run.error();

    ArchiveResult r;
    r.replay_id = run->id;
    r.archived_at = format_timestamp_utc9(current_instant());
    const bool default_dir = !req.out;
    r.dir = default_dir ? runtime_path(ws.root, kArchiveDirName) + "/" + r.replay_id : normal_path(*req.out);
    while (r.dir.size() > 1 && r.dir.back() == '/') r.dir.pop_back();
    if (!default_dir && inside(r.dir, ws.small_dir)) {
        return Error::invalid("--out " + r.dir + " is inside .small/; name a folder outside it");
    }
    if (!default_dir) {
        if (Status s = refuse_target_inside_small_dir(fs, r.dir, "--out"); !s) return s.error();
    }
    // Each file copied streamed and hashed while copied (a long log costs no
    // memory of its size, and is read once), then the manifest of those hashes.
    const FolderFill files = [&](FolderSink& sink) -> Status {
        r.files.clear();
        for (const std::string& name : *names) {
            if (!fs.file_exists(ws.path_of(name))) continue;  // as the reference: skipped
            Result<CopiedFile> copied = sink.copy(ws.small_dir, name);
            if (!copied) return copied.error();
            r.files.push_back({name, copied->sha256, static_cast<std::size_t>(copied->bytes)});
        }
        return sink.write(std::string(kArchiveManifestName), manifest_text(r, ws.root));
    };
    if (Status s = place_folder(fs, ws, r.dir, default_dir, files, r.replaced); !s) return s.error();
    const GitFacts git = read_git_facts(fs, ws.root);
    if (Status s = append_run_index(fs, ws, run_store_dir(ws, ""), {r.replay_id, r.archived_at, git.sha, run->summary, "archive"});
        !s) {
        return Error::system("archive written to " + r.dir + ", but failed to append run index: " + s.error().message);
    }
    return r;
}

bool ArchiveVerifyResult::ok() const {
    return std::all_of(files.begin(), files.end(), [](const ArchiveCheck& c) { return c.status == "ok"; });
}

Result<ArchiveVerifyResult> archive_verify_command(const FileSystem& fs, const std::string& dir) {
    ArchiveVerifyResult out;
    out.dir = dir;
    if (fs.is_symlink(dir)) return Error::invalid(dir + " is a symbolic link; name the archive folder itself");
    if (!fs.directory_exists(dir)) return Error::system("archive folder not found: " + dir);
    const std::string manifest = dir + "/" + std::string(kArchiveManifestName);
    if (fs.is_symlink(manifest)) return Error::invalid(manifest + " is a symbolic link");
    Result<Document> doc = load_yaml_file(fs, manifest, manifest);
    if (!doc) return doc.error();
    out.replay_id = std::string(doc->root().find("replayId").as_string());
    const NodeRef list = doc->root().find("files");
    if (!list.is_sequence()) return Error::invalid(manifest + ": `files` must be a list of {name, sha256}");
    std::vector<std::string> listed;
    for (std::size_t i = 0; i < list.size(); ++i) {
        ArchiveCheck c;
        c.name = std::string(list.item(i).find("name").as_string());
        c.expected = lower_ascii(trim(list.item(i).find("sha256").as_string()));
        listed.push_back(c.name);
        const std::string path = dir + "/" + c.name;
        if (!is_archive_file_name(c.name) || c.expected.size() != 64) {
            c.status = "invalid";  // never joined into a path
        } else if (fs.is_symlink(path) || !fs.file_exists(path)) {
            c.status = "missing";
        } else {
            // Hashed streamed: an archived log of any length costs one buffer.
            Sha256Hasher hash;
            Result<std::uint64_t> read = fs.stream_file_no_follow(dir, c.name, [&](std::string_view piece) {
                hash.update(piece);
                return ok_status();
            });
            if (!read) return read.error();
            c.actual = hash.hex();
            c.status = c.actual == c.expected ? "ok" : "mismatch";
        }
        out.files.push_back(std::move(c));
    }
    Result<std::vector<DirEntry>> present = fs.list_directory(dir);
    if (!present) return present.error();
    for (const DirEntry& e : *present) {  // sorted by name
        if (e.name == kArchiveManifestName || std::find(listed.begin(), listed.end(), e.name) != listed.end()) continue;
        out.files.push_back({e.name, "unlisted", "", ""});
    }
    return out;
}

}  // namespace small
