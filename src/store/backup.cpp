// Backups of replaced artifacts (see backup.hpp).
#include "small/store/backup.hpp"

#include <algorithm>

#include "small/store/atomic_file.hpp"
#include "small/store/folder_publish.hpp"

namespace small {

namespace {

bool is_plain_file_name(std::string_view name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
           name.find('\0') == std::string_view::npos;
}

bool is_reason(std::string_view reason) {
    return !reason.empty() && std::all_of(reason.begin(), reason.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
}

// 20261123T155238.123456789Z: sorts by time, and is a portable file name.
std::string folder_stamp(Instant now) {
    std::string stamp = format_timestamp_utc9(now);  // 2026-11-23T15:52:38.123456789Z
    stamp.erase(std::remove_if(stamp.begin(), stamp.end(), [](char c) { return c == '-' || c == ':'; }),
                stamp.end());
    return stamp;
}

}  // namespace

Result<Backup> backup_artifacts(const FileSystem& fs, const WorkspacePaths& ws, std::string_view reason,
                                const std::vector<std::string>& file_names, Instant now) {
    if (!is_reason(reason)) return Error::internal("backup reason \"" + std::string(reason) + "\"");
    FolderFiles files;
    Backup backup;
    for (const std::string& name : file_names) {
        if (!is_plain_file_name(name)) return Error::internal("backup of \"" + name + "\": not a plain file name");
        const std::string path = ws.path_of(name);
        if (!fs.file_exists(path)) continue;
        Result<std::string> bytes = fs.read_file_no_follow(ws.small_dir, name);
        if (!bytes) return bytes.error();
        files.emplace_back(name, std::move(*bytes));
        backup.files.push_back(name);
    }
    if (files.empty()) return backup;
    const std::string backups = runtime_path(ws.root, kBackupsDirName);
    const std::string base = backups + "/" + folder_stamp(now) + "-" + std::string(reason);
    for (int n = 1;; ++n) {
        const std::string dir = n == 1 ? base : base + "." + std::to_string(n);
        if (fs.directory_exists(dir) || fs.file_exists(dir) || fs.is_symlink(dir)) continue;  // never reused
        if (Status s = write_folder_atomic(fs, ws, dir, files); !s) return s.error();
        backup.dir = dir;
        return backup;
    }
}

}  // namespace small
