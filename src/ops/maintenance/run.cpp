// `small run snapshot|list|show|diff|checkout` (see run.hpp).
#include "small/ops/maintenance/run.hpp"
#include "small/base/version.hpp"
#include "small/base/git.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "small/base/line_diff.hpp"
#include "small/base/text.hpp"
#include "small/base/timestamp.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/layout.hpp"
#include "small/store/backup.hpp"
#include "small/domain/handoff_file.hpp"
#include "small/domain/progress_entry.hpp"
#include "small/store/progress_log.hpp"
#include "small/store/run_index.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

namespace {

// The files checkout restores and diff compares, in this order.
constexpr std::array<ArtifactType, 4> kRestored = {ArtifactType::Intent, ArtifactType::Constraints, ArtifactType::Plan,
                                                   ArtifactType::Handoff};

std::string join(const std::vector<std::string>& items, const std::string& sep) {
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
    return out;
}

Status require_artifacts(const FileSystem& fs, const WorkspacePaths& ws) {
    for (ArtifactType t : {ArtifactType::Intent, ArtifactType::Plan, ArtifactType::Progress, ArtifactType::Handoff}) {
        const std::string name = artifact_file_name(t);
        if (!fs.file_exists(ws.path_of(name))) {
            return Error::invalid(name + " not found in .small/ (run 'small init' first)");
        }
    }
    return ok_status();
}

std::string kind_of(const YamlValue& metadata) {
    if (metadata.is_object() && metadata.contains("kind") && metadata["kind"].is_string()) {
        return metadata["kind"].get<std::string>();
    }
    return std::string(workspace_kind_name(WorkspaceKind::RepoRoot));
}

// A snapshot file's bytes, or nullopt when the snapshot does not have it.
Result<std::optional<std::string>> snapshot_file(const FileSystem& fs, const SnapshotInfo& s, const std::string& name) {
    if (std::find(s.files.begin(), s.files.end(), name) == s.files.end()) return std::optional<std::string>();
    Result<std::string> bytes = fs.read_file_no_follow(s.dir, name);
    if (!bytes) return bytes.error();
    return std::optional<std::string>(std::move(*bytes));
}

// The text without copying it (value_or would copy a 24 MB log).
std::string_view text_or_empty(const std::optional<std::string>& text) {
    return text ? std::string_view(*text) : std::string_view();
}

Result<RunFileDiff> diff_file(const FileSystem& fs, const SnapshotInfo& from, const SnapshotInfo& to,
                              const std::string& name) {
    Result<std::optional<std::string>> a = snapshot_file(fs, from, name);
    if (!a) return a.error();
    Result<std::optional<std::string>> b = snapshot_file(fs, to, name);
    if (!b) return b.error();
    RunFileDiff out;
    out.name = name;
    if (!*a && !*b) return out;
    const UnifiedDiff d = unified_diff(text_or_empty(*a), text_or_empty(*b), *a ? "a/" + name : "/dev/null",
                                       *b ? "b/" + name : "/dev/null");
    out.changed = d.changed() || a->has_value() != b->has_value();
    out.added = d.added, out.removed = d.removed, out.diff = d.text;
    return out;
}

bool has_file(const SnapshotInfo& s, const std::string& name) {
    return std::find(s.files.begin(), s.files.end(), name) != s.files.end();
}

// The snapshot's log digested (in windows when it is long: memory flat in
// its length); empty when the snapshot has none.
Result<ProgressDigest> digest_of(const FileSystem& fs, const SnapshotInfo& s, const std::string& name) {
    if (!has_file(s, name)) return ProgressDigest{};
    return digest_progress_file(fs, s.dir, name, s.dir + "/" + name);
}

// Whether the two snapshots' `name` hold the same bytes, compared a range at a time.
Result<bool> same_bytes(const FileSystem& fs, const SnapshotInfo& a, const SnapshotInfo& b, const std::string& name) {
    for (std::uint64_t at = 0;; at += kStreamPieceBytes) {
        Result<FileRange> x = fs.read_range_no_follow(a.dir, name, at, kStreamPieceBytes);
        if (!x) return x.error();
        Result<FileRange> y = fs.read_range_no_follow(b.dir, name, at, kStreamPieceBytes);
        if (!y) return y.error();
        if (x->file_size != y->file_size || x->bytes != y->bytes) return false;
        if (x->bytes.empty()) return true;
    }
}

void fill_summary(const ProgressDigest& before, const ProgressDigest& after, RunProgressDiff& out) {
    out.entries_before = before.entries, out.entries_after = after.entries;
    std::set_difference(after.completed_tasks.begin(), after.completed_tasks.end(), before.completed_tasks.begin(),
                        before.completed_tasks.end(), std::back_inserter(out.completed_delta));
    out.latest_before = before.latest, out.latest_after = after.latest;
}

// --full: the diff needs both texts whole, and then the digest of `to` is
// that of its appended bytes when it extends `from`.
Result<RunProgressDiff> diff_progress_texts(const FileSystem& fs, const SnapshotInfo& from, const SnapshotInfo& to,
                                            const std::string& name) {
    Result<std::optional<std::string>> a = snapshot_file(fs, from, name);
    if (!a) return a.error();
    Result<std::optional<std::string>> b = snapshot_file(fs, to, name);
    if (!b) return b.error();
    Result<ProgressDigest> before = *a ? digest_progress(**a, from.dir + "/" + name) : ProgressDigest{};
    if (!before) return before.error();
    std::optional<ProgressDigest> grown;
    if (*a && *b) grown = digest_appended(*before, **a, **b);  // append-only: digest the new bytes only
    Result<ProgressDigest> after = grown ? Result<ProgressDigest>(std::move(*grown))
                                         : *b ? digest_progress(**b, to.dir + "/" + name) : ProgressDigest{};
    if (!after) return after.error();
    RunProgressDiff out;
    fill_summary(*before, *after, out);
    out.changed = text_or_empty(*a) != text_or_empty(*b) || a->has_value() != b->has_value();
    if (out.changed) {
        const UnifiedDiff d = unified_diff(text_or_empty(*a), text_or_empty(*b), *a ? "a/" + name : "/dev/null",
                                           *b ? "b/" + name : "/dev/null");
        out.added = d.added, out.removed = d.removed, out.diff = d.text;
    }
    return out;
}

// Without --full, nothing needs a whole log: each is digested in windows
// and the two compared a range at a time (memory flat in their length).
Result<RunProgressDiff> diff_progress(const FileSystem& fs, const SnapshotInfo& from, const SnapshotInfo& to, bool full) {
    const std::string name = artifact_file_name(ArtifactType::Progress);
    if (full) return diff_progress_texts(fs, from, to, name);
    Result<ProgressDigest> before = digest_of(fs, from, name);
    if (!before) return before.error();
    Result<ProgressDigest> after = digest_of(fs, to, name);
    if (!after) return after.error();
    RunProgressDiff out;
    fill_summary(*before, *after, out);
    out.changed = has_file(from, name) != has_file(to, name);
    if (!out.changed && has_file(from, name)) {
        Result<bool> same = same_bytes(fs, from, to, name);
        if (!same) return same.error();
        out.changed = !*same;
    }
    return out;
}

}  // namespace

Result<RunSnapshotResult> run_snapshot_command(const FileSystem& fs, const WorkspacePaths& ws, const RunOptions& opts, bool force) {
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{opts.scope, false, opts.lock_wait});
    if (!session) return session.error();
    if (Status s = require_artifacts(fs, ws); !s) return s.error();
    Result<RunIdentity> run = current_run_identity(fs, ws, session->run_replay_id);
    if (!run) return run.error();

    const GitFacts git = read_git_facts(fs, ws.root);
    RunSnapshotRequest req;
    req.store = run_store_dir(ws, opts.store);
    req.name = run->id;
    req.force = force;
    req.meta = SnapshotMeta{run->id, format_timestamp_utc9(current_instant()), git.sha, git.branch, std::string(tool_version()),
                            kind_of(session->metadata), ws.root, false};
    req.meta.git_dirty = work_tree_dirty(ws.root);  // null (unknown) outside a repository
    Result<RunSnapshotWritten> written = write_run_snapshot(fs, ws, req);
    if (!written) return written.error();
    if (Status s = append_run_index(fs, ws, req.store, {run->id, req.meta.created_at, git.sha, run->summary, "snapshot"});
        !s) {
        return s.error();
    }
    return RunSnapshotResult{run->id, written->dir, written->replaced, req.meta};
}

Result<RunListResult> run_list_command(const FileSystem& fs, const WorkspacePaths& ws, const RunOptions& opts, std::size_t limit) {
    RunListResult out;
    out.store = run_store_dir(ws, opts.store);
    Result<std::vector<SnapshotInfo>> runs = list_snapshots(fs, out.store);
    if (!runs) return runs.error();
    out.total = runs->size();
    out.runs = std::move(*runs);
    if (limit != 0 && out.runs.size() > limit) out.runs.resize(limit);
    return out;
}

Result<RunShowResult> run_show_command(const FileSystem& fs, const WorkspacePaths& ws, const RunOptions& opts,
                               const std::string& name) {
    Result<SnapshotInfo> info = load_snapshot(fs, run_store_dir(ws, opts.store), name);
    if (!info) return info.error();
    RunShowResult out;
    out.info = std::move(*info);
    if (has_file(out.info, artifact_file_name(ArtifactType::Progress))) {
        Result<ProgressDigest> d = digest_of(fs, out.info, artifact_file_name(ArtifactType::Progress));
        if (!d) return d.error();
        out.progress = std::move(*d);
        out.has_progress = true;
        for (const auto& [id, n] : out.progress.runs) {
            if (lower_ascii(id) == snapshot_run_id(out.info.name)) out.run_entries += n;
        }
    }
    return out;
}

Result<RunDiffResult> run_diff_command(const FileSystem& fs, const WorkspacePaths& ws, const RunOptions& opts,
                               const std::string& from, const std::string& to, bool full) {
    const std::string store = run_store_dir(ws, opts.store);
    Result<SnapshotInfo> a = load_snapshot(fs, store, from);
    if (!a) return a.error();
    Result<SnapshotInfo> b = load_snapshot(fs, store, to);
    if (!b) return b.error();
    RunDiffResult out;
    out.from = from, out.to = to;
    for (ArtifactType t : kRestored) {
        Result<RunFileDiff> d = diff_file(fs, *a, *b, artifact_file_name(t));
        if (!d) return d.error();
        if (!d->name.empty() && (d->changed || std::find(a->files.begin(), a->files.end(), d->name) != a->files.end() ||
                                 std::find(b->files.begin(), b->files.end(), d->name) != b->files.end())) {
            out.files.push_back(std::move(*d));
        }
    }
    Result<RunProgressDiff> p = diff_progress(fs, *a, *b, full);
    if (!p) return p.error();
    out.progress = std::move(*p);
    return out;
}

Result<RunCheckoutResult> run_checkout_command(const FileSystem& fs, const WorkspacePaths& ws, const RunOptions& opts,
                                       const std::string& name, bool force) {
    if (!is_snapshot_name(name)) return load_snapshot(fs, "", name).error();  // the id is checked first
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{opts.scope, false, opts.lock_wait});
    if (!session) return session.error();
    // Read under the lock: a concurrent `run snapshot --force` cannot swap the folder meanwhile.
    Result<SnapshotInfo> snap = load_snapshot(fs, run_store_dir(ws, opts.store), name);
    if (!snap) return snap.error();
    if (Status s = require_artifact(fs, ws, ArtifactType::Progress); !s) return s.error();
    RunCheckoutResult out;
    out.name = name;
    out.replay_id = snapshot_run_id(name);
    out.previous_replay_id = session->run_replay_id;

    WorkspaceChange change;
    std::vector<std::string> differing;
    for (ArtifactType t : kRestored) {
        const std::string file = artifact_file_name(t);
        Result<std::optional<std::string>> bytes = snapshot_file(fs, *snap, file);
        if (!bytes) return bytes.error();
        const bool live = fs.file_exists(ws.path_of(file));
        if (!*bytes) {
            if (live) out.kept.push_back(file);
            continue;
        }
        // Only YAML that parses goes into .small/.
        if (Result<Document> doc = parse_yaml(**bytes, snap->dir + "/" + file); !doc) return doc.error();
        if (live) {
            Result<std::string> now = fs.read_file_no_follow(ws.small_dir, file);
            if (!now) return now.error();
            if (*now == **bytes) {
                out.unchanged.push_back(file);
                continue;
            }
            differing.push_back(file);
        }
        out.restored.push_back(file);
        change.files.push_back({ws.path_of(file), std::move(**bytes)});
    }
    if (out.restored.empty() && out.unchanged.empty()) {
        return Error::invalid("run snapshot " + name + " holds none of intent, constraints, plan, handoff: nothing to restore");
    }
    if (!differing.empty() && !force) {
        Error e = Error::invalid("workspace has uncommitted .small changes, pass --force to overwrite (" +
                                 join(differing, ", ") + " differ from the snapshot)");
        e.hint = "--force keeps a copy of each replaced file under .small-cache/backups/ first";
        return e;
    }
    const MetadataText pinned = pinned_workspace_text(*session, ws, out.replay_id);
    const std::string& workspace_text = pinned.text;
    out.warning = pinned.warning;
    std::vector<std::string> to_back_up = differing;
    if (!workspace_text.empty()) to_back_up.emplace_back(kWorkspaceFileName);
    if (!to_back_up.empty()) {
        Result<Backup> backup = backup_artifacts(fs, ws, "checkout", to_back_up, current_instant());
        if (!backup) return backup.error();
        out.backup_dir = backup->dir;
    }
    if (!workspace_text.empty()) change.files.push_back({ws.path_of(kWorkspaceFileName), workspace_text});

    EntryFields fields;
    fields.evidence = "Checked out run snapshot " + out.replay_id.substr(0, 16) + "...: restored " +
                      (out.restored.empty() ? std::string("nothing (files already equal)") : join(out.restored, ", ")) +
                      "; progress history kept";
    fields.notes = "small run checkout" +
                   (out.previous_replay_id.empty() || out.previous_replay_id == out.replay_id
                        ? std::string()
                        : "; previous run " + out.previous_replay_id);
    change.entries.push_back(build_progress_entry("meta/checkout", TaskStatus::Completed, fields, "", out.replay_id));
    Result<CommittedChange> committed = commit_workspace_change(fs, ws, change);
    if (!committed) return committed.error();
    out.entry = committed->appended.front().entry;
    return out;
}

}  // namespace small
