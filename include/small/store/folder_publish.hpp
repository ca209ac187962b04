// Putting a complete folder in place (run snapshot --force, archive): the
// folder is written beside its destination under another name, then moved
// there by one rename, so a reader never sees it half written and a fresh
// folder never mixes with the stale files of an older one.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/layout.hpp"

namespace small {

// A file copied into a folder: its size and SHA-256, hashed while copied.
struct CopiedFile {
    std::uint64_t bytes = 0;
    std::string sha256;
};

// What a folder is filled with while it is still aside, file by file: bytes
// given, or a copy of a file streamed through one buffer (a long progress
// log costs no memory of its size). Names are plain file names.
class FolderSink {
public:
    virtual ~FolderSink() = default;
    virtual Status write(const std::string& name, std::string_view bytes) = 0;
    // A copy of the regular file `from_dir`/`name` (neither followed: read
    // as FileSystem::stream_file_no_follow reads it). Refused, and the
    // folder never published, when the file changed while it was copied:
    // a copy is always one version of the file, whose hash it reports.
    virtual Result<CopiedFile> copy(const std::string& from_dir, const std::string& name) = 0;
};
// Fills the folder; an error leaves nothing of it.
using FolderFill = std::function<Status(FolderSink& sink)>;

// Creates the folder `dir` (absolute, below ws.root, inside `.small*`)
// holding exactly what `fill` puts there, all or nothing: the files are
// written into the side folder `<parent>/.<name>.partial`, which is then
// renamed to `dir`, so `dir` never exists incomplete. `dir` must not exist.
// On failure nothing of the side folder remains. The parent is created when
// missing (the caller may want to know: see lstat before calling).
Status write_folder_atomic(const FileSystem& fs, const WorkspacePaths& ws, const std::string& dir, const FolderFill& fill);
// The same holding exactly `files` (name, bytes).
using FolderFiles = std::vector<std::pair<std::string, std::string>>;
Status write_folder_atomic(const FileSystem& fs, const WorkspacePaths& ws, const std::string& dir, const FolderFiles& files);

// Best-effort removal of a command's own leftover (a half-made folder):
// the whole tree at `dir` (links inside are removed, never followed), or
// `dir` alone when it is empty.
void discard_tree(const std::string& dir);
void discard_empty_folder(const std::string& dir);

// fsync() on a directory, making renames and creations inside it durable.
Status fsync_directory(const std::string& dir);

// Creates `side` (it must not exist; its parent must) holding exactly what
// `fill` puts there, each file fsynced, then the folder itself (a copy's
// source is read through `fs`). A failure removes `side`. For a folder the
// user named (`archive --out`): the D7 workspace rules of
// write_folder_atomic do not apply there.
Status write_new_folder(const FileSystem& fs, const std::string& side, const FolderFill& fill);

// Moves the complete folder `side` to `dir`. `dir` absent or an empty
// folder: a plain rename. `dir` a non-empty folder: with `replace`, the two
// are exchanged in one step (RENAME_EXCHANGE) and the old one removed;
// without, refused (Invalid, nothing changed; `side` removed). `dir` a
// symbolic link or a file: refused. The parent folder is fsynced.
Status publish_folder(const std::string& side, const std::string& dir, bool replace);

// Puts the folder `dir` holding exactly what `fill` puts there in place,
// all or nothing: written beside it as `.<name>.partial-<pid>`, then published.
// `in_workspace`: `dir` lies in the workspace's runtime folders (the D7
// rules of write_folder_atomic apply; an existing folder is replaced, and
// `replaced` says whether it held anything). Otherwise it is a place the
// user named (`archive --out`): its parent is created when missing, a
// non-empty folder is never replaced, and a folder that really lies inside
// a `.small/` (through a link) is refused.
Status place_folder(const FileSystem& fs, const WorkspacePaths& ws, const std::string& dir, bool in_workspace,
                    const FolderFill& fill, bool& replaced);

// --- Scratch folders ---
// A directory a command makes for its own use and removes again (selftest).
// The rule that keeps it safe: only what this command created is ever
// removed, named by the command (ScratchContents). A named directory must be new or empty; an existing one is kept
// (only its new contents go), a symbolic link or a non-empty directory is
// refused before anything is touched.
struct ScratchDir {
    std::string path;                          // absolute
    bool existed = false;                      // it was there (empty) before: keep the folder itself
    std::vector<std::string> created;          // folders this call made, outermost first (path last)
    unsigned long long device = 0, inode = 0;  // what `path` was when made (guards the removal)
};

// `requested` absent: a fresh `<tmp>/<prefix>XXXXXX` (mkdtemp; $TMPDIR or
// /tmp). Present (relative to `cwd`): made with its missing parents, or used
// when it is an empty directory. Errors (nothing touched): Invalid for a
// non-empty directory, a file, a symbolic link, or a parent that is not a
// directory; System when the disk refuses.
Result<ScratchDir> make_scratch_dir(const std::optional<std::string>& requested, const std::string& cwd,
                                    const std::string& prefix);

// What the caller's work made inside the directory, relative to it: only
// these are removed, so a file another process put there meanwhile stays
// (issue 24). `trees` go with everything below them (links are removed,
// never followed); then `folders`, in the order given, only while empty.
struct ScratchContents {
    std::vector<std::string> trees;
    std::vector<std::string> folders;
};

// Removes `made` from the directory, then the folders make_scratch_dir
// created, innermost first, each only while empty: a directory that holds
// anything else stays, and the error (System) names what is in it. Refuses
// (System, nothing removed) when `path` is no longer the folder that was
// made (replaced by a link or another folder).
Status remove_scratch_dir(const ScratchDir& dir, const ScratchContents& made);

}  // namespace small
