// The `small fix` repairs, computed without writing (see the header).
#include "small/domain/repairs.hpp"

#include <algorithm>
#include <cctype>

#include "small/base/text.hpp"
#include "small/base/timestamp.hpp"
#include "small/check/orphan_progress.hpp"
#include "small/doc/entry_windows.hpp"
#include "small/doc/yaml.hpp"
#include "small/doc/yaml_edit.hpp"
#include "small/model/replay_id.hpp"
#include "small/model/task_status.hpp"
#include "small/domain/progress_entry.hpp"

namespace small {

// ---------------------------------------------------------------------------
// small_version
// ---------------------------------------------------------------------------

namespace {

std::vector<std::string> version_file_names() {
    std::vector<std::string> names;
    for (ArtifactType type : kArtifactTypes) names.push_back(artifact_file_name(type));
    names.emplace_back(kWorkspaceFileName);
    return names;
}

// One file: nullopt when it is missing or has no top-level small_version.
std::optional<VersionFix> plan_version_fix(const FileSystem& fs, const WorkspacePaths& ws, const std::string& name) {
    const std::string path = ws.path_of(name);
    if (!fs.file_exists(path)) return std::nullopt;
    VersionFix fix{name, VersionFix::State::Unfixable, "", "", "", ""};
    Result<Document> doc = load_yaml_file(fs, path, ws.display_of(name));
    if (!doc) {
        fix.reason = doc.error().message;
        return fix;
    }
    const NodeRef node = doc->root().find("small_version");
    if (!node.valid()) return std::nullopt;
    const std::optional<SourceRange> at =
        node.is_mapping() || node.is_sequence() || node.scalar_text().empty()
            ? std::nullopt
            : ScalarLocator(doc->source()).find(node.mark(), node.is_string() ? node.as_string() : node.scalar_text());
    if (!at) {
        fix.reason = "small_version is not a one-line scalar; write small_version: \"1.0.0\" by hand";
        return fix;
    }
    fix.before = doc->source().substr(at->offset, at->length);
    if (fix.before.size() >= 2 && fix.before.front() == '"' && fix.before.back() == '"') {
        fix.state = VersionFix::State::Canonical;
        fix.after = fix.before;
        return fix;
    }
    fix.after = yaml_quoted(node.scalar_text());
    std::optional<std::string> bytes = requote_top_level_scalar(*doc, "small_version", fix.after);
    if (!bytes) {
        fix.reason = "the quoted value would not re-read as the same text";
        return fix;
    }
    fix.state = VersionFix::State::Changed;
    fix.bytes = std::move(*bytes);
    return fix;
}

}  // namespace

std::vector<VersionFix> plan_version_fixes(const FileSystem& fs, const WorkspacePaths& ws) {
    std::vector<VersionFix> out;
    for (const std::string& name : version_file_names()) {
        if (std::optional<VersionFix> fix = plan_version_fix(fs, ws, name)) out.push_back(std::move(*fix));
    }
    return out;
}

// ---------------------------------------------------------------------------
// workspace.small.yml
// ---------------------------------------------------------------------------

namespace {

bool blank(const YamlValue& v) { return v.is_null() || (v.is_string() && trim(v.get<std::string>()).empty()); }

bool valid_time(const YamlValue& v) { return v.is_string() && parse_lenient_timestamp(v.get<std::string>()); }

// The handoff's replayId.value when it is a valid id (lower-cased), else "".
std::string handoff_run_id(const FileSystem& fs, const WorkspacePaths& ws) {
    Result<Document> h = load_yaml_file(fs, ws.path_of(kHandoffFileName), ws.display_of(kHandoffFileName));
    if (!h) return "";
    const std::string_view id = trim(h->root().find("replayId").find("value").as_string());
    return is_valid_replay_id(id) ? lower_ascii(id) : "";
}

YamlValue fresh_metadata(const std::string& kind, const std::string& now, const std::string& run_id) {
    YamlValue meta = YamlValue::object();
    meta["small_version"] = std::string(kProtocolVersion);
    meta["owner"] = "agent";
    meta["kind"] = kind;
    meta["created_at"] = now;
    meta["updated_at"] = now;
    if (!run_id.empty()) meta["run"] = YamlValue::object({{"replay_id", run_id}});
    return meta;
}

void set_member(YamlValue& target, const std::string& key, YamlValue value, std::vector<MemberChange>& changes) {
    changes.push_back({key, target.contains(key) ? target[key] : YamlValue(), value});
    target[key] = std::move(value);
}

// The repaired value of an existing, parseable file.
YamlValue repaired_metadata(const YamlValue& old, const WorkspaceRepairRequest& req, const std::string& now,
                            std::vector<MemberChange>& changes) {
    YamlValue target = old;
    const auto member = [&](const char* key) { return old.contains(key) ? old[key] : YamlValue(); };
    if (member("small_version") != YamlValue(std::string(kProtocolVersion))) {
        set_member(target, "small_version", std::string(kProtocolVersion), changes);
    }
    if (blank(member("owner"))) set_member(target, "owner", "agent", changes);
    const YamlValue kind = member("kind");
    const bool kind_valid = kind == "repo-root" || kind == "examples";
    const std::string wanted(workspace_kind_name(req.kind.value_or(WorkspaceKind::RepoRoot)));
    if (!kind_valid || (req.force && req.kind && kind != wanted)) set_member(target, "kind", wanted, changes);
    if (!valid_time(member("created_at"))) set_member(target, "created_at", now, changes);
    if (!valid_time(member("updated_at")) || req.force || !changes.empty()) {
        set_member(target, "updated_at", now, changes);
    }
    return target;
}

}  // namespace

WorkspaceRepair plan_workspace_repair(const FileSystem& fs, const WorkspacePaths& ws, const WorkspaceRepairRequest& req,
                                      const std::string& now) {
    WorkspaceRepair r;
    const std::string path = ws.path_of(kWorkspaceFileName);
    r.exists = fs.file_exists(path);
    std::optional<Document> doc;
    if (r.exists) {
        Result<Document> parsed = load_yaml_file(fs, path, ws.display_of(kWorkspaceFileName));
        if (parsed) doc = std::move(*parsed);
        else r.unreadable_reason = parsed.error().message;
    }
    if (!doc) {
        r.created = !r.exists;
        r.replaced_unreadable = r.exists;
        const std::string kind(workspace_kind_name(req.kind.value_or(WorkspaceKind::RepoRoot)));
        const YamlValue fresh = fresh_metadata(kind, now, handoff_run_id(fs, ws));
        for (const auto& [key, value] : fresh.items()) r.changes.push_back({key, YamlValue(), value});
        r.comments_kept = !r.exists;
        r.bytes = emit_document(fresh);
        return r;
    }
    const YamlValue target = repaired_metadata(to_yaml_value(doc->root()), req, now, r.changes);
    if (r.changes.empty()) return r;
    MemberEdit edited = edit_mapping_members(*doc, target);
    r.comments_kept = edited.text.has_value();
    if (!r.comments_kept) r.rewrite_reason = ws.display_of(kWorkspaceFileName) + ":" + std::to_string(edited.line) + ": " + edited.why;
    r.bytes = edited.text ? std::move(*edited.text) : emit_document(target);
    // A repaired small_version is written as the protocol asks ("1.0.0", quoted), whatever the old quoting.
    const bool version_set = std::any_of(r.changes.begin(), r.changes.end(),
                                         [](const MemberChange& c) { return c.key == "small_version"; });
    if (edited.text && version_set) {
        if (Result<Document> again = parse_yaml(r.bytes, ws.display_of(kWorkspaceFileName))) {
            r.bytes = requote_top_level_scalar(*again, "small_version", yaml_quoted(kProtocolVersion)).value_or(r.bytes);
        }
    }
    return r;
}

// ---------------------------------------------------------------------------
// orphan progress
// ---------------------------------------------------------------------------

namespace {

bool is_task_number(const std::string& id) {
    if (id.rfind("task-", 0) != 0 || id.size() == 5) return false;
    for (std::size_t i = 5; i < id.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(id[i]))) return false;
    }
    return true;
}

YamlValue superseding_entry(const OrphanRecord& orphan, const OrphanRewrite& rw, const std::string& run_id) {
    YamlValue e = YamlValue::object();
    e["task_id"] = rw.new_task_id;
    if (parse_task_status(orphan.status)) e["status"] = orphan.status;
    e["evidence"] = supersede_evidence(orphan);
    e["notes"] = "supersedes progress entry " + std::to_string(rw.index) + " (task_id " + quoted_excerpt(rw.task_id) +
                 ", " + rw.category + "): not a task of plan.small.yml; that entry is kept unchanged";
    if (!run_id.empty()) e["replayId"] = run_id;
    return e;
}

YamlValue reconcile_entry(const OrphanFixPlan& plan, const std::string& run_id) {
    std::size_t operational = 0, historical = 0, unknown = 0;
    std::string hashes;
    for (const OrphanRewrite& rw : plan.rewrites) {
        (rw.category == "operational" ? operational : rw.category == "historical" ? historical : unknown)++;
        hashes += (hashes.empty() ? "" : ", ") + rw.task_id + ":" + rw.entry_sha256;
    }
    YamlValue e = YamlValue::object();
    e["task_id"] = "meta/reconcile-plan";
    e["status"] = status_name(TaskStatus::Completed);
    e["evidence"] = "Superseded orphan progress entries for replayId scope " +
                    (plan.scope.empty() ? std::string("unknown") : plan.scope) + " (operational=" +
                    std::to_string(operational) + " historical=" + std::to_string(historical) +
                    " unknown=" + std::to_string(unknown) + ")";
    e["notes"] = "original hashes: " + hashes;
    if (!run_id.empty()) e["replayId"] = run_id;
    return e;
}

}  // namespace

std::pair<std::string, std::string> orphan_meta_id(const std::string& task_id) {
    if (task_id == "reset" || task_id == "init" || task_id == "apply") return {"meta/" + task_id, "operational"};
    if (is_task_number(task_id)) return {"meta/historical/" + task_id, "historical"};
    std::string safe;
    for (char c : task_id) safe += (c == '/' || std::isspace(static_cast<unsigned char>(c))) ? '-' : c;
    return {"meta/historical/unknown/" + (safe.empty() ? std::string("unknown") : safe), "unknown"};
}

namespace {

// The orphans of the log, read in windows when it is long (memory flat in
// its length), else, or when windows cannot follow it, whole.
Result<std::vector<OrphanRecord>> scan_orphans(const FileSystem& fs, const WorkspacePaths& ws, NodeRef plan,
                                               const std::string& scope) {
    const std::string path = ws.path_of(kProgressFileName), display = ws.display_of(kProgressFileName);
    std::optional<OrphanScan> scan(std::in_place, plan, scope);
    if (for_each_entry_window(fs, path, display, LogWindows{}, [&](const Document& w) { scan->add(w.root().find("entries")); })) {
        return scan->orphans();
    }
    scan.emplace(plan, scope);
    Result<Document> log = load_whole_log(fs, path, display);
    if (!log) return log.error();
    const NodeRef entries = log->root().find("entries");
    if (!entries.is_sequence()) return Error::invalid(display + ": `entries` must be a list of progress entries");
    scan->add(entries);
    return scan->orphans();
}

}  // namespace

Result<OrphanFixPlan> plan_orphan_fix(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id) {
    Result<Document> plan = load_yaml_file(fs, ws.path_of(kPlanFileName), ws.display_of(kPlanFileName));
    if (!plan) return plan.error();
    Result<Document> handoff = load_yaml_file(fs, ws.path_of(kHandoffFileName), ws.display_of(kHandoffFileName));
    OrphanFixPlan out;
    out.scope = progress_run_scope(run_id, handoff ? handoff->root() : NodeRef());
    Result<std::vector<OrphanRecord>> orphans = scan_orphans(fs, ws, plan->root(), out.scope);
    if (!orphans) return orphans.error();
    // The entries carry the pinned run id (D8); the scope when that is a valid id.
    const std::string stamp = !run_id.empty() ? run_id : is_valid_replay_id(out.scope) ? lower_ascii(out.scope) : "";
    for (const OrphanRecord& orphan : *orphans) {
        auto [new_id, category] = orphan_meta_id(orphan.task_id);
        OrphanRewrite rw{orphan.index, orphan.task_id, new_id, category, orphan.timestamp, orphan.digest};
        out.entries.push_back(superseding_entry(orphan, rw, stamp));
        out.rewrites.push_back(std::move(rw));
    }
    if (!out.rewrites.empty()) out.entries.push_back(reconcile_entry(out, stamp));
    return out;
}

}  // namespace small
