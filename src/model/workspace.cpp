#include "small/model/workspace.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

#include "small/model/replay_id.hpp"
#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"

namespace small {

namespace {

std::string display_prefix_for(const std::string& root, const std::string& cwd) {
    if (root == cwd) return "";
    if (root == "/") return "/";
    if (root.rfind(cwd + "/", 0) == 0) return root.substr(cwd.size() + 1) + "/";
    if (cwd == "/") return root.substr(1) + "/";
    return root + "/";
}

WorkspacePaths make_paths(const std::string& root, const std::string& cwd) {
    WorkspacePaths ws;
    ws.root = root;
    ws.small_dir = small_dir_path(root);
    ws.display_prefix = display_prefix_for(root, cwd);
    return ws;
}

}  // namespace

WorkspacePaths locate_workspace(const FileSystem& fs, const std::optional<std::string>& dir, const std::string& cwd_in) {
    const std::string cwd = normal_dir_path(cwd_in);
    if (dir && !dir->empty()) {
        std::string root = normal_dir_path(absolute_path(cwd, *dir));
        if (file_name(root) == kSmallDirName) root = normal_dir_path(parent_path(root));
        WorkspacePaths ws = make_paths(root, cwd);
        ws.from_dir_flag = true;
        return ws;
    }
    // Walk up like git does; inside .small/ itself, its parent is the root.
    for (std::string p = cwd;; p = parent_path(p)) {
        if (file_name(p) == kSmallDirName && fs.directory_exists(p)) return make_paths(normal_dir_path(parent_path(p)), cwd);
        // A `.small` link (even a dangling one) marks the workspace too: the
        // search must not go on to a parent's workspace (D7 refuses the link).
        const std::string marker = join_path(p, kSmallDirName);
        if (fs.directory_exists(marker) || fs.is_symlink(marker)) return make_paths(p, cwd);
        if (p == "/" || p.empty()) break;
    }
    return make_paths(cwd, cwd);
}

Status require_small_dir(const FileSystem& fs, const WorkspacePaths& ws) {
    if (fs.directory_exists(ws.small_dir)) return ok_status();
    return Error::system("no .small/ directory found in " + ws.root +
                         (ws.from_dir_flag ? "" : " or any parent directory") + "; run `small init` first");
}

Status require_artifact(const FileSystem& fs, const WorkspacePaths& ws, ArtifactType t, std::string_view what_to_do) {
    if (fs.file_exists(ws.artifact_path(t))) return ok_status();
    return Error::system(ws.artifact_display(t) + " is missing; " + std::string(what_to_do));
}

namespace {

// Issue 24: a root named through a link may really be a .small/ folder (or
// lie in one); the lexical paths cannot tell.
Status refuse_root_inside_small_dir(const FileSystem& fs, const WorkspacePaths& ws) {
    const std::optional<std::string> real = fs.real_path(ws.root);
    if (!real || !has_path_component(*real, kSmallDirName)) return ok_status();
    return Error::invalid("refusing to write in " + ws.root + ": it really is " + *real +
                          ", inside a .small/ folder (reached through a symbolic link); name the workspace root "
                          "itself");
}

}  // namespace

Status refuse_linked_small_dir(const FileSystem& fs, const WorkspacePaths& ws) {
    if (!fs.is_symlink(ws.small_dir)) return refuse_root_inside_small_dir(fs, ws);
    return Error::invalid("refusing to write through " + ws.small_dir +
                          ": it is a symbolic link (small never writes through a linked .small/); "
                          "replace the link with the folder it points to");
}

Result<Document> load_yaml_file(const FileSystem& fs, const std::string& path, const std::string& display) {
    if (fs.directory_exists(path)) {
        Error e = Error::invalid("is a directory, not a file; move it away and restore the file");
        e.file = display;
        return e;
    }
    Result<std::string> bytes = fs.read_file(path);
    if (!bytes) {
        Error e = bytes.error();
        e.file = display;
        if (!fs.file_exists(path) && !fs.directory_exists(path)) {
            e.kind = Error::Kind::Invalid;
            e.message = "file is missing; create it (small init) or restore it from version control";
        }
        return e;
    }
    const std::size_t first_size = bytes->size();
    Result<Document> doc = parse_yaml(std::move(*bytes), display);
    if (!doc && doc.error().kind == Error::Kind::Invalid) {
        // Readers take no lock: a progress append may be mid-write() (see
        // progress_log.hpp). A file that grew since is read once more.
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        Result<std::string> again = fs.read_file(path);
        if (again && again->size() != first_size) doc = parse_yaml(std::move(*again), display);
        if (!doc) return doc;
    }
    if (!doc) return doc;
    const NodeRef root = doc->root();
    if (!root.is_mapping()) {
        Error e = Error::invalid(
            root.valid() ? "artifact must be a YAML mapping (object) at top level, got " +
                               std::string(root.kind() == NodeKind::Int ? "an " : "a ") + kind_name(root.kind())
                         : "artifact must be a YAML mapping (object) at top level; the file has no content");
        e.file = display;
        e.line = root.valid() ? root.mark().line : 1;
        e.column = root.valid() ? root.mark().column : 1;
        return e;
    }
    return doc;
}

namespace {

std::string size_text(std::uint64_t bytes) {
    return bytes >= (std::uint64_t{1} << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

}  // namespace

Result<Document> load_whole_log(const FileSystem& fs, const std::string& path, const std::string& display) {
    const std::uint64_t limit = fs.max_read_bytes();
    const std::optional<FileInfo> info = fs.stat(path);
    if (!info || info->kind != FileKind::Regular || info->size <= limit) return load_yaml_file(fs, path, display);
    Error e = Error::invalid(
        "the log is " + size_text(info->size) + ", more than the " + size_text(limit) +
        " small reads whole: a log this long is read in windows of whole entries, but this needs all of it at once "
        "(a finding in the log, to say where it is, or a layout windows cannot follow)");
    e.file = display;
    e.hint = "look at the newest entries first (windows stop at an alias, a `---` or `...` line, a flow list, or a "
             "line at the entries' indentation that starts no entry); keep a copy with `small archive` before "
             "shortening the log by hand";
    return e;
}

namespace {

Result<Artifact> read_artifact(const FileSystem& fs, const WorkspacePaths& ws, ArtifactType type) {
    Artifact artifact{type, ws.artifact_path(type), ws.artifact_display(type), Document()};
    Result<Document> doc = type == ArtifactType::Progress ? load_whole_log(fs, artifact.path, artifact.display)
                                                          : load_yaml_file(fs, artifact.path, artifact.display);
    if (!doc) return doc.error();
    artifact.doc = std::move(*doc);
    return artifact;
}

}  // namespace

ArtifactSet load_artifacts_but_progress(const FileSystem& fs, const WorkspacePaths& ws) {
    ArtifactSet set;
    for (ArtifactType type : kArtifactTypes) {
        if (type == ArtifactType::Progress) {
            set.errors_before_progress = set.errors.size();
            continue;
        }
        Result<Artifact> artifact = read_artifact(fs, ws, type);
        if (artifact) {
            set.artifacts[static_cast<std::size_t>(type)] = std::move(*artifact);
        } else {
            set.errors.push_back(artifact.error());
        }
    }
    return set;
}

void add_progress(ArtifactSet& set, const FileSystem& fs, const WorkspacePaths& ws, std::optional<Artifact> progress) {
    if (!progress) {
        Result<Artifact> log = read_artifact(fs, ws, ArtifactType::Progress);
        if (!log) {
            // Errors stay in kArtifactTypes order: the log's before the handoff's.
            const std::size_t at = std::min(set.errors_before_progress, set.errors.size());
            set.errors.insert(set.errors.begin() + static_cast<std::ptrdiff_t>(at), log.error());
            return;
        }
        progress = std::move(*log);
    }
    set.artifacts[static_cast<std::size_t>(ArtifactType::Progress)] = std::move(progress);
}

ArtifactSet load_artifacts(const FileSystem& fs, const WorkspacePaths& ws, std::optional<Artifact> progress) {
    ArtifactSet set = load_artifacts_but_progress(fs, ws);
    add_progress(set, fs, ws, std::move(progress));
    return set;
}

std::string_view workspace_kind_name(WorkspaceKind kind) {
    return kind == WorkspaceKind::RepoRoot ? "repo-root" : "examples";
}

std::string_view workspace_scope_name(WorkspaceScope scope) {
    switch (scope) {
        case WorkspaceScope::Root: return "root";
        case WorkspaceScope::Examples: return "examples";
        case WorkspaceScope::Any: return "any";
    }
    return "root";
}

Result<WorkspaceScope> parse_workspace_scope(std::string_view text) {
    std::string s;
    for (char c : text) {
        if (!std::isspace(static_cast<unsigned char>(c))) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (s == "root") return WorkspaceScope::Root;
    if (s == "examples") return WorkspaceScope::Examples;
    if (s == "any") return WorkspaceScope::Any;
    return Error::usage("invalid workspace scope: " + std::string(text) + " (use root, examples or any)");
}

Result<WorkspaceMetadata> load_workspace_metadata(const FileSystem& fs, const WorkspacePaths& ws) {
    const std::string path = ws.path_of(kWorkspaceFileName);
    const std::string display = ws.display_of(kWorkspaceFileName);
    if (!fs.file_exists(path)) {
        Error e = Error::invalid("workspace metadata missing: " + display +
                                 "; create it with `small init` (or `small fix workspace`)");
        e.file = display;
        return e;
    }
    Result<Document> doc = load_yaml_file(fs, path, display);
    if (!doc) return doc.error();
    return workspace_metadata_from(*doc, ws);
}

Result<WorkspaceMetadata> workspace_metadata_from(const Document& doc, const WorkspacePaths& ws) {
    const std::string display = ws.display_of(kWorkspaceFileName);
    const NodeRef root = doc.root();
    const NodeRef kind = root.find("kind");
    WorkspaceMetadata meta;
    if (kind.as_string() == "repo-root") {
        meta.kind = WorkspaceKind::RepoRoot;
    } else if (kind.as_string() == "examples") {
        meta.kind = WorkspaceKind::Examples;
    } else {
        Error e = Error::invalid("invalid workspace kind " + quoted_excerpt(kind.scalar_text()) +
                                 "; valid kinds: [\"repo-root\", \"examples\"]");
        e.file = display;
        const Mark m = kind.valid() ? kind.mark() : root.mark();
        e.line = m.line;
        e.column = m.column;
        return e;
    }
    Result<std::string> run_id = pinned_run_id(root, ws);
    if (run_id) meta.run_replay_id = std::move(*run_id);
    else meta.run_id_error = run_id.error();  // writes refuse it; readers warn (see the header)
    return meta;
}

Result<std::string> pinned_run_id(NodeRef root, const WorkspacePaths& ws) {
    const NodeRef run = root.find("run");
    if (!run.valid() || run.is_null()) return std::string();
    const NodeRef id = run.find("replay_id");
    if (run.is_mapping() && (!id.valid() || id.is_null())) return std::string();
    if (run.is_mapping() && id.is_string() && is_valid_replay_id(trim(id.as_string()))) {
        return std::string(trim(id.as_string()));
    }
    const NodeRef at = run.is_mapping() ? id : run;
    Error e = Error::invalid(run.is_mapping() ? "run.replay_id must be a replay id (64 hex digits), got " + shown_value(id)
                                              : "run must be a mapping (with replay_id), got " + shown_value(run));
    e.file = ws.display_of(kWorkspaceFileName);
    e.line = at.mark().line;
    e.column = at.mark().column;
    e.rule = "WS-2";
    e.hint = "set run.replay_id to the run's id (the handoff's replayId.value), or delete the run: block "
             "and let the next small write pin a new one";
    return e;
}

Status check_workspace_scope(const WorkspaceMetadata& meta, WorkspaceScope scope, const WorkspacePaths& ws) {
    const bool allowed = scope == WorkspaceScope::Any ||
                         (scope == WorkspaceScope::Root && meta.kind == WorkspaceKind::RepoRoot) ||
                         (scope == WorkspaceScope::Examples && meta.kind == WorkspaceKind::Examples);
    if (allowed) return ok_status();
    Error e = Error::invalid("workspace kind \"" + std::string(workspace_kind_name(meta.kind)) +
                             "\" is not allowed for scope " + std::string(workspace_scope_name(scope)) +
                             " (pass --workspace " + std::string(meta.kind == WorkspaceKind::Examples ? "examples" : "root") +
                             " or --workspace any)");
    e.file = ws.display_of(kWorkspaceFileName);
    return e;
}

Status for_each_log_entry(const FileSystem& fs, const std::string& path, const std::string& display,
                          const std::function<void()>& restart, const std::function<bool(NodeRef entry)>& visit,
                          const LogWindows& windows) {
    bool stopped = false, visited = false;
    const bool whole_pass = for_each_entry_window(fs, path, display, windows, [&](const Document& window) {
        const NodeRef entries = window.root().find("entries");
        for (std::size_t i = 0; !stopped && i < entries.size(); ++i) {
            visited = true;
            stopped = !visit(entries.item(i));
        }
    });
    if (whole_pass) return ok_status();  // a stop early still needs every window to have read as the whole file
    if (visited) restart();
    Result<Document> doc = load_whole_log(fs, path, display);
    if (!doc) return doc.error();
    const NodeRef entries = doc->root().find("entries");
    for (std::size_t i = 0; entries.is_sequence() && i < entries.size(); ++i) {
        if (!visit(entries.item(i))) break;
    }
    return ok_status();
}

}  // namespace small
