// `small accept` (see the header).
#include "small/ops/authoring/accept.hpp"

#include <cstring>

#include "small/base/path.hpp"
#include "small/base/timestamp.hpp"
#include "small/model/task_status.hpp"
#include "small/domain/progress_entry.hpp"
#include "small/store/progress_log.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

namespace {

AcceptResult paths_of(const WorkspacePaths& ws, DraftKind kind) {
    AcceptResult r;
    r.draft_path = runtime_path(ws.root, draft_relative_path(kind));
    r.draft_display = ws.display_prefix + draft_relative_path(kind);
    const std::string target = artifact_file_name(draft_artifact(kind));
    r.target_path = ws.path_of(target);
    r.target_display = ws.display_of(target);
    return r;
}

Result<std::string> read_draft(const FileSystem& fs, DraftKind kind, const AcceptResult& where) {
    if (fs.directory_exists(where.draft_path)) {
        Error e = Error::invalid("is a directory, not a draft; remove it and run small draft " +
                                 std::string(draft_kind_name(kind)) + " again");
        e.file = where.draft_display;
        return e;
    }
    if (!fs.file_exists(where.draft_path)) {
        const std::string name(draft_kind_name(kind));
        return Error::invalid("draft not found: " + where.draft_display + " (run: small draft " + name +
                              " --from <path|stdin>)");
    }
    // A link swapped in for the draft would pull another file into .small/.
    Result<std::string> bytes = fs.read_file_no_follow(parent_path(where.draft_path), file_name(where.draft_path));
    if (!bytes) {
        Error e = bytes.error();
        e.file.clear();  // the message names the path
        return e;
    }
    return bytes;
}

// D8: a meta/ entry stamped with the run id (when a run exists).
YamlValue accept_entry(DraftKind kind, const std::string& run_id) {
    const std::string name(draft_kind_name(kind));
    YamlValue entry = YamlValue::object();
    entry["task_id"] = "meta/accept-" + name;
    entry["status"] = status_name(TaskStatus::Completed);
    entry["evidence"] = "Accepted draft " + name + " from " + draft_relative_path(kind);
    entry["notes"] = "small accept " + name;
    if (!run_id.empty()) entry["replayId"] = run_id;
    return entry;
}

Status require_progress_log(const FileSystem& fs, const WorkspacePaths& ws) {
    if (fs.file_exists(ws.path_of(kProgressFileName))) return ok_status();
    Error e = Error::invalid("file is missing; accept records its progress entry there: restore it from version "
                             "control (or small init --force)");
    e.file = ws.display_of(kProgressFileName);
    return e;
}

// Refused up front: a change that fails half-way in a read-only .small/
// would leave its entry journaled for the next write to complete.
Status require_writable_small_dir(const FileSystem& fs, const WorkspacePaths& ws) {
    const int err = fs.write_access_errno(ws.small_dir);
    if (err == 0) return ok_status();
    return Error::system("cannot write to " + ws.display_prefix + ".small/: " + std::strerror(err) +
                         "; nothing was changed");
}

}  // namespace

Result<AcceptResult> accept_command(const FileSystem& fs, const WorkspacePaths& ws, const AcceptRequest& req) {
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, false, req.lock_wait});
    if (!session) return session.error();
    AcceptResult result = paths_of(ws, req.kind);
    Result<std::string> bytes = read_draft(fs, req.kind, result);
    if (!bytes) return bytes.error();
    result.problems = check_draft(req.kind, *bytes, result.draft_display);
    if (!result.problems.empty()) return result;  // refused: nothing written

    if (Status s = require_progress_log(fs, ws); !s) return s.error();
    if (Status s = require_writable_small_dir(fs, ws); !s) return s.error();
    const YamlValue entry = accept_entry(req.kind, session->run_replay_id);
    if (Status v = validate_progress_entry(entry, format_timestamp_utc9(current_instant()), ws); !v) return v.error();
    WorkspaceChange change;
    change.entries.push_back(entry);
    change.files.push_back({result.target_path, std::move(*bytes)});
    Result<CommittedChange> committed = commit_workspace_change(fs, ws, change);
    if (!committed) return committed.error();
    result.entry = std::move(committed->appended.front().entry);
    result.accepted = true;
    return result;
}

}  // namespace small
