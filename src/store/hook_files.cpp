#include "small/store/hook_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>
#include <thread>

#include "small/base/fd.hpp"
#include "small/store/atomic_file.hpp"

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

Status chain_hook_file(const std::string& dir, const std::string& from, const std::string& to,
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
    Status written = write_file_in_folder_atomic(dir, from, content, 0755);
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

}  // namespace small
