#include "small/store/atomic_file.hpp"

#include <signal.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "small/base/path.hpp"

namespace small {

namespace {

Error refused(const std::string& what, const std::string& path, const std::string& why) {
    return Error::invalid("refusing to " + what + " " + path + ": " + why);
}

std::string strip_trailing_slashes(std::string path) {
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    return path;
}

std::vector<std::string> split_components(std::string_view rel) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= rel.size()) {
        const std::size_t slash = rel.find('/', start);
        const std::size_t end = slash == std::string_view::npos ? rel.size() : slash;
        parts.emplace_back(rel.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

bool is_small_folder_name(const std::string& name) {
    return name == kSmallDirName || name.rfind(std::string(kSmallDirName) + "-", 0) == 0;
}

// D7: only the workspace's `.small*` folders, AGENTS.md and .gitignore.
bool allowed_top_level(const std::vector<std::string>& parts) {
    const std::string& top = parts.front();
    if (is_small_folder_name(top)) return true;
    return parts.size() == 1 && (top == "AGENTS.md" || top == ".gitignore");
}

// Which targets a write admits: the D7 list, one file the user named, or
// an agent settings file of `small hooks`.
bool is_agent_settings_file(const std::vector<std::string>& parts) {
    if (parts.size() == 3 && parts[0] + "/" + parts[1] == kEditorSchemaFolder) return parts[2].ends_with(".schema.json");
    if (parts.size() != 2) return false;
    if (parts[0] + "/" + parts[1] == kEditorSettingsFile) return true;
    for (const std::string_view file : kAgentSettingsFiles) {
        if (file == parts[0] + "/" + parts[1]) return true;
    }
    return false;
}

Status check_user_named_child(const std::vector<std::string>& parts, const std::string& path,
                              const std::string& root, const std::string& what) {
    if (parts.size() != 1) return refused(what, path, "it is not directly inside " + root);
    if (is_small_folder_name(parts.front())) {
        return refused(what, path, "the workspace's .small* folders are not written by name");
    }
    return ok_status();
}

// The components of `path` below ws.root, checked against `rule`.
Result<std::vector<std::string>> workspace_components(const WorkspacePaths& ws, const std::string& path,
                                                     const std::string& what,
                                                     WriteScope rule = WriteScope::Workspace) {
    const std::string root = strip_trailing_slashes(ws.root);
    if (root.empty() || root.front() != '/') return refused(what, path, "the workspace root is not an absolute path");
    const std::string prefix = root == "/" ? "/" : root + "/";
    if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) {
        return refused(what, path, "it is not inside the workspace " + root);
    }
    std::vector<std::string> parts = split_components(std::string_view(path).substr(prefix.size()));
    for (const std::string& part : parts) {
        if (part.empty() || part == "." || part == "..") {
            return refused(what, path, "the path must be normalised (no empty, '.' or '..' parts)");
        }
    }
    if (rule == WriteScope::AgentSettings) {
        if (!is_agent_settings_file(parts)) return refused(what, path, "it is not an agent settings file of small hooks");
        return parts;
    }
    if (rule == WriteScope::UserNamed) {
        if (Status named = check_user_named_child(parts, path, root, what); !named) return named.error();
        return parts;
    }
    if (!allowed_top_level(parts)) {
        return refused(what, path, "only the workspace's .small* folders, AGENTS.md and .gitignore are written");
    }
    return parts;
}

// What the door needs to write `target`, once its path was admitted.
FileWrite write_of(const WorkspacePaths& ws, const std::string& target, unsigned mode, Durability durability,
                   bool make_parents) {
    return FileWrite{.root = strip_trailing_slashes(ws.root),
                     .path = target,
                     .staging_dir = runtime_path(ws.root, kTempDirName),
                     .mode = mode,
                     .durability = durability,
                     .make_parents = make_parents};
}

// Whether the deepest existing folder above `at` is in fact a file (a
// lookup of `at` then fails with ENOTDIR: nothing can be there yet).
bool blocked_by_a_file(const FileSystem& fs, const std::string& at) {
    for (std::string up = parent_path(at); !up.empty() && up != "/"; up = parent_path(up)) {
        if (const std::optional<FileInfo> info = fs.stat(up)) return info->kind == FileKind::Regular;
    }
    return false;
}

}  // namespace

Result<std::string> resolve_write_target(const FileSystem& fs, const std::string& path) {
    std::string at = normal_dir_path(path);
    std::vector<std::string> missing;  // innermost first
    for (;;) {
        Result<std::optional<FileInfo>> looked = fs.inspect(at);
        // Nothing there (or a file in the way: ENOTDIR) sends the walk up; any
        // other failure is the user's to see.
        if (!looked && !blocked_by_a_file(fs, at)) return looked.error();
        const std::optional<FileInfo> info = looked ? *looked : std::nullopt;
        if (info) {
            std::optional<std::string> real = fs.real_path(at);
            // A link that leads somewhere resolves to what is there; one that
            // leads nowhere stays a link.
            const std::optional<FileInfo> target = real ? fs.stat(*real) : std::nullopt;
            if (info->kind == FileKind::Symlink && (!target || target->kind == FileKind::Symlink)) {
                return refused("write", path, at + " is a symbolic link that leads nowhere");
            }
            if (!real) return Error::system("cannot resolve " + at);
            std::string out = *real;
            for (auto it = missing.rbegin(); it != missing.rend(); ++it) out = join_path(out, *it);
            return normal_dir_path(out);
        }
        if (at == "/" || at.empty()) return at;  // "/" always exists; not reached
        missing.push_back(file_name(at));
        at = parent_path(at);
    }
}

Status refuse_target_inside_small_dir(const FileSystem& fs, const std::string& path, const std::string& what) {
    Result<std::string> real = resolve_write_target(fs, path);
    if (!real) return real.error();
    if (!has_path_component(*real, kSmallDirName)) return ok_status();
    const std::string really = *real == path ? "" : " (really " + *real + ")";
    return refused("write", path, what + " would land inside a .small/ folder" + really +
                                      "; .small/ holds only the artifacts, so name a place outside it");
}

Status check_writable_file(const FileSystem& fs, const std::string& path) {
    const std::optional<FileInfo> info = fs.stat(path);
    if (!info || info->kind != FileKind::Regular) return ok_status();  // the write decides
    if (fs.write_access_errno(path) == 0) return ok_status();
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", info->mode & 07777);
    Error e = Error::system("cannot write " + path + ": " + std::strerror(EACCES) + " (it is read-only, mode " + mode +
                            "); nothing was changed");
    e.hint = "make it writable (chmod u+w) if small should change it";
    return e;
}

Status check_replaceable(const FileSystem& fs, const WorkspacePaths& ws, const std::string& target, WriteScope scope) {
    Result<std::vector<std::string>> parts = workspace_components(ws, target, "write", scope);
    if (!parts) return parts.error();
    return fs.check_replaceable(strip_trailing_slashes(ws.root), target);
}

Status ensure_directory(const FileSystem& fs, const WorkspacePaths& ws, const std::string& dir) {
    const std::string trimmed = strip_trailing_slashes(dir);
    Result<std::vector<std::string>> parts = workspace_components(ws, trimmed, "create");
    if (!parts) return parts.error();
    return fs.make_directories(strip_trailing_slashes(ws.root), trimmed);
}

Result<StagedFile> stage_file_atomic(const FileSystem& fs, const WorkspacePaths& ws, const std::string& target,
                                     std::string_view bytes, mode_t mode) {
    Result<std::vector<std::string>> parts = workspace_components(ws, target, "write");
    if (!parts) return parts.error();
    return fs.stage_file(write_of(ws, target, mode, Durability::Full, false), bytes);
}

Status write_file_atomic(const FileSystem& fs, const WorkspacePaths& ws, const std::string& target,
                         std::string_view bytes, const WriteOptions& options) {
    Result<std::vector<std::string>> parts = workspace_components(ws, target, "write", options.scope);
    if (!parts) return parts.error();
    // A cache's folder is made when missing (a read-only command may be the
    // first to run in a fresh clone); so is an agent settings file's.
    const bool make_parents = options.durability == Durability::None || options.scope == WriteScope::AgentSettings;
    return fs.replace_file(write_of(ws, target, options.mode, options.durability, make_parents), bytes);
}

Status copy_file_atomic(const FileSystem& fs, const WorkspacePaths& ws, const std::string& target,
                        const std::string& from_dir, const std::string& from_name,
                        const std::function<void(std::string_view)>& take, const WriteOptions& options) {
    Result<std::vector<std::string>> parts = workspace_components(ws, target, "write", options.scope);
    if (!parts) return parts.error();
    Result<StagedFile> staged =
        fs.stage_copy(write_of(ws, target, options.mode, options.durability, false), from_dir, from_name, take);
    if (!staged) return staged.error();
    return (*staged)->publish();
}

Status write_stream_atomic(const FileSystem& fs, const WorkspacePaths& ws, const std::string& target,
                           const std::function<Status(const PieceSink& put)>& produce, const WriteOptions& options) {
    Result<std::vector<std::string>> parts = workspace_components(ws, target, "write", options.scope);
    if (!parts) return parts.error();
    Result<StagedFile> staged = fs.stage_stream(write_of(ws, target, options.mode, options.durability, false), produce);
    if (!staged) return staged.error();
    return (*staged)->publish();
}

Status remove_file(const FileSystem& fs, const WorkspacePaths& ws, const std::string& target, WriteScope scope) {
    Result<std::vector<std::string>> parts = workspace_components(ws, target, "remove", scope);
    if (!parts) return parts.error();
    const std::string root = strip_trailing_slashes(ws.root);
    // A file a command removes on the user's behalf obeys "read-only means
    // do not change this", as a write does; the door itself unlinks.
    if (Status writable = check_writable_file(fs, target); !writable) return writable;
    if (Status removed = fs.remove_file(root, target); !removed) return removed;
    // An agent settings file's folders (.claude/, .codex/, .vscode/small-schemas/
    // then .vscode/) go too when nothing else is in them; the workspace's own
    // folders stay. Best effort.
    if (scope == WriteScope::AgentSettings) {
        for (std::string dir = parent_path(target); dir.size() > root.size() + 1; dir = parent_path(dir)) {
            if (!fs.remove_empty_directory(root, dir)) break;
        }
    }
    return ok_status();
}

Status write_file_in_folder_atomic(const FileSystem& fs, const std::string& dir, const std::string& name,
                                   std::string_view bytes, mode_t mode) {
    // The merge driver names git's relative temporary files ("." folder).
    const std::string folder = normal_dir_path(absolute_path(process_directory(), dir));
    return fs.replace_file(FileWrite{.root = folder,
                                     .path = join_path(folder, name),
                                     .staging_dir = folder,
                                     .mode = mode,
                                     .durability = Durability::Full,
                                     .exact_mode = true},
                           bytes);
}

Status create_root_directory(const FileSystem& fs, const std::string& root) {
    Status made = fs.create_directories(root);
    if (made) return made;
    Error e = made.error();
    const std::string said = "cannot create " + root + ": ";  // the door's words, reworded for init
    if (e.message.rfind(said, 0) == 0) e.message = "failed to create workspace directory " + root + ": " + e.message.substr(said.size());
    return e;
}

namespace {

// The pid a temporary name starts with; nothing for foreign names.
std::optional<pid_t> writer_pid(std::string_view name) {
    const std::size_t dot = name.find('.');
    if (dot == std::string_view::npos || dot == 0 || !name.ends_with(".tmp")) return std::nullopt;
    pid_t pid = 0;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + dot, pid);
    if (ec != std::errc() || end != name.data() + dot || pid <= 0) return std::nullopt;
    return pid;
}

bool process_is_gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace

Result<std::size_t> remove_stale_temp_files(const FileSystem& fs, const WorkspacePaths& ws) {
    const std::string tmp = runtime_path(ws.root, kTempDirName);
    if (!fs.stat(tmp)) return std::size_t{0};
    if (Status s = ensure_directory(fs, ws, tmp); !s) return s.error();  // refuses a link on the way
    return remove_stale_temp_files_in(fs, strip_trailing_slashes(ws.root), tmp);
}

Result<std::size_t> remove_stale_temp_files_in(const FileSystem& fs, const std::string& root, const std::string& dir) {
    Result<std::vector<DirEntry>> entries = fs.list_directory(dir);
    if (!entries) return entries.error();
    std::size_t removed = 0;
    for (const DirEntry& entry : *entries) {
        const std::optional<pid_t> pid = writer_pid(entry.name);
        if (!pid || !process_is_gone(*pid)) continue;
        // Not synced: a leftover that comes back after a power cut is swept again.
        if (fs.remove_file(root, join_path(dir, entry.name), Durability::None)) ++removed;
    }
    return removed;
}

void remove_empty_staging_folders(const FileSystem& fs, const WorkspacePaths& ws) {
    const std::string root = strip_trailing_slashes(ws.root);
    (void)fs.remove_empty_directory(root, runtime_path(ws.root, kTempDirName));
    (void)fs.remove_empty_directory(root, runtime_path(ws.root, kCacheDirName));
}

Status write_leaving_no_staging(const FileSystem& fs, const WorkspacePaths& ws, const std::function<Status()>& write) {
    const bool had_cache = fs.stat(runtime_path(ws.root, kCacheDirName)).has_value();
    Status done = write();
    if (!had_cache) remove_empty_staging_folders(fs, ws);
    return done;
}

}  // namespace small
