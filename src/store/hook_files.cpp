#include "small/store/hook_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>
#include <thread>

#include "small/base/fd.hpp"
#include "small/base/path.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/folder_publish.hpp"

namespace small {

namespace {

std::string join(const std::string& dir, const std::string& name) { return dir + "/" + name; }

Result<std::string> read_all(int fd, const std::string& path) {
    std::string out;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return Error::from_errno("cannot read", path, errno);
        if (n == 0) return out;
        out.append(buf, static_cast<std::size_t>(n));
    }
}

}  // namespace

Result<HookFileState> read_hook_file(const std::string& dir, const std::string& name) {
    const std::string path = join(dir, name);
    HookFileState state;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) return state;
        return Error::from_errno("cannot inspect", path, errno);
    }
    state.device = st.st_dev;
    state.inode = st.st_ino;
    if (S_ISLNK(st.st_mode)) state.kind = HookFileState::Kind::Link;
    if (!S_ISREG(st.st_mode)) {
        if (state.kind != HookFileState::Kind::Link) state.kind = HookFileState::Kind::Other;
        return state;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return Error::from_errno("cannot read", path, errno);
    Fd guard(fd);
    Result<std::string> content = read_all(fd, path);
    if (!content) return content.error();
    state.kind = HookFileState::Kind::Regular;
    state.content = std::move(*content);
    state.mode = st.st_mode & 07777;
    return state;
}

Result<bool> ensure_hooks_folder(const std::string& dir) {
    std::error_code ec;
    const bool created = std::filesystem::create_directories(dir, ec);
    if (ec) return Error::system("cannot create the hooks folder " + dir + ": " + ec.message());
    if (created) {
        if (Status synced = fsync_directory(std::filesystem::path(dir).parent_path().string()); !synced) {
            return synced.error();
        }
    }
    return created;
}

Result<Fd> lock_hooks_folder(const std::string& dir, std::chrono::milliseconds wait) {
    Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) return Error::from_errno("cannot open the hooks folder", dir, errno);
    const auto deadline = std::chrono::steady_clock::now() + wait;
    std::chrono::milliseconds pause{2};
    while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR) continue;
        if (errno != EWOULDBLOCK) return Error::from_errno("cannot lock the hooks folder", dir, errno);
        if (std::chrono::steady_clock::now() >= deadline) {
            Error e = Error::busy("the hooks folder " + dir + " is locked by another `small hooks` command");
            e.hint = "run the command again when the other one has finished";
            return e;
        }
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(20));
    }
    return fd;
}

Status chain_hook_file(const FileSystem& fs, const std::string& dir, const std::string& from, const std::string& to,
                       const std::string& content, HardLinks links) {
    bool renamed = false;
    if (links == HardLinks::Never || ::link(join(dir, from).c_str(), join(dir, to).c_str()) != 0) {
        const int err = links == HardLinks::Never ? EPERM : errno;
        if (err != EPERM && err != ENOTSUP && err != EOPNOTSUPP) {
            return Error::from_errno("cannot keep " + join(dir, from) + " as", join(dir, to), err);
        }
        if (::rename(join(dir, from).c_str(), join(dir, to).c_str()) != 0) {
            return Error::from_errno("cannot keep " + join(dir, from) + " as", join(dir, to), errno);
        }
        renamed = true;
    }
    if (Status synced = fsync_directory(dir); !synced) return synced;
    Status written = write_file_in_folder_atomic(fs, dir, from, content, 0755);
    if (!written && renamed && ::rename(join(dir, to).c_str(), join(dir, from).c_str()) == 0) {
        (void)fsync_directory(dir);  // the write's error is the one to report
    }
    return written;
}

Status rename_hook_file(const std::string& dir, const std::string& from, const std::string& to) {
    if (::rename(join(dir, from).c_str(), join(dir, to).c_str()) != 0) {
        return Error::from_errno("cannot rename " + join(dir, from) + " to", join(dir, to), errno);
    }
    return fsync_directory(dir);
}

Status remove_hook_file(const std::string& dir, const std::string& name) {
    if (::unlink(join(dir, name).c_str()) != 0) return Error::from_errno("cannot remove", join(dir, name), errno);
    return fsync_directory(dir);
}

Status remove_named_file(const std::string& path) {
    if (::unlink(path.c_str()) != 0) return Error::from_errno("cannot remove", path, errno);
    return fsync_directory(parent_path(path));
}

Status remove_created_hooks_folder(const std::string& dir) {
    if (::rmdir(dir.c_str()) != 0) return Error::from_errno("cannot remove", dir, errno);
    return fsync_directory(parent_path(dir));
}

std::optional<unsigned> file_mode(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::nullopt;
    return st.st_mode & 07777;
}

Status restore_file_mode(const std::string& path, unsigned mode) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || (st.st_mode & 07777) == mode) return ok_status();
    if (::chmod(path.c_str(), mode) != 0) return Error::from_errno("cannot restore the mode of", path, errno);
    return ok_status();
}

Status check_writable_folder(std::string dir) {
    while (!dir.empty() && ::access(dir.c_str(), F_OK) != 0) {
        const std::string parent = parent_path(dir);
        if (parent == dir) break;
        dir = parent;
    }
    if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) == 0) return ok_status();
    Error e = Error::from_errno("cannot write in", dir, errno);
    e.message += " (the folder is not writable); nothing was changed";
    e.hint = "make it writable if small should change it, or run the command as its owner";
    return e;
}

// ---------------------------------------------------------------- what install added

HookRecordFile* HookRecord::file(std::string_view path) {
    for (HookRecordFile& f : files) {
        if (f.path == path) return &f;
    }
    return nullptr;
}

const std::string* HookRecord::config_value(std::string_view key) const {
    for (const auto& [k, v] : config) {
        if (k == key) return &v;
    }
    return nullptr;
}

std::string hook_record_path(const std::string& root, std::string_view target) {
    return runtime_path(root, kHookRecordDirName) + "/" + std::string(target) + ".json";
}

namespace {

using Json = nlohmann::ordered_json;

constexpr int kHookRecordVersion = 1;

Json file_json(const HookRecordFile& f) {
    Json j = Json::object();
    j["path"] = f.path;
    j["created"] = f.created;
    if (f.before) j["before"] = *f.before;
    j["after"] = f.after;
    j["entries"] = f.entries;
    return j;
}

HookRecordFile file_of(const Json& j) {
    HookRecordFile f;
    f.path = j.at("path").get<std::string>();
    f.created = j.at("created").get<bool>();
    if (j.contains("before")) f.before = j.at("before").get<std::string>();
    f.after = j.at("after").get<std::string>();
    f.entries = j.at("entries").get<std::vector<std::string>>();
    return f;
}

}  // namespace

std::string hook_record_text(const HookRecord& record) {
    Json doc = Json::object();
    doc["version"] = kHookRecordVersion;
    doc["written_by"] = "small hooks install; small hooks uninstall removes what is listed here";
    doc["files"] = Json::array();
    for (const HookRecordFile& f : record.files) doc["files"].push_back(file_json(f));
    doc["config"] = Json::object();
    for (const auto& [key, value] : record.config) doc["config"][key] = value;
    // Bytes that are not UTF-8 are replaced: such a copy no longer matches
    // the file, so uninstall falls back to removing the entries.
    return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Result<HookRecord> parse_hook_record(std::string_view text, const std::string& display) {
    try {
        const Json doc = Json::parse(text);
        if (doc.at("version").get<int>() != kHookRecordVersion) {
            return Error::invalid(display + ": unknown record version " + doc.at("version").dump());
        }
        HookRecord record;
        for (const Json& f : doc.at("files")) record.files.push_back(file_of(f));
        for (const auto& [key, value] : doc.at("config").items())
            record.config.emplace_back(key, value.get<std::string>());
        return record;
    } catch (const std::exception& ex) {
        Error e =
            Error::invalid(display + " is not a record of `small hooks install` (" + std::string(ex.what()) + ")");
        e.file = display;
        e.hint = "remove what install added by hand, then delete " + display;
        return e;
    }
}

Result<std::optional<HookRecord>> read_hook_record(const std::string& path) {
    const std::filesystem::path p(path);
    Result<HookFileState> state = read_hook_file(p.parent_path().string(), p.filename().string());
    if (!state) return state.error();
    if (state->kind == HookFileState::Kind::Missing) return std::optional<HookRecord>();
    if (state->kind != HookFileState::Kind::Regular) {
        return Error::invalid("refusing to read " + path + ": it is not a regular file");
    }
    Result<HookRecord> record = parse_hook_record(state->content, path);
    if (!record) return record.error();
    return std::optional<HookRecord>(std::move(*record));
}

Status write_hook_record(const FileSystem& fs, const WorkspacePaths& ws, const std::string& path, const HookRecord& record) {
    if (!record.empty()) {
        const std::string dir = std::filesystem::path(path).parent_path().string();
        if (Status made = ensure_directory(fs, ws, dir); !made) return made;
        return write_file_atomic(fs, ws, path, hook_record_text(record), {.mode = 0600});
    }
    if (::unlink(path.c_str()) != 0) {
        if (errno == ENOENT) return ok_status();
        return Error::from_errno("cannot remove", path, errno);
    }
    // The folder goes when nothing else is left in it; otherwise the removal
    // is made durable in it.
    const std::string dir = parent_path(path);
    if (::rmdir(dir.c_str()) != 0) return fsync_directory(dir);
    return fsync_directory(parent_path(dir));
}

}  // namespace small
