// The handoff file (see the header).
#include "small/domain/handoff_file.hpp"
#include "small/store/log_facts_cache.hpp"

#include <algorithm>
#include <map>

#include "small/base/text.hpp"
#include "small/check/schema.hpp"
#include "small/check/verdict.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/plan_model.hpp"
#include "small/model/replay_id.hpp"
#include "small/domain/claim_gate.hpp"
#include "small/store/local_work.hpp"
#include "small/domain/run_state.hpp"

namespace small {

namespace {

std::string file_of(ArtifactType t) { return artifact_file_name(t); }

std::string title_of(const YamlValue& task) {
    return task.contains("title") && task["title"].is_string() ? task["title"].get<std::string>() : std::string();
}

}  // namespace

// The existing handoff as a value (null when absent or unreadable: it is being replaced).
YamlValue old_handoff(const FileSystem& fs, const WorkspacePaths& ws) {
    const std::string path = ws.path_of(file_of(ArtifactType::Handoff));
    if (!fs.file_exists(path)) return YamlValue();
    Result<Document> doc = load_yaml_file(fs, path, ws.display_of(file_of(ArtifactType::Handoff)));
    return doc ? to_yaml_value(doc->root()) : YamlValue();
}

std::string old_replay_id(const YamlValue& handoff) {
    if (!handoff.is_object() || !handoff.contains("replayId") || !handoff["replayId"].is_object()) return {};
    const YamlValue& r = handoff["replayId"];
    if (!r.contains("value") || !r["value"].is_string()) return {};
    const std::string v = lower_ascii(trim(r["value"].get<std::string>()));
    return is_valid_replay_id(v) ? v : std::string();
}

std::string old_source(const YamlValue& handoff) {
    if (old_replay_id(handoff).empty() || !handoff["replayId"].contains("source")) return "auto";
    const YamlValue& s = handoff["replayId"]["source"];
    return s.is_string() && s.get<std::string>() == "manual" ? "manual" : "auto";
}

YamlValue old_links(const YamlValue& handoff) {
    if (handoff.is_object() && handoff.contains("links") && handoff["links"].is_array()) return handoff["links"];
    return YamlValue::array();
}

YamlValue run_block(const std::string& reason, const std::string& previous) {
    YamlValue run = YamlValue::object();
    run["created_at"] = format_timestamp_utc9(current_instant());
    run["transition_reason"] = reason;
    if (!previous.empty()) run["previous_replay_id"] = previous;
    return run;
}

Result<Document> load_artifact(const FileSystem& fs, const WorkspacePaths& ws, ArtifactType t) {
    if (Status s = require_artifact(fs, ws, t, "run `small init` (or `small start`)"); !s) return s.error();
    return load_yaml_file(fs, ws.path_of(file_of(t)), ws.display_of(file_of(t)));
}

// The handoff as text, refused when it would not validate (never write an
// invalid resume point).
Result<std::string> checked_handoff_text(const YamlValue& handoff, const WorkspacePaths& ws) {
    const std::string text = emit_document(handoff);
    Result<Document> doc = parse_yaml(text, ws.display_of(file_of(ArtifactType::Handoff)));
    if (!doc) return Error::internal("the new handoff does not re-read: " + doc.error().describe());
    Result<const SchemaSet*> schemas = SchemaSet::embedded_shared();
    if (!schemas) return schemas.error();
    const std::vector<SchemaViolation> v = (*schemas)->validate("handoff", *doc);
    if (!v.empty()) {
        return Error::invalid("the new handoff would not validate, nothing written: " + v.front().pointer + ": " +
                              v.front().message);
    }
    return text;
}

Result<HandoffResult> write_handoff(const FileSystem& fs, const WorkspacePaths& ws, const HandoffInputs& in, WorkspaceChange change,
                                    const MetadataText& workspace) {
    HandoffResult r;
    r.handoff = build_handoff(in);
    Result<std::string> text = checked_handoff_text(r.handoff, ws);
    if (!text) return text.error();
    r.text = source_comment(in.computed_from) + *text;
    r.replay_id = in.replay_id;
    r.source = in.source;
    r.pinned_run = !workspace.text.empty();
    if (!workspace.warning.empty()) r.warnings.push_back(workspace.warning);
    r.unsettled = in.point.started;
    change.files.push_back({ws.path_of(file_of(ArtifactType::Handoff)), r.text});
    if (r.pinned_run) change.files.push_back({ws.path_of(kWorkspaceFileName), workspace.text});
    Result<CommittedChange> committed = commit_workspace_change(fs, ws, change);
    if (!committed) return committed.error();
    for (AppendResult& a : committed->appended) r.entries.push_back(std::move(a.entry));
    return r;
}

// A handoff is never written over artifacts that do not even parse (a
// blocked handoff is for workspaces that parse but fail strict checks).
Status require_parseable(const FileSystem& fs, const WorkspacePaths& ws, std::initializer_list<ArtifactType> types) {
    for (ArtifactType t : types) {
        const std::string path = ws.path_of(file_of(t));
        if (!fs.file_exists(path)) continue;
        // A long log parses window by window (memory flat in its length); the
        // whole read below is for the others, and for a window that does not parse.
        const auto no_op = [](const Document&) {};
        if (t == ArtifactType::Progress && for_each_entry_window(fs, path, ws.display_of(file_of(t)), {}, no_op)) {
            continue;
        }
        if (Result<Document> doc = load_yaml_file(fs, path, ws.display_of(file_of(t))); !doc) {
            Error e = doc.error();
            e.message += " (fix it first: no handoff is written over an artifact that does not parse)";
            return e;
        }
    }
    return ok_status();
}

MetadataText pinned_workspace_text(const MutationSession& s, const WorkspacePaths& ws, const std::string& id) {
    if (s.run_replay_id == id) return {};
    return workspace_metadata_with_run(s, ws, id, format_timestamp_utc9(current_instant()));
}

Readiness strict_readiness(const FileSystem& fs, const WorkspacePaths& ws) {
    Readiness r;
    Result<const SchemaSet*> schemas = SchemaSet::embedded_shared();
    if (!schemas) return {false, schemas.error().message};
    VerdictOptions options;
    options.strict = true;
    const Verdict v = run_check(VerdictInput{fs, ws, **schemas}, options);
    std::vector<Finding> findings = v.blocking;
    for (const Finding& f : v.all_findings()) findings.push_back(f);
    sort_findings(findings);
    const std::string handoff = file_of(ArtifactType::Handoff);
    for (const Finding& f : findings) {
        if (f.severity != Severity::Error) continue;
        if (f.file.size() >= handoff.size() && f.file.compare(f.file.size() - handoff.size(), handoff.size(), handoff) == 0) {
            continue;  // the file being replaced
        }
        r.strict_ok = false;
        r.first_failure = f.location_text() + (f.rule.empty() ? "" : " [" + f.rule + "]");
        break;
    }
    return r;
}

std::vector<PlanTaskOutline> outline_of(const YamlValue& plan) {
    std::vector<PlanTaskOutline> out;
    if (!plan.is_object() || !plan.contains("tasks") || !plan["tasks"].is_array()) return out;
    for (const YamlValue& t : plan["tasks"]) {
        const std::string id = t.is_object() && t.contains("id") && t["id"].is_string() ? t["id"].get<std::string>() : "";
        std::string priority;  // as outline_plan reads it: the scalar's text
        if (t.is_object() && t.contains("priority") && t["priority"].is_primitive() && !t["priority"].is_null()) {
            priority = t["priority"].is_string() ? t["priority"].get<std::string>() : t["priority"].dump();
        }
        out.push_back({id, task_status(t), task_dependencies(t), title_of(t), std::move(priority)});
    }
    return out;
}

// The log's facts, cached or read in windows (a long log costs no memory
// of its size); a missing log is the error loading it gives.
Result<LogFacts> progress_facts(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id) {
    if (!fs.file_exists(ws.artifact_path(ArtifactType::Progress))) {
        return load_artifact(fs, ws, ArtifactType::Progress).error();
    }
    return cached_log_facts(fs, ws, run_id);
}

Status compute_resume(HandoffInputs& in, const FileSystem& fs, const WorkspacePaths& ws, const YamlValue& plan,
                      const std::string& run_id) {
    Result<LogFacts> read = progress_facts(fs, ws, run_id);
    if (!read) return read.error();
    const LogFacts& facts = *read;
    const std::vector<PlanTaskOutline> outline = outline_of(plan);
    // The committed handoff is computed from shared data only (the plan, the
    // log, the claims): every checkout that regenerates it from the same
    // merged files writes the same file, so "run small handoff after the
    // merge" settles. This checkout's own work (store/local_work) shapes its
    // primer, not the file.
    in.point = resume_point(outline, claimed_facts(fs, ws, facts.tasks));
    in.computed_from = handoff_source(outline, facts);
    return ok_status();
}

YamlValue build_handoff(const HandoffInputs& in) {
    const ResumePoint& p = in.point;
    std::string summary = p.summary;
    std::optional<std::string> current;
    if (!p.current.empty()) current = p.current;
    YamlValue steps = YamlValue::array();
    if (!in.readiness.strict_ok) {
        // The files come first: no task is suggested until the check passes, except one to unblock.
        current = p.kind == ResumeKind::Stop && !p.current.empty() ? p.current : std::string("meta/blocker");
        steps.push_back(in.readiness.first_failure.empty()
                            ? std::string("Resolve strict check failures")
                            : "Resolve strict check failures: " + in.readiness.first_failure);
        steps.push_back("Run: small check --strict");
        summary = "Run blocked. strict check failed.";
    } else if (p.kind == ResumeKind::Complete) {
        summary = "Run complete. strict check passed. All plan tasks completed.";
    }
    for (const std::string& step : p.steps) steps.push_back(step);
    for (const std::string& step : in.next) {
        if (!trim(step).empty()) steps.push_back(step);  // as typed (issue 41); a blank one is left out
    }
    if (!p.started.empty()) {
        summary += " " + std::to_string(p.started.size()) + " task" + (p.started.size() == 1 ? " has" : "s have") +
                   " unsettled progress.";
    }
    if (in.summary && !trim(*in.summary).empty()) summary = *in.summary;

    YamlValue h = YamlValue::object();
    h["small_version"] = std::string(kProtocolVersion);
    h["owner"] = "agent";
    h["summary"] = summary;
    h["resume"] = YamlValue::object();
    if (current) h["resume"]["current_task_id"] = *current;
    h["resume"]["next_steps"] = steps;
    h["links"] = in.links.is_array() ? in.links : YamlValue::array();
    h["replayId"] = YamlValue::object();
    h["replayId"]["value"] = in.replay_id;
    h["replayId"]["source"] = in.source;
    if (in.run.is_object()) h["run"] = in.run;
    return h;
}

namespace {

// --require-settled: the reference's refusal, listing the tasks.
Error unsettled_refusal(const std::vector<UnsettledTask>& unsettled) {
    std::string msg = "handoff refused (--require-settled): " + std::to_string(unsettled.size()) +
                      " task(s) of the current run have progress but are not completed, blocked or cancelled:";
    for (std::size_t i = 0; i < unsettled.size() && i < 5; ++i) msg += "\n  - " + describe_unsettled(unsettled[i]);
    if (unsettled.size() > 5) msg += "\n  and " + std::to_string(unsettled.size() - 5) + " more";
    const std::string& first = unsettled.front().id;
    msg += "\nFix: small checkpoint --task " + first + " --status completed --evidence \"<what proves it is done>\"" +
           "\n  or small checkpoint --task " + first + " --status blocked --evidence \"<why it is blocked>\"" +
           "\n  or run small handoff without --require-settled (the handoff then names them)";
    return Error::invalid(msg);
}

}  // namespace

Result<HandoffResult> regenerate_handoff(const FileSystem& fs, const WorkspacePaths& ws, const MutationSession& session,
                                        const HandoffOptions& opts) {
    Result<Document> plan_doc = load_artifact(fs, ws, ArtifactType::Plan);
    if (!plan_doc) return plan_doc.error();
    Result<LogFacts> read = progress_facts(fs, ws, session.run_replay_id);
    if (!read) return read.error();
    if (Status s = require_parseable(fs, ws, {ArtifactType::Intent, ArtifactType::Constraints}); !s) {
        return s.error();
    }
    const YamlValue plan = to_yaml_value(plan_doc->root());

    HandoffInputs in;
    const LogFacts& facts = *read;
    const std::vector<PlanTaskOutline> outline = outline_of(plan);
    // Shared data only, as compute_resume: the same merged files, the same handoff.
    in.point = resume_point(outline, claimed_facts(fs, ws, facts.tasks));
    in.computed_from = handoff_source(outline, facts);
    if (opts.require_settled && !in.point.started.empty()) return unsettled_refusal(in.point.started);
    in.next = opts.next;

    const YamlValue previous = old_handoff(fs, ws);
    in.readiness = strict_readiness(fs, ws);
    in.summary = opts.summary;
    in.links = old_links(previous);
    if (previous.is_object() && previous.contains("run") && previous["run"].is_object()) in.run = previous["run"];
    if (opts.manual_replay_id) {
        in.replay_id = *opts.manual_replay_id;
        in.source = "manual";
    } else if (!session.run_replay_id.empty()) {
        in.replay_id = session.run_replay_id;
        in.source = old_replay_id(previous) == in.replay_id ? old_source(previous) : "auto";
    } else {
        Result<RunPin> pin = pin_run(fs, ws, session, emit_document(plan));
        if (!pin) return pin.error();
        in.replay_id = pin->replay_id;
    }
    return write_handoff(fs, ws, in, WorkspaceChange{}, pinned_workspace_text(session, ws, in.replay_id));
}

}  // namespace small
