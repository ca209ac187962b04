// The inputs of a computation, recorded and proved unchanged (see the header).
#include "small/base/recording_filesystem.hpp"

#include "small/base/path.hpp"

namespace small {

namespace {

// What stamps a file's bytes or a folder's entries: a folder's times move
// whenever an entry is added, removed or renamed, as a file's do on a write.
std::optional<FileStamp> content_stamp(const FileInfo& info) {
    if (info.kind == FileKind::Directory) {
        FileInfo as_file = info;
        as_file.kind = FileKind::Regular;
        return stamp_of(as_file);
    }
    return stamp_of(info);
}

std::string flag(bool b) { return b ? "1" : "0"; }

std::string info_text(const std::optional<FileInfo>& info) {
    if (!info) return "absent";
    return std::to_string(static_cast<int>(info->kind)) + " " + std::to_string(info->size) + " " +
           std::to_string(info->mode) + " " + std::to_string(info->mtime_sec) + "." + std::to_string(info->mtime_nsec) +
           " " + std::to_string(info->ctime_sec) + "." + std::to_string(info->ctime_nsec) + " " +
           std::to_string(info->identity.device) + ":" + std::to_string(info->identity.inode) + " " +
           std::to_string(info->owner);
}

std::string inspect_text(const Result<std::optional<FileInfo>>& info) {
    return info ? info_text(*info) : "error " + info.error().describe();
}

std::string optional_text(const std::optional<std::string>& text) { return text ? "=" + *text : "none"; }

// The answer `fs` gives now, as recorded.
std::string ask(const FileSystem& fs, PathQuestion q, const std::string& path) {
    switch (q) {
        case PathQuestion::FileExists: return flag(fs.file_exists(path));
        case PathQuestion::DirectoryExists: return flag(fs.directory_exists(path));
        case PathQuestion::IsSymlink: return flag(fs.is_symlink(path));
        case PathQuestion::Stat: return info_text(fs.stat(path));
        case PathQuestion::Inspect: return inspect_text(fs.inspect(path));
        case PathQuestion::ReadLink: {
            const Result<std::string> target = fs.read_link(path);
            return target ? "=" + *target : "error " + target.error().describe();
        }
        case PathQuestion::RealPath: return optional_text(fs.real_path(path));
        case PathQuestion::WriteAccess: return std::to_string(fs.write_access_errno(path));
        case PathQuestion::VersionStamp: return optional_text(fs.version_stamp(path));
    }
    return {};
}

bool same_bytes(const FileSystem& fs, const std::string& path, const FileStamp& recorded, std::int64_t recorded_clock_ns,
                std::int64_t now_clock_ns) {
    const Result<std::optional<FileInfo>> now = fs.inspect(path);
    if (!now || !*now) return false;
    const std::optional<FileStamp> stamp = content_stamp(**now);
    return stamp && stamp_proves_unchanged(recorded, recorded_clock_ns, *stamp, now_clock_ns);
}

}  // namespace

bool still_the_same(const FileSystem& fs, const RecordedInputs& inputs, std::optional<std::int64_t> now_clock_ns) {
    if (!inputs.provable || !inputs.clock_ns || !now_clock_ns) return false;
    for (const auto& [path, stamp] : inputs.contents) {
        if (!same_bytes(fs, path, stamp, *inputs.clock_ns, *now_clock_ns)) return false;
    }
    for (const auto& [question, answer] : inputs.answers) {
        if (ask(fs, question.first, question.second) != answer) return false;
    }
    return true;
}

RecordingFileSystem::RecordingFileSystem(const FileSystem& inner, std::optional<std::int64_t> clock_ns) : inner_(inner) {
    inputs_.clock_ns = clock_ns;
}

RecordedInputs RecordingFileSystem::take() {
    const std::lock_guard<std::mutex> hold(mutex_);
    return std::move(inputs_);
}

// A look before and after: the bytes read are those of the stamp only when
// nothing moved in between (a rename over the path gives a new identity).
template <typename Read>
auto RecordingFileSystem::reading(const std::string& path, const Read& read) const {
    const Result<std::optional<FileInfo>> before = inner_.inspect(path);
    auto result = read();
    saw_bytes(path, before, inner_.inspect(path), static_cast<bool>(result));
    return result;
}

void RecordingFileSystem::saw_bytes(const std::string& path, const Result<std::optional<FileInfo>>& before,
                                    const Result<std::optional<FileInfo>>& after, bool read_ok) const {
    const std::string looked = inspect_text(before);
    if (looked != inspect_text(after)) return unprovable();
    if (!before || !*before) {
        // Nothing there (or nothing reachable): what a look answers, unless
        // bytes were read all the same (the file came and went).
        if (read_ok) return unprovable();
        return saw_answer(PathQuestion::Inspect, path, looked);
    }
    const std::optional<FileStamp> stamp = content_stamp(**before);
    if (!stamp) return unprovable();  // a link read through, a FIFO: no stamp says what was read
    if (!inner_.times_from_change_clock(path)) return unprovable();  // a server's clock stamped it
    const std::lock_guard<std::mutex> hold(mutex_);
    const auto [it, added] = inputs_.contents.emplace(path, *stamp);
    if (!added && !(it->second == *stamp)) inputs_.provable = false;
}

void RecordingFileSystem::unprovable() const {
    const std::lock_guard<std::mutex> hold(mutex_);
    inputs_.provable = false;
}

void RecordingFileSystem::saw_answer(PathQuestion q, const std::string& path, std::string answer) const {
    const std::lock_guard<std::mutex> hold(mutex_);
    const auto [it, added] = inputs_.answers.emplace(std::pair{q, path}, answer);
    if (!added && it->second != answer) inputs_.provable = false;  // it changed while the answer was computed
}

Result<std::string> RecordingFileSystem::read_file(const std::string& path) const {
    return reading(path, [&] { return inner_.read_file(path); });
}

bool RecordingFileSystem::file_exists(const std::string& path) const {
    const bool yes = inner_.file_exists(path);
    saw_answer(PathQuestion::FileExists, path, flag(yes));
    return yes;
}

bool RecordingFileSystem::directory_exists(const std::string& path) const {
    const bool yes = inner_.directory_exists(path);
    saw_answer(PathQuestion::DirectoryExists, path, flag(yes));
    return yes;
}

bool RecordingFileSystem::is_symlink(const std::string& path) const {
    const bool yes = inner_.is_symlink(path);
    saw_answer(PathQuestion::IsSymlink, path, flag(yes));
    return yes;
}

std::optional<FileInfo> RecordingFileSystem::stat(const std::string& path) const {
    std::optional<FileInfo> info = inner_.stat(path);
    saw_answer(PathQuestion::Stat, path, info_text(info));
    return info;
}

Result<std::optional<FileInfo>> RecordingFileSystem::inspect(const std::string& path) const {
    Result<std::optional<FileInfo>> info = inner_.inspect(path);
    saw_answer(PathQuestion::Inspect, path, inspect_text(info));
    return info;
}

Result<std::string> RecordingFileSystem::read_link(const std::string& path) const {
    Result<std::string> target = inner_.read_link(path);
    saw_answer(PathQuestion::ReadLink, path, target ? "=" + *target : "error " + target.error().describe());
    return target;
}

std::optional<std::string> RecordingFileSystem::real_path(const std::string& path) const {
    std::optional<std::string> real = inner_.real_path(path);
    saw_answer(PathQuestion::RealPath, path, optional_text(real));
    return real;
}

int RecordingFileSystem::write_access_errno(const std::string& path) const {
    const int e = inner_.write_access_errno(path);
    saw_answer(PathQuestion::WriteAccess, path, std::to_string(e));
    return e;
}

Result<std::vector<DirEntry>> RecordingFileSystem::list_directory(const std::string& path) const {
    return reading(path, [&] { return inner_.list_directory(path); });
}

Result<FileRange> RecordingFileSystem::read_range(const std::string& path, std::uint64_t offset,
                                                  std::size_t length) const {
    return reading(path, [&] { return inner_.read_range(path, offset, length); });
}

Result<std::uint64_t> RecordingFileSystem::stream_prefix(const std::string& path, std::uint64_t length,
                                                         const std::function<void(std::string_view)>& take) const {
    return reading(path, [&] { return inner_.stream_prefix(path, length, take); });
}

// A link at `dir` is refused by the read: whether there is one is an input too.
Result<std::string> RecordingFileSystem::read_file_no_follow(const std::string& dir, const std::string& name) const {
    saw_answer(PathQuestion::IsSymlink, dir, flag(inner_.is_symlink(dir)));
    return reading(join_path(dir, name), [&] { return inner_.read_file_no_follow(dir, name); });
}

Result<FileRange> RecordingFileSystem::read_range_no_follow(const std::string& dir, const std::string& name,
                                                            std::uint64_t offset, std::size_t length) const {
    saw_answer(PathQuestion::IsSymlink, dir, flag(inner_.is_symlink(dir)));
    return reading(join_path(dir, name), [&] { return inner_.read_range_no_follow(dir, name, offset, length); });
}

Result<std::uint64_t> RecordingFileSystem::stream_file_no_follow(
    const std::string& dir, const std::string& name, const std::function<Status(std::string_view)>& take) const {
    saw_answer(PathQuestion::IsSymlink, dir, flag(inner_.is_symlink(dir)));
    return reading(join_path(dir, name), [&] { return inner_.stream_file_no_follow(dir, name, take); });
}

std::uint64_t RecordingFileSystem::max_read_bytes() const { return inner_.max_read_bytes(); }

std::optional<std::string> RecordingFileSystem::version_stamp(const std::string& path) const {
    std::optional<std::string> v = inner_.version_stamp(path);
    saw_answer(PathQuestion::VersionStamp, path, optional_text(v));
    return v;
}

// Only decides whether a cache of the store may be trusted, never what the
// answer says (a verified prefix never changes a verdict): not an input.
std::optional<std::int64_t> RecordingFileSystem::change_clock_ns() const { return inner_.change_clock_ns(); }
bool RecordingFileSystem::times_from_change_clock(const std::string& path) const {
    return inner_.times_from_change_clock(path);
}

Result<std::unique_ptr<StagedWrite>> RecordingFileSystem::stage_file(const FileWrite& write, std::string_view bytes) const {
    return inner_.stage_file(write, bytes);
}
// The source is read, but a copy's outcome is a write's: forwarded unrecorded.
Result<std::unique_ptr<StagedWrite>> RecordingFileSystem::stage_copy(const FileWrite& write, const std::string& from_dir,
                                                                     const std::string& from_name,
                                                                     const std::function<void(std::string_view)>& take) const {
    return inner_.stage_copy(write, from_dir, from_name, take);
}
// The producer's own reads go through this door and are recorded there.
Result<std::unique_ptr<StagedWrite>> RecordingFileSystem::stage_stream(
    const FileWrite& write, const std::function<Status(const PieceSink& put)>& produce) const {
    return inner_.stage_stream(write, produce);
}
Status RecordingFileSystem::check_replaceable(const std::string& root, const std::string& path) const {
    return inner_.check_replaceable(root, path);
}
Status RecordingFileSystem::make_directories(const std::string& root, const std::string& dir) const {
    return inner_.make_directories(root, dir);
}
Status RecordingFileSystem::create_directories(const std::string& dir) const { return inner_.create_directories(dir); }
Status RecordingFileSystem::remove_file(const std::string& root, const std::string& path, Durability durability) const {
    return inner_.remove_file(root, path, durability);
}
Status RecordingFileSystem::remove_empty_directory(const std::string& root, const std::string& dir) const {
    return inner_.remove_empty_directory(root, dir);
}
Status RecordingFileSystem::append_file(const std::string& path, std::string_view bytes, std::uint64_t expected_size) const {
    return inner_.append_file(path, bytes, expected_size);
}
Result<bool> RecordingFileSystem::truncate_file(const std::string& path, std::uint64_t size,
                                                const std::optional<FileIdentity>& only_if) const {
    return inner_.truncate_file(path, size, only_if);
}
Status RecordingFileSystem::rename_no_replace(const std::string& from, const std::string& to) const {
    return inner_.rename_no_replace(from, to);
}
Status RecordingFileSystem::sync_directory(const std::string& dir) const { return inner_.sync_directory(dir); }
Result<LockAttempt> RecordingFileSystem::try_lock_file(const std::string& path, std::string_view holder_record) const {
    return inner_.try_lock_file(path, holder_record);
}

}  // namespace small
