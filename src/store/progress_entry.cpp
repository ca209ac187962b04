// A new progress entry (see the header).
#include "small/store/progress_entry.hpp"

#include "small/base/text.hpp"
#include "small/check/invariants.hpp"
#include "small/check/links.hpp"
#include "small/check/schema.hpp"
#include "small/check/secrets.hpp"
#include "small/doc/yaml.hpp"
#include "small/store/progress_log.hpp"

namespace small {

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

Result<std::optional<Instant>> requested_instant(const WorkspacePaths& ws, const EntryTime& time) {
    if (!time.after) return time.at;
    Result<ProgressTail> tail = read_tail(ws);
    if (!tail) return tail.error();
    return std::optional<Instant>(next_timestamp(plus_one_ns(*time.after), *tail));
}

Instant probe_instant(const EntryTime& time) {
    return time.at ? *time.at : time.after ? plus_one_ns(*time.after) : current_instant();
}

YamlValue build_progress_entry(const std::string& task, const std::string& status, const EntryFields& fields,
                               std::string_view default_evidence, const std::string& run_id) {
    YamlValue entry = YamlValue::object();
    entry["task_id"] = task;
    entry["status"] = status;
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

// The new entry alone, checked like a one-entry log: schema, per-entry
// invariants, and the strict hygiene rules (a secret or insecure link in an
// append-only log could never be removed again).
Status validate_progress_entry(const YamlValue& entry, const std::string& timestamp, const WorkspacePaths& ws) {
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

}  // namespace small
