// A new progress entry (see the header).
#include "small/domain/progress_entry.hpp"

#include <algorithm>

#include "small/base/text.hpp"
#include "small/check/invariants.hpp"
#include "small/check/links.hpp"
#include "small/check/schema.hpp"
#include "small/check/secrets.hpp"
#include "small/doc/yaml.hpp"
#include "small/check/placeholder.hpp"
#include "small/store/plan_cache.hpp"
#include "small/store/progress_log.hpp"

namespace small {

Result<TaskStatus> parse_status_flag(std::string_view task, std::string_view status, const StatusFlagRule& rule) {
    if (trim(task).empty()) return Error::usage(std::string(rule.blank_task));
    const std::optional<TaskStatus> parsed = parse_task_status(lower_ascii(trim(status)));
    if (parsed && std::find(rule.allowed.begin(), rule.allowed.end(), *parsed) != rule.allowed.end()) return *parsed;
    return Error::usage("invalid status \"" + std::string(status) + "\" (must be " + std::string(rule.must_be) + ")");
}

Result<EntryTime> parse_entry_time(const std::optional<std::string>& at, const std::optional<std::string>& after) {
    if (at && after) return Error::usage("only one of --at or --after may be set");
    EntryTime t;
    if (at) {
        Result<Instant> v = parse_progress_timestamp(trim(*at));
        if (!v) return Error::usage("--at timestamp \"" + *at + "\" invalid: " + v.error().message);
        t.at = *v;
    }
    if (after) {
        Result<Instant> v = parse_progress_timestamp(trim(*after));
        if (!v) return Error::usage("--after timestamp \"" + *after + "\" invalid: " + v.error().message);
        t.after = *v;
    }
    return t;
}

Result<std::optional<Instant>> requested_instant(const FileSystem& fs, const WorkspacePaths& ws, const EntryTime& time) {
    if (!time.after) return time.at;
    Result<ProgressTail> tail = read_tail(fs, ws);
    if (!tail) return tail.error();
    return std::optional<Instant>(next_timestamp(plus_one_ns(*time.after), *tail));
}

Instant probe_instant(const EntryTime& time) {
    return time.at ? *time.at : time.after ? plus_one_ns(*time.after) : current_instant();
}

YamlValue build_progress_entry(const std::string& task, const WrittenStatus& status, const EntryFields& fields,
                               std::string_view default_evidence, const std::string& run_id) {
    YamlValue entry = YamlValue::object();
    entry["task_id"] = task;
    entry["status"] = status.word();
    const auto given = [](const std::optional<std::string>& v) { return v && !trim(*v).empty(); };
    const bool has_evidence = given(fields.evidence) || given(fields.verification) || given(fields.command) ||
                              given(fields.test) || given(fields.link) || given(fields.commit);
    if (!has_evidence) entry["evidence"] = std::string(default_evidence);
    const std::pair<const char*, const std::optional<std::string>*> named[] = {
        {"evidence", &fields.evidence}, {"verification", &fields.verification}, {"command", &fields.command},
        {"test", &fields.test},         {"link", &fields.link},                 {"commit", &fields.commit},
        {"notes", &fields.notes}};
    for (const auto& [key, value] : named) {
        if (given(*value)) entry[key] = **value;
    }
    if (!run_id.empty()) entry["replayId"] = run_id;
    return entry;
}

Status refuse_placeholders(const EntryFields& f) {
    const std::pair<const char*, const std::optional<std::string>*> named[] = {
        {"evidence", &f.evidence}, {"verification", &f.verification}, {"command", &f.command}, {"test", &f.test},
        {"link", &f.link},         {"commit", &f.commit},             {"notes", &f.notes}};
    for (const auto& [key, value] : named) {
        if (!*value) continue;
        if (Status s = refuse_placeholder(key, **value); !s) return s;
    }
    return ok_status();
}

// The new entry alone, checked like a one-entry log: schema, per-entry
// invariants, and the strict hygiene rules (a secret or insecure link in an
// append-only log could never be removed again).
Status validate_progress_entry(const YamlValue& entry, const std::string& timestamp, const WorkspacePaths& ws) {
    for (const char* key : {"evidence", "verification", "command", "test", "link", "commit", "notes"}) {
        const auto it = entry.find(key);
        if (it == entry.end() || !it->is_string()) continue;
        if (Status s = refuse_placeholder(key, it->get<std::string>()); !s) return s;
    }
    YamlValue stamped = YamlValue::object();
    stamped["timestamp"] = timestamp;
    for (const auto& [k, v] : entry.items()) stamped[k] = v;
    YamlValue log = YamlValue::object();
    log["small_version"] = "1.0.0";
    log["owner"] = "agent";
    log["entries"] = YamlValue::array({stamped});
    Result<Document> doc = parse_yaml(emit_document(log), "new progress entry");
    if (!doc) return Error::internal("the new entry does not re-read: " + doc.error().describe());

    Result<const SchemaSet*> schemas = SchemaSet::embedded_shared();
    if (!schemas) return schemas.error();
    const std::vector<SchemaViolation> violations = (*schemas)->validate("progress", *doc);
    if (!violations.empty()) {
        const SchemaViolation& v = violations.front();
        std::string where = v.pointer;
        const std::string prefix = "/entries/0/";
        if (where.rfind(prefix, 0) == 0) where = where.substr(prefix.size());
        // Every field but replayId comes from a flag: a bad flag value (D4).
        Error e = Error::usage("invalid progress entry: " + (where.empty() ? "" : where + ": ") + v.message);
        if (where == "replayId") e.kind = Error::Kind::Invalid;
        return e;
    }

    ArtifactSet set;
    Artifact a{ArtifactType::Progress, ws.path_of(kProgressFileName), ws.display_of(kProgressFileName), std::move(*doc)};
    set.artifacts[static_cast<std::size_t>(ArtifactType::Progress)] = std::move(a);
    for (const Finding& f : check_invariants(set, InvariantOptions{})) {
        if (f.severity == Severity::Error) return Error::usage("invalid progress entry: " + f.message + " [" + f.rule + "]");
    }
    for (const auto& [k, v] : entry.items()) {
        if (!v.is_string()) continue;
        const std::string text = v.get<std::string>();
        if (auto why = secret_value_reason(text)) {
            return Error::invalid("refusing to record " + k + ": potential secret detected (" + *why +
                                  "); progress is append-only, so it could not be removed later");
        }
        if (auto url = find_insecure_link(text, true)) {
            return Error::invalid("refusing to record " + k + ": insecure link detected: " + *url + " (use https)");
        }
    }
    return ok_status();
}

namespace {

// The dependencies of `task` that are not completed, each with its status.
std::vector<std::pair<std::string, std::string>> unmet_in_outline(const std::vector<PlanTaskOutline>& plan,
                                                                  const std::string& task) {
    const auto find = [&](std::string_view id) {
        return std::find_if(plan.begin(), plan.end(), [&](const PlanTaskOutline& t) { return t.id == id; });
    };
    const auto it = find(task);
    if (it == plan.end()) return {};
    std::vector<std::pair<std::string, std::string>> unmet;
    for (const std::string& dep : it->depends_on) {
        const auto d = find(dep);
        if (d == plan.end()) unmet.emplace_back(dep, "not in the plan");
        else if (!d->status.is(TaskStatus::Completed)) unmet.emplace_back(dep, d->status.word());
    }
    return unmet;
}

// "task-3 (blocked), task-4 (pending)"
std::string with_statuses(const std::vector<std::pair<std::string, std::string>>& deps) {
    std::string out;
    for (const auto& [id, status] : deps) out += (out.empty() ? "" : ", ") + id + " (" + status + ")";
    return out;
}

}  // namespace

Result<DependencyGate> gate_on_dependencies(const FileSystem& fs, const WorkspacePaths& ws, const std::string& task,
                                            TaskStatus status, bool force) {
    DependencyGate gate;
    const bool gated = status == TaskStatus::Completed || status == TaskStatus::InProgress;
    if (task.rfind("meta/", 0) == 0 || !gated) return gate;
    Result<std::optional<std::vector<PlanTaskOutline>>> plan = load_plan_outline_near(fs, ws, task);
    if (!plan) return plan.error();
    if (!*plan) return gate;
    const std::vector<std::pair<std::string, std::string>> unmet = unmet_in_outline(**plan, task);
    if (unmet.empty()) return gate;
    for (const auto& d : unmet) gate.unmet.push_back(d.first);
    const std::string deps = with_statuses(unmet);
    if (status == TaskStatus::InProgress) {
        gate.warning = task + " started before its dependencies are completed: " + deps + "; completing " + task +
                       " is refused until they are (or with --force)";
        return gate;
    }
    if (force) {
        gate.forced_note = "forced: dependencies " + deps + " not completed";
        return gate;
    }
    Error e = Error::invalid(task + " cannot be recorded as completed: its dependencies " + deps +
                             " are not completed (D18); nothing written");
    e.hint = "complete them first (small checkpoint --task " + gate.unmet.front() +
             " --status completed), or pass --force to record " + task +
             " completed anyway (the entry's notes then say it was forced)";
    return e;
}

std::optional<std::string> notes_with_forced(const std::optional<std::string>& notes, const DependencyGate& gate) {
    if (gate.forced_note.empty()) return notes;
    if (!notes || trim(*notes).empty()) return gate.forced_note;
    return gate.forced_note + "; " + *notes;
}

}  // namespace small
