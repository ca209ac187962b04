// The write half of RealFileSystem: the mechanics of crash-safe writes.
// Which paths a command may write is decided above (store/atomic_file);
// here every folder below a root is opened with O_NOFOLLOW, one descriptor
// at a time, so a link swapped in after a check is refused, never followed.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "small/base/fd.hpp"
#include "small/base/filesystem.hpp"

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

std::string without_trailing_slashes(std::string path) {
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    return path;
}

// A path below a root, as the root and the names leading down from it.
struct RootedPath {
    std::string root;
    std::vector<std::string> parts;
    // The root joined with the first `count` names.
    std::string first(std::size_t count) const {
        std::string out = root;
        for (std::size_t i = 0; i < count; ++i) out += (out == "/" ? "" : "/") + parts[i];
        return out;
    }
    std::string parent() const { return first(parts.size() - 1); }
};

Result<RootedPath> below_root(const std::string& root_in, const std::string& path, const std::string& what) {
    RootedPath out{without_trailing_slashes(root_in), {}};
    if (out.root.empty() || out.root.front() != '/') return refused(what, path, "the root is not an absolute path");
    const std::string prefix = out.root == "/" ? "/" : out.root + "/";
    const std::string trimmed = without_trailing_slashes(path);
    if (trimmed.size() <= prefix.size() || trimmed.compare(0, prefix.size(), prefix) != 0) {
        return refused(what, path, "it is not inside " + out.root);
    }
    std::size_t start = prefix.size();
    while (start <= trimmed.size()) {
        const std::size_t slash = std::min(trimmed.find('/', start), trimmed.size());
        std::string part = trimmed.substr(start, slash - start);
        if (part.empty() || part == "." || part == "..") {
            return refused(what, path, "the path must be normalised (no empty, '.' or '..' parts)");
        }
        out.parts.push_back(std::move(part));
        start = slash + 1;
    }
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

// Walks the first `count` names below the root without following symbolic
// links, creating missing folders when `create` is set.
Result<Fd> open_below(const RootedPath& at, std::size_t count, bool create) {
    const int root_fd = ::open(at.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) return Error::from_errno("cannot open workspace root", at.root, errno);
    Fd dir(root_fd);
    for (std::size_t i = 0; i < count; ++i) {
        const std::string display = at.first(i + 1);
        if (create) {
            if (Status made = make_directory_at(dir.get(), at.parts[i], display); !made) return made.error();
        }
        Result<Fd> next = open_directory_at(dir.get(), at.parts[i], display);
        if (!next) return next.error();
        dir = std::move(next).value();
    }
    return dir;
}

// The folder holding the last name, walked like open_below; an invalid Fd
// when a folder on the way does not exist yet (then neither does the target).
Result<Fd> open_parent_if_exists(const RootedPath& at) {
    const int root_fd = ::open(at.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) {
        if (errno == ENOENT) return Fd();
        return Error::from_errno("cannot open workspace root", at.root, errno);
    }
    Fd dir(root_fd);
    for (std::size_t i = 0; i + 1 < at.parts.size(); ++i) {
        struct stat st {};
        if (::fstatat(dir.get(), at.parts[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) return Fd();
        Result<Fd> next = open_directory_at(dir.get(), at.parts[i], at.first(i + 1));
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
// every other tool.
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
// (when it is to be written, not removed) read-only files.
Result<std::optional<ExistingTarget>> inspect_target(int parent, const std::string& name, const std::string& path,
                                                     bool to_write = true) {
    struct stat st {};
    if (::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) return std::optional<ExistingTarget>();
        return Error::from_errno("cannot write", path, errno);
    }
    if (S_ISLNK(st.st_mode)) {
        return refused("write", path, "it is a symbolic link (symbolic links in the workspace are not followed for writes)");
    }
    if (!S_ISREG(st.st_mode)) return refused("write", path, "it is not a regular file");
    if (to_write && !writable_for_us(parent, name)) return read_only(path, st);
    return std::optional<ExistingTarget>(ExistingTarget{static_cast<mode_t>(st.st_mode & 07777), st.st_uid, st.st_gid});
}

// Temporary names start with the writer's pid so that leftovers of dead
// writers can be recognised (store: remove_stale_temp_files).
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

// Gives the staged file the target's permissions.
Status give_permissions(TempFile& temp, const std::optional<ExistingTarget>& existing, const std::string& path) {
    if (existing) {
        // Best effort: only root may give a file away; keeping our own
        // ownership otherwise is harmless.
        if (existing->uid != ::geteuid() || existing->gid != ::getegid()) {
            [[maybe_unused]] const int ignored = ::fchown(temp.fd.get(), existing->uid, existing->gid);
        }
        if (::fchmod(temp.fd.get(), existing->permissions) != 0) return Error::from_errno("cannot write", path, errno);
    }
    return ok_status();
}

// Syncs (as `sync` says) and closes the filled staged file.
Status close_temp(TempFile& temp, const std::string& path, Durability sync) {
    if (sync != Durability::None) {
        if (const int err = fsync_fd(temp.fd.get()); err != 0) return Error::from_errno("cannot write", path, err);
    }
    if (const int err = temp.fd.close_checked(); err != 0) return Error::from_errno("cannot write", path, err);
    return ok_status();
}

// Gives the staged file the bytes and the target's permissions, durably.
Status fill_temp(TempFile& temp, std::string_view bytes, const std::optional<ExistingTarget>& existing,
                 const std::string& path, Durability sync) {
    if (Status given = give_permissions(temp, existing, path); !given) return given;
    if (const int err = write_all(temp.fd.get(), bytes); err != 0) return Error::from_errno("cannot write", path, err);
    return close_temp(temp, path, sync);
}

// A staged temporary file and where it goes.
class DiskStagedWrite final : public StagedWrite {
public:
    Fd target_dir;
    Fd tmp_dir;
    std::string temp_name;
    std::string name;                // the target's name in target_dir
    std::string target;              // for messages
    std::string target_dir_display;  // for messages
    bool sync_directory = true;      // Durability::Full: the rename is made durable too
    bool published = false;

    ~DiskStagedWrite() override {
        if (!published && tmp_dir.valid()) ::unlinkat(tmp_dir.get(), temp_name.c_str(), 0);
    }

    Status publish() override {
        if (published) return Error::internal("a staged file is published once");
        published = true;  // whatever happens next, nothing is left to remove
        if (::renameat(tmp_dir.get(), temp_name.c_str(), target_dir.get(), name.c_str()) != 0) {
            const int err = errno;
            ::unlinkat(tmp_dir.get(), temp_name.c_str(), 0);
            return Error::from_errno("cannot replace", target, err);
        }
        if (!sync_directory) return ok_status();
        if (const int err = fsync_dir_fd(target_dir.get()); err != 0) {
            return Error::from_errno("wrote " + target + " but could not make it durable: cannot sync directory",
                                     target_dir_display, err);
        }
        return ok_status();
    }
};

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

std::string parent_folder(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    return slash == 0 ? "/" : path.substr(0, slash);
}

// An flock held on an open lock file; closing the descriptor releases it.
class DiskLock final : public HeldLock {
public:
    DiskLock(Fd fd, std::string path) : HeldLock(std::move(path)), fd_(std::move(fd)) {}
    ~DiskLock() override {
        // Clearing the holder record is cosmetic; it happens while we still
        // hold the lock, so it never erases a later holder's record.
        [[maybe_unused]] const int ignored = ::ftruncate(fd_.get(), 0);
    }

private:
    Fd fd_;
};

// O_CLOEXEC: a command run by `small apply` must not inherit the lock. (A
// fork() without exec would share it until both processes close it.)
Result<Fd> open_lock_file(const std::string& path) {
    while (true) {
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) return Fd(fd);
        if (errno == EINTR) continue;
        if (errno == ELOOP) return Error::invalid("refusing to use " + path + ": it is a symbolic link");
        return Error::from_errno("cannot open the workspace lock", path, errno);
    }
}

// 0 when locked, EWOULDBLOCK when another process holds it, else errno.
int try_flock(int fd) {
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EINTR) return errno == EAGAIN ? EWOULDBLOCK : errno;
    }
    return 0;
}

// Someone may have deleted or replaced the lock file between our open()
// and flock(); a lock on an unlinked inode excludes nobody.
bool still_the_lock_file(int fd, const std::string& path) {
    struct stat held {};
    struct stat named {};
    if (::fstat(fd, &held) != 0 || ::lstat(path.c_str(), &named) != 0) return false;
    return held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

// Informational only (the kernel knows who holds the lock): failures to
// record it are ignored.
void record_holder(int fd, std::string_view text) {
    if (::ftruncate(fd, 0) != 0) return;
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

std::string read_holder_record(int fd) {
    std::string text(256, '\0');
    ssize_t n = -1;
    do {
        n = ::pread(fd, text.data(), text.size(), 0);
    } while (n < 0 && errno == EINTR);
    text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return text;
}

}  // namespace

namespace {

// A staged write's temporary file, open and not yet filled, and the
// permissions it is to get (an existing target's, unless exact_mode).
struct Staging {
    std::unique_ptr<DiskStagedWrite> staged;
    TempFile temp;
    std::optional<ExistingTarget> kept;
};

Result<Staging> begin_staging(const FileWrite& write) {
    Result<RootedPath> at = below_root(write.root, write.path, "write");
    if (!at) return at.error();
    Result<RootedPath> tmp = without_trailing_slashes(write.staging_dir) == at->root
                                 ? Result<RootedPath>(RootedPath{at->root, {}})
                                 : below_root(write.root, write.staging_dir, "write");
    if (!tmp) return tmp.error();
    auto staged = std::make_unique<DiskStagedWrite>();
    staged->name = at->parts.back();
    staged->target = write.path;
    staged->target_dir_display = at->parent();
    staged->sync_directory = write.durability == Durability::Full;

    Result<Fd> target_dir = open_below(*at, at->parts.size() - 1, write.make_parents);
    if (!target_dir) return target_dir.error();
    staged->target_dir = std::move(*target_dir);
    Result<std::optional<ExistingTarget>> existing = inspect_target(staged->target_dir.get(), staged->name, write.path);
    if (!existing) return existing.error();

    const std::string tmp_display = tmp->first(tmp->parts.size());
    Result<Fd> tmp_dir = open_below(*tmp, tmp->parts.size(), true);
    if (!tmp_dir) return tmp_dir.error();
    if (Status same = same_filesystem(tmp_dir->get(), staged->target_dir.get(), tmp_display,
                                      staged->target_dir_display, write.path);
        !same) {
        return same.error();
    }
    Result<TempFile> temp = create_temp(tmp_dir->get(), staged->name, static_cast<mode_t>(write.mode), tmp_display);
    if (!temp) return temp.error();
    staged->tmp_dir = std::move(*tmp_dir);
    staged->temp_name = temp->name;  // from here on, the staged write removes the file unless published
    return Staging{std::move(staged), std::move(*temp), write.exact_mode ? std::nullopt : *existing};
}

Result<std::unique_ptr<StagedWrite>> finish_staging(Staging& s, const FileWrite& write) {
    if (write.exact_mode && ::fchmodat(s.staged->tmp_dir.get(), s.staged->temp_name.c_str(), write.mode, 0) != 0) {
        return Error::from_errno("cannot write", write.path, errno);
    }
    return std::unique_ptr<StagedWrite>(std::move(s.staged));
}

}  // namespace

Result<std::unique_ptr<StagedWrite>> RealFileSystem::stage_file(const FileWrite& write, std::string_view bytes) const {
    Result<Staging> s = begin_staging(write);
    if (!s) return s.error();
    if (Status filled = fill_temp(s->temp, bytes, s->kept, write.path, write.durability); !filled) return filled.error();
    return finish_staging(*s, write);
}

// Each piece goes straight into the staged file: memory stays flat
// whatever the bytes' length.
Result<std::unique_ptr<StagedWrite>> RealFileSystem::stage_stream(
    const FileWrite& write, const std::function<Status(const PieceSink& put)>& produce) const {
    Result<Staging> s = begin_staging(write);
    if (!s) return s.error();
    if (Status given = give_permissions(s->temp, s->kept, write.path); !given) return given.error();
    const PieceSink put = [&](std::string_view piece) -> Status {
        if (const int err = write_all(s->temp.fd.get(), piece); err != 0) return Error::from_errno("cannot write", write.path, err);
        return ok_status();
    };
    if (Status produced = produce(put); !produced) return produced.error();
    if (Status closed = close_temp(s->temp, write.path, write.durability); !closed) return closed.error();
    return finish_staging(*s, write);
}

// The copy goes through the stream's one buffer straight into the staged
// file: memory stays flat whatever the source's size.
Result<std::unique_ptr<StagedWrite>> RealFileSystem::stage_copy(const FileWrite& write, const std::string& from_dir,
                                                                const std::string& from_name,
                                                                const std::function<void(std::string_view)>& take) const {
    return stage_stream(write, [&](const PieceSink& put) -> Status {
        Result<std::uint64_t> copied = stream_file_no_follow(from_dir, from_name, [&](std::string_view piece) -> Status {
            if (Status s = put(piece); !s) return s;
            take(piece);
            return ok_status();
        });
        return copied ? ok_status() : Status(copied.error());
    });
}

Status RealFileSystem::check_replaceable(const std::string& root, const std::string& path) const {
    Result<RootedPath> at = below_root(root, path, "write");
    if (!at) return at.error();
    Result<Fd> dir = open_parent_if_exists(*at);
    if (!dir) return dir.error();
    if (!dir->valid()) return ok_status();
    Result<std::optional<ExistingTarget>> existing = inspect_target(dir->get(), at->parts.back(), path);
    if (!existing) return existing.error();
    return ok_status();
}

Status RealFileSystem::make_directories(const std::string& root, const std::string& dir) const {
    Result<RootedPath> at = below_root(root, dir, "create");
    if (!at) return at.error();
    Result<Fd> opened = open_below(*at, at->parts.size(), true);
    if (!opened) return opened.error();
    return ok_status();
}

Status RealFileSystem::create_directories(const std::string& dir) const {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return Error::system("cannot create " + dir + ": " + ec.message());
    if (!std::filesystem::is_directory(dir, ec)) return Error::system("cannot create " + dir + ": not a directory");
    return ok_status();
}

Status RealFileSystem::remove_file(const std::string& root, const std::string& path, Durability durability) const {
    Result<RootedPath> at = below_root(root, path, "remove");
    if (!at) return at.error();
    Result<Fd> dir = open_parent_if_exists(*at);
    if (!dir) return dir.error();
    if (!dir->valid()) return ok_status();  // nothing to remove
    // A removal needs only the folder to be writable, as unlink(2) says.
    Result<std::optional<ExistingTarget>> existing = inspect_target(dir->get(), at->parts.back(), path, false);
    if (!existing) return existing.error();
    if (!*existing) return ok_status();
    if (::unlinkat(dir->get(), at->parts.back().c_str(), 0) != 0) return Error::from_errno("cannot remove", path, errno);
    if (durability != Durability::Full) return ok_status();
    if (const int err = fsync_dir_fd(dir->get()); err != 0) return Error::from_errno("cannot sync directory", path, err);
    return ok_status();
}

Status RealFileSystem::remove_empty_directory(const std::string& root, const std::string& dir) const {
    Result<RootedPath> at = below_root(root, dir, "remove");
    if (!at) return at.error();
    Result<Fd> parent = open_parent_if_exists(*at);
    if (!parent) return parent.error();
    if (!parent->valid()) return ok_status();
    if (::unlinkat(parent->get(), at->parts.back().c_str(), AT_REMOVEDIR) != 0) {
        if (errno == ENOENT || errno == ENOTEMPTY || errno == EEXIST) return ok_status();  // gone, or kept
        return Error::from_errno("cannot remove directory", dir, errno);
    }
    if (const int err = fsync_dir_fd(parent->get()); err != 0) return Error::from_errno("cannot sync directory", dir, err);
    return ok_status();
}

Status RealFileSystem::append_file(const std::string& target, std::string_view bytes,
                                   std::uint64_t expected_size) const {
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

Result<bool> RealFileSystem::truncate_file(const std::string& path, std::uint64_t size,
                                           const std::optional<FileIdentity>& only_if) const {
    const int raw = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (raw < 0) {
        if (errno == ELOOP) return refused("truncate", path, "it is a symbolic link");
        return Error::from_errno("cannot truncate", path, errno);
    }
    Fd fd(raw);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return Error::from_errno("cannot truncate", path, errno);
    if (!S_ISREG(st.st_mode)) return refused("truncate", path, "it is not a regular file");
    const FileIdentity held{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
    if (only_if && !(*only_if == held)) return false;
    while (::ftruncate(fd.get(), static_cast<off_t>(size)) != 0) {
        if (errno != EINTR) return Error::from_errno("cannot truncate", path, errno);
    }
    if (const int err = fsync_fd(fd.get()); err != 0) return Error::from_errno("cannot sync", path, err);
    return true;
}

Status RealFileSystem::rename_no_replace(const std::string& from, const std::string& to) const {
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) != 0) {
        if (errno != EINVAL && errno != ENOSYS) return Error::from_errno("cannot move " + from + " to", to, errno);
        // A file system without RENAME_NOREPLACE: callers hold a lock, so check, then rename.
        struct stat st {};
        if (::lstat(to.c_str(), &st) == 0) return Error::from_errno("cannot move " + from + " to", to, EEXIST);
        if (::rename(from.c_str(), to.c_str()) != 0) return Error::from_errno("cannot move " + from + " to", to, errno);
    }
    if (Status s = sync_directory(parent_folder(to)); !s) return s;
    return sync_directory(parent_folder(from));
}

Status RealFileSystem::sync_directory(const std::string& dir) const {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return Error::from_errno("cannot open directory", dir, errno);
    Fd guard(fd);
    if (const int err = fsync_dir_fd(fd); err != 0) return Error::from_errno("cannot sync directory", dir, err);
    return ok_status();
}

Result<LockAttempt> RealFileSystem::try_lock_file(const std::string& path, std::string_view holder_record) const {
    while (true) {
        Result<Fd> candidate = open_lock_file(path);
        if (!candidate) return candidate.error();
        const int err = try_flock(candidate->get());
        if (err == EWOULDBLOCK) return LockAttempt{nullptr, read_holder_record(candidate->get())};
        if (err != 0) return Error::from_errno("cannot lock", path, err);
        if (!still_the_lock_file(candidate->get(), path)) continue;  // locked a replaced file: start over
        record_holder(candidate->get(), holder_record);
        return LockAttempt{std::make_unique<DiskLock>(std::move(*candidate), path), std::string(holder_record)};
    }
}

}  // namespace small
