// The files of a git hooks folder that `small hooks install|uninstall git`
// looks at and moves. The folder lies outside the workspace (in .git/, or
// wherever core.hooksPath points), so these work on one folder by name and
// never follow a symbolic link at the file itself.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "small/base/fd.hpp"
#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/layout.hpp"

namespace small {

// What is at `dir`/`name` (lstat: a link is reported, not followed).
struct HookFileState {
    enum class Kind { Missing, Regular, Link, Other };
    Kind kind = Kind::Missing;
    std::string content;  // Regular only
    mode_t mode = 0;      // permission bits, Regular only
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
};
Result<HookFileState> read_hook_file(const std::string& dir, const std::string& name);

// mkdir -p `dir` (0755 each); true when something was created.
Result<bool> ensure_hooks_folder(const std::string& dir);

// An exclusive flock() on the hooks folder itself, held while the returned
// descriptor lives: the workspaces of one repository share the folder (and
// one hook), and each holds only its own workspace lock. Polls until `wait`
// has elapsed, then fails with Busy (exit 3).
Result<Fd> lock_hooks_folder(const std::string& dir, std::chrono::milliseconds wait);

enum class HardLinks { IfSupported, Never };  // Never: the fallback, for tests

// Keeps the hook `from` as `to` and writes `content` (mode 0755) as `from`,
// each step durable. `to` is a hard link (same bytes, mode and inode) where
// the filesystem has them, else `from` is renamed to `to`; when the write
// then fails, the rename is undone, so a failure never leaves `from` gone.
Status chain_hook_file(const FileSystem& fs, const std::string& dir, const std::string& from, const std::string& to,
                       const std::string& content, HardLinks links = HardLinks::IfSupported);

// rename(2) of `from` over `to` in `dir`, made durable.
Status rename_hook_file(const std::string& dir, const std::string& from, const std::string& to);

// unlink(2) of `name` in `dir`, made durable.
Status remove_hook_file(const std::string& dir, const std::string& name);

// unlink(2) of the file at `path` (.gitattributes, which lies outside the
// workspace's write rules: the user's file), made durable.
Status remove_named_file(const std::string& path);

// rmdir(2) of a hooks folder install created (its undo), made durable.
Status remove_created_hooks_folder(const std::string& dir);

// Gives the file at `path` the permission bits `mode` again when a rewrite
// changed them (libgit2 writes the git config file anew); nothing when the
// file is gone or already has them.
Status restore_file_mode(const std::string& path, unsigned mode);

// The permission bits of the file `path` leads to (a link is followed, as
// chmod follows it); nullopt when it cannot be told. What restore_file_mode
// must put back: a link's own bits (0777) never are.
std::optional<unsigned> file_mode(const std::string& path);

// Refuses (System, "nothing was changed") when nothing may be written in
// `dir`, or, when it does not exist yet, in the nearest folder above it
// that does: checked before the first write.
Status check_writable_folder(std::string dir);

// ---------------------------------------------------------------- what install added

// `small hooks install` records what it added, so that uninstall removes
// exactly that and nothing a user wrote that happens to look the same (an
// identical .gitattributes line, merge.small.* key or session hook entry).
// One record per workspace root and target, in
// `.small-cache/hooks/<target>.json` (beside the files it describes, never
// in .small/, kept out of git by .gitignore's `.small-cache/`).

// One file install changed (the .gitattributes file, a settings file).
struct HookRecordFile {
    std::string path;      // relative to the workspace root
    bool created = false;  // install created the file
    // The bytes before install changed it, while the file still holds
    // `after`: uninstall then puts them back byte for byte. nullopt when the
    // file changed between two installs (uninstall removes `entries` then).
    std::optional<std::string> before;
    std::string after;                 // the bytes install left
    std::vector<std::string> entries;  // what install added: the event names, or the .gitattributes line
};

struct HookRecord {
    std::vector<HookRecordFile> files;
    // The git config keys install set in the repository's own config, with
    // the values it set.
    std::vector<std::pair<std::string, std::string>> config;

    bool empty() const { return files.empty() && config.empty(); }
    HookRecordFile* file(std::string_view path);
    const std::string* config_value(std::string_view key) const;
};

// <root>/.small-cache/hooks/<target>.json
std::string hook_record_path(const std::string& root, std::string_view target);

// The record as JSON text, and back. A text that is not such a record is
// Invalid (with the file's name), so uninstall then removes nothing.
std::string hook_record_text(const HookRecord& record);
Result<HookRecord> parse_hook_record(std::string_view text, const std::string& display);

// The record at `path`: nullopt when there is none (nothing recorded).
Result<std::optional<HookRecord>> read_hook_record(const std::string& path);

// Writes the record (mode 0600: it holds copies of the files' bytes) or,
// when it is empty, removes it and the folder it leaves empty.
Status write_hook_record(const FileSystem& fs, const WorkspacePaths& ws, const std::string& path, const HookRecord& record);

}  // namespace small
