// Crash-safe writes into a workspace (D7): which paths a command may write,
// on top of the FileSystem's write half, which does the writing.
//
// Every whole-file write stages a temporary file under
// `<root>/.small-cache/tmp/` (never inside `.small/`, so a concurrent strict
// layout check cannot see it), fsyncs it, renames it over the target and
// fsyncs the target's directory: after a crash the target holds either the
// old or the new bytes, never a mixture. Appends to the progress log go
// through FileSystem::append_file(), which never changes existing bytes.
//
// Symbolic links are never followed below the workspace root, and nothing
// is written outside the workspace's `.small*` folders, `AGENTS.md` and
// `.gitignore` (plus, through WriteScope::UserNamed, the one file a user
// named explicitly, and the hook files of `small hooks`, below).
//
// A file this process may not write (read-only for us: EACCES by the
// permission rules) is never replaced, although a rename in a writable
// folder would let us: read-only means "do not change this" (Kind::System,
// exit 2). Root may write any file, as with every other tool.
//
// Errors: Kind::Invalid for a refused operation (symbolic link, path outside
// the allowed folders, file changed since it was read), Kind::System for an
// operating-system failure or a read-only file; the message names the path
// and strerror.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/agent_hooks.hpp"  // kAgentSettingsFiles, the AgentSettings scope
#include "small/model/layout.hpp"

namespace small {

// Which paths a write may name:
//   Workspace      below ws.root, inside `.small*`, or `AGENTS.md` /
//                  `.gitignore` at the root (D7);
//   UserNamed      one direct child of ws.root the user named on the command
//                  line (`agents apply --file GOVERNANCE.md`); the
//                  workspace's own `.small` / `.small-*` names are refused;
//   AgentSettings  one of kAgentSettingsFiles (`small hooks install
//                  claude|codex`), kEditorSettingsFile or a schema in
//                  kEditorSchemaFolder (`small hooks install vscode`),
//                  whose folders are created when missing.
enum class WriteScope { Workspace, UserNamed, AgentSettings };

struct WriteOptions {
    WriteScope scope = WriteScope::Workspace;
    Durability durability = Durability::Full;
    mode_t mode = 0644;  // for a new file (minus the umask); an existing file keeps its bits
};

// A cache's write (see Durability::None).
inline constexpr WriteOptions kCacheWrite{.durability = Durability::None};

// Replaces `target` (an absolute path, see WriteScope) with `bytes`,
// atomically: staged, fsynced, renamed over the target, and the directory
// fsynced, as `options.durability` says. The target's directory must exist
// (see ensure_directory) unless the options create it. On failure the
// temporary file is removed and the target is left untouched, except when
// only the final directory fsync fails (the rename has then happened but
// its durability is unknown; the error says so).
Status write_file_atomic(const FileSystem& fs, const WorkspacePaths& ws, const std::string& target, std::string_view bytes,
                         const WriteOptions& options = {});

// The same with a copy of the regular file `from_dir`/`from_name` (neither
// followed) as the bytes, streamed through one buffer whatever its size
// (FileSystem::stage_copy); `take` sees every piece copied, so a hash of
// the copy costs no second read. Refused, nothing written, when the source
// changed while it was copied.
Status copy_file_atomic(const FileSystem& fs, const WorkspacePaths& ws, const std::string& target,
                        const std::string& from_dir, const std::string& from_name,
                        const std::function<void(std::string_view)>& take, const WriteOptions& options = {});

// The same with the bytes `produce` hands to its sink piece by piece,
// each written straight into the staged file (FileSystem::stage_stream):
// a rewrite of a long log costs no memory of its length. A producer that
// fails leaves the target untouched and nothing staged.
Status write_stream_atomic(const FileSystem& fs, const WorkspacePaths& ws, const std::string& target,
                           const std::function<Status(const PieceSink& put)>& produce, const WriteOptions& options = {});

// The two halves of write_file_atomic, for a caller that overlaps the
// data's fsync with other work (commit_workspace_change stages its files
// while the progress entries are appended): stage_file_atomic writes and
// syncs the temporary file, publish() renames it over the target and syncs
// the directory. A staged file that is never published is removed. The
// target is inspected when staged; the caller holds the workspace lock, so
// it does not change before publish.
using StagedFile = std::unique_ptr<StagedWrite>;
Result<StagedFile> stage_file_atomic(const FileSystem& fs, const WorkspacePaths& ws, const std::string& target, std::string_view bytes,
                                     mode_t mode = 0644);

// Whether write_file_atomic (or FileSystem::append_file) would accept `target`,
// without writing anything: the same path rules, no symbolic link on the
// way, a regular and writable file when it exists. Lets a command refuse
// before its first write.
Status check_replaceable(const FileSystem& fs, const WorkspacePaths& ws, const std::string& target,
                         WriteScope scope = WriteScope::Workspace);

// The read-only rule alone, for a path outside the workspace rules: a
// regular file at `path` that is read-only (see above) is refused; anything
// else is left to the write.
Status check_writable_file(const FileSystem& fs, const std::string& path);

// Where a write to `path` (absolute) really lands: the real path of its
// deepest existing ancestor (every symbolic link resolved) joined with the
// components still to be made. A dangling link on the way is refused
// (Invalid): where it would lead cannot be told.
Result<std::string> resolve_write_target(const FileSystem& fs, const std::string& path);

// For a place the user named (`archive --out`, `agents apply --file` and
// its --dir): refuses (Invalid, naming `what` and the real path) when the
// write would really land inside a `.small/` folder, this workspace's or
// any other, through a link on the way or a workspace reached through a
// link (issue 24). (A `.small` that is itself a link is refused by every
// writing command before, D7.) The canonical artifacts are written by their
// own commands through write_file_atomic, never through a named place.
Status refuse_target_inside_small_dir(const FileSystem& fs, const std::string& path, const std::string& what);

// Removes `target` (nothing when it or its folder is missing), durably. The
// same path rules as a write in `scope`; a link or a non-file is refused.
// For an agent settings file, its folder goes too when that is left empty.
Status remove_file(const FileSystem& fs, const WorkspacePaths& ws, const std::string& target, WriteScope scope);

// Replaces `dir`/`name` outside any workspace (the git hooks folder that
// `small hooks install git` names): staged in `dir` itself under a pid-stamped
// temporary name (no hook git would run), so the rename stays on one filesystem; the result gets
// exactly `mode` (not the umask's version: a hook must be executable).
// `dir` must exist; a target that is a symbolic link, not a regular file or
// read-only is refused.
Status write_file_in_folder_atomic(const FileSystem& fs, const std::string& dir, const std::string& name, std::string_view bytes,
                                   mode_t mode);

// mkdir -p for `dir` (absolute, below ws.root, same rules as the targets of
// write_file_atomic): missing folders are created with mode 0755 and made
// durable; an existing symbolic link on the way is refused.
Status ensure_directory(const FileSystem& fs, const WorkspacePaths& ws, const std::string& dir);

// mkdir -p for a workspace root that does not exist yet (`init --dir`
// names a new folder): the one folder small creates outside a workspace's
// own folders, and only at the user's request.
Status create_root_directory(const FileSystem& fs, const std::string& root);

// Removes `.small-cache/tmp/` and `.small-cache/` under ws.root when they
// are empty: a write beside a file outside any workspace (`agents apply` in
// a plain folder) stages there and must leave nothing behind. Best effort.
void remove_empty_staging_folders(const FileSystem& fs, const WorkspacePaths& ws);

// Runs `write` (which stages in `.small-cache/tmp/`); when `.small-cache/`
// did not exist before, removes the empty staging folders it leaves, so a
// folder that is not a workspace keeps nothing of small's.
Status write_leaving_no_staging(const FileSystem& fs, const WorkspacePaths& ws, const std::function<Status()>& write);

// Removes temporary files in `.small-cache/tmp/` left behind by writers
// that died (their pid, recorded in the name, no longer exists). Returns how
// many were removed. Best effort: files of live processes are kept.
// The same for any folder below `root` (the claims table's, in the git folder).
Result<std::size_t> remove_stale_temp_files_in(const FileSystem& fs, const std::string& root, const std::string& dir);
Result<std::size_t> remove_stale_temp_files(const FileSystem& fs, const WorkspacePaths& ws);

}  // namespace small
