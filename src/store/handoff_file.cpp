// The handoff file (see the header).
#include "small/store/handoff_file.hpp"

#include <algorithm>
#include <map>

#include "small/base/text.hpp"
#include "small/check/schema.hpp"
#include "small/check/verdict.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/plan_model.hpp"
#include "small/model/replay_id.hpp"
#include "small/store/run_state.hpp"

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
    const std::string path = ws.path_of(file_of(t));
    if (!fs.file_exists(path)) {
        return Error::system(ws.display_of(file_of(t)) + " is missing; run `small init` (or `small start`)");
    }
    return load_yaml_file(fs, path, ws.display_of(file_of(t)));
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

Result<HandoffResult> write_handoff(const WorkspacePaths& ws, const HandoffInputs& in, WorkspaceChange change,
                                    const std::string& workspace_text) {
    HandoffResult r;
    r.handoff = build_handoff(in);
    Result<std::string> text = checked_handoff_text(r.handoff, ws);
    if (!text) return text.error();
    r.text = *text;
    r.replay_id = in.replay_id;
    r.source = in.source;
    r.pinned_run = !workspace_text.empty();
    r.unsettled = in.unsettled;
    change.files.push_back({ws.path_of(file_of(ArtifactType::Handoff)), r.text});
    if (r.pinned_run) change.files.push_back({ws.path_of(kWorkspaceFileName), workspace_text});
    Result<CommittedChange> committed = commit_workspace_change(ws, change);
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
        if (Result<Document> doc = load_yaml_file(fs, path, ws.display_of(file_of(t))); !doc) {
            Error e = doc.error();
            e.message += " (fix it first: no handoff is written over an artifact that does not parse)";
            return e;
        }
    }
    return ok_status();
}

std::string pinned_workspace_text(const MutationSession& s, const std::string& id) {
    if (s.run_replay_id == id) return {};
    return workspace_metadata_with_run(s.metadata, id, format_timestamp_utc9(current_instant()));
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

namespace {

// The first task that is in_progress by the plan or by its last entry.
std::optional<std::string> first_in_progress(const HandoffInputs& in) {
    if (const std::optional<std::string> runnable = next_runnable_task(in.plan)) {
        const std::optional<std::size_t> at = find_task(in.plan, *runnable);
        if (at && task_status(in.plan["tasks"][*at]) == "in_progress") return runnable;
    }
    for (const UnsettledTask& t : in.unsettled) {
        if (t.plan_status == "in_progress" || t.last_status == "in_progress") return t.id;
    }
    return std::nullopt;
}

}  // namespace

std::string describe_unsettled(const UnsettledTask& t) {
    return t.id + (t.title.empty() ? "" : ": " + t.title) + " (plan: " + t.plan_status +
           ", last recorded: " + t.last_status + ")";
}

YamlValue build_handoff(const HandoffInputs& in) {
    std::string summary;
    std::optional<std::string> current;
    YamlValue steps = YamlValue::array();
    for (const UnsettledTask& t : in.unsettled) steps.push_back("Resume " + describe_unsettled(t));
    const auto listed = [&in](const std::string& id) {
        return std::any_of(in.unsettled.begin(), in.unsettled.end(), [&id](const UnsettledTask& t) { return t.id == id; });
    };
    const std::optional<std::string> runnable = next_runnable_task(in.plan);
    const std::optional<std::string> blocked = first_blocked_task(in.plan);
    if (!in.readiness.strict_ok || (blocked && !runnable)) {
        current = blocked ? *blocked : std::string("meta/blocker");
        if (blocked) steps.push_back("Unblock " + *blocked);
        if (!in.readiness.strict_ok) {
            steps.push_back(in.readiness.first_failure.empty()
                                ? std::string("Resolve strict check failures")
                                : "Resolve strict check failures: " + in.readiness.first_failure);
            steps.push_back("Run: small check --strict");
        }
        summary = blocked ? "Run blocked on " + *blocked + "." : std::string("Run blocked. strict check failed.");
    } else if (all_tasks_done(in.plan)) {
        summary = "Run complete. strict check passed. All plan tasks completed.";
    } else if (runnable) {
        current = first_in_progress(in).value_or(*runnable);
        if (!listed(*current)) steps.push_back("Continue with " + *current);
        summary = "Run in progress. Next task: " + *current + ".";
    } else {
        summary = "Run in progress. No task is runnable: every pending task waits on a dependency.";
        steps.push_back("Complete or re-plan the dependencies of the pending tasks (small plan --depends)");
    }
    if (const std::optional<std::string> active = first_in_progress(in)) current = *active;
    if (!in.unsettled.empty()) {
        summary += " " + std::to_string(in.unsettled.size()) + " task" + (in.unsettled.size() == 1 ? " has" : "s have") +
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

std::vector<UnsettledTask> unsettled_tasks(const YamlValue& plan, NodeRef progress_root, const std::string& run_id) {
    std::map<std::string, std::string> last_status;
    const NodeRef entries = progress_root.find("entries");
    for (std::size_t i = 0; entries.is_sequence() && i < entries.size(); ++i) {
        const NodeRef e = entries.item(i);
        const std::string id(trim(e.find("task_id").as_string()));
        if (id.empty() || id.rfind("meta/", 0) == 0) continue;
        if (!run_id.empty() && lower_ascii(trim(e.find("replayId").as_string())) != run_id) continue;
        last_status[id] = lower_ascii(trim(e.find("status").as_string()));
    }
    std::vector<UnsettledTask> out;
    if (!plan.contains("tasks") || !plan["tasks"].is_array()) return out;
    for (const YamlValue& t : plan["tasks"]) {
        if (!t.contains("id") || !t["id"].is_string()) continue;
        const std::string id = t["id"].get<std::string>();
        const std::string status = task_status(t);
        const auto last = last_status.find(id);
        if (last == last_status.end() || status == "completed" || status == "blocked" || status == "cancelled") continue;
        out.push_back({id, title_of(t), status, last->second});
    }
    return out;
}

namespace {

// --require-settled: the reference's refusal, listing the tasks.
Error unsettled_refusal(const std::vector<UnsettledTask>& unsettled) {
    std::string msg = "handoff refused (--require-settled): " + std::to_string(unsettled.size()) +
                      " task(s) of the current run have progress but are not completed, blocked or cancelled:";
    for (std::size_t i = 0; i < unsettled.size() && i < 5; ++i) msg += "\n  - " + describe_unsettled(unsettled[i]);
    if (unsettled.size() > 5) msg += "\n  and " + std::to_string(unsettled.size() - 5) + " more";
    const std::string& first = unsettled.front().id;
    msg += "\nFix: small checkpoint --task " + first + " --status completed --evidence \"...\"" +
           "\n  or small checkpoint --task " + first + " --status blocked --evidence \"...\"" +
           "\n  or run small handoff without --require-settled (the handoff then names them)";
    return Error::invalid(msg);
}

}  // namespace

Result<HandoffResult> regenerate_handoff(const FileSystem& fs, const WorkspacePaths& ws, const MutationSession& session,
                                        const HandoffOptions& opts) {
    Result<Document> plan_doc = load_artifact(fs, ws, ArtifactType::Plan);
    if (!plan_doc) return plan_doc.error();
    Result<Document> progress = load_artifact(fs, ws, ArtifactType::Progress);
    if (!progress) return progress.error();
    if (Status s = require_parseable(fs, ws, {ArtifactType::Intent, ArtifactType::Constraints}); !s) {
        return s.error();
    }
    const YamlValue plan = to_yaml_value(plan_doc->root());

    std::vector<UnsettledTask> unsettled = unsettled_tasks(plan, progress->root(), session.run_replay_id);
    if (opts.require_settled && !unsettled.empty()) return unsettled_refusal(unsettled);

    const YamlValue previous = old_handoff(fs, ws);
    HandoffInputs in;
    in.plan = plan;
    in.unsettled = std::move(unsettled);
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
        Result<RunPin> pin = pin_run(fs, ws, session, emit_document(in.plan));
        if (!pin) return pin.error();
        in.replay_id = pin->replay_id;
    }
    return write_handoff(ws, in, WorkspaceChange{}, pinned_workspace_text(session, in.replay_id));
}

}  // namespace small
