#include "small/base/filesystem.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <filesystem>

#include "small/base/fd.hpp"
#include "small/base/path.hpp"

namespace small {

namespace {

// Reads and listings also name the path as the error's location (so that
// --json reports it as a finding), unlike the store's writes.
Error located_errno(const std::string& what, const std::string& path, int err) {
    Error e = Error::from_errno(what, path, err);
    e.file = path;
    return e;
}

const char* not_regular_kind(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

Error refused_read(const std::string& path, const std::string& why) {
    Error e = Error::invalid("cannot read " + path + ": " + why);
    e.file = path;
    return e;
}

Error too_large(const std::string& path) { return file_too_large(path, kMaxFileBytes); }

// The rest of an open regular file, at most kMaxFileBytes (it may grow while read).
Result<std::string> read_bounded(int fd, std::uint64_t size_hint, const std::string& path) {
    std::string data;
    data.resize(static_cast<std::size_t>(std::min(size_hint, kMaxFileBytes) + 1));
    std::size_t done = 0;
    while (done <= kMaxFileBytes) {
        if (done == data.size()) data.resize(std::min<std::size_t>(data.size() + 65536, kMaxFileBytes + 1));
        const ssize_t n = ::read(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return located_errno("cannot read", path, errno);
        if (n == 0) {
            data.resize(done);
            return data;
        }
        done += static_cast<std::size_t>(n);
    }
    return too_large(path);
}

// Only a regular file of at most kMaxFileBytes is read.
Result<std::string> read_open_file(int fd, const std::string& path) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return located_errno("cannot read", path, errno);
    if (S_ISDIR(st.st_mode)) return located_errno("cannot read", path, EISDIR);
    if (!S_ISREG(st.st_mode)) {
        return refused_read(path, std::string("it is ") + not_regular_kind(st.st_mode) + ", not a regular file");
    }
    if (static_cast<std::uint64_t>(st.st_size) > kMaxFileBytes) return too_large(path);
    return read_bounded(fd, static_cast<std::uint64_t>(st.st_size), path);
}

std::string join(const std::string& dir, const std::string& name) { return (dir == "/" ? "" : dir) + "/" + name; }

Error linked(const std::string& path) {
    return refused_read(path, "it is a symbolic link, and small does not follow one here; "
                              "replace the link with the file or folder it points to");
}

bool is_link(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

// `dir`/`name` opened for reading, neither followed when it is a link: the
// folder with O_PATH | O_NOFOLLOW, the file with openat and O_NOFOLLOW, so
// no check comes before the open that a swapped-in link could outrun.
Result<Fd> open_no_follow(const std::string& dir, const std::string& name) {
    const std::string path = join(dir, name);
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
        return Error::internal("\"" + name + "\" is not a plain file name (reading " + dir + ")");
    }
    Fd folder(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!folder.valid()) {
        const int err = errno;
        if (is_link(dir)) return linked(dir);  // O_DIRECTORY reports a link as ENOTDIR
        return located_errno("cannot read", path, err);
    }
    Fd fd(::openat(folder.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd.valid()) return errno == ELOOP ? linked(path) : located_errno("cannot read", path, errno);
    return fd;
}

// Up to `length` bytes from `offset` of an open file that must be regular.
Result<FileRange> read_open_range(int fd, const std::string& path, std::uint64_t offset, std::size_t length) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return located_errno("cannot read", path, errno);
    if (!S_ISREG(st.st_mode)) return located_errno("cannot read", path, S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
    FileRange range;
    range.file_size = static_cast<std::uint64_t>(st.st_size);
    const std::uint64_t end = std::min<std::uint64_t>(range.file_size, offset + length);
    range.bytes.resize(end > offset ? static_cast<std::size_t>(end - offset) : 0);
    std::size_t done = 0;
    while (done < range.bytes.size()) {
        const ssize_t n = ::pread(fd, range.bytes.data() + done, range.bytes.size() - done,
                                  static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return located_errno("cannot read", path, errno);
        if (n == 0) break;  // the file shrank meanwhile
        done += static_cast<std::size_t>(n);
    }
    range.bytes.resize(done);
    return range;
}

// Whether an open file still is what `before` said: a write or a rename
// over it meanwhile moved its size or its times.
bool same_version(const struct stat& before, const struct stat& after) {
    return before.st_size == after.st_size && before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
           before.st_mtim.tv_nsec == after.st_mtim.tv_nsec && before.st_ctim.tv_sec == after.st_ctim.tv_sec &&
           before.st_ctim.tv_nsec == after.st_ctim.tv_nsec;
}

Error changed_while_read(const std::string& path) {
    Error e = Error::system("cannot read " + path + ": it changed while it was read; run the command again");
    e.file = path;
    return e;
}

}  // namespace

Error file_too_large(const std::string& path, std::uint64_t limit) {
    const std::string size = limit % (std::uint64_t{1} << 20) == 0 ? std::to_string(limit >> 20) + " MiB"
                                                                    : std::to_string(limit) + " bytes";
    return refused_read(path, "it is larger than " + size + ", the most small reads from one file; shorten it");
}

// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
// (it changes nothing for regular files).
Result<std::string> RealFileSystem::read_file(const std::string& path) const {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return located_errno("cannot read", path, errno);
    Result<std::string> data = read_open_file(fd, path);
    ::close(fd);
    return data;
}

bool RealFileSystem::file_exists(const std::string& path) const {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode);
}

bool RealFileSystem::directory_exists(const std::string& path) const {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool RealFileSystem::is_symlink(const std::string& path) const {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

namespace {

FileInfo info_of(const struct stat& st) {
    FileInfo info;
    info.kind = S_ISREG(st.st_mode)   ? FileKind::Regular
                : S_ISDIR(st.st_mode) ? FileKind::Directory
                : S_ISLNK(st.st_mode) ? FileKind::Symlink
                                      : FileKind::Other;
    info.size = static_cast<std::uint64_t>(st.st_size);
    info.mode = st.st_mode & 07777;
    info.mtime_sec = st.st_mtim.tv_sec;
    info.mtime_nsec = static_cast<std::uint32_t>(st.st_mtim.tv_nsec);
    info.ctime_sec = st.st_ctim.tv_sec;
    info.ctime_nsec = static_cast<std::uint32_t>(st.st_ctim.tv_nsec);
    info.identity = {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
    info.owner = static_cast<std::int64_t>(st.st_uid);
    return info;
}

}  // namespace

std::optional<FileInfo> RealFileSystem::stat(const std::string& path) const {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return std::nullopt;
    return info_of(st);
}

Result<std::optional<FileInfo>> RealFileSystem::inspect(const std::string& path) const {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) return std::optional<FileInfo>(info_of(st));
    if (errno == ENOENT) return std::optional<FileInfo>();
    return Error::from_errno("cannot stat", path, errno);
}

Result<std::string> RealFileSystem::read_link(const std::string& path) const {
    std::error_code ec;
    std::string target = std::filesystem::read_symlink(path, ec).string();
    if (ec) return located_errno("cannot read the link", path, ec.value());
    return target;
}

std::optional<std::string> RealFileSystem::real_path(const std::string& path) const {
    std::error_code ec;
    std::string real = std::filesystem::weakly_canonical(path, ec).string();
    if (ec) return std::nullopt;
    return real;
}

int RealFileSystem::write_access_errno(const std::string& path) const {
    return ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0 ? 0 : errno;
}

Result<std::vector<DirEntry>> RealFileSystem::list_directory(const std::string& path) const {
    std::error_code ec;
    std::vector<DirEntry> out;
    for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
        const bool dir = it->is_directory(ec) && !it->is_symlink(ec);
        out.push_back({it->path().filename().string(), dir});
    }
    if (ec) return located_errno("cannot list", path, ec.value());
    std::sort(out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    return out;
}

std::string process_directory() {
    std::error_code ec;
    const auto cwd = std::filesystem::current_path(ec);
    return ec ? std::string(".") : cwd.string();
}

Result<std::string> file_version(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) return std::string("absent");
        return Error::from_errno("cannot stat", path, errno);
    }
    std::string out;
    for (const auto& [tag, value] : {std::pair<char, long long>{'s', st.st_size},
                                     {'m', st.st_mtim.tv_sec}, {'.', st.st_mtim.tv_nsec},
                                     {'c', st.st_ctim.tv_sec}, {'.', st.st_ctim.tv_nsec},
                                     {'i', static_cast<long long>(st.st_ino)},
                                     {'d', static_cast<long long>(st.st_dev)}}) {
        out += tag;
        out += std::to_string(value);
    }
    return out;
}

std::optional<FileStamp> stamp_of(const FileInfo& info) {
    if (info.kind != FileKind::Regular) return std::nullopt;
    constexpr std::int64_t kNs = 1'000'000'000;
    return FileStamp{info.size, info.mtime_sec * kNs + info.mtime_nsec, info.ctime_sec * kNs + info.ctime_nsec,
                     info.identity};
}

bool stamp_proves_unchanged(const FileStamp& recorded, std::int64_t recorded_clock_ns, const FileStamp& now,
                            std::int64_t now_clock_ns) {
    constexpr std::int64_t kFine = 100'000'000, kCoarse = 2'000'000'000;
    const bool fine = recorded.mtime_ns % 1'000'000'000 != 0 && recorded.ctime_ns % 1'000'000'000 != 0;
    const std::int64_t granularity = fine ? kFine : kCoarse;
    const bool racy = recorded.ctime_ns > recorded_clock_ns - granularity ||
                      recorded.mtime_ns > recorded_clock_ns - granularity;
    return recorded == now && !racy && now_clock_ns >= recorded_clock_ns;
}

std::optional<std::int64_t> RealFileSystem::change_clock_ns() const {
    // The coarse clock is the one the kernel stamps inode times with; a
    // fine-grained stamp (multigrain timestamps) is never earlier.
    struct timespec ts {};
    if (::clock_gettime(CLOCK_REALTIME_COARSE, &ts) != 0) return std::nullopt;
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

namespace {

// Filesystems whose inode times a server (or a FUSE daemon) sets: NFS, SMB
// and CIFS, AFS, Coda, Ceph, 9P, virtiofs, Lustre, GPFS and every FUSE one.
bool remote_times(decltype(statfs::f_type) type) {
    constexpr std::uint32_t kRemote[] = {0x6969,     0x517B,     0xFF534D42, 0xFE534D42, 0x5346414F, 0x73757245,
                                         0x00C36400, 0x01021997, 0x6A656A63, 0x0BD00BD0, 0x47504653, 0x65735546};
    const auto magic = static_cast<std::uint32_t>(type);
    return std::find(std::begin(kRemote), std::end(kRemote), magic) != std::end(kRemote);
}

}  // namespace

bool RealFileSystem::times_from_change_clock(const std::string& path) const {
    struct statfs info {};
    return ::statfs(path.c_str(), &info) == 0 && !remote_times(info.f_type);
}

std::optional<std::string> RealFileSystem::version_stamp(const std::string& path) const {
    Result<std::string> v = file_version(path);
    if (!v || *v == "absent") return std::nullopt;
    return *v;
}

Result<FileRange> RealFileSystem::read_range(const std::string& path, std::uint64_t offset, std::size_t length) const {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; only regular files are read.
    const Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!fd.valid()) return located_errno("cannot read", path, errno);
    return read_open_range(fd.get(), path, offset, length);
}

Result<std::uint64_t> RealFileSystem::stream_prefix(const std::string& path, std::uint64_t length,
                                                    const std::function<void(std::string_view)>& take) const {
    const Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!fd.valid()) return located_errno("cannot read", path, errno);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return located_errno("cannot read", path, errno);
    if (!S_ISREG(st.st_mode)) return located_errno("cannot read", path, S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
    std::vector<char> buffer(std::size_t{256} << 10);
    std::uint64_t done = 0;
    while (done < length) {
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), length - done));
        const ssize_t n = ::pread(fd.get(), buffer.data(), want, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return located_errno("cannot read", path, errno);
        if (n == 0) break;  // the file is shorter
        take(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
        done += static_cast<std::uint64_t>(n);
    }
    return static_cast<std::uint64_t>(st.st_size);
}

Result<std::uint64_t> FileSystem::stream_prefix(const std::string& path, std::uint64_t length,
                                                const std::function<void(std::string_view)>& take) const {
    Result<std::string> all = read_file(path);
    if (!all) return all.error();
    take(std::string_view(*all).substr(0, static_cast<std::size_t>(std::min<std::uint64_t>(length, all->size()))));
    return static_cast<std::uint64_t>(all->size());
}

Result<std::string> RealFileSystem::read_file_no_follow(const std::string& dir, const std::string& name) const {
    Result<Fd> fd = open_no_follow(dir, name);
    if (!fd) return fd.error();
    return read_open_file(fd->get(), join(dir, name));
}

Result<FileRange> RealFileSystem::read_range_no_follow(const std::string& dir, const std::string& name,
                                                       std::uint64_t offset, std::size_t length) const {
    Result<Fd> fd = open_no_follow(dir, name);
    if (!fd) return fd.error();
    return read_open_range(fd->get(), join(dir, name), offset, length);
}

Result<std::uint64_t> RealFileSystem::stream_file_no_follow(const std::string& dir, const std::string& name,
                                                            const std::function<Status(std::string_view)>& take) const {
    Result<Fd> fd = open_no_follow(dir, name);
    if (!fd) return fd.error();
    const std::string path = join(dir, name);
    struct stat before {};
    if (::fstat(fd->get(), &before) != 0) return located_errno("cannot read", path, errno);
    if (S_ISDIR(before.st_mode)) return located_errno("cannot read", path, EISDIR);
    if (!S_ISREG(before.st_mode)) {
        return refused_read(path, std::string("it is ") + not_regular_kind(before.st_mode) + ", not a regular file");
    }
    std::vector<char> buffer(kStreamPieceBytes);
    std::uint64_t done = 0;
    for (;;) {
        const ssize_t n = ::pread(fd->get(), buffer.data(), buffer.size(), static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return located_errno("cannot read", path, errno);
        if (n == 0) break;
        if (Status s = take(std::string_view(buffer.data(), static_cast<std::size_t>(n))); !s) return s.error();
        done += static_cast<std::uint64_t>(n);
    }
    struct stat after {};
    if (::fstat(fd->get(), &after) != 0) return located_errno("cannot read", path, errno);
    if (!same_version(before, after) || done != static_cast<std::uint64_t>(after.st_size)) {
        return changed_while_read(path);
    }
    return done;
}

Result<std::uint64_t> FileSystem::stream_file_no_follow(const std::string& dir, const std::string& name,
                                                        const std::function<Status(std::string_view)>& take) const {
    const std::string path = join(dir, name);
    const std::optional<std::string> before = version_stamp(path);
    Result<std::string> all = read_file_no_follow(dir, name);
    if (!all) return all.error();
    for (std::size_t at = 0; at < all->size(); at += kStreamPieceBytes) {
        if (Status s = take(std::string_view(*all).substr(at, kStreamPieceBytes)); !s) return s.error();
    }
    if (version_stamp(path) != before) return changed_while_read(path);
    return static_cast<std::uint64_t>(all->size());
}

Result<std::unique_ptr<StagedWrite>> FileSystem::stage_copy(const FileWrite& write, const std::string& from_dir,
                                                            const std::string& from_name,
                                                            const std::function<void(std::string_view)>& take) const {
    std::string bytes;
    Result<std::uint64_t> read = stream_file_no_follow(from_dir, from_name, [&](std::string_view piece) {
        bytes += piece;
        take(piece);
        return ok_status();
    });
    if (!read) return read.error();
    return stage_file(write, bytes);
}

Result<std::unique_ptr<StagedWrite>> FileSystem::stage_stream(const FileWrite& write,
                                                              const std::function<Status(const PieceSink& put)>& produce) const {
    std::string bytes;
    Status produced = produce([&](std::string_view piece) {
        bytes += piece;
        return ok_status();
    });
    if (!produced) return produced.error();
    return stage_file(write, bytes);
}

std::optional<FileInfo> FileSystem::stat(const std::string& path) const {
    FileInfo info;
    if (is_symlink(path)) info.kind = FileKind::Symlink;
    else if (directory_exists(path)) info.kind = FileKind::Directory;
    else if (file_exists(path)) info.kind = FileKind::Regular;
    else return std::nullopt;
    info.mode = info.kind == FileKind::Directory ? 0755 : 0644;
    if (info.kind == FileKind::Regular) {
        if (Result<std::string> bytes = read_file(path)) info.size = bytes->size();
    }
    return info;
}

Result<std::optional<std::string>> FileSystem::read_file_if_present(const std::string& path) const {
    Result<std::optional<FileInfo>> info = inspect(path);
    if (!info) return info.error();
    if (!*info) return std::optional<std::string>();
    if ((*info)->kind != FileKind::Regular) return Error::invalid("refusing to read " + path + ": it is not a regular file");
    Result<std::string> bytes = read_file_no_follow(parent_path(path), file_name(path));
    if (!bytes) return bytes.error();
    return std::optional<std::string>(std::move(*bytes));
}

Status FileSystem::replace_file(const FileWrite& write, std::string_view bytes) const {
    Result<std::unique_ptr<StagedWrite>> staged = stage_file(write, bytes);
    if (!staged) return staged.error();
    return (*staged)->publish();
}

namespace {

Error cannot_write_here(const std::string& path) {
    return Error::internal("this FileSystem cannot write (" + path + ")");
}

}  // namespace

Result<std::unique_ptr<StagedWrite>> FileSystem::stage_file(const FileWrite& write, std::string_view) const {
    return cannot_write_here(write.path);
}
Status FileSystem::check_replaceable(const std::string&, const std::string& path) const {
    return cannot_write_here(path);
}
Status FileSystem::make_directories(const std::string&, const std::string& dir) const { return cannot_write_here(dir); }
Status FileSystem::create_directories(const std::string& dir) const { return cannot_write_here(dir); }
Status FileSystem::remove_file(const std::string&, const std::string& path, Durability) const {
    return cannot_write_here(path);
}
Status FileSystem::remove_empty_directory(const std::string&, const std::string& dir) const {
    return cannot_write_here(dir);
}
Status FileSystem::append_file(const std::string& path, std::string_view, std::uint64_t) const {
    return cannot_write_here(path);
}
Result<bool> FileSystem::truncate_file(const std::string& path, std::uint64_t,
                                       const std::optional<FileIdentity>&) const {
    return cannot_write_here(path);
}
Status FileSystem::rename_no_replace(const std::string& from, const std::string&) const {
    return cannot_write_here(from);
}
Status FileSystem::sync_directory(const std::string& dir) const { return cannot_write_here(dir); }
Result<LockAttempt> FileSystem::try_lock_file(const std::string& path, std::string_view) const {
    return cannot_write_here(path);
}

Result<std::string> FileSystem::read_link(const std::string& path) const {
    return located_errno("cannot read the link", path, EINVAL);
}

std::optional<std::string> FileSystem::real_path(const std::string& path) const { return normal_path(path); }

Result<FileRange> FileSystem::read_range(const std::string& path, std::uint64_t offset, std::size_t length) const {
    Result<std::string> all = read_file(path);
    if (!all) return all.error();
    FileRange range;
    range.file_size = all->size();
    if (offset < all->size()) range.bytes = all->substr(static_cast<std::size_t>(offset), length);
    return range;
}

Result<std::string> FileSystem::read_file_no_follow(const std::string& dir, const std::string& name) const {
    const std::string path = join(dir, name);
    if (is_symlink(dir)) return linked(dir);
    if (is_symlink(path)) return linked(path);
    return read_file(path);
}

Result<FileRange> FileSystem::read_range_no_follow(const std::string& dir, const std::string& name,
                                                   std::uint64_t offset, std::size_t length) const {
    const std::string path = join(dir, name);
    if (is_symlink(dir)) return linked(dir);
    if (is_symlink(path)) return linked(path);
    return read_range(path, offset, length);
}

}  // namespace small
