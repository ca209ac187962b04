// `small draft` / `small accept` (see the header).
#include "small/draft_accept.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <utility>

#include "small/atomic_file.hpp"
#include "small/invariants.hpp"
#include "small/progress_command.hpp"
#include "small/progress_log.hpp"
#include "small/schema.hpp"
#include "small/text.hpp"
#include "small/timestamp.hpp"
#include "small/workspace_change.hpp"
#include "small/yaml.hpp"

namespace small {

std::string_view draft_kind_name(DraftKind kind) { return artifact_name(draft_artifact(kind)); }

ArtifactType draft_artifact(DraftKind kind) {
    return kind == DraftKind::Intent ? ArtifactType::Intent : ArtifactType::Constraints;
}

Result<DraftKind> parse_draft_kind(std::string_view text) {
    for (DraftKind kind : kDraftKinds) {
        if (text == draft_kind_name(kind)) return kind;
    }
    return Error::usage("unknown draft kind \"" + std::string(text) +
                        "\" (use intent or constraints; the agent-owned artifacts have their own commands)");
}

std::string draft_relative_path(DraftKind kind) {
    return std::string(kDraftsDirName) + "/" + artifact_file_name(draft_artifact(kind));
}

bool is_stdin_source(std::string_view from) {
    const std::string word = lower_ascii(trim(from));
    return word == "-" || word == "stdin";
}

namespace {

constexpr const char* kProgressFile = "progress.small.yml";

std::string under_root(const WorkspacePaths& ws, std::string_view relative) {
    return (ws.root == "/" ? "" : ws.root) + "/" + std::string(relative);
}

Finding load_finding(ArtifactType type, const std::string& display, std::string message, Mark mark = {}) {
    Finding f;
    f.rule = "LOAD";
    f.file = display;
    f.file_order = file_order(type);
    f.mark = mark;
    f.message = std::move(message);
    return f;
}

void append(std::vector<Finding>& to, std::vector<Finding> from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

// Schema and invariants (strict: a secret should not enter .small/ at all).
std::vector<Finding> artifact_findings(Artifact artifact) {
    const ArtifactType type = artifact.type;
    ArtifactSet set;
    set.artifacts[static_cast<std::size_t>(type)] = std::move(artifact);
    std::vector<Finding> out;
    Result<SchemaSet> schemas = SchemaSet::embedded();
    if (schemas) append(out, check_schemas(*schemas, set));
    else out.push_back(finding_from_error(schemas.error(), file_order(type)));
    InvariantOptions strict;
    strict.strict = true;
    append(out, check_invariants(set, strict));
    sort_findings(out);
    return out;
}

// ---------------------------------------------------------------------------
// draft: reading the source
// ---------------------------------------------------------------------------

// At most kMaxFileBytes, like a file: `--from - < /dev/zero` must end.
Result<std::string> read_stream(std::istream* in) {
    if (in == nullptr) return Error::system("standard input is not available");
    std::string bytes;
    char buf[65536];
    while (in->read(buf, sizeof buf) || in->gcount() > 0) {
        bytes.append(buf, static_cast<std::size_t>(in->gcount()));
        if (bytes.size() > kMaxFileBytes) {
            return Error::invalid("standard input is larger than " + std::to_string(kMaxFileBytes >> 20) +
                                  " MiB, the most small reads as one draft; nothing saved");
        }
    }
    if (in->bad()) return Error::system("cannot read standard input");
    return bytes;
}

Result<std::string> read_source_file(const FileSystem& fs, const DraftRequest& req) {
    const std::string path = req.from.front() == '/' ? req.from : req.cwd + "/" + req.from;
    Result<std::string> bytes = fs.read_file(path);
    if (!bytes) {
        Error e = bytes.error();
        e.file.clear();  // the message already names the path
        e.message = "cannot read the draft source: " + e.message;
        return e;
    }
    return bytes;
}

// The bytes --from names; blank flag and empty input are refused.
Result<std::string> read_source(const FileSystem& fs, const DraftRequest& req) {
    if (trim(req.from).empty()) {
        return Error::usage("--from must name a file, or - (or stdin) for standard input");
    }
    const bool from_stdin = is_stdin_source(req.from);
    Result<std::string> bytes = from_stdin ? read_stream(req.input) : read_source_file(fs, req);
    if (!bytes) return bytes;
    if (trim(*bytes).empty()) {
        // An empty draft could only ever be refused by accept; keep the old one.
        return Error::invalid((from_stdin ? std::string("standard input") : req.from) +
                              " is empty; nothing saved (a draft holds a whole " +
                              std::string(draft_kind_name(req.kind)) + ".small.yml)");
    }
    return bytes;
}

// ---------------------------------------------------------------------------
// accept
// ---------------------------------------------------------------------------

AcceptResult paths_of(const WorkspacePaths& ws, DraftKind kind) {
    AcceptResult r;
    r.draft_path = under_root(ws, draft_relative_path(kind));
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
    Result<std::string> bytes = fs.read_file(where.draft_path);
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
    entry["status"] = "completed";
    entry["evidence"] = "Accepted draft " + name + " from " + draft_relative_path(kind);
    entry["notes"] = "small accept " + name;
    if (!run_id.empty()) entry["replayId"] = run_id;
    return entry;
}

Status require_progress_log(const FileSystem& fs, const WorkspacePaths& ws) {
    if (fs.file_exists(ws.path_of(kProgressFile))) return ok_status();
    Error e = Error::invalid("file is missing; accept records its progress entry there: restore it from version "
                             "control (or small init --force)");
    e.file = ws.display_of(kProgressFile);
    return e;
}

// Refused up front: a change that fails half-way in a read-only .small/
// would leave its entry journaled for the next write to complete.
Status require_writable_small_dir(const WorkspacePaths& ws) {
    if (::faccessat(AT_FDCWD, ws.small_dir.c_str(), W_OK, AT_EACCESS) == 0) return ok_status();
    return Error::system("cannot write to " + ws.display_prefix + ".small/: " + std::strerror(errno) +
                         "; nothing was changed");
}

}  // namespace

std::vector<Finding> check_draft(DraftKind kind, const std::string& bytes, const std::string& display) {
    const ArtifactType type = draft_artifact(kind);
    Result<Document> doc = parse_yaml(bytes, display);
    if (!doc) return {finding_from_error(doc.error(), file_order(type))};
    const NodeRef root = doc->root();
    if (!root.valid()) return {load_finding(type, display, "the draft has no content", {1, 1})};
    if (!root.is_mapping()) {
        return {load_finding(type, display,
                             std::string("the draft must be a YAML mapping (object) at top level, got a ") +
                                 kind_name(root.kind()),
                             root.mark())};
    }
    return artifact_findings(Artifact{type, display, display, std::move(*doc)});
}

Result<DraftResult> save_draft(const FileSystem& fs, const WorkspacePaths& ws, const DraftRequest& req) {
    Result<std::string> bytes = read_source(fs, req);  // before the lock: stdin may be slow
    if (!bytes) return bytes.error();
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, false, req.lock_wait});
    if (!session) return session.error();

    DraftResult result;
    const std::string relative = draft_relative_path(req.kind);
    result.draft_path = under_root(ws, relative);
    result.draft_display = ws.display_prefix + relative;
    result.source = is_stdin_source(req.from) ? "stdin" : req.from;
    result.bytes = bytes->size();
    if (Status s = ensure_directory(ws, under_root(ws, kDraftsDirName)); !s) return s.error();
    if (Status s = write_file_atomic(ws, result.draft_path, *bytes); !s) return s.error();
    result.warnings = check_draft(req.kind, *bytes, result.draft_display);
    for (Finding& f : result.warnings) f.severity = Severity::Warning;
    return result;
}

Result<AcceptResult> accept_draft(const FileSystem& fs, const WorkspacePaths& ws, const AcceptRequest& req) {
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, false, req.lock_wait});
    if (!session) return session.error();
    AcceptResult result = paths_of(ws, req.kind);
    Result<std::string> bytes = read_draft(fs, req.kind, result);
    if (!bytes) return bytes.error();
    result.problems = check_draft(req.kind, *bytes, result.draft_display);
    if (!result.problems.empty()) return result;  // refused: nothing written

    if (Status s = require_progress_log(fs, ws); !s) return s.error();
    if (Status s = require_writable_small_dir(ws); !s) return s.error();
    const YamlValue entry = accept_entry(req.kind, session->run_replay_id);
    if (Status v = validate_progress_entry(entry, format_timestamp_utc9(current_instant()), ws); !v) return v.error();
    WorkspaceChange change;
    change.entries.push_back(entry);
    change.files.push_back({result.target_path, std::move(*bytes)});
    Result<CommittedChange> committed = commit_workspace_change(ws, change);
    if (!committed) return committed.error();
    result.entry = std::move(committed->appended.front().entry);
    result.accepted = true;
    return result;
}

}  // namespace small
