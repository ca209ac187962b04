// The library's only door to the disk (after ninja's DiskInterface): the
// real one for the CLI, an in-memory one for tests.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/result.hpp"

namespace small {

// Part of a file: the bytes read and the whole file's size.
struct FileRange {
    std::string bytes;
    std::uint64_t file_size = 0;
};

// What a path names, not following a symbolic link (lstat).
enum class FileKind { Regular, Directory, Symlink, Other };

struct FileInfo {
    FileKind kind = FileKind::Other;
    std::uint64_t size = 0;
    unsigned mode = 0;  // permission bits (07777)
    std::int64_t mtime_sec = 0;
    std::uint32_t mtime_nsec = 0;
};

struct DirEntry {
    std::string name;
    bool is_directory = false;
};

// The largest file the library reads (artifacts, drafts, AGENTS.md, a draft
// on standard input): anything larger is refused, not read into memory.
inline constexpr std::uint64_t kMaxFileBytes = std::uint64_t{256} << 20;  // 256 MiB

// The const members may be called from several threads at once (a warm verdict
// hashes the log on one thread while another reads the other files): an
// implementation that keeps state behind them must synchronise it.
class FileSystem {
public:
    virtual ~FileSystem() = default;
    // Whole file contents; Error::Kind::System when missing or unreadable
    // (the message says which). Only regular files are read: a FIFO, device
    // or socket is refused without blocking, and so is a file larger than
    // kMaxFileBytes (Kind::Invalid; the message names the path).
    virtual Result<std::string> read_file(const std::string& path) const = 0;
    virtual bool file_exists(const std::string& path) const = 0;
    virtual bool directory_exists(const std::string& path) const = 0;
    // Whether `path` itself is a symbolic link (dangling or not).
    virtual bool is_symlink(const std::string& path) const {
        (void)path;
        return false;
    }
    // What `path` itself is (a link is not followed); nullopt when nothing
    // is there or it cannot be inspected. The default (for fakes) asks
    // is_symlink, directory_exists and file_exists.
    virtual std::optional<FileInfo> stat(const std::string& path) const;
    // The same, telling "nothing there" (nullopt: ENOENT) from "cannot be
    // told" (a System error "cannot stat PATH: reason": EACCES, ENOTDIR, …).
    // The default (for fakes) is stat().
    virtual Result<std::optional<FileInfo>> inspect(const std::string& path) const { return stat(path); }
    // The target a symbolic link holds, as written in the link.
    virtual Result<std::string> read_link(const std::string& path) const;
    // `path` (absolute) with every symbolic link of its existing part
    // resolved (weakly canonical); nullopt when that cannot be told. The
    // default (for fakes, which resolve no link) is its normal form.
    virtual std::optional<std::string> real_path(const std::string& path) const;
    // 0 when this process may write into `path` (by the effective ids, as
    // a write would be judged), else the errno that says why not. The
    // default (for fakes) allows everything.
    virtual int write_access_errno(const std::string& path) const {
        (void)path;
        return 0;
    }
    // Direct children, sorted by name; symbolic links are reported as files.
    virtual Result<std::vector<DirEntry>> list_directory(const std::string& path) const = 0;
    // Up to `length` bytes from `offset` of a regular file (fewer at its end),
    // so that a reader of a large log can stay O(1) in its size. The default
    // reads the whole file (fine for fakes); the real one reads just the range.
    virtual Result<FileRange> read_range(const std::string& path, std::uint64_t offset, std::size_t length) const;
    // The first `length` bytes of a regular file (fewer at its end), handed
    // to `take` piece by piece through one small buffer, so that hashing a
    // large log costs no memory of its size; returns the file's size. The
    // default (for fakes) reads the whole file.
    virtual Result<std::uint64_t> stream_prefix(const std::string& path, std::uint64_t length,
                                                const std::function<void(std::string_view)>& take) const;
    // Like read_file and read_range of `dir`/`name`, for files a link must
    // not redirect (an artifact served to an MCP client, copied into an
    // archive or a snapshot): neither `dir` (its last component) nor `name`
    // is followed when it is a symbolic link. The real ones open both with
    // O_NOFOLLOW, the file relative to the folder's descriptor, so a link
    // swapped in after any check is refused, never read through (Kind::Invalid,
    // the message names the link). `name` is one plain name. The defaults
    // (for fakes) check is_symlink first.
    virtual Result<std::string> read_file_no_follow(const std::string& dir, const std::string& name) const;
    virtual Result<FileRange> read_range_no_follow(const std::string& dir, const std::string& name,
                                                   std::uint64_t offset, std::size_t length) const;
    // A text that changes whenever the file is edited or replaced (for
    // caches keyed by a file's version); nullopt when the file is absent or
    // the filesystem cannot tell (the fakes), and the caller then skips its cache.
    virtual std::optional<std::string> version_stamp(const std::string& path) const {
        (void)path;
        return std::nullopt;
    }
};

class RealFileSystem final : public FileSystem {
public:
    Result<std::string> read_file(const std::string& path) const override;
    bool file_exists(const std::string& path) const override;
    bool directory_exists(const std::string& path) const override;
    bool is_symlink(const std::string& path) const override;
    std::optional<FileInfo> stat(const std::string& path) const override;
    Result<std::optional<FileInfo>> inspect(const std::string& path) const override;
    Result<std::string> read_link(const std::string& path) const override;
    std::optional<std::string> real_path(const std::string& path) const override;
    int write_access_errno(const std::string& path) const override;
    Result<std::vector<DirEntry>> list_directory(const std::string& path) const override;
    Result<FileRange> read_range(const std::string& path, std::uint64_t offset, std::size_t length) const override;
    Result<std::uint64_t> stream_prefix(const std::string& path, std::uint64_t length,
                                        const std::function<void(std::string_view)>& take) const override;
    Result<std::string> read_file_no_follow(const std::string& dir, const std::string& name) const override;
    Result<FileRange> read_range_no_follow(const std::string& dir, const std::string& name, std::uint64_t offset,
                                           std::size_t length) const override;
    std::optional<std::string> version_stamp(const std::string& path) const override;
};

// This process's working directory ("." when it cannot be told: removed).
std::string process_directory();

// Which version of a file is on disk, as a short text: size, mtime, ctime,
// inode and device (every replace is a rename, so a new version always has a
// new inode); "absent" when there is none. Cheaper than hashing the bytes.
Result<std::string> file_version(const std::string& path);

// Paths are plain strings; a directory exists when it was added or when a
// file lies below it.
class MemoryFileSystem final : public FileSystem {
public:
    void add_file(const std::string& path, std::string contents);
    void add_directory(const std::string& path);
    // A link that leads nowhere (the fake does not resolve links).
    void add_symlink(const std::string& path);
    Result<std::string> read_file(const std::string& path) const override;
    bool file_exists(const std::string& path) const override;
    bool directory_exists(const std::string& path) const override;
    bool is_symlink(const std::string& path) const override;
    Result<std::vector<DirEntry>> list_directory(const std::string& path) const override;

private:
    std::map<std::string, std::string> files_;
    std::map<std::string, bool> directories_;
    std::set<std::string> symlinks_;
};

}  // namespace small
