// `small progress add` / `small progress migrate` (see the header).
#include "small/progress_command.hpp"

#include <algorithm>
#include <cctype>

#include "small/atomic_file.hpp"
#include "small/invariants.hpp"
#include "small/links.hpp"
#include "small/plan_index.hpp"
#include "small/progress_log.hpp"
#include "small/replay_id.hpp"
#include "small/schema.hpp"
#include "small/secrets.hpp"
#include "small/text.hpp"
#include "small/workspace_change.hpp"
#include "small/workspace_lock.hpp"
#include "small/yaml.hpp"

namespace small {

namespace {

constexpr const char* kProgressFile = "progress.small.yml";


bool is_progress_status(std::string_view s) {
    return std::find(std::begin(kProgressStatuses), std::end(kProgressStatuses), s) != std::end(kProgressStatuses);
}

Instant plus_one_ns(Instant t) {
    if (++t.nanos == 1'000'000'000) {
        t.nanos = 0;
        ++t.seconds;
    }
    return t;
}

// D14: a task the plan names (meta/ ids are bookkeeping and always allowed).
// Reads the stamped task index, not the plan, so an append stays O(1).
// Fills the result's plan fields and the "plan still says" warning.
Status check_task(const FileSystem& fs, const WorkspacePaths& ws, const std::string& task,
                  const std::string& status, ProgressAddResult& result) {
    if (result.meta_task) return ok_status();
    Result<PlanIndex> index = load_plan_index(fs, ws);
    if (!index) {
        Error e = index.error();
        e.message = "cannot check task " + task + " against the plan: " + e.message +
                    " (fix the plan first; nothing written)";
        return e;
    }
    const PlanTaskInfo* t = index->find(task);
    if (!t) return unknown_task_error(*index, task, ws);
    result.task_exists_in_plan = true;
    result.plan_status = t->status;
    const bool settles = status == "completed" || status == "blocked" || status == "cancelled";
    if (settles && t->status != status) {
        result.warnings.push_back("the plan still says task " + task + " is " + t->status +
                                  "; `small checkpoint --task " + task + " --status " + status +
                                  "` records the entry and sets the plan status together");
    }
    return ok_status();
}

}  // namespace

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

Result<ProgressAddResult> progress_add(const FileSystem& fs, const WorkspacePaths& ws, const ProgressAddRequest& req) {
    // 1. Flag values (usage errors, nothing touched).
    const std::string task(trim(req.task));
    if (task.empty()) return Error::usage("task_id is required (--task must not be blank)");
    const std::string status = lower_ascii(trim(req.status));
    if (!is_progress_status(status)) {
        return Error::usage("invalid status \"" + req.status +
                            "\" (must be pending, in_progress, completed, blocked, or cancelled)");
    }
    Result<EntryTime> when = parse_entry_time(req.at, req.after);
    if (!when) return when.error();

    // 2. The workspace, locked; interrupted writes recovered.
    Result<MutationSession> session =
        begin_mutation(fs, ws, MutationRequest{req.scope, false, req.lock_wait});
    if (!session) return session.error();

    // 3. The entry (D8: replayId of the current run; D9: evidence).
    ProgressAddResult result;
    const EntryFields fields{req.evidence, req.verification, req.command, req.test, req.link, req.commit, req.notes};
    const YamlValue entry =
        build_progress_entry(task, status, fields, kDefaultProgressEvidence, session->run_replay_id);
    if (Status v = validate_progress_entry(entry, format_timestamp_utc9(probe_instant(*when)), ws); !v) {
        return v.error();
    }
    result.meta_task = task.rfind("meta/", 0) == 0;
    if (Status s = check_task(fs, ws, task, status, result); !s) return s.error();

    // 4. Append (or create the log holding the entry).
    const std::string file = ws.path_of(kProgressFile);
    if (!fs.file_exists(file)) {
        // No log yet: write it whole, atomically, already holding the entry
        // (a crash leaves either no file or the complete one).
        const Instant t = probe_instant(*when);
        YamlValue stamped = YamlValue::object();
        stamped["timestamp"] = format_timestamp_utc9(t);
        for (const auto& [k, v] : entry.items()) stamped[k] = v;
        YamlValue log = YamlValue::object();
        log["small_version"] = "1.0.0";
        log["owner"] = "agent";
        log["entries"] = YamlValue::array({stamped});
        if (Status made = write_file_atomic(ws, file, emit_document(log)); !made) return made.error();
        result.created_log = true;
        result.timestamp = stamped["timestamp"].get<std::string>();
        result.entry = std::move(stamped);
        return result;
    }
    Result<std::optional<Instant>> requested = requested_instant(ws, *when);
    if (!requested) return requested.error();
    Result<AppendResult> appended = append_progress_entry(ws, entry, *requested);
    if (!appended) return appended.error();
    result.entry = std::move(appended->entry);
    result.timestamp = appended->timestamp_text;
    return result;
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
    if (!doc) return Error::invalid("internal error: the new entry does not re-read: " + doc.error().describe());

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
    Artifact a{ArtifactType::Progress, ws.path_of(kProgressFile), ws.display_of(kProgressFile), std::move(*doc)};
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

// ---------------------------------------------------------------------------
// migrate
// ---------------------------------------------------------------------------

Result<Instant> parse_lenient_timestamp(std::string_view raw) {
    std::string text(trim(raw));
    if (text.empty()) return parse_progress_timestamp(text);
    // Upper-case the 'T' and 'Z' designators RFC 3339 allows in lower case.
    if (text.size() > 10 && text[10] == 't') text[10] = 'T';
    if (!text.empty() && text.back() == 'z') text.back() = 'Z';
    const auto t = text.find('T');
    if (t == std::string::npos) {
        return Error::invalid("timestamp must be RFC3339: YYYY-MM-DDTHH:MM:SS[.fraction] then Z or +HH:MM/-HH:MM");
    }
    {
        const auto zone = text.find_first_of("Z+-", t + 1);
        const std::string_view time = std::string_view(text).substr(t + 1, zone == std::string::npos ? std::string::npos : zone - t - 1);
        if (time.find('.') == std::string_view::npos) text.insert(zone == std::string::npos ? text.size() : zone, ".0");
    }
    return parse_progress_timestamp(text);
}

Result<ProgressMigrateResult> progress_migrate(const FileSystem& fs, const WorkspacePaths& ws,
                                               const ProgressMigrateRequest& req) {
    // A dry run only checks: no lock, no recovery (which may write).
    MutationRequest mutation{req.scope, false, req.lock_wait};
    mutation.read_only = req.dry_run;
    Result<MutationSession> session = begin_mutation(fs, ws, mutation);
    if (!session) return session.error();

    ProgressMigrateResult result;
    result.file = ws.path_of(kProgressFile);
    if (!fs.file_exists(result.file)) {
        return Error::system(ws.display_of(kProgressFile) + " not found; run `small init` first");
    }
    Result<std::string> bytes = fs.read_file(result.file);
    if (!bytes) return bytes.error();
    Result<Document> doc = parse_yaml(*bytes, ws.display_of(kProgressFile));
    if (!doc) return doc.error();
    const NodeRef entries = doc->root().find("entries");
    if (!doc->root().is_mapping() || !entries.is_sequence()) {
        return Error::invalid(ws.display_of(kProgressFile) + ": `entries` must be a list of progress entries");
    }
    result.entries = entries.size();

    struct Edit {
        std::size_t offset, length;
        std::string text;
    };
    std::vector<Edit> edits;
    bool locatable = true;
    const std::string_view src = doc->source().empty() ? std::string_view(*bytes) : std::string_view(doc->source());
    const ScalarLocator locate(src);
    std::optional<Instant> previous;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const NodeRef ts = entries.item(i).find("timestamp");
        const std::string label = "progress entry " + std::to_string(i);
        if (!ts || ts.is_null() || (ts.is_string() && trim(ts.as_string()).empty())) {
            Error e = Error::invalid(label + " timestamp is required");
            e.file = ws.display_of(kProgressFile);
            e.line = entries.item(i).mark().line;
            e.column = entries.item(i).mark().column;
            return e;
        }
        const std::string raw(ts.is_string() ? ts.as_string() : ts.scalar_text());
        Result<Instant> parsed = ts.is_string() ? parse_lenient_timestamp(raw) : Result<Instant>(Error::invalid("not a string"));
        if (!parsed) {
            Error e = Error::invalid(label + " timestamp \"" + raw + "\" is not parseable: " + parsed.error().message);
            e.file = ws.display_of(kProgressFile);
            e.line = ts.mark().line;
            e.column = ts.mark().column;
            return e;
        }
        Instant t = *parsed;
        if (previous && !(*previous < t)) t = plus_one_ns(*previous);
        previous = t;
        const std::string canonical = format_timestamp_utc9(t);
        if (canonical == raw) continue;
        result.changes.push_back({i, raw, canonical});
        const std::optional<SourceRange> at = locate.find(ts.mark(), raw);
        if (!at) locatable = false;
        else edits.push_back({at->offset, at->length, yaml_quoted(canonical)});
    }
    if (result.changes.empty() || req.dry_run) return result;

    std::string out;
    if (locatable) {
        out = std::string(src);
        for (auto it = edits.rbegin(); it != edits.rend(); ++it) out.replace(it->offset, it->length, it->text);
    } else {
        YamlValue whole = to_yaml_value(doc->root());
        for (const TimestampChange& c : result.changes) whole["entries"][c.index]["timestamp"] = c.after;
        out = emit_document(whole);
        result.whole_file_rewritten = true;
    }
    // The rewrite must re-read as the same log with the new timestamps.
    Result<Document> check = parse_yaml(out, ws.display_of(kProgressFile));
    if (!check || !check->root().find("entries").is_sequence() ||
        check->root().find("entries").size() != result.entries) {
        return Error::invalid("internal error: the migrated progress log does not re-read; nothing written");
    }
    for (const TimestampChange& c : result.changes) {
        if (check->root().find("entries").item(c.index).find("timestamp").as_string() != c.after) {
            return Error::invalid("internal error: the migrated progress log does not re-read; nothing written");
        }
    }
    if (Status w = write_file_atomic(ws, result.file, out); !w) return w.error();
    result.written = true;
    return result;
}

}  // namespace small
