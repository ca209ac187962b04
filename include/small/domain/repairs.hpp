// What the `small fix` repairs would change, computed without writing:
// small_version quoting, workspace.small.yml, orphan progress entries. The
// legacy runtime layout is store/runtime_layout.hpp. ops/maintenance/fix applies the
// results under the lock, through the change journal, after a backup.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/workspace.hpp"

namespace small {

// --- small_version quoting (lint rule FMT-1) ---

struct VersionFix {
    enum class State { Changed, Canonical, Unfixable };
    std::string file;    // name in .small/ ("intent.small.yml")
    State state = State::Canonical;
    std::string before;  // the value as written (`1.0.0`, `'1.0.0'`)
    std::string after;   // as it will be written (`"1.0.0"`)
    std::string reason;  // Unfixable: why
    std::string bytes;   // Changed: the file's new bytes (only that scalar differs)
};

// One per existing file of the five artifacts and workspace.small.yml that
// has a top-level small_version, in canonical order. Only the value's own
// bytes change: comments, spacing after the value and every other line
// are kept byte for byte; a value already double-quoted is left alone.
std::vector<VersionFix> plan_version_fixes(const FileSystem& fs, const WorkspacePaths& ws);

// --- workspace.small.yml ---

struct WorkspaceRepairRequest {
    std::optional<WorkspaceKind> kind;  // --kind: the kind of a new file; with force, replaces the kind
    bool force = false;                 // refresh updated_at; apply --kind to an existing file
};

struct MemberChange {
    std::string key;     // "owner", "created_at", "run.replay_id", ...
    YamlValue before;    // null when absent
    YamlValue after;
};

struct WorkspaceRepair {
    bool exists = false;                // the file was there
    bool created = false;               // missing: a new file
    bool replaced_unreadable = false;   // did not parse as a mapping: a new file (the old one is backed up)
    std::string unreadable_reason;
    std::vector<MemberChange> changes;  // empty: nothing to do
    bool comments_kept = true;          // false: the whole file is re-emitted
    std::string rewrite_reason;         // then: where and why ("workspace.small.yml:3: the value of `run` is not a scalar")
    std::string bytes;                  // new contents when changes is not empty
};

// Repairs as `small fix workspace` does (see docs/commands.md): a missing
// or unparseable file is created (kind from the request, repo-root by
// default; run.replay_id recovered from the handoff when it holds a valid
// id); otherwise small_version, owner, kind (when invalid, or --force with
// --kind), created_at and updated_at are set where missing or invalid,
// every other member (run.replay_id, unknown keys, comments) kept. Any
// change also refreshes updated_at. `now` is the 9-digit UTC text.
WorkspaceRepair plan_workspace_repair(const FileSystem& fs, const WorkspacePaths& ws, const WorkspaceRepairRequest& req,
                                      const std::string& now);

// --- orphan progress entries (strict S2) ---

struct OrphanRewrite {
    std::size_t index = 0;     // the orphan's position in `entries`
    std::string task_id;       // as recorded
    std::string new_task_id;   // the meta/ id its superseding entry gets
    std::string category;      // operational, historical, unknown
    std::string timestamp;
    std::string entry_sha256;  // progress_entry_digest of the orphan
};

struct OrphanFixPlan {
    std::string scope;                    // the run S2 checks ("" = every entry)
    std::vector<OrphanRewrite> rewrites;  // in log order
    std::vector<YamlValue> entries;       // to append: one superseding entry per orphan, then meta/reconcile-plan
};

// The orphans S2 reports (check/orphan_progress) and the entries that
// supersede them. Existing entries are never edited (D7). `run_id` is
// workspace.small.yml's run.replay_id ("" when none). Errors: the plan or
// the progress log cannot be read.
Result<OrphanFixPlan> plan_orphan_fix(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id);

// The meta/ id an orphan's superseding entry gets (the reference's mapping):
// reset/init/apply -> meta/<id> (operational); task-<digits> ->
// meta/historical/<id> (historical); else meta/historical/unknown/<id with
// '/' and white space as '-'> (unknown).
std::pair<std::string, std::string> orphan_meta_id(const std::string& task_id);  // {new id, category}

}  // namespace small
