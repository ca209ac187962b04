// `small fix` (see the header).
#include "small/ops/maintenance/fix.hpp"

#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"
#include "small/doc/yaml_edit.hpp"
#include "small/model/task_status.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/backup.hpp"
#include "small/domain/progress_entry.hpp"
#include "small/store/progress_log.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

namespace {

// The workspace step repairs workspace.small.yml, so a missing or broken
// one must not stop it (the reference's `fix --all` refused exactly that);
// a readable one must still suit the scope.
Result<MutationSession> begin(const FileSystem& fs, const WorkspacePaths& ws, const FixRequest& req) {
    MutationRequest mutation{req.workspace ? WorkspaceScope::Any : req.scope, false, req.lock_wait};
    mutation.read_only = req.dry_run;
    Result<MutationSession> session = begin_mutation(fs, ws, mutation);
    if (!session || !req.workspace || req.scope == WorkspaceScope::Any || !session->metadata.is_object()) {
        return session;
    }
    Result<WorkspaceMetadata> meta = load_workspace_metadata(fs, ws);
    if (meta) {
        if (Status s = check_workspace_scope(*meta, req.scope, ws); !s) return s.error();
    }
    return session;
}

YamlValue layout_entry(const LayoutPlan& plan, const std::string& run_id) {
    std::string notes;
    for (const LayoutMigration& m : plan.migrations) notes += (notes.empty() ? "" : ", ") + m.from + "->" + m.to;
    if (!plan.deduped.empty()) notes += (notes.empty() ? "" : ", ") + std::string("deduped=") + std::to_string(plan.deduped.size());
    YamlValue e = YamlValue::object();
    e["task_id"] = "meta/reconcile-runtime-layout";
    e["status"] = status_name(TaskStatus::Completed);
    e["evidence"] = "Migrated legacy runtime layout to canonical stores (" + std::to_string(plan.migrations.size()) +
                    " migration(s), " + std::to_string(plan.deduped.size()) + " deduped file(s))";
    if (!notes.empty()) e["notes"] = notes;
    if (!run_id.empty()) e["replayId"] = run_id;
    return e;
}

// Every computation, no write.
Status plan_all(const FileSystem& fs, const WorkspacePaths& ws, const FixRequest& req, const MutationSession& session,
                FixResult& result) {
    if (req.versions) result.versions = plan_version_fixes(fs, ws);
    if (req.orphan_progress) {
        Result<OrphanFixPlan> orphans = plan_orphan_fix(fs, ws, session.run_replay_id);
        if (!orphans) return orphans.error();
        result.orphans = std::move(*orphans);
    }
    if (req.runtime_layout) {
        Result<LayoutPlan> layout = plan_runtime_layout(fs, ws);
        if (!layout) return layout.error();
        result.layout = std::move(*layout);
    }
    if (req.workspace) {
        result.workspace = plan_workspace_repair(fs, ws, req.workspace_repair, format_timestamp_utc9(current_instant()));
    }
    return ok_status();
}

// A repaired workspace.small.yml keeps its small_version bytes when the
// value is right; the versions step's quoting still applies to them.
std::string quoted_version(const std::string& bytes) {
    Result<Document> doc = parse_yaml(bytes, std::string(kWorkspaceFileName));
    if (!doc) return bytes;
    const NodeRef v = doc->root().find("small_version");
    if (!v.valid() || v.is_mapping() || v.is_sequence()) return bytes;
    return requote_top_level_scalar(*doc, "small_version", yaml_quoted(v.scalar_text())).value_or(bytes);
}

// The whole-file rewrites, in canonical order (a file fixed by both the
// versions step and the workspace step gets the workspace step's bytes,
// which already quote small_version).
std::vector<std::pair<std::string, std::string>> rewrites_of(const FixResult& r) {
    std::vector<std::pair<std::string, std::string>> out;
    const bool workspace = r.workspace && !r.workspace->changes.empty();
    for (const VersionFix& v : r.versions.value_or(std::vector<VersionFix>{})) {
        if (v.state != VersionFix::State::Changed) continue;
        if (workspace && v.file == kWorkspaceFileName) continue;
        out.emplace_back(v.file, v.bytes);
    }
    if (workspace) {
        out.emplace_back(std::string(kWorkspaceFileName), r.versions ? quoted_version(r.workspace->bytes) : r.workspace->bytes);
    }
    return out;
}

std::vector<YamlValue> entries_of(const FixResult& r, const std::string& run_id) {
    std::vector<YamlValue> out;
    if (r.orphans) out = r.orphans->entries;
    if (r.layout && !r.layout->empty() && (!r.layout->migrations.empty() || !r.layout->deduped.empty())) {
        out.push_back(layout_entry(*r.layout, run_id));
    }
    return out;
}

Status check_entries(const std::vector<YamlValue>& entries, const WorkspacePaths& ws) {
    const std::string probe = format_timestamp_utc9(current_instant());
    for (const YamlValue& e : entries) {
        if (Status s = validate_progress_entry(e, probe, ws); !s) return s;
    }
    return ok_status();
}

// Backup, then the rewrites as one journaled change.
Status commit_rewrites(const FileSystem& fs, const WorkspacePaths& ws,
                       const std::vector<std::pair<std::string, std::string>>& rewrites, FixResult& result) {
    if (rewrites.empty()) return ok_status();
    std::vector<std::string> names;
    WorkspaceChange change;
    for (const auto& [name, bytes] : rewrites) {
        names.push_back(name);
        change.files.push_back({ws.path_of(name), bytes});
    }
    // A file that will be refused (read-only, a link) stops the fix before the backup.
    for (const FileReplacement& f : change.files) {
        if (Status s = check_replaceable(fs, ws, f.path); !s) return s;
    }
    Result<Backup> backup = backup_artifacts(fs, ws, "fix", names, current_instant());
    if (!backup) return backup.error();
    result.backup_dir = backup->dir;
    Result<CommittedChange> done = commit_workspace_change(fs, ws, change);
    if (!done) return done.error();
    result.rewritten = std::move(names);
    return ok_status();
}

// The appended entries and the moves as one journaled change.
Status commit_appends(const FileSystem& fs, const WorkspacePaths& ws, std::vector<YamlValue> entries,
                      FixResult& result) {
    WorkspaceChange change;
    if (result.layout) change.moves = result.layout->moves;
    if (!entries.empty() && !fs.file_exists(ws.path_of(kProgressFileName))) {
        result.warnings.push_back(ws.display_of(kProgressFileName) +
                                  " does not exist: the runtime-layout migration is not recorded there");
        entries.clear();
    }
    change.entries = std::move(entries);
    if (change.entries.empty() && change.moves.empty()) return ok_status();
    Result<CommittedChange> done = commit_workspace_change(fs, ws, change);
    if (!done) return done.error();
    for (const AppendResult& a : done->appended) result.appended.push_back(a.entry["task_id"].get<std::string>());
    return ok_status();
}

}  // namespace

Result<FixResult> fix_command(const FileSystem& fs, const WorkspacePaths& ws, const FixRequest& req) {
    if (!req.versions && !req.orphan_progress && !req.runtime_layout && !req.workspace) {
        return Error::usage("no fix selected (use --versions, --runtime-layout, --orphan-progress, or --all)");
    }
    Result<MutationSession> session = begin(fs, ws, req);
    if (!session) return session.error();
    FixResult result;
    result.dry_run = req.dry_run;
    if (Status s = plan_all(fs, ws, req, *session, result); !s) return s.error();
    const auto rewrites = rewrites_of(result);
    std::vector<YamlValue> entries = entries_of(result, session->run_replay_id);
    if (Status s = check_entries(entries, ws); !s) return s.error();  // refuse before the first write
    if (req.dry_run) {
        for (const auto& [name, bytes] : rewrites) result.rewritten.push_back(name);
        for (const YamlValue& e : entries) result.appended.push_back(e["task_id"].get<std::string>());
        return result;
    }
    if (Status s = commit_rewrites(fs, ws, rewrites, result); !s) return s.error();
    if (Status s = commit_appends(fs, ws, std::move(entries), result); !s) return s.error();
    return result;
}

}  // namespace small
