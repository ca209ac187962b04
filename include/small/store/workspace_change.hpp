// Changing several workspace files as ONE crash-safe step (D7):
// `checkpoint` (plan status + progress entry), `plan`, `accept`, `reset`,
// `start`, `handoff` and `fix` all go through commit_workspace_change, under
// the workspace lock taken by begin_mutation.
//
// The change journal `.small-cache/change.journal` makes "all files or none":
//   1. the journal (new bytes of every file, the version stamp of their old
//      bytes (FileSystem::version_stamp), the progress log's size and identity, and the
//      exact bytes the entries add) is written atomically and durably;
//   2. the progress entries are appended in one write and fsynced, so a
//      crash keeps all of them, none, or a torn prefix that the journal's
//      copy of the bytes identifies (the rule of progress_log.hpp);
//   3. each file is replaced atomically (write_file_atomic), then each
//      PathMove is applied;
//   4. the journal is removed (see remove_change_journal for why that need not be
//      durable after a commit).
// recover_workspace (run by every mutating command under the lock, before it
// reads anything) finishes an interrupted change: it first cuts a torn
// append off the log; then, when the entries made it into the log (it is
// longer than the journal says) or the change has no entries, every file
// still holding its old bytes gets its new ones and the moves are repeated
// (roll forward); otherwise nothing was committed and the journal is
// dropped (roll back: nothing was touched). Either way the workspace ends
// with all of the change or none of it. Entries go first because a log that
// already records a step the plan does not show yet is valid, whereas a plan
// claiming `completed` without its evidence entry would fail strict S1.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/store/progress_log.hpp"
#include "small/base/result.hpp"
#include "small/model/workspace.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small {

struct FileReplacement {
    std::string path;   // absolute, below the workspace root (atomic_file.hpp rules)
    std::string bytes;  // new contents
};

// One step of moving runtime files between the workspace's `.small*`
// folders (`fix --runtime-layout`). Nothing is ever overwritten, and every
// step is idempotent, so a roll-forward may repeat it:
//   Rename          `from` becomes `to` when `to` does not exist (parent
//                   folders created); done when `from` is gone;
//   RemoveDuplicate `from` is deleted when it holds the same bytes as the
//                   regular file `to` (else refused); done when gone;
//   RemoveEmptyDir  the folder `from` is removed when it is empty.
// Both paths are absolute, below ws.root, inside `.small*`; no symbolic
// link is followed on the way.
struct PathMove {
    enum class Kind { Rename, RemoveDuplicate, RemoveEmptyDir };
    Kind kind = Kind::Rename;
    std::string from;
    std::string to;  // empty for RemoveEmptyDir
};

struct WorkspaceChange {
    std::vector<YamlValue> entries;     // progress entries without timestamps, in order
    std::optional<Instant> first_at;    // exact instant of the first entry (--at)
    std::vector<FileReplacement> files; // replaced after the entries, in order
    std::vector<PathMove> moves;        // applied after the files, in order
};

struct CommittedChange {
    std::vector<AppendResult> appended;  // one per entry, as written
    // Files left as they were because they changed after the command read
    // them (a hand edit takes no lock): the entries stand, those edits not.
    std::vector<std::string> skipped;
    bool was_skipped(const std::string& path) const;
};

// Applies `change` (see above). The caller holds the workspace lock and has
// run recover_workspace. The progress log must exist when there are entries.
Result<CommittedChange> commit_workspace_change(const FileSystem& fs, const WorkspacePaths& ws, const WorkspaceChange& change);

// Finishes or undoes an interrupted append (recover_progress) and an
// interrupted change (see above). Under the lock only.
Status recover_workspace(const FileSystem& fs, const WorkspacePaths& ws);

// What every mutating command does first: `.small` must not be a symbolic
// link (Invalid, D7) and `.small/` must exist (System error "run small
// init"), workspace.small.yml must admit `scope` (a missing file is
// tolerated only for scope Any) and its run.replay_id pass pinned_run_id
// (whatever the scope), then the lock is taken and interrupted writes are
// recovered. Metadata is re-read under the lock.
struct MutationRequest {
    WorkspaceScope scope = WorkspaceScope::Root;
    bool refuse_examples = false;  // plan/handoff/start/reset: even scope Any refuses kind examples
    std::chrono::milliseconds lock_wait{10'000};
    bool read_only = false;  // checks only: no lock, no recovery (e.g. a --dry-run)
};

struct MutationSession {
    std::optional<WorkspaceLock> lock;  // empty for read_only
    YamlValue metadata;          // workspace.small.yml as a value (null when absent/unreadable with scope Any)
    std::string metadata_text;   // and its bytes (when metadata is not null), whose formatting a pin keeps (D20)
    std::string run_replay_id;   // run.replay_id ("" when none); validated 64 hex when set
};

Result<MutationSession> begin_mutation(const FileSystem& fs, const WorkspacePaths& ws, const MutationRequest& req);

// A file's new text, and when its formatting could not be kept (D20): a
// warning that names the file, the line and why.
struct MetadataText {
    std::string text;
    std::string warning;
};

// workspace.small.yml with run.replay_id = `run_id` and updated_at =
// `now_text`, every other byte kept (the edit of `session.metadata_text`,
// doc/yaml_edit), or in house style with a warning where that cannot be
// done. A session without metadata gives a fresh repo-root file.
MetadataText workspace_metadata_with_run(const MutationSession& session, const WorkspacePaths& ws,
                                         const std::string& run_id, const std::string& now_text);

}  // namespace small
