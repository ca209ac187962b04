// The library's only door to the disk (after ninja's DiskInterface): the
// real one for the CLI, an in-memory one for tests.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
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

// Which file a path names (device and inode): a replace (a rename over the
// path) gives a new identity, an append or a truncation keeps it.
struct FileIdentity {
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    bool operator==(const FileIdentity&) const = default;
};

struct FileInfo {
    FileKind kind = FileKind::Other;
    std::uint64_t size = 0;
    unsigned mode = 0;  // permission bits (07777)
    std::int64_t mtime_sec = 0;
    std::uint32_t mtime_nsec = 0;
    // The inode change time, which user space cannot set (unlike mtime).
    std::int64_t ctime_sec = 0;
    std::uint32_t ctime_nsec = 0;
    FileIdentity identity;
    std::int64_t owner = -1;  // the owning user id; -1 when unknown (the in-memory fake)
};

// What git's index keeps of a file to know it unchanged without reading it:
// size, times (nanoseconds) and identity. ctime is the guard: a write, and
// a `touch` that puts mtime back, both move it, and user space cannot set it.
struct FileStamp {
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::int64_t ctime_ns = 0;
    FileIdentity identity;
    bool operator==(const FileStamp&) const = default;
};

// The stamp of a regular file; nullopt for anything else (a link's own
// stamp says nothing of what it points to).
std::optional<FileStamp> stamp_of(const FileInfo& info);

// Whether a file stamped `now` is the file that was stamped `recorded`, the
// filesystem's clock reading `recorded_clock_ns` just before that stamp was
// taken (git's racy-clean rule). A change after the recording stamps ctime
// at least at the clock's reading then, so it cannot reproduce the recorded
// ctime if that was older by more than the timestamps' granularity; a
// recording made within it is "racy" and proves nothing. The granularity is
// 100 ms when both times carry nanoseconds (ext4, xfs, btrfs, tmpfs stamp
// with a clock of a few ms), else 2 s (FAT, HFS+, whole-second stamps). A
// clock set back since (`now_clock_ns` earlier) proves nothing either.
bool stamp_proves_unchanged(const FileStamp& recorded, std::int64_t recorded_clock_ns, const FileStamp& now,
                            std::int64_t now_clock_ns);

struct DirEntry {
    std::string name;
    bool is_directory = false;
};

// How much of a write must survive a power loss.
enum class Durability {
    Full,               // the data and the rename
    SkipDirectorySync,  // the data; the caller makes the rename durable by a later
                        // sync_directory of the same folder
    None,               // a cache: no fsync at all. Whatever a power loss leaves
                        // (old, empty or torn bytes) must be rejected by its reader
                        // (a stamp or a checksum), and a cache is only written after
                        // the state it describes is durable.
};

// One whole-file write. `root` is trusted; below it nothing is followed:
// a symbolic link on the way to `path` (or at it) is refused, never written
// through. The new bytes are staged in `staging_dir` (below `root`, created
// when missing) and renamed over `path`, so a crash leaves the old bytes or
// the new ones, never a mixture.
struct FileWrite {
    std::string root;
    std::string path;         // absolute, normalised, below root
    std::string staging_dir;  // absolute, normalised, below root or root itself
    unsigned mode = 0644;     // a new file's mode (minus the umask); an existing file keeps its own
    Durability durability = Durability::Full;
    bool make_parents = false;  // create the missing folders of `path` (durably)
    // The result gets exactly `mode` (a git hook must be executable), not
    // the umask's version nor the replaced file's.
    bool exact_mode = false;
};

// A write whose bytes are staged (and synced) but not yet in place; one that
// is never published leaves nothing behind.
class StagedWrite {
public:
    virtual ~StagedWrite() = default;
    // Puts the bytes in place (once).
    virtual Status publish() = 0;
};

// An exclusive lock on a file, held until destroyed.
class HeldLock {
public:
    virtual ~HeldLock() = default;
    const std::string& path() const { return path_; }

protected:
    explicit HeldLock(std::string path) : path_(std::move(path)) {}

private:
    std::string path_;
};

struct LockAttempt {
    std::unique_ptr<HeldLock> lock;
    std::string holder_record;
};

// The largest file the library reads (artifacts, drafts, AGENTS.md, a draft
// on standard input): anything larger is refused, not read into memory.
inline constexpr std::uint64_t kMaxFileBytes = std::uint64_t{256} << 20;  // 256 MiB
// What read_file says of a file larger than `limit` (Kind::Invalid, the
// path as its location).
Error file_too_large(const std::string& path, std::uint64_t limit = kMaxFileBytes);

// The buffer a file is streamed through (stream_file_no_follow, stage_copy):
// copying or hashing a log costs this much memory, whatever its length.
inline constexpr std::size_t kStreamPieceBytes = std::size_t{1} << 20;  // 1 MiB

// Where a streamed write's producer puts its bytes (FileSystem::stage_stream).
using PieceSink = std::function<Status(std::string_view)>;

// The const members may be called from several threads at once (a warm verdict
// hashes the log on one thread while another reads the other files): an
// implementation that keeps state behind them must synchronise it. The
// write members are const too: a FileSystem is a handle on a disk, and
// writing changes the disk, not the handle.
class FileSystem {
public:
    virtual ~FileSystem() = default;
    // The largest file read_file (and the whole reads built on it) reads:
    // kMaxFileBytes, except in a fake that stands in for a larger disk.
    virtual std::uint64_t max_read_bytes() const { return kMaxFileBytes; }
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
    // The whole regular file `dir`/`name` (neither followed, as
    // read_file_no_follow), handed to `take` piece by piece through one
    // buffer of kStreamPieceBytes, at any size (nothing is held, so no
    // kMaxFileBytes); returns its size. A `take` that fails stops the read
    // with its error. What `take` saw is one version of the file: one whose
    // size or times moved while it was read is refused (Kind::System, "...
    // changed while it was read; run the command again"). The default (for
    // fakes) reads it whole, hands it over in pieces and compares
    // version_stamp before and after.
    virtual Result<std::uint64_t> stream_file_no_follow(const std::string& dir, const std::string& name,
                                                        const std::function<Status(std::string_view)>& take) const;
    // The whole regular file `path`, or nullopt when nothing is there; a
    // link (at `path` or its folder) or a non-file is refused (Kind::Invalid).
    // For small files of the store (journals, caches).
    Result<std::optional<std::string>> read_file_if_present(const std::string& path) const;
    // A text that changes whenever the file is edited or replaced (for
    // caches keyed by a file's version); nullopt when the file is absent or
    // the filesystem cannot tell (the fakes), and the caller then skips its cache.
    virtual std::optional<std::string> version_stamp(const std::string& path) const {
        (void)path;
        return std::nullopt;
    }
    // The clock the filesystem stamps a change with, read now (nanoseconds
    // since the epoch), for stamp_proves_unchanged; nullopt when it cannot
    // tell (the fakes), and then no stamp proves a file unchanged.
    virtual std::optional<std::int64_t> change_clock_ns() const { return std::nullopt; }
    // Whether the times of `path`'s filesystem come from change_clock_ns: a
    // local one. A network or FUSE filesystem's server stamps them with its own
    // clock (and the client may cache them), so they prove nothing here.
    virtual bool times_from_change_clock(const std::string& path) const {
        (void)path;
        return true;
    }

    // ---- The write half. Paths are absolute and normalised. Where a member
    // takes a `root`, no symbolic link below it is followed (refused:
    // Kind::Invalid, the message names the link). Errors name the path and
    // the reason; a file this process may not write is refused, never
    // replaced (Kind::System, "it is read-only"). The defaults refuse
    // (Kind::Internal): a FileSystem that cannot write says so. ----

    // Stages `bytes` for `write.path` (see FileWrite); publish() renames
    // them into place and, for Durability::Full, syncs the folder.
    virtual Result<std::unique_ptr<StagedWrite>> stage_file(const FileWrite& write, std::string_view bytes) const;
    // stage_file and publish in one step.
    Status replace_file(const FileWrite& write, std::string_view bytes) const;
    // Stages for `write.path` (as stage_file) a copy of the regular file
    // `from_dir`/`from_name`, read as stream_file_no_follow reads it (through
    // one buffer, at any size; refused when it changed meanwhile); `take`
    // sees every piece copied (to hash it). The default (for fakes) collects
    // the pieces and stages them as bytes.
    virtual Result<std::unique_ptr<StagedWrite>> stage_copy(const FileWrite& write, const std::string& from_dir,
                                                            const std::string& from_name,
                                                            const std::function<void(std::string_view)>& take) const;
    // Stages for `write.path` (as stage_file) the bytes `produce` hands to
    // its sink piece by piece, each written straight into the staged file:
    // memory stays flat whatever their length (a log rewritten window by
    // window). A producer or sink that fails stops the write with its error,
    // nothing staged. The default (for fakes) collects the pieces and stages
    // them as bytes.
    virtual Result<std::unique_ptr<StagedWrite>> stage_stream(const FileWrite& write,
                                                              const std::function<Status(const PieceSink& put)>& produce) const;
    // Whether replace_file would be accepted now: no link on the way, the
    // target absent or a regular file this process may write.
    virtual Status check_replaceable(const std::string& root, const std::string& path) const;
    // mkdir -p of `dir` below `root`, each new folder made durable.
    virtual Status make_directories(const std::string& root, const std::string& dir) const;
    // mkdir -p of a folder the user named outside any root (`init --dir`):
    // links on the way are followed, as the shell's `mkdir -p` follows them.
    virtual Status create_directories(const std::string& dir) const;
    // Removes the regular file `path` (its folder synced as `durability`
    // says); nothing when it or its folder is missing. A link or a folder
    // there is refused; a read-only file is removed, as unlink(2) removes it
    // (the folder's permission decides).
    virtual Status remove_file(const std::string& root, const std::string& path,
                               Durability durability = Durability::Full) const;
    // Removes the folder `dir` when it is empty (durably); nothing when it is
    // missing or holds something.
    virtual Status remove_empty_directory(const std::string& root, const std::string& dir) const;
    // Appends to the existing regular file `path` (never created, never
    // followed) and syncs. When its size is not `expected_size` nothing is
    // written (Kind::Invalid, "the file changed since it was read"); when the
    // write or sync fails part-way the file is cut back to `expected_size`.
    virtual Status append_file(const std::string& path, std::string_view bytes, std::uint64_t expected_size) const;
    // Cuts the regular file `path` (not followed) to `size` bytes, durably.
    // With `only_if`, only when `path` is still that file (checked on the
    // descriptor that truncates): false, and nothing cut, when it is not.
    virtual Result<bool> truncate_file(const std::string& path, std::uint64_t size,
                                       const std::optional<FileIdentity>& only_if = std::nullopt) const;
    // Renames `from` to `to` when `to` does not exist (else EEXIST), then
    // syncs both folders.
    virtual Status rename_no_replace(const std::string& from, const std::string& to) const;
    // Makes the renames and creations inside `dir` durable.
    virtual Status sync_directory(const std::string& dir) const;
    // One try at the exclusive lock on `path` (created when missing, never
    // followed). Taken: `lock` is set and the file holds `holder_record`
    // until the lock is released. Held by another: `lock` is empty and
    // `holder_record` is what that holder wrote (maybe partial, maybe empty).
    virtual Result<LockAttempt> try_lock_file(const std::string& path, std::string_view holder_record) const;
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
    Result<std::uint64_t> stream_file_no_follow(const std::string& dir, const std::string& name,
                                                const std::function<Status(std::string_view)>& take) const override;
    std::optional<std::string> version_stamp(const std::string& path) const override;
    std::optional<std::int64_t> change_clock_ns() const override;
    bool times_from_change_clock(const std::string& path) const override;
    // The write half (src/base/disk_write.cpp): every step synced as
    // Durability says, every folder below a root opened without following links.
    Result<std::unique_ptr<StagedWrite>> stage_file(const FileWrite& write, std::string_view bytes) const override;
    Result<std::unique_ptr<StagedWrite>> stage_copy(const FileWrite& write, const std::string& from_dir,
                                                    const std::string& from_name,
                                                    const std::function<void(std::string_view)>& take) const override;
    Result<std::unique_ptr<StagedWrite>> stage_stream(const FileWrite& write,
                                                      const std::function<Status(const PieceSink& put)>& produce) const override;
    Status check_replaceable(const std::string& root, const std::string& path) const override;
    Status make_directories(const std::string& root, const std::string& dir) const override;
    Status create_directories(const std::string& dir) const override;
    Status remove_file(const std::string& root, const std::string& path,
                       Durability durability = Durability::Full) const override;
    Status remove_empty_directory(const std::string& root, const std::string& dir) const override;
    Status append_file(const std::string& path, std::string_view bytes, std::uint64_t expected_size) const override;
    Result<bool> truncate_file(const std::string& path, std::uint64_t size,
                               const std::optional<FileIdentity>& only_if = std::nullopt) const override;
    Status rename_no_replace(const std::string& from, const std::string& to) const override;
    Status sync_directory(const std::string& dir) const override;
    Result<LockAttempt> try_lock_file(const std::string& path, std::string_view holder_record) const override;
};

// This process's working directory ("." when it cannot be told: removed).
std::string process_directory();

// Which version of a file is on disk, as a short text: size, mtime, ctime,
// inode and device (every replace is a rename, so a new version always has a
// new inode); "absent" when there is none. Cheaper than hashing the bytes.
Result<std::string> file_version(const std::string& path);

// Texts laid over another FileSystem (an editor's unsaved buffers, `small
// lsp`): a path put here reads as its text (read, listed, stamped: a new
// stamp for every version, so a cache keyed by stamps never takes one
// version for another) and every other question goes to `disk`. The write
// half refuses, as FileSystem's defaults do: nothing may be cached of bytes
// that are not on the disk. Edited between computations, never during one.
class OverlayFileSystem final : public FileSystem {
public:
    explicit OverlayFileSystem(const FileSystem& disk) : disk_(disk) {}

    // `path` (absolute, normal form) reads as `text` until forgotten. Not
    // while a verdict runs on another thread: the server edits between them.
    void put(const std::string& path, std::string text);
    void forget(const std::string& path);
    const std::string* text_of(const std::string& path) const;
    const FileSystem& disk() const { return disk_; }

    Result<std::string> read_file(const std::string& path) const override;
    bool file_exists(const std::string& path) const override;
    bool directory_exists(const std::string& path) const override;
    bool is_symlink(const std::string& path) const override;
    std::optional<FileInfo> stat(const std::string& path) const override;
    Result<std::optional<FileInfo>> inspect(const std::string& path) const override;
    Result<std::string> read_link(const std::string& path) const override;
    std::optional<std::string> real_path(const std::string& path) const override;
    Result<std::vector<DirEntry>> list_directory(const std::string& path) const override;
    Result<FileRange> read_range(const std::string& path, std::uint64_t offset, std::size_t length) const override;
    Result<std::uint64_t> stream_prefix(const std::string& path, std::uint64_t length,
                                        const std::function<void(std::string_view)>& take) const override;
    Result<std::string> read_file_no_follow(const std::string& dir, const std::string& name) const override;
    Result<FileRange> read_range_no_follow(const std::string& dir, const std::string& name, std::uint64_t offset,
                                           std::size_t length) const override;
    Result<std::uint64_t> stream_file_no_follow(const std::string& dir, const std::string& name,
                                                const std::function<Status(std::string_view)>& take) const override;
    std::uint64_t max_read_bytes() const override { return disk_.max_read_bytes(); }
    std::optional<std::string> version_stamp(const std::string& path) const override;
    std::optional<std::int64_t> change_clock_ns() const override { return disk_.change_clock_ns(); }
    bool times_from_change_clock(const std::string& path) const override;

private:
    struct Buffer {
        std::string text;
        std::uint64_t generation = 0;  // a new one for every put: no two versions share a stamp
    };
    const Buffer* find(const std::string& path) const;
    FileInfo info_of(const Buffer& buffer) const;

    const FileSystem& disk_;
    std::map<std::string, Buffer> buffers_;
    std::uint64_t next_generation_ = 1;
};

// Paths are plain strings; a directory exists when it was added or when a
// file lies below it. Writes change the maps (under a mutex: const members
// may run on several threads); they obey the same rules as the real disk
// (no link below a root is followed, a read-only file is refused, a missing
// folder is an error unless make_parents), but nothing is ever torn.
class MemoryFileSystem final : public FileSystem {
public:
    MemoryFileSystem() = default;
    // Moved before use only (a fixture handing its tree over): not while
    // another thread works on either one.
    MemoryFileSystem(MemoryFileSystem&& other) noexcept : tree_(std::move(other.tree_)) {}
    MemoryFileSystem& operator=(MemoryFileSystem&& other) noexcept {
        tree_ = std::move(other.tree_);
        return *this;
    }

    void add_file(const std::string& path, std::string contents);
    void add_directory(const std::string& path);
    // A link that leads nowhere (the fake does not resolve links).
    void add_symlink(const std::string& path);
    // Makes `path` read-only for this process (writes are refused as on disk).
    void set_read_only(const std::string& path);
    // Times as a network filesystem's: times_from_change_clock says false.
    void set_remote_times(bool remote) { remote_times_ = remote; }
    bool times_from_change_clock(const std::string& path) const override {
        (void)path;
        return !remote_times_;
    }
    // Every file, for a test that compares whole trees.
    std::map<std::string, std::string> files() const;
    // Whole reads (read_file, read_file_no_follow) refuse a file larger
    // than `bytes`, as the disk refuses one larger than kMaxFileBytes, which
    // a unit test cannot afford to build; ranges and streams read any size.
    void set_max_read_bytes(std::uint64_t bytes);

    std::uint64_t max_read_bytes() const override;
    Result<std::string> read_file(const std::string& path) const override;
    Result<FileRange> read_range(const std::string& path, std::uint64_t offset, std::size_t length) const override;
    Result<std::uint64_t> stream_prefix(const std::string& path, std::uint64_t length,
                                        const std::function<void(std::string_view)>& take) const override;
    Result<std::uint64_t> stream_file_no_follow(const std::string& dir, const std::string& name,
                                                const std::function<Status(std::string_view)>& take) const override;
    bool file_exists(const std::string& path) const override;
    bool directory_exists(const std::string& path) const override;
    bool is_symlink(const std::string& path) const override;
    std::optional<FileInfo> stat(const std::string& path) const override;
    int write_access_errno(const std::string& path) const override;
    Result<std::vector<DirEntry>> list_directory(const std::string& path) const override;
    std::optional<std::string> version_stamp(const std::string& path) const override;

    Result<std::unique_ptr<StagedWrite>> stage_file(const FileWrite& write, std::string_view bytes) const override;
    Status check_replaceable(const std::string& root, const std::string& path) const override;
    Status make_directories(const std::string& root, const std::string& dir) const override;
    Status create_directories(const std::string& dir) const override;
    Status remove_file(const std::string& root, const std::string& path,
                       Durability durability = Durability::Full) const override;
    Status remove_empty_directory(const std::string& root, const std::string& dir) const override;
    Status append_file(const std::string& path, std::string_view bytes, std::uint64_t expected_size) const override;
    Result<bool> truncate_file(const std::string& path, std::uint64_t size,
                               const std::optional<FileIdentity>& only_if = std::nullopt) const override;
    Status rename_no_replace(const std::string& from, const std::string& to) const override;
    Status sync_directory(const std::string& dir) const override;
    Result<LockAttempt> try_lock_file(const std::string& path, std::string_view holder_record) const override;

private:
    friend class MemoryStagedWrite;
    friend class MemoryLock;
    struct Tree {
        std::map<std::string, std::string> files;
        std::map<std::string, std::uint64_t> generations;  // per file: bumped by every write (version_stamp)
        std::map<std::string, std::uint64_t> inodes;       // per file: new on every replace, kept by appends
        std::set<std::string> directories;
        std::set<std::string> symlinks;
        std::set<std::string> read_only;
        std::set<std::string> locked;
        std::uint64_t next_generation = 1;
        std::uint64_t max_read_bytes = kMaxFileBytes;
    };
    void put_file(const std::string& path, std::string bytes) const;  // mutex held
    bool remote_times_ = false;
    Status check_write_path(const std::string& root, const std::string& path, const char* what) const;
    mutable std::mutex mutex_;
    mutable Tree tree_;
};

}  // namespace small
