// The in-memory FileSystems: MemoryFileSystem, the fake of the unit tests
// (reads and writes, with the real disk's refusals: links below a root,
// read-only files, missing folders; none of its failures), and
// OverlayFileSystem, texts laid over another file system.
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "small/base/filesystem.hpp"
#include "small/base/path.hpp"

namespace small {

namespace {

Error memory_errno(const std::string& what, const std::string& path, int err) {
    Error e = Error::from_errno(what, path, err);
    e.file = path;
    return e;
}

std::string parent_of_path(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return "";
    return slash == 0 ? "/" : path.substr(0, slash);
}

bool is_below(const std::string& path, const std::string& dir) {
    const std::string prefix = dir == "/" ? dir : dir + "/";
    return path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0;
}

// `dir` and every folder between `root` and it, outermost first.
std::vector<std::string> folders_from(const std::string& root, const std::string& dir) {
    std::vector<std::string> out;
    for (std::string at = dir; at.size() > root.size() && is_below(at, root); at = parent_of_path(at)) {
        out.push_back(at);
    }
    std::reverse(out.begin(), out.end());
    return out;
}

Error refused_memory(const std::string& what, const std::string& path, const std::string& why) {
    return Error::invalid("refusing to " + what + " " + path + ": " + why);
}

}  // namespace

class MemoryStagedWrite final : public StagedWrite {
public:
    MemoryStagedWrite(const MemoryFileSystem& fs, std::string path, std::string bytes)
        : fs_(fs), path_(std::move(path)), bytes_(std::move(bytes)) {}
    Status publish() override {
        if (published_) return Error::internal("a staged file is published once");
        published_ = true;
        const std::lock_guard<std::mutex> hold(fs_.mutex_);
        fs_.put_file(path_, std::move(bytes_));
        return ok_status();
    }

private:
    const MemoryFileSystem& fs_;
    std::string path_;
    std::string bytes_;
    bool published_ = false;
};

class MemoryLock final : public HeldLock {
public:
    MemoryLock(const MemoryFileSystem& fs, std::string path) : HeldLock(std::move(path)), fs_(fs) {}
    ~MemoryLock() override {
        const std::lock_guard<std::mutex> hold(fs_.mutex_);
        fs_.tree_.locked.erase(path());
    }

private:
    const MemoryFileSystem& fs_;
};

// A whole-file write is a replace, as on disk: a new file (identity).
void MemoryFileSystem::put_file(const std::string& path, std::string bytes) const {
    tree_.files[path] = std::move(bytes);
    tree_.inodes[path] = tree_.next_generation;
    tree_.generations[path] = tree_.next_generation++;
}

void MemoryFileSystem::add_file(const std::string& path, std::string contents) {
    const std::lock_guard<std::mutex> hold(mutex_);
    put_file(path, std::move(contents));
}

void MemoryFileSystem::add_directory(const std::string& path) {
    const std::lock_guard<std::mutex> hold(mutex_);
    tree_.directories.insert(path);
}

void MemoryFileSystem::add_symlink(const std::string& path) {
    const std::lock_guard<std::mutex> hold(mutex_);
    tree_.symlinks.insert(path);
}

void MemoryFileSystem::set_read_only(const std::string& path) {
    const std::lock_guard<std::mutex> hold(mutex_);
    tree_.read_only.insert(path);
}

std::map<std::string, std::string> MemoryFileSystem::files() const {
    const std::lock_guard<std::mutex> hold(mutex_);
    return tree_.files;
}

bool MemoryFileSystem::is_symlink(const std::string& path) const {
    const std::lock_guard<std::mutex> hold(mutex_);
    return tree_.symlinks.count(path) != 0;
}

void MemoryFileSystem::set_max_read_bytes(std::uint64_t bytes) {
    const std::lock_guard<std::mutex> hold(mutex_);
    tree_.max_read_bytes = bytes;
}

std::uint64_t MemoryFileSystem::max_read_bytes() const {
    const std::lock_guard<std::mutex> hold(mutex_);
    return tree_.max_read_bytes;
}

Result<std::string> MemoryFileSystem::read_file(const std::string& path) const {
    const std::lock_guard<std::mutex> hold(mutex_);
    const auto it = tree_.files.find(path);
    if (it == tree_.files.end()) return memory_errno("cannot read", path, ENOENT);
    if (it->second.size() > tree_.max_read_bytes) return file_too_large(path, tree_.max_read_bytes);
    return it->second;
}

Result<FileRange> MemoryFileSystem::read_range(const std::string& path, std::uint64_t offset, std::size_t length) const {
    const std::lock_guard<std::mutex> hold(mutex_);
    const auto it = tree_.files.find(path);
    if (it == tree_.files.end()) return memory_errno("cannot read", path, ENOENT);
    FileRange range;
    range.file_size = it->second.size();
    if (offset < it->second.size()) range.bytes = it->second.substr(static_cast<std::size_t>(offset), length);
    return range;
}

// Any size (the read limit bounds whole reads only), in pieces, one version.
Result<std::uint64_t> MemoryFileSystem::stream_file_no_follow(const std::string& dir, const std::string& name,
                                                              const std::function<Status(std::string_view)>& take) const {
    const std::string path = (dir == "/" ? "" : dir) + "/" + name;
    for (const std::string& at : {dir, path}) {
        if (is_symlink(at)) {
            Error e = Error::invalid("cannot read " + at + ": it is a symbolic link, and small does not follow one here; "
                                     "replace the link with the file or folder it points to");
            e.file = at;
            return e;
        }
    }
    std::string bytes;
    const std::optional<std::string> before = version_stamp(path);
    {
        const std::lock_guard<std::mutex> hold(mutex_);
        const auto it = tree_.files.find(path);
        if (it == tree_.files.end()) return memory_errno("cannot read", path, ENOENT);
        bytes = it->second;
    }
    for (std::size_t at = 0; at < bytes.size(); at += kStreamPieceBytes) {
        if (Status s = take(std::string_view(bytes).substr(at, kStreamPieceBytes)); !s) return s.error();
    }
    if (version_stamp(path) != before) {
        Error e = Error::system("cannot read " + path + ": it changed while it was read; run the command again");
        e.file = path;
        return e;
    }
    return static_cast<std::uint64_t>(bytes.size());
}

Result<std::uint64_t> MemoryFileSystem::stream_prefix(const std::string& path, std::uint64_t length,
                                                      const std::function<void(std::string_view)>& take) const {
    std::string bytes;
    {
        const std::lock_guard<std::mutex> hold(mutex_);
        const auto it = tree_.files.find(path);
        if (it == tree_.files.end()) return memory_errno("cannot read", path, ENOENT);
        bytes = it->second;
    }
    take(std::string_view(bytes).substr(0, static_cast<std::size_t>(std::min<std::uint64_t>(length, bytes.size()))));
    return static_cast<std::uint64_t>(bytes.size());
}

bool MemoryFileSystem::file_exists(const std::string& path) const {
    const std::lock_guard<std::mutex> hold(mutex_);
    return tree_.files.count(path) != 0;
}

bool MemoryFileSystem::directory_exists(const std::string& path) const {
    const std::lock_guard<std::mutex> hold(mutex_);
    if (tree_.directories.count(path)) return true;
    const auto below = [&](const std::string& p) { return is_below(p, path); };
    return std::any_of(tree_.files.begin(), tree_.files.end(), [&](const auto& kv) { return below(kv.first); }) ||
           std::any_of(tree_.directories.begin(), tree_.directories.end(), below);
}

std::optional<FileInfo> MemoryFileSystem::stat(const std::string& path) const {
    std::optional<FileInfo> info = FileSystem::stat(path);
    if (!info || info->kind != FileKind::Regular) return info;
    if (write_access_errno(path) != 0) info->mode = 0444;
    const std::lock_guard<std::mutex> hold(mutex_);
    if (const auto it = tree_.files.find(path); it != tree_.files.end()) info->size = it->second.size();
    info->identity = {1, tree_.inodes[path]};
    info->ctime_sec = static_cast<std::int64_t>(tree_.generations[path]);  // changes with every write
    return info;
}

int MemoryFileSystem::write_access_errno(const std::string& path) const {
    const std::lock_guard<std::mutex> hold(mutex_);
    return tree_.read_only.count(path) != 0 ? EACCES : 0;
}

Result<std::vector<DirEntry>> MemoryFileSystem::list_directory(const std::string& path) const {
    if (!directory_exists(path)) return memory_errno("cannot list", path, ENOENT);
    const std::lock_guard<std::mutex> hold(mutex_);
    const std::string prefix = path == "/" ? path : path + "/";
    std::map<std::string, bool> children;
    const auto collect = [&](const std::string& p, bool is_dir) {
        if (!is_below(p, path)) return;
        const std::string rest = p.substr(prefix.size());
        const auto slash = rest.find('/');
        if (slash == std::string::npos) children[rest] = children[rest] || is_dir;
        else children[rest.substr(0, slash)] = true;
    };
    for (const auto& kv : tree_.files) collect(kv.first, false);
    for (const std::string& dir : tree_.directories) collect(dir, true);
    for (const std::string& link : tree_.symlinks) collect(link, false);
    std::vector<DirEntry> out;
    for (const auto& [name, is_dir] : children) out.push_back({name, is_dir});
    return out;
}

std::optional<std::string> MemoryFileSystem::version_stamp(const std::string& path) const {
    const std::lock_guard<std::mutex> hold(mutex_);
    const auto it = tree_.generations.find(path);
    if (it == tree_.generations.end() || !tree_.files.count(path)) return std::nullopt;
    return "memory " + std::to_string(it->second);
}

// ---- writes ----

// The rules every write obeys: below `root`, no link on the way or at the
// path, folders on the way are folders. Called without the mutex.
Status MemoryFileSystem::check_write_path(const std::string& root, const std::string& path, const char* what) const {
    if (!is_below(path, root)) return refused_memory(what, path, "it is not inside " + root);
    for (const std::string& at : folders_from(root, path)) {
        if (is_symlink(at)) {
            return refused_memory(at == path ? what : "use", at,
                                  "it is a symbolic link (symbolic links in the workspace are not followed)");
        }
        if (at != path && file_exists(at)) return memory_errno("cannot open directory", at, ENOTDIR);
    }
    return ok_status();
}

Result<std::unique_ptr<StagedWrite>> MemoryFileSystem::stage_file(const FileWrite& write, std::string_view bytes) const {
    if (Status s = check_write_path(write.root, write.path, "write"); !s) return s.error();
    if (directory_exists(write.path)) return refused_memory("write", write.path, "it is not a regular file");
    if (file_exists(write.path) && write_access_errno(write.path) != 0) {
        return Error::system("cannot write " + write.path + ": " + std::strerror(EACCES) +
                             " (it is read-only); nothing was changed");
    }
    const std::string parent = parent_of_path(write.path);
    if (write.make_parents) {
        if (Status s = make_directories(write.root, parent); !s) return s.error();
    } else if (!directory_exists(parent)) {
        return memory_errno("cannot open directory", parent, ENOENT);
    }
    return std::unique_ptr<StagedWrite>(std::make_unique<MemoryStagedWrite>(*this, write.path, std::string(bytes)));
}

Status MemoryFileSystem::check_replaceable(const std::string& root, const std::string& path) const {
    if (Status s = check_write_path(root, path, "write"); !s) return s;
    if (directory_exists(path)) return refused_memory("write", path, "it is not a regular file");
    if (file_exists(path) && write_access_errno(path) != 0) {
        return Error::system("cannot write " + path + ": " + std::strerror(EACCES) + " (it is read-only)");
    }
    return ok_status();
}

Status MemoryFileSystem::make_directories(const std::string& root, const std::string& dir) const {
    if (Status s = check_write_path(root, dir, "create"); !s) return s;
    if (file_exists(dir)) return memory_errno("cannot create directory", dir, EEXIST);
    const std::lock_guard<std::mutex> hold(mutex_);
    for (const std::string& at : folders_from(root, dir)) tree_.directories.insert(at);
    return ok_status();
}

Status MemoryFileSystem::create_directories(const std::string& dir) const {
    for (const std::string& at : folders_from("/", dir)) {
        if (file_exists(at)) return Error::system("cannot create " + dir + ": " + at + " is not a directory");
    }
    const std::lock_guard<std::mutex> hold(mutex_);
    for (const std::string& at : folders_from("/", dir)) tree_.directories.insert(at);
    return ok_status();
}

Status MemoryFileSystem::remove_file(const std::string& root, const std::string& path, Durability) const {
    if (Status s = check_write_path(root, path, "remove"); !s) return s;
    if (directory_exists(path)) return refused_memory("write", path, "it is not a regular file");
    const std::lock_guard<std::mutex> hold(mutex_);
    tree_.files.erase(path);
    tree_.generations.erase(path);
    tree_.inodes.erase(path);
    tree_.read_only.erase(path);
    return ok_status();
}

Status MemoryFileSystem::remove_empty_directory(const std::string& root, const std::string& dir) const {
    if (Status s = check_write_path(root, dir, "remove"); !s) return s;
    Result<std::vector<DirEntry>> children = list_directory(dir);
    if (!children || !children->empty()) return ok_status();  // gone, or kept
    const std::lock_guard<std::mutex> hold(mutex_);
    tree_.directories.erase(dir);
    return ok_status();
}

Status MemoryFileSystem::append_file(const std::string& path, std::string_view bytes,
                                     std::uint64_t expected_size) const {
    if (is_symlink(path)) {
        return refused_memory("append to", path, "it is a symbolic link (symbolic links are not followed for writes)");
    }
    if (!file_exists(path)) return Error::from_errno("cannot append to", path, ENOENT);
    if (write_access_errno(path) != 0) return Error::from_errno("cannot append to", path, EACCES);
    const std::lock_guard<std::mutex> hold(mutex_);
    std::string& contents = tree_.files[path];
    if (contents.size() != expected_size) {
        return Error::invalid("cannot append to " + path + ": the file changed since it was read (expected " +
                              std::to_string(expected_size) + " bytes, found " + std::to_string(contents.size()) + ")");
    }
    if (bytes.empty()) return ok_status();
    contents.append(bytes);
    tree_.generations[path] = tree_.next_generation++;
    return ok_status();
}

Result<bool> MemoryFileSystem::truncate_file(const std::string& path, std::uint64_t size,
                                             const std::optional<FileIdentity>& only_if) const {
    if (is_symlink(path)) return refused_memory("truncate", path, "it is a symbolic link");
    if (!file_exists(path)) return Error::from_errno("cannot truncate", path, ENOENT);
    if (write_access_errno(path) != 0) return Error::from_errno("cannot truncate", path, EACCES);
    const std::lock_guard<std::mutex> hold(mutex_);
    if (only_if && !(*only_if == FileIdentity{1, tree_.inodes[path]})) return false;
    tree_.files[path].resize(static_cast<std::size_t>(size), '\0');
    tree_.generations[path] = tree_.next_generation++;
    return true;
}

Status MemoryFileSystem::rename_no_replace(const std::string& from, const std::string& to) const {
    const bool is_dir = directory_exists(from);
    if (!is_dir && !file_exists(from)) return Error::from_errno("cannot move " + from + " to", to, ENOENT);
    if (file_exists(to) || directory_exists(to)) return Error::from_errno("cannot move " + from + " to", to, EEXIST);
    if (!directory_exists(parent_of_path(to))) return Error::from_errno("cannot move " + from + " to", to, ENOENT);
    const std::lock_guard<std::mutex> hold(mutex_);
    const auto moved = [&](const std::string& p) { return p == from || is_below(p, from); };
    const auto renamed = [&](const std::string& p) { return to + p.substr(from.size()); };
    std::map<std::string, std::string> files;
    for (auto& [path, bytes] : tree_.files) files[moved(path) ? renamed(path) : path] = std::move(bytes);
    std::set<std::string> dirs;
    for (const std::string& dir : tree_.directories) dirs.insert(moved(dir) ? renamed(dir) : dir);
    std::map<std::string, std::uint64_t> inodes;
    for (const auto& [path, inode] : tree_.inodes) inodes[moved(path) ? renamed(path) : path] = inode;
    tree_.inodes = std::move(inodes);
    tree_.files = std::move(files);
    tree_.directories = std::move(dirs);
    for (const auto& kv : tree_.files) {
        if (kv.first == to || is_below(kv.first, to)) tree_.generations[kv.first] = tree_.next_generation++;
    }
    return ok_status();
}

Status MemoryFileSystem::sync_directory(const std::string& dir) const {
    if (!directory_exists(dir)) return Error::from_errno("cannot open directory", dir, ENOENT);
    return ok_status();
}

Result<LockAttempt> MemoryFileSystem::try_lock_file(const std::string& path, std::string_view holder_record) const {
    if (is_symlink(path)) return Error::invalid("refusing to use " + path + ": it is a symbolic link");
    if (!directory_exists(parent_of_path(path))) {
        return Error::from_errno("cannot open the workspace lock", path, ENOENT);
    }
    const std::lock_guard<std::mutex> hold(mutex_);
    if (tree_.locked.count(path)) return LockAttempt{nullptr, tree_.files[path]};
    tree_.locked.insert(path);
    put_file(path, std::string(holder_record));
    return LockAttempt{std::make_unique<MemoryLock>(*this, path), std::string(holder_record)};
}

// ---- OverlayFileSystem: texts over another file system ----

void OverlayFileSystem::put(const std::string& path, std::string text) {
    buffers_[path] = Buffer{std::move(text), next_generation_++};
}

void OverlayFileSystem::forget(const std::string& path) { buffers_.erase(path); }

const OverlayFileSystem::Buffer* OverlayFileSystem::find(const std::string& path) const {
    const auto it = buffers_.find(path);
    return it == buffers_.end() ? nullptr : &it->second;
}

const std::string* OverlayFileSystem::text_of(const std::string& path) const {
    const Buffer* b = find(path);
    return b ? &b->text : nullptr;
}

// A buffer's stamp changes with every version (its generation stands for the
// inode and the times), so a cache keyed by stamps never takes one version
// for another; the device number no disk uses keeps it apart from real files.
FileInfo OverlayFileSystem::info_of(const Buffer& buffer) const {
    FileInfo info;
    info.kind = FileKind::Regular;
    info.size = buffer.text.size();
    info.mode = 0644;
    info.mtime_sec = static_cast<std::int64_t>(buffer.generation);
    info.ctime_sec = static_cast<std::int64_t>(buffer.generation);
    info.identity = FileIdentity{~std::uint64_t{0}, buffer.generation};
    return info;
}

Result<std::string> OverlayFileSystem::read_file(const std::string& path) const {
    if (const Buffer* b = find(path)) return b->text;
    return disk_.read_file(path);
}

bool OverlayFileSystem::file_exists(const std::string& path) const { return find(path) || disk_.file_exists(path); }

bool OverlayFileSystem::directory_exists(const std::string& path) const { return disk_.directory_exists(path); }

bool OverlayFileSystem::is_symlink(const std::string& path) const { return !find(path) && disk_.is_symlink(path); }

std::optional<FileInfo> OverlayFileSystem::stat(const std::string& path) const {
    if (const Buffer* b = find(path)) return info_of(*b);
    return disk_.stat(path);
}

Result<std::optional<FileInfo>> OverlayFileSystem::inspect(const std::string& path) const {
    if (const Buffer* b = find(path)) return std::optional<FileInfo>(info_of(*b));
    return disk_.inspect(path);
}

Result<std::string> OverlayFileSystem::read_link(const std::string& path) const { return disk_.read_link(path); }

std::optional<std::string> OverlayFileSystem::real_path(const std::string& path) const {
    if (find(path)) return path;
    return disk_.real_path(path);
}

// The disk's entries and the buffers of files not saved yet, sorted by name.
Result<std::vector<DirEntry>> OverlayFileSystem::list_directory(const std::string& path) const {
    Result<std::vector<DirEntry>> entries = disk_.list_directory(path);
    if (!entries) return entries;
    for (const auto& [file, buffer] : buffers_) {
        if (parent_path(file) != path) continue;
        const std::string name = file_name(file);
        const bool listed = std::any_of(entries->begin(), entries->end(), [&](const DirEntry& e) { return e.name == name; });
        if (!listed) entries->push_back(DirEntry{name, false});
    }
    std::sort(entries->begin(), entries->end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    return entries;
}

Result<FileRange> OverlayFileSystem::read_range(const std::string& path, std::uint64_t offset, std::size_t length) const {
    const Buffer* b = find(path);
    if (!b) return disk_.read_range(path, offset, length);
    FileRange range;
    range.file_size = b->text.size();
    if (offset < b->text.size()) range.bytes = b->text.substr(static_cast<std::size_t>(offset), length);
    return range;
}

Result<std::uint64_t> OverlayFileSystem::stream_prefix(const std::string& path, std::uint64_t length,
                                                       const std::function<void(std::string_view)>& take) const {
    const Buffer* b = find(path);
    if (!b) return disk_.stream_prefix(path, length, take);
    const std::string_view text(b->text);
    take(text.substr(0, static_cast<std::size_t>(std::min<std::uint64_t>(length, text.size()))));
    return std::uint64_t{text.size()};
}

Result<std::string> OverlayFileSystem::read_file_no_follow(const std::string& dir, const std::string& name) const {
    if (const Buffer* b = find(join_path(dir, name))) return b->text;
    return disk_.read_file_no_follow(dir, name);
}

Result<FileRange> OverlayFileSystem::read_range_no_follow(const std::string& dir, const std::string& name,
                                                          std::uint64_t offset, std::size_t length) const {
    const std::string path = join_path(dir, name);
    if (find(path)) return read_range(path, offset, length);
    return disk_.read_range_no_follow(dir, name, offset, length);
}

Result<std::uint64_t> OverlayFileSystem::stream_file_no_follow(const std::string& dir, const std::string& name,
                                                               const std::function<Status(std::string_view)>& take) const {
    const Buffer* b = find(join_path(dir, name));
    if (!b) return disk_.stream_file_no_follow(dir, name, take);
    const std::string_view text(b->text);
    for (std::size_t at = 0; at < text.size(); at += kStreamPieceBytes) {
        if (Status s = take(text.substr(at, kStreamPieceBytes)); !s) return s.error();
    }
    return std::uint64_t{text.size()};
}

std::optional<std::string> OverlayFileSystem::version_stamp(const std::string& path) const {
    if (const Buffer* b = find(path)) return "buffer " + std::to_string(b->generation);
    return disk_.version_stamp(path);
}

bool OverlayFileSystem::times_from_change_clock(const std::string& path) const {
    return find(path) || disk_.times_from_change_clock(path);
}

}  // namespace small
