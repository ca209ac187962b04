// `small emit` (see the header).
#include "small/ops/inspect/emit.hpp"

#include <algorithm>

#include "small/base/text.hpp"
#include "small/base/timestamp.hpp"
#include "small/check/schema.hpp"
#include "small/doc/yaml.hpp"
#include "small/store/plan_cache.hpp"

namespace small {

namespace {

constexpr EmitSection kAllSections[] = {EmitSection::Paths,  EmitSection::Status,      EmitSection::Progress,
                                        EmitSection::Intent, EmitSection::Constraints, EmitSection::Plan,
                                        EmitSection::Enforcement};
const std::set<EmitSection> kDefaultSections = {EmitSection::Paths, EmitSection::Status, EmitSection::Progress,
                                                EmitSection::Intent, EmitSection::Constraints};

std::string file_of(ArtifactType t) { return artifact_file_name(t); }

// The artifact's document; nullopt when the file does not exist; an error
// when it exists but does not load.
Result<std::optional<Document>> load_optional(const FileSystem& fs, const WorkspacePaths& ws, ArtifactType t) {
    const std::string path = ws.path_of(file_of(t));
    if (!fs.file_exists(path) && !fs.directory_exists(path)) return std::optional<Document>();
    Result<Document> doc = load_yaml_file(fs, path, ws.display_of(file_of(t)));
    if (!doc) return doc.error();
    return std::optional<Document>(std::move(*doc));
}

std::size_t count_of(NodeRef list) { return list.is_sequence() ? list.size() : 0; }

IntentSummary intent_summary(const Document& doc) {
    const NodeRef root = doc.root();
    IntentSummary s;
    s.present = true;
    s.small_version = std::string(root.find("small_version").as_string());
    s.owner = std::string(root.find("owner").as_string());
    s.intent = std::string(root.find("intent").as_string());
    s.include_count = count_of(root.find("scope").find("include"));
    s.exclude_count = count_of(root.find("scope").find("exclude"));
    s.success_criteria_count = count_of(root.find("success_criteria"));
    return s;
}

ConstraintsSummary constraints_summary(const Document& doc) {
    ConstraintsSummary s;
    s.present = true;
    const NodeRef list = doc.root().find("constraints");
    for (std::size_t i = 0; list.is_sequence() && i < list.size(); ++i) {
        const std::string id(trim(list.item(i).find("id").as_string()));
        if (!id.empty()) s.ids.push_back(id);
    }
    std::sort(s.ids.begin(), s.ids.end());
    return s;
}

bool wants(const EmitResult& r, EmitSection s) { return r.sections.count(s) > 0; }

// progress.lastTimestamp: the newest entry's instant in UTC with nine
// digits. A bad timestamp there is a problem, not a failure (the reference
// aborted the whole emit).
void set_last_timestamp(const WorkspacePaths& ws, EmitResult& r) {
    if (r.recent.empty()) return;
    const std::string& raw = r.recent.front().timestamp;
    Result<Instant> at = parse_progress_timestamp(raw);
    if (at) {
        r.last_timestamp = format_timestamp_utc9(*at);
        return;
    }
    Error e = Error::invalid("the newest progress entry's timestamp " + quoted_excerpt(raw) + " is invalid: " +
                             at.error().message + "; progress.lastTimestamp left out");
    e.file = ws.display_of(file_of(ArtifactType::Progress));
    e.hint = "repair the log with `small progress migrate`";
    r.problems.push_back(std::move(e));
}

// The newest entries (not signal-filtered): from the end of the log, or from
// the whole log when `progress` is named (its entries are emitted too).
Status read_progress(const FileSystem& fs, const WorkspacePaths& ws, const EmitOptions& o, EmitResult& r) {
    if (!fs.file_exists(ws.path_of(file_of(ArtifactType::Progress)))) return ok_status();
    if (r.sections_named) {
        Result<std::optional<Document>> log = load_optional(fs, ws, ArtifactType::Progress);
        if (!log) return log.error();
        r.progress_log = std::move(*log);
        const NodeRef entries = r.progress_log->root().find("entries");
        for (std::size_t i = entries.is_sequence() ? entries.size() : 0; i-- > 0;) {
            if (o.recent && r.recent.size() == o.recent) break;
            r.recent.push_back(progress_item_of(to_yaml_value(entries.item(i))));
        }
    } else {
        EntryQuery q;
        q.limit = o.recent;
        Result<EntryList> list = query_entries(fs, ws, q);
        if (!list) return list.error();
        for (const YamlValue& e : list->entries) r.recent.push_back(progress_item_of(e));
    }
    set_last_timestamp(ws, r);
    return ok_status();
}

Status read_plan(const FileSystem& fs, const WorkspacePaths& ws, const EmitOptions& o, EmitResult& r) {
    r.plan_summary = summarize_plan(NodeRef(), o.tasks);
    if (!wants(r, EmitSection::Plan)) {
        // The status counts alone come from the plan's cached outline (emit runs on every agent turn).
        Result<std::optional<std::vector<PlanTaskOutline>>> tasks = load_plan_outline(fs, ws);
        if (!tasks) return tasks.error();
        if (*tasks) r.plan_summary = summarize_plan(**tasks, o.tasks);
        return ok_status();
    }
    Result<std::optional<Document>> plan = load_optional(fs, ws, ArtifactType::Plan);
    if (!plan) return plan.error();
    if (!*plan) return ok_status();
    if (wants(r, EmitSection::Status)) r.plan_summary = summarize_plan((*plan)->root(), o.tasks);
    if (wants(r, EmitSection::Plan)) r.plan_doc = std::move(*plan);
    return ok_status();
}

Status read_human_files(const FileSystem& fs, const WorkspacePaths& ws, EmitResult& r) {
    if (wants(r, EmitSection::Intent)) {
        Result<std::optional<Document>> intent = load_optional(fs, ws, ArtifactType::Intent);
        if (!intent) return intent.error();
        if (*intent) r.intent = intent_summary(**intent);
        if (*intent && r.sections_named) r.intent_doc = std::move(*intent);
    }
    if (wants(r, EmitSection::Constraints)) {
        Result<std::optional<Document>> constraints = load_optional(fs, ws, ArtifactType::Constraints);
        if (!constraints) return constraints.error();
        if (*constraints) r.constraints = constraints_summary(**constraints);
        if (*constraints && r.sections_named) r.constraints_doc = std::move(*constraints);
    }
    return ok_status();
}

// workspace.small.yml: required (with its kind) unless the scope is Any.
Status read_metadata(const FileSystem& fs, const WorkspacePaths& ws, const EmitOptions& o, EmitResult& r) {
    Result<WorkspaceMetadata> meta = load_workspace_metadata(fs, ws);
    if (meta) {
        r.kind = meta->kind;
        if (o.scope != WorkspaceScope::Any) return check_workspace_scope(*meta, o.scope, ws);
        return ok_status();
    }
    if (o.scope != WorkspaceScope::Any) return meta.error();
    r.problems.push_back(meta.error());
    return ok_status();
}

void run_enforcement(const FileSystem& fs, const WorkspacePaths& ws, const EmitOptions& o, EmitResult& r) {
    Result<const SchemaSet*> schemas = SchemaSet::embedded_shared();
    if (!schemas) {
        r.problems.push_back(schemas.error());
        r.check_exit_code = 2;
        return;
    }
    VerdictOptions vo;
    vo.scope = o.scope;
    r.enforcement = run_check(VerdictInput{fs, ws, **schemas}, vo);
    r.check_exit_code = r.enforcement->outcome == VerdictOutcome::Ok        ? 0
                        : r.enforcement->outcome == VerdictOutcome::Invalid ? 1
                                                                            : 2;
}

}  // namespace

std::string_view emit_section_name(EmitSection section) {
    switch (section) {
        case EmitSection::Paths: return "paths";
        case EmitSection::Status: return "status";
        case EmitSection::Progress: return "progress";
        case EmitSection::Intent: return "intent";
        case EmitSection::Constraints: return "constraints";
        case EmitSection::Plan: return "plan";
        case EmitSection::Enforcement: return "enforcement";
    }
    return "status";
}

Result<std::set<EmitSection>> parse_emit_sections(std::string_view list) {
    std::vector<std::string> names;
    for (EmitSection s : kAllSections) names.emplace_back(emit_section_name(s));
    std::set<EmitSection> out;
    while (true) {
        const std::size_t comma = list.find(',');
        const std::string item = lower_ascii(trim(list.substr(0, comma)));
        if (!item.empty()) {
            const auto it = std::find(names.begin(), names.end(), item);
            if (it == names.end()) {
                std::string valid;
                for (const std::string& n : names) valid += (valid.empty() ? "" : ", ") + n;
                const std::vector<std::string> near = closest_matches(item, names, 1);
                // emit answers in JSON, where only the message is shown: the suggestion goes there too.
                Error e = Error::usage("unknown include section " + quoted_excerpt(item) +
                                       (near.empty() ? "" : " (did you mean " + near.front() + "?)") +
                                       "; valid sections: " + valid);
                e.hint = near.empty() ? "name sections from that list, separated by commas"
                                      : "did you mean `--include " + near.front() + "`?";
                return e;
            }
            out.insert(kAllSections[it - names.begin()]);
        }
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return out;
}

Result<EmitResult> emit_command(const FileSystem& fs, const WorkspacePaths& ws, const EmitOptions& o) {
    if (Status s = require_small_dir(fs, ws); !s) return s.error();
    EmitResult r;
    r.ws = ws;
    r.given_root = o.given_root.empty() ? ws.root : o.given_root;
    r.sections_named = !o.include.empty();
    r.sections = r.sections_named ? o.include : kDefaultSections;
    if (o.check) r.sections.insert(EmitSection::Enforcement);
    if (Status s = read_metadata(fs, ws, o, r); !s) return s.error();
    if (wants(r, EmitSection::Status) || wants(r, EmitSection::Plan)) {
        if (Status s = read_plan(fs, ws, o, r); !s) return s.error();
    }
    if (wants(r, EmitSection::Progress)) {
        if (Status s = read_progress(fs, ws, o, r); !s) return s.error();
    }
    if (Status s = read_human_files(fs, ws, r); !s) return s.error();
    if (wants(r, EmitSection::Enforcement)) run_enforcement(fs, ws, o, r);
    return r;
}

}  // namespace small
