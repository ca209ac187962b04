// Complete folders put in place by one rename (see folder_publish.hpp).
#include "small/store/folder_publish.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "small/model/replay_id.hpp"
#include "small/store/atomic_file.hpp"

namespace small {

namespace {

Status write_all_to(int fd, std::string_view bytes, const std::string& path) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return Error::from_errno("cannot write", path, n == 0 ? EIO : errno);
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return ok_status();
}

// A new file at `path` (never over one, never through a link) filled by
// `fill` with its descriptor, then fsynced and closed.
Status write_one(const std::string& path, const std::function<Status(int fd)>& fill) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) return Error::from_errno("cannot create", path, errno);
    if (Status filled = fill(fd); !filled) {
        ::close(fd);
        return filled;
    }
    if (::fsync(fd) != 0) {
        const int err = errno;
        ::close(fd);
        return Error::from_errno("cannot fsync", path, err);
    }
    if (::close(fd) != 0) return Error::from_errno("cannot close", path, errno);
    return ok_status();
}

Status plain_name(const std::string& name) {
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
        return Error::internal("file name \"" + name + "\" is not a plain name");
    }
    return ok_status();
}

// A folder the user named (archive --out): its files made here, with their
// own system calls; a copy's source read through the door.
class NewFolderSink final : public FolderSink {
public:
    NewFolderSink(const FileSystem& fs, std::string side) : fs_(fs), side_(std::move(side)) {}

    Status write(const std::string& name, std::string_view bytes) override {
        if (Status s = plain_name(name); !s) return s;
        const std::string path = side_ + "/" + name;
        return write_one(path, [&](int fd) { return write_all_to(fd, bytes, path); });
    }

    Result<CopiedFile> copy(const std::string& from_dir, const std::string& name) override {
        if (Status s = plain_name(name); !s) return s.error();
        const std::string path = side_ + "/" + name;
        Sha256Hasher hash;
        Status written = write_one(path, [&](int fd) -> Status {
            Result<std::uint64_t> read = fs_.stream_file_no_follow(from_dir, name, [&](std::string_view piece) {
                hash.update(piece);
                return write_all_to(fd, piece, path);
            });
            return read ? ok_status() : Status(read.error());
        });
        if (!written) return written.error();
        return CopiedFile{hash.bytes(), hash.hex()};
    }

private:
    const FileSystem& fs_;
    std::string side_;
};

// A folder in the workspace's runtime folders: every file through the door,
// under D7's path rules (store/atomic_file). One directory sync at the end
// makes all the renames durable.
class WorkspaceFolderSink final : public FolderSink {
public:
    WorkspaceFolderSink(const FileSystem& fs, const WorkspacePaths& ws, std::string dir)
        : fs_(fs), ws_(ws), dir_(std::move(dir)) {}

    Status write(const std::string& name, std::string_view bytes) override {
        if (Status s = plain_name(name); !s) return s;
        return write_file_atomic(fs_, ws_, dir_ + "/" + name, bytes, {.durability = Durability::SkipDirectorySync});
    }

    Result<CopiedFile> copy(const std::string& from_dir, const std::string& name) override {
        if (Status s = plain_name(name); !s) return s.error();
        Sha256Hasher hash;
        Status copied = copy_file_atomic(fs_, ws_, dir_ + "/" + name, from_dir, name,
                                         [&](std::string_view piece) { hash.update(piece); },
                                         {.durability = Durability::SkipDirectorySync});
        if (!copied) return copied.error();
        return CopiedFile{hash.bytes(), hash.hex()};
    }

private:
    const FileSystem& fs_;
    const WorkspacePaths& ws_;
    std::string dir_;
};

bool is_empty_folder(const std::string& dir) {
    std::error_code ec;
    return std::filesystem::is_empty(dir, ec) && !ec;
}

std::string parent_of(const std::string& path) {
    const std::string p = std::filesystem::path(path).parent_path().string();
    return p.empty() ? "." : p;
}

}  // namespace

Status write_new_folder(const FileSystem& fs, const std::string& side, const FolderFill& fill) {
    if (::mkdir(side.c_str(), 0755) != 0) return Error::from_errno("cannot create folder", side, errno);
    NewFolderSink sink(fs, side);
    Status written = fill(sink);
    if (written) written = fsync_directory(side);
    if (!written) {
        std::error_code ec;
        std::filesystem::remove_all(side, ec);
    }
    return written;
}

Status publish_folder(const std::string& side, const std::string& dir, bool replace) {
    auto drop_side = [&side] {
        std::error_code ec;
        std::filesystem::remove_all(side, ec);
    };
    struct stat st {};
    if (::lstat(dir.c_str(), &st) == 0) {
        if (S_ISLNK(st.st_mode)) {
            drop_side();
            return Error::invalid(dir + " is a symbolic link; refusing to write through it (name a plain folder)");
        }
        if (!S_ISDIR(st.st_mode)) {
            drop_side();
            return Error::invalid(dir + " exists and is not a folder");
        }
        if (!is_empty_folder(dir)) {
            if (!replace) {
                drop_side();
                return Error::invalid(dir + " exists and is not empty; name a new or empty folder (its files would mix with the new ones)");
            }
            if (::renameat2(AT_FDCWD, side.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) != 0) {
                const int err = errno;
                drop_side();
                return Error::from_errno("cannot replace", dir, err);
            }
            drop_side();  // now the old folder
            return fsync_directory(parent_of(dir));
        }
    }
    if (::rename(side.c_str(), dir.c_str()) != 0) {
        const int err = errno;
        drop_side();
        return Error::from_errno("cannot move the new folder to", dir, err);
    }
    return fsync_directory(parent_of(dir));
}

Status place_folder(const FileSystem& fs, const WorkspacePaths& ws, const std::string& dir, bool in_workspace,
                    const FolderFill& fill, bool& replaced) {
    const std::filesystem::path target(dir);
    const std::string side =
        (target.parent_path() / ("." + target.filename().string() + ".partial-" + std::to_string(::getpid()))).string();
    if (in_workspace) {
        if (Status s = ensure_directory(fs, ws, target.parent_path().string()); !s) return s;  // refuses a linked store
        std::error_code ec;
        replaced = !std::filesystem::is_empty(dir, ec) && !ec;
        if (Status s = write_folder_atomic(fs, ws, side, fill); !s) return s;
        return publish_folder(side, dir, true);
    }
    std::error_code ec;
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec) return Error::system("cannot create " + target.parent_path().string() + ": " + ec.message());
    // Checked before, and again where the files really went: a link swapped
    // in on the way since then is caught before the folder is published.
    if (Status s = write_new_folder(fs, side, fill); !s) return s;
    if (Status s = refuse_target_inside_small_dir(fs, side, "--out"); !s) {
        std::filesystem::remove_all(side, ec);
        return s;
    }
    return publish_folder(side, dir, false);
}

Status fsync_directory(const std::string& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return Error::from_errno("cannot open directory", dir, errno);
    int err = 0;
    while (::fsync(fd) != 0 && (err = errno) == EINTR) err = 0;
    ::close(fd);
    if (err != 0 && err != EINVAL) return Error::from_errno("cannot sync directory", dir, err);  // EINVAL: nothing to flush
    return ok_status();
}

Status write_folder_atomic(const FileSystem& fs, const WorkspacePaths& ws, const std::string& dir, const FolderFill& fill) {
    const std::size_t slash = dir.rfind('/');
    if (slash == std::string::npos || slash + 1 == dir.size()) return Error::internal("folder path " + dir);
    const std::string parent = dir.substr(0, slash);
    const std::string partial = parent + "/." + dir.substr(slash + 1) + ".partial";
    // ensure_directory refuses a linked parent, so remove_all cannot reach
    // outside the workspace.
    if (Status s = ensure_directory(fs, ws, parent); !s) return s;
    std::error_code ec;
    std::filesystem::remove_all(partial, ec);  // a leftover of an interrupted write
    Status filled = ensure_directory(fs, ws, partial);
    if (filled) {
        WorkspaceFolderSink sink(fs, ws, partial);
        filled = fill(sink);
    }
    if (filled) filled = fs.sync_directory(partial);  // every rename into it durable at once
    if (filled && ::rename(partial.c_str(), dir.c_str()) != 0) {
        filled = Error::from_errno("cannot move " + partial + " to", dir, errno);
    }
    if (!filled) {
        std::filesystem::remove_all(partial, ec);  // e.g. a full disk: nothing left behind
        return filled;
    }
    return fsync_directory(parent);
}

Status write_folder_atomic(const FileSystem& fs, const WorkspacePaths& ws, const std::string& dir, const FolderFiles& files) {
    return write_folder_atomic(fs, ws, dir, [&files](FolderSink& sink) {
        for (const auto& [name, bytes] : files) {
            if (Status s = sink.write(name, bytes); !s) return s;
        }
        return ok_status();
    });
}

void discard_tree(const std::string& dir) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}

void discard_empty_folder(const std::string& dir) { (void)::rmdir(dir.c_str()); }

// --- Scratch folders (selftest) ---
namespace {

namespace stdfs = std::filesystem;

std::string temp_root() {
    const char* tmp = ::getenv("TMPDIR");
    return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

// The first entry of a directory other than . and .., or "" when empty.
Result<std::string> first_entry(const std::string& path) {
    DIR* d = ::opendir(path.c_str());
    if (d == nullptr) return Error::from_errno("cannot open", path, errno);
    std::string found;
    while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name != "." && name != "..") {
            found = name;
            break;
        }
    }
    ::closedir(d);
    return found;
}

// A folder rmdir refused: say what keeps it (someone else's file), if that is why.
Error left_behind(const std::string& folder, int err) {
    if (err == ENOTEMPTY || err == EEXIST) {
        Result<std::string> entry = first_entry(folder);
        if (entry && !entry->empty()) {
            return Error::system("left " + folder + " in place: it holds " + *entry +
                                 ", which selftest did not create");
        }
    }
    return Error::from_errno("cannot remove", folder, err);
}

Status record_identity(ScratchDir& dir) {
    struct stat st {};
    if (::lstat(dir.path.c_str(), &st) != 0) return Error::from_errno("cannot inspect", dir.path, errno);
    dir.device = st.st_dev;
    dir.inode = st.st_ino;
    return ok_status();
}

Result<ScratchDir> fresh_temp_dir(const std::string& prefix) {
    std::string pattern = temp_root() + "/" + prefix + "XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
        return Error::from_errno("cannot create a directory in", temp_root(), errno);
    ScratchDir dir;
    dir.path = pattern;
    dir.created.push_back(pattern);
    if (Status s = record_identity(dir); !s) return s.error();
    return dir;
}

std::string refusal(const std::string& path, const std::string& what) {
    return "--dir " + path + " " + what + "; selftest needs a new or empty directory, so nothing was touched";
}

// An existing `path`: usable only as an empty real directory.
Result<ScratchDir> use_existing(const std::string& path, const struct stat& st) {
    if (S_ISLNK(st.st_mode)) return Error::invalid(refusal(path, "is a symbolic link"));
    if (!S_ISDIR(st.st_mode)) return Error::invalid(refusal(path, "is not a directory"));
    Result<std::string> entry = first_entry(path);
    if (!entry) return entry.error();
    if (!entry->empty()) return Error::invalid(refusal(path, "is not empty (it holds " + *entry + ")"));
    ScratchDir dir;
    dir.path = path;
    dir.existed = true;
    if (Status s = record_identity(dir); !s) return s.error();
    return dir;
}

// A new `path`: its missing folders are made one by one, so that exactly
// those are known to be ours.
Result<ScratchDir> make_new(const stdfs::path& path) {
    std::vector<stdfs::path> missing;
    stdfs::path at = path;
    struct stat st {};
    while (::lstat(at.c_str(), &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR) return Error::from_errno("cannot inspect", at.string(), errno);
        missing.push_back(at);
        at = at.parent_path();
    }
    // The existing ancestor may be reached through a link the caller chose.
    if (::stat(at.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        return Error::invalid(refusal(path.string(), "lies below " + at.string() + ", which is not a directory"));
    }
    ScratchDir dir;
    dir.path = path.string();
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
        if (::mkdir(it->c_str(), 0777) != 0) {
            const int err = errno;
            (void)remove_scratch_dir(dir, {});  // undo the parents made so far
            return Error::from_errno("cannot create", it->string(), err);
        }
        dir.created.push_back(it->string());
    }
    if (Status s = record_identity(dir); !s) return s.error();
    return dir;
}

Status remove_made(const std::string& path, const ScratchContents& made) {
    for (const std::string& tree : made.trees) {
        std::error_code ec;
        stdfs::remove_all(path + "/" + tree, ec);  // does not follow links
        if (ec) return Error::system("cannot remove " + path + "/" + tree + ": " + ec.message());
    }
    for (const std::string& folder : made.folders) {
        const std::string at = path + "/" + folder;
        if (::rmdir(at.c_str()) != 0 && errno != ENOENT) return left_behind(at, errno);
    }
    return ok_status();
}

}  // namespace

Result<ScratchDir> make_scratch_dir(const std::optional<std::string>& requested, const std::string& cwd,
                                    const std::string& prefix) {
    if (!requested || requested->empty()) return fresh_temp_dir(prefix);
    stdfs::path path(*requested);
    if (path.is_relative()) path = stdfs::path(cwd) / path;
    path = path.lexically_normal();
    if (path.has_filename() == false && path.has_parent_path()) path = path.parent_path();  // "dir/" -> "dir"
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) return use_existing(path.string(), st);
    // ENOTDIR: a parent is a file; make_new says so.
    if (errno != ENOENT && errno != ENOTDIR) return Error::from_errno("cannot inspect", path.string(), errno);
    return make_new(path);
}

Status remove_scratch_dir(const ScratchDir& dir, const ScratchContents& made) {
    if (dir.path.empty()) return ok_status();
    struct stat st {};
    const bool present = ::lstat(dir.path.c_str(), &st) == 0;
    if (present) {
        if (!S_ISDIR(st.st_mode) || st.st_dev != dir.device || st.st_ino != dir.inode) {
            return Error::system(dir.path + " is no longer the directory selftest made; left it alone");
        }
        if (Status s = remove_made(dir.path, made); !s) return s;
    }
    // Innermost first; rmdir refuses a folder that something else filled.
    for (auto it = dir.created.rbegin(); it != dir.created.rend(); ++it) {
        if (::rmdir(it->c_str()) != 0 && errno != ENOENT) return left_behind(*it, errno);
    }
    return ok_status();
}

}  // namespace small
