#include "small/store/scratch_dir.hpp"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

namespace small {

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
