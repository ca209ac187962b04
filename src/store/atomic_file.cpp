#include "small/store/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "small/base/fd.hpp"
#include "small/base/path.hpp"

namespace small {

namespace {

Error refused(const std::string& what, const std::string& path, const std::string& why) {
    return Error::invalid("refusing to " + what + " " + path + ": " + why);
}

// 0 or errno; EINTR is retried.
int fsync_fd(int fd) {
    while (::fsync(fd) != 0) {
        if (errno != EINTR) return errno;
    }
    return 0;
}

// Directories on some filesystems cannot be fsynced (EINVAL): there is
// nothing to flush there, so that is not an error.
int fsync_dir_fd(int fd) {
    const int err = fsync_fd(fd);
    return err == EINVAL ? 0 : err;
}

// 0 or errno; handles EINTR and short writes.
int write_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        if (n == 0) return EIO;  // no progress: do not spin
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return 0;
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
    if (parts.size() != 2) return false;
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

std::string join(const std::string& root, const std::vector<std::string>& parts, std::size_t count) {
    std::string out = strip_trailing_slashes(root);
    for (std::size_t i = 0; i < count; ++i) out += (out == "/" ? "" : "/") + parts[i];
    return out;
}

Result<Fd> open_directory_at(int parent, const std::string& name, const std::string& display) {
    const int fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) return Fd(fd);
    const int err = errno;
    struct stat st {};
    if (::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
        return refused("use", display, "it is a symbolic link (symbolic links in the workspace are not followed)");
    }
    return Error::from_errno("cannot open directory", display, err);
}

// Creates `name` in `parent` if missing; the new entry is made durable.
Status make_directory_at(int parent, const std::string& name, const std::string& display) {
    if (::mkdirat(parent, name.c_str(), 0755) != 0) {
        if (errno == EEXIST) return ok_status();
        return Error::from_errno("cannot create directory", display, errno);
    }
    if (const int err = fsync_dir_fd(parent); err != 0) {
        return Error::from_errno("cannot sync the directory above", display, err);
    }
    return ok_status();
}

// Walks the first `count` components below the root without following
// symbolic links, creating missing folders when `create` is set.
Result<Fd> open_workspace_directory(const WorkspacePaths& ws, const std::vector<std::string>& parts,
                                    std::size_t count, bool create) {
    const std::string root = strip_trailing_slashes(ws.root);
    const int root_fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) return Error::from_errno("cannot open workspace root", root, errno);
    Fd dir(root_fd);
    for (std::size_t i = 0; i < count; ++i) {
        const std::string display = join(root, parts, i + 1);
        if (create) {
            if (Status made = make_directory_at(dir.get(), parts[i], display); !made) return made.error();
        }
        Result<Fd> next = open_directory_at(dir.get(), parts[i], display);
        if (!next) return next.error();
        dir = std::move(next).value();
    }
    return dir;
}

struct ExistingTarget {
    mode_t permissions = 0;
    uid_t uid = 0;
    gid_t gid = 0;
};

// Whether this process may write the file itself. A rename only needs the
// folder to be writable, so it would replace a file that is read-only for
// us: asked explicitly, before the write. Root may write any file, as with
// every other tool (and as the reference does: its test corpus is 0444).
bool writable_for_us(int parent, const std::string& name) {
    return ::faccessat(parent, name.c_str(), W_OK, AT_EACCESS) == 0;  // not a link: checked before
}

Error read_only(const std::string& path, const struct stat& st) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    Error e = Error::system("cannot write " + path + ": " + std::strerror(EACCES) + " (it is read-only, mode " + mode +
                            "); nothing was changed");
    e.hint = "make it writable (chmod u+w) if small should change it";
    return e;
}

// Nothing when the target does not exist yet; refuses links, non-files and
// read-only files.
Result<std::optional<ExistingTarget>> inspect_target(int parent, const std::string& name, const std::string& path) {
    struct stat st {};
    if (::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) return std::optional<ExistingTarget>();
        return Error::from_errno("cannot write", path, errno);
    }
    if (S_ISLNK(st.st_mode)) {
        return refused("write", path, "it is a symbolic link (symbolic links in the workspace are not followed for writes)");
    }
    if (!S_ISREG(st.st_mode)) return refused("write", path, "it is not a regular file");
    if (!writable_for_us(parent, name)) return read_only(path, st);
    return std::optional<ExistingTarget>(ExistingTarget{static_cast<mode_t>(st.st_mode & 07777), st.st_uid, st.st_gid});
}

// The folder holding the last of `parts`, walked like
// open_workspace_directory; an invalid Fd when a folder on the way does not
// exist yet (then neither does the target).
Result<Fd> open_target_directory_if_exists(const WorkspacePaths& ws, const std::vector<std::string>& parts) {
    const std::string root = strip_trailing_slashes(ws.root);
    const int root_fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) {
        if (errno == ENOENT) return Fd();
        return Error::from_errno("cannot open workspace root", root, errno);
    }
    Fd dir(root_fd);
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        struct stat st {};
        if (::fstatat(dir.get(), parts[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) return Fd();
        Result<Fd> next = open_directory_at(dir.get(), parts[i], join(root, parts, i + 1));
        if (!next) return next.error();
        dir = std::move(next).value();
    }
    return dir;
}

// Temporary names start with the writer's pid so that leftovers of dead
// writers can be recognised (remove_stale_temp_files).
std::string temp_name(const std::string& base) {
    static std::atomic<unsigned> counter{0};
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    std::string shortened = base.substr(0, 100);
    return std::to_string(::getpid()) + "." + std::to_string(now) + "-" + std::to_string(counter++) + "." + shortened +
           ".tmp";
}

struct TempFile {
    Fd fd;
    std::string name;
};

Result<TempFile> create_temp(int tmp_dir, const std::string& base, mode_t mode, const std::string& tmp_display) {
    for (int attempt = 0; attempt < 16; ++attempt) {
        std::string name = temp_name(base);
        const int fd = ::openat(tmp_dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0) return TempFile{Fd(fd), std::move(name)};
        if (errno != EEXIST) return Error::from_errno("cannot create a temporary file in", tmp_display, errno);
    }
    return Error::from_errno("cannot create a temporary file in", tmp_display, EEXIST);
}

Status same_filesystem(int tmp_dir, int target_dir, const std::string& tmp_display, const std::string& target_display,
                       const std::string& target) {
    struct stat a {};
    struct stat b {};
    if (::fstat(tmp_dir, &a) != 0) return Error::from_errno("cannot stat", tmp_display, errno);
    if (::fstat(target_dir, &b) != 0) return Error::from_errno("cannot stat", target_display, errno);
    if (a.st_dev == b.st_dev) return ok_status();
    return Error::system("cannot write " + target + ": " + tmp_display + " is on a different filesystem than " +
                         target_display + ", so the write could not be atomic (" + std::strerror(EXDEV) + ")");
}

// Gives the staged file the bytes and the target's permissions, durably.

Status fill_temp(TempFile& temp, std::string_view bytes, const std::optional<ExistingTarget>& existing,
                 const std::string& path, Durability sync) {
    if (existing) {
        // Best effort: only root may give a file away; keeping our own
        // ownership otherwise is harmless.
        if (existing->uid != ::geteuid() || existing->gid != ::getegid()) {
            [[maybe_unused]] const int ignored = ::fchown(temp.fd.get(), existing->uid, existing->gid);
        }
        if (::fchmod(temp.fd.get(), existing->permissions) != 0) return Error::from_errno("cannot write", path, errno);
    }
    if (const int err = write_all(temp.fd.get(), bytes); err != 0) return Error::from_errno("cannot write", path, err);
    if (sync != Durability::None) {
        if (const int err = fsync_fd(temp.fd.get()); err != 0) return Error::from_errno("cannot write", path, err);
    }
    if (const int err = temp.fd.close_checked(); err != 0) return Error::from_errno("cannot write", path, err);
    return ok_status();
}

}  // namespace

Status fsync_directory(const std::string& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return Error::from_errno("cannot open directory", dir, errno);
    Fd guard(fd);
    if (const int err = fsync_dir_fd(fd); err != 0) return Error::from_errno("cannot sync directory", dir, err);
    return ok_status();
}

Result<std::string> resolve_write_target(const std::string& path) {
    std::filesystem::path at = std::filesystem::path(path).lexically_normal();
    std::vector<std::string> missing;  // innermost first
    for (;;) {
        std::error_code ec;
        const std::filesystem::path real = std::filesystem::canonical(at, ec);
        if (!ec) {
            std::filesystem::path out = real;
            for (auto it = missing.rbegin(); it != missing.rend(); ++it) out /= *it;
            return out.lexically_normal().string();
        }
        struct stat st {};
        if (::lstat(at.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
            return refused("write", path, at.string() + " is a symbolic link that leads nowhere");
        }
        if (ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory) {
            return Error::system("cannot resolve " + at.string() + ": " + ec.message());
        }
        if (!at.has_relative_path()) return at.string();  // "/" always exists; not reached
        if (!at.filename().empty()) missing.push_back(at.filename().string());
        at = at.parent_path();
    }
}

Status refuse_target_inside_small_dir(const std::string& path, const std::string& what) {
    Result<std::string> real = resolve_write_target(path);
    if (!real) return real.error();
    if (!has_path_component(*real, kSmallDirName)) return ok_status();
    const std::string really = *real == path ? "" : " (really " + *real + ")";
    return refused("write", path, what + " would land inside a .small/ folder" + really +
                                      "; .small/ holds only the artifacts, so name a place outside it");
}

Status check_writable_file(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return ok_status();  // the write decides
    if (!writable_for_us(AT_FDCWD, path)) return read_only(path, st);
    return ok_status();
}

namespace {

// Whether `target` (named by `parts`) could be replaced now: its folders are
// real folders and it is absent or a regular file we may write.
Status check_components_replaceable(const WorkspacePaths& ws, const Result<std::vector<std::string>>& parts,
                                    const std::string& target) {
    if (!parts) return parts.error();
    Result<Fd> dir = open_target_directory_if_exists(ws, *parts);
    if (!dir) return dir.error();
    if (!dir->valid()) return ok_status();
    Result<std::optional<ExistingTarget>> existing = inspect_target(dir->get(), parts->back(), target);
    if (!existing) return existing.error();
    return ok_status();
}

}  // namespace

Status check_replaceable(const WorkspacePaths& ws, const std::string& target, WriteScope scope) {
    return check_components_replaceable(ws, workspace_components(ws, target, "write", scope), target);
}

Status ensure_directory(const WorkspacePaths& ws, const std::string& dir) {
    Result<std::vector<std::string>> parts = workspace_components(ws, strip_trailing_slashes(dir), "create");
    if (!parts) return parts.error();
    Result<Fd> opened = open_workspace_directory(ws, *parts, parts->size(), true);
    if (!opened) return opened.error();
    return ok_status();
}

namespace {

// The write itself, once `parts` (the target below ws.root) were admitted.
// A staged temporary file and where it goes (see StagedFile).
Result<std::unique_ptr<StagedFile::Parts>> stage_components(const WorkspacePaths& ws,
                                                             const Result<std::vector<std::string>>& parts,
                                                             const std::string& target, std::string_view bytes,
                                                             mode_t mode, Durability sync);

Status write_components_atomic(const WorkspacePaths& ws, const Result<std::vector<std::string>>& parts,
                               const std::string& target, std::string_view bytes, mode_t mode,
                               Durability sync = Durability::Full);

}  // namespace

struct StagedFile::Parts {
    Fd target_dir;
    Fd tmp_dir;
    std::string temp_name;
    std::string name;                // the target's name in target_dir
    std::string target;              // for messages
    std::string target_dir_display;  // for messages
    bool sync_directory = true;  // Durability::Full: the rename is made durable too
    bool published = false;
};

namespace {

Result<std::unique_ptr<StagedFile::Parts>> stage_components(const WorkspacePaths& ws,
                                                             const Result<std::vector<std::string>>& parts,
                                                             const std::string& target, std::string_view bytes,
                                                             mode_t mode, Durability sync) {
    if (!parts) return parts.error();
    auto staged = std::make_unique<StagedFile::Parts>();
    staged->name = parts->back();
    staged->target = target;
    staged->target_dir_display = join(ws.root, *parts, parts->size() - 1);
    staged->sync_directory = sync == Durability::Full;

    Result<Fd> target_dir = open_workspace_directory(ws, *parts, parts->size() - 1, false);
    if (!target_dir) return target_dir.error();
    staged->target_dir = std::move(*target_dir);
    Result<std::optional<ExistingTarget>> existing = inspect_target(staged->target_dir.get(), staged->name, target);
    if (!existing) return existing.error();

    const std::vector<std::string> tmp_parts = split_components(kTempDirName);
    const std::string tmp_display = join(ws.root, tmp_parts, tmp_parts.size());
    Result<Fd> tmp_dir = open_workspace_directory(ws, tmp_parts, tmp_parts.size(), true);
    if (!tmp_dir) return tmp_dir.error();
    staged->tmp_dir = std::move(*tmp_dir);
    if (Status same = same_filesystem(staged->tmp_dir.get(), staged->target_dir.get(), tmp_display,
                                      staged->target_dir_display, target);
        !same) {
        return same.error();
    }
    Result<TempFile> temp = create_temp(staged->tmp_dir.get(), staged->name, mode, tmp_display);
    if (!temp) return temp.error();
    staged->temp_name = temp->name;
    if (Status filled = fill_temp(*temp, bytes, *existing, target, sync); !filled) {
        ::unlinkat(staged->tmp_dir.get(), staged->temp_name.c_str(), 0);
        return filled.error();
    }
    return staged;
}

Status publish_parts(StagedFile::Parts& p) {
    if (::renameat(p.tmp_dir.get(), p.temp_name.c_str(), p.target_dir.get(), p.name.c_str()) != 0) {
        const int err = errno;
        ::unlinkat(p.tmp_dir.get(), p.temp_name.c_str(), 0);
        p.published = true;  // nothing left to remove
        return Error::from_errno("cannot replace", p.target, err);
    }
    p.published = true;
    if (!p.sync_directory) return ok_status();
    if (const int err = fsync_dir_fd(p.target_dir.get()); err != 0) {
        return Error::from_errno("wrote " + p.target + " but could not make it durable: cannot sync directory",
                                 p.target_dir_display, err);
    }
    return ok_status();
}

Status write_components_atomic(const WorkspacePaths& ws, const Result<std::vector<std::string>>& parts,
                               const std::string& target, std::string_view bytes, mode_t mode, Durability sync) {
    Result<std::unique_ptr<StagedFile::Parts>> staged = stage_components(ws, parts, target, bytes, mode, sync);
    if (!staged) return staged.error();
    return publish_parts(**staged);
}

}  // namespace

StagedFile::StagedFile(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}
StagedFile::StagedFile(StagedFile&&) noexcept = default;
StagedFile& StagedFile::operator=(StagedFile&& other) noexcept {
    if (this != &other) {
        discard();
        parts_ = std::move(other.parts_);
    }
    return *this;
}
StagedFile::~StagedFile() { discard(); }

void StagedFile::discard() noexcept {
    if (parts_ && !parts_->published) ::unlinkat(parts_->tmp_dir.get(), parts_->temp_name.c_str(), 0);
    parts_.reset();
}

Status StagedFile::publish() {
    if (!parts_ || parts_->published) return Error::internal("a staged file is published once");
    return publish_parts(*parts_);
}

Result<StagedFile> stage_file_atomic(const WorkspacePaths& ws, const std::string& target, std::string_view bytes,
                                     mode_t mode) {
    Result<std::unique_ptr<StagedFile::Parts>> parts =
        stage_components(ws, workspace_components(ws, target, "write"), target, bytes, mode, Durability::Full);
    if (!parts) return parts.error();
    return StagedFile(std::move(*parts));
}

Status write_file_atomic(const WorkspacePaths& ws, const std::string& target, std::string_view bytes,
                         const WriteOptions& options) {
    Result<std::vector<std::string>> parts = workspace_components(ws, target, "write", options.scope);
    if (!parts) return parts.error();
    // A cache's folder is made when missing (a read-only command may be the
    // first to run in a fresh clone); so is an agent settings file's.
    if (options.durability == Durability::None || options.scope == WriteScope::AgentSettings) {
        Result<Fd> made = open_workspace_directory(ws, *parts, parts->size() - 1, true);
        if (!made) return made.error();
    }
    return write_components_atomic(ws, parts, target, bytes, options.mode, options.durability);
}

Status remove_file(const WorkspacePaths& ws, const std::string& target, WriteScope scope) {
    Result<std::vector<std::string>> parts = workspace_components(ws, target, "remove", scope);
    if (!parts) return parts.error();
    struct stat parent {};
    const std::string parent_path = target.substr(0, target.rfind('/'));
    if (::lstat(parent_path.c_str(), &parent) != 0 && errno == ENOENT) return ok_status();  // nothing to remove
    Result<Fd> dir = open_workspace_directory(ws, *parts, parts->size() - 1, false);
    if (!dir) return dir.error();
    Result<std::optional<ExistingTarget>> existing = inspect_target(dir->get(), parts->back(), target);
    if (!existing) return existing.error();
    if (!*existing) return ok_status();
    if (::unlinkat(dir->get(), parts->back().c_str(), 0) != 0) return Error::from_errno("cannot remove", target, errno);
    if (const int err = fsync_dir_fd(dir->get()); err != 0) return Error::from_errno("cannot sync directory", target, err);
    // An agent settings file's folder (.claude/, .codex/) goes too when nothing
    // else is in it (ENOTEMPTY otherwise); the workspace's own folders stay.
    if (scope != WriteScope::AgentSettings || parts->size() < 2) return ok_status();
    Result<Fd> above = open_workspace_directory(ws, *parts, parts->size() - 2, false);
    if (!above) return above.error();
    if (::unlinkat(above->get(), (*parts)[parts->size() - 2].c_str(), AT_REMOVEDIR) == 0) fsync_dir_fd(above->get());
    return ok_status();
}

Status write_file_in_folder_atomic(const std::string& dir, const std::string& name, std::string_view bytes,
                                   mode_t mode) {
    const std::string target = strip_trailing_slashes(dir) + "/" + name;
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return Error::from_errno("cannot open directory", dir, errno);
    Fd folder(fd);
    Result<std::optional<ExistingTarget>> existing = inspect_target(folder.get(), name, target);
    if (!existing) return existing.error();
    Result<TempFile> temp = create_temp(folder.get(), "." + name, mode, dir);
    if (!temp) return temp.error();
    Status filled = fill_temp(*temp, bytes, std::nullopt, target, Durability::Full);
    if (filled && ::fchmodat(folder.get(), temp->name.c_str(), mode, 0) != 0) {
        filled = Error::from_errno("cannot write", target, errno);
    }
    if (filled && ::renameat(folder.get(), temp->name.c_str(), folder.get(), name.c_str()) != 0) {
        filled = Error::from_errno("cannot replace", target, errno);
    }
    if (!filled) {
        ::unlinkat(folder.get(), temp->name.c_str(), 0);
        return filled.error();
    }
    if (const int err = fsync_dir_fd(folder.get()); err != 0) {
        return Error::from_errno("wrote " + target + " but could not make it durable: cannot sync directory", dir, err);
    }
    return ok_status();
}

namespace {

Status roll_back_append(int fd, std::uint64_t size, const std::string& target, int cause) {
    std::string message = "cannot append to " + target + ": " + std::strerror(cause);
    int err = 0;
    while (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
        if (errno != EINTR) {
            err = errno;
            break;
        }
    }
    if (err == 0) err = fsync_fd(fd);
    if (err == 0) return Error::system(message + " (nothing was appended)");
    return Error::system(message + "; removing the partial write also failed: " + std::strerror(err));
}

}  // namespace

Status append_file_durable(const std::string& target, std::string_view bytes, std::uint64_t expected_size) {
    const int raw = ::open(target.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (raw < 0) {
        const int err = errno;
        if (err == ELOOP) return refused("append to", target, "it is a symbolic link (symbolic links are not followed for writes)");
        struct stat st {};
        if (err == EACCES && ::lstat(target.c_str(), &st) == 0) return read_only(target, st);  // as for replaced files
        return Error::from_errno("cannot append to", target, err);
    }
    Fd fd(raw);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return Error::from_errno("cannot append to", target, errno);
    if (!S_ISREG(st.st_mode)) return refused("append to", target, "it is not a regular file");
    const auto actual = static_cast<std::uint64_t>(st.st_size);
    if (actual != expected_size) {
        return Error::invalid("cannot append to " + target + ": the file changed since it was read (expected " +
                              std::to_string(expected_size) + " bytes, found " + std::to_string(actual) + ")");
    }
    if (bytes.empty()) return ok_status();
    int err = write_all(fd.get(), bytes);
    if (err == 0) err = fsync_fd(fd.get());
    if (err != 0) return roll_back_append(fd.get(), expected_size, target, err);
    if (const int close_err = fd.close_checked(); close_err != 0) {
        return Error::from_errno("cannot append to", target, close_err);
    }
    return ok_status();
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

Result<std::size_t> remove_stale_temp_files(const WorkspacePaths& ws) {
    const std::vector<std::string> tmp_parts = split_components(kTempDirName);
    const std::string tmp_display = join(ws.root, tmp_parts, tmp_parts.size());
    struct stat st {};
    if (::lstat(tmp_display.c_str(), &st) != 0 && errno == ENOENT) return std::size_t{0};
    Result<Fd> tmp_dir = open_workspace_directory(ws, tmp_parts, tmp_parts.size(), false);
    if (!tmp_dir) return tmp_dir.error();
    Fd listing_fd(::dup(tmp_dir->get()));
    if (!listing_fd.valid()) return Error::from_errno("cannot list", tmp_display, errno);
    DIR* listing = ::fdopendir(listing_fd.get());
    if (listing == nullptr) return Error::from_errno("cannot list", tmp_display, errno);
    listing_fd.release();  // the DIR owns it now: closedir() closes it
    std::size_t removed = 0;
    while (const dirent* entry = ::readdir(listing)) {
        const std::optional<pid_t> pid = writer_pid(entry->d_name);
        if (pid && process_is_gone(*pid) && ::unlinkat(tmp_dir->get(), entry->d_name, 0) == 0) ++removed;
    }
    ::closedir(listing);
    return removed;
}

Status write_folder_atomic(const WorkspacePaths& ws, const std::string& dir, const FolderFiles& files) {
    const std::size_t slash = dir.rfind('/');
    if (slash == std::string::npos || slash + 1 == dir.size()) return Error::internal("folder path " + dir);
    const std::string parent = dir.substr(0, slash);
    const std::string partial = parent + "/." + dir.substr(slash + 1) + ".partial";
    // ensure_directory refuses a linked parent, so remove_all cannot reach
    // outside the workspace.
    if (Status s = ensure_directory(ws, parent); !s) return s;
    std::error_code ec;
    std::filesystem::remove_all(partial, ec);  // a leftover of an interrupted write
    Status filled = ensure_directory(ws, partial);
    for (std::size_t i = 0; filled && i < files.size(); ++i) {
        const bool last = i + 1 == files.size();  // one directory fsync makes all the renames durable
        filled = write_file_atomic(ws, partial + "/" + files[i].first, files[i].second,
                                   {.durability = last ? Durability::Full : Durability::SkipDirectorySync});
    }
    if (filled && ::rename(partial.c_str(), dir.c_str()) != 0) {
        filled = Error::from_errno("cannot move " + partial + " to", dir, errno);
    }
    if (!filled) {
        std::filesystem::remove_all(partial, ec);  // e.g. a full disk: nothing left behind
        return filled;
    }
    return fsync_directory(parent);
}

Status create_root_directory(const std::string& root) {
    std::error_code ec;
    std::filesystem::create_directories(root, ec);
    if (ec || !std::filesystem::is_directory(root)) {
        return Error::system("failed to create workspace directory " + root + ": " +
                             (ec ? ec.message() : std::string("not a directory")));
    }
    return ok_status();
}

void discard_tree(const std::string& dir) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}

void discard_empty_folder(const std::string& dir) { (void)::rmdir(dir.c_str()); }

void remove_empty_staging_folders(const WorkspacePaths& ws) {
    // rmdir only removes an empty folder, and never follows a link.
    (void)::rmdir(runtime_path(ws.root, kTempDirName).c_str());
    (void)::rmdir(runtime_path(ws.root, kCacheDirName).c_str());
}

Status write_leaving_no_staging(const WorkspacePaths& ws, const std::function<Status()>& write) {
    struct stat st {};
    const bool had_cache = ::lstat(runtime_path(ws.root, kCacheDirName).c_str(), &st) == 0;
    Status done = write();
    if (!had_cache) remove_empty_staging_folders(ws);
    return done;
}

}  // namespace small
