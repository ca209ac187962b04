// What a computation read (issue 39: the MCP server keeps an answer while
// that stays the same): every question it asked the filesystem and what it
// was told, so that a later call can prove that the same computation would
// be told the same now. Bytes read (a file, a part of one, a folder's
// entries) are vouched for by their stamp under git's racy-clean rule
// (base/filesystem: stamp_proves_unchanged); every other question (does it
// exist, what is it, its version) is asked again and its answer compared.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "small/base/filesystem.hpp"

namespace small {

// A question about a path that reads no bytes: answered again to compare.
enum class PathQuestion { FileExists, DirectoryExists, IsSymlink, Stat, Inspect, ReadLink, RealPath, WriteAccess, VersionStamp };

struct RecordedInputs {
    // The filesystem's change clock, read before the first question (the
    // racy-clean rule's reference); nullopt when it cannot tell.
    std::optional<std::int64_t> clock_ns;
    // Paths whose bytes or entries were read, and their stamps. A read of a
    // path with nothing there is recorded as the look (Inspect) that says so.
    std::map<std::string, FileStamp> contents;
    std::map<std::pair<PathQuestion, std::string>, std::string> answers;
    // False once something was seen that no stamp vouches for (a link read
    // through, a file that changed while it was read, two answers to one question).
    bool provable = true;
};

// Whether a computation that made `inputs` would see the same inputs now:
// every read file or folder provably unchanged, every question answered alike.
bool still_the_same(const FileSystem& fs, const RecordedInputs& inputs, std::optional<std::int64_t> now_clock_ns);

// `inner`, every call forwarded, recording what the caller learns. Writes
// are forwarded unrecorded: a read-only tool writes only its own caches,
// whose outcome never changes its answer (a write into a path it read
// changes that path's stamp, so the next call computes again).
class RecordingFileSystem final : public FileSystem {
public:
    RecordingFileSystem(const FileSystem& inner, std::optional<std::int64_t> clock_ns);
    RecordedInputs take();

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
    std::uint64_t max_read_bytes() const override;
    std::optional<std::string> version_stamp(const std::string& path) const override;
    std::optional<std::int64_t> change_clock_ns() const override;
    bool times_from_change_clock(const std::string& path) const override;

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

private:
    // Runs `read` between two looks at `path` and records its bytes' stamp.
    template <typename Read>
    auto reading(const std::string& path, const Read& read) const;
    void saw_bytes(const std::string& path, const Result<std::optional<FileInfo>>& before,
                   const Result<std::optional<FileInfo>>& after, bool read_ok) const;
    void saw_answer(PathQuestion q, const std::string& path, std::string answer) const;
    void unprovable() const;

    const FileSystem& inner_;
    mutable std::mutex mutex_;  // a verdict reads on two threads
    mutable RecordedInputs inputs_;
};

}  // namespace small
