// Handoff, start, reset (see the header).
#include "small/handoff_command.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "small/atomic_file.hpp"
#include "small/init_workspace.hpp"
#include "small/plan_command.hpp"
#include "small/plan_model.hpp"
#include "small/progress_command.hpp"
#include "small/replay_id.hpp"
#include "small/run_state.hpp"
#include "small/run_store.hpp"
#include "small/schema.hpp"
#include "small/text.hpp"
#include "small/verdict.hpp"
#include "small/workspace_change.hpp"
#include "small/yaml.hpp"

namespace small {

namespace {

std::string file_of(ArtifactType t) { return artifact_file_name(t); }

std::string title_of(const YamlValue& task) {
    return task.contains("title") && task["title"].is_string() ? task["title"].get<std::string>() : std::string();
}

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
    if (!doc) return Error::invalid("internal error: the new handoff does not re-read: " + doc.error().describe());
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

std::string pinned_workspace_text(const MutationSession& s, const std::string& id) {
    if (s.run_replay_id == id) return {};
    return workspace_metadata_with_run(s.metadata, id, format_timestamp_utc9(current_instant()));
}

}  // namespace

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

Result<HandoffResult> handoff_command(const FileSystem& fs, const WorkspacePaths& ws, const HandoffRequest& req) {
    std::optional<std::string> manual;
    if (req.replay_id) {
        const std::string v = lower_ascii(trim(*req.replay_id));
        if (!is_valid_replay_id(v)) {
            return Error::usage("invalid --replay-id: must be 64 hex digits, got \"" + *req.replay_id + "\"");
        }
        manual = v;
    }
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, true, req.lock_wait});
    if (!session) return session.error();
    Result<Document> plan_doc = load_artifact(fs, ws, ArtifactType::Plan);
    if (!plan_doc) return plan_doc.error();
    Result<Document> progress = load_artifact(fs, ws, ArtifactType::Progress);
    if (!progress) return progress.error();
    if (Status s = require_parseable(fs, ws, {ArtifactType::Intent, ArtifactType::Constraints}); !s) {
        return s.error();
    }
    const YamlValue plan = to_yaml_value(plan_doc->root());

    std::vector<UnsettledTask> unsettled = unsettled_tasks(plan, progress->root(), session->run_replay_id);
    if (req.require_settled && !unsettled.empty()) return unsettled_refusal(unsettled);

    const YamlValue previous = old_handoff(fs, ws);
    HandoffInputs in;
    in.plan = plan;
    in.unsettled = std::move(unsettled);
    in.readiness = strict_readiness(fs, ws);
    in.summary = req.summary;
    in.links = old_links(previous);
    if (previous.is_object() && previous.contains("run") && previous["run"].is_object()) in.run = previous["run"];
    if (manual) {
        in.replay_id = *manual;
        in.source = "manual";
    } else if (!session->run_replay_id.empty()) {
        in.replay_id = session->run_replay_id;
        in.source = old_replay_id(previous) == in.replay_id ? old_source(previous) : "auto";
    } else {
        Result<RunPin> pin = pin_run(fs, ws, *session, emit_document(in.plan));
        if (!pin) return pin.error();
        in.replay_id = pin->replay_id;
    }
    return write_handoff(ws, in, WorkspaceChange{}, pinned_workspace_text(*session, in.replay_id));
}

// ---------------------------------------------------------------------------

Result<StartResult> start_command(const FileSystem& fs, const WorkspacePaths& ws, const StartRequest& req) {
    const bool creates_small_dir = req.scope == WorkspaceScope::Any && !fs.directory_exists(ws.small_dir);
    if (creates_small_dir) {
        if (Status s = ensure_directory(ws, ws.small_dir); !s) return s.error();
    }
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, true, req.lock_wait});
    if (!session) return session.error();

    if (Status s = require_parseable(fs, ws, {ArtifactType::Intent, ArtifactType::Constraints, ArtifactType::Plan,
                                              ArtifactType::Progress});
        !s) {
        return s.error();
    }
    StartResult result;
    if (creates_small_dir) {  // a new workspace, as init makes one: its runtime folders stay out of git
        Result<GitignoreUpdate> gitignore = plan_gitignore_update(fs, ws);
        if (!gitignore) return gitignore.error();
        result.gitignore = std::move(*gitignore);
    }
    const std::pair<ArtifactType, YamlValue> templates[] = {
        {ArtifactType::Intent, intent_template(std::nullopt)},
        {ArtifactType::Constraints, constraints_template()},
        {ArtifactType::Plan, plan_template()},
        {ArtifactType::Progress, progress_template()}};
    for (const auto& [type, value] : templates) {
        const std::string path = ws.path_of(file_of(type));
        if (fs.file_exists(path)) continue;
        if (Status s = write_file_atomic(ws, path, emit_document(value)); !s) return s.error();
        result.created.push_back(file_of(type));
    }
    const bool had_metadata = fs.file_exists(ws.path_of(kWorkspaceFileName));
    if (!had_metadata) result.created.emplace_back(kWorkspaceFileName);

    Result<Document> plan_doc = load_artifact(fs, ws, ArtifactType::Plan);
    if (!plan_doc) return plan_doc.error();
    const YamlValue previous = old_handoff(fs, ws);
    HandoffInputs in;
    in.plan = to_yaml_value(plan_doc->root());
    in.readiness = strict_readiness(fs, ws);
    in.summary = req.summary;
    in.links = old_links(previous);
    if (!session->run_replay_id.empty()) {
        in.replay_id = session->run_replay_id;
        in.source = old_replay_id(previous) == in.replay_id ? old_source(previous) : "auto";
    } else if (!old_replay_id(previous).empty()) {
        in.replay_id = old_replay_id(previous);
        in.source = old_source(previous);
    } else {
        Result<RunPin> pin = pin_run(fs, ws, *session, emit_document(in.plan));
        if (!pin) return pin.error();
        in.replay_id = pin->replay_id;
        result.self_heal = true;
    }
    in.run = run_block(result.self_heal ? "self_heal" : "manual", "");

    WorkspaceChange change;
    if (result.self_heal) {
        EntryFields fields;
        fields.evidence = "Generated the run replay id during small start";
        fields.notes = "small start self-heal";
        change.entries.push_back(build_progress_entry("meta/replayid-self-heal", "completed", fields, "", in.replay_id));
    }
    std::string workspace_text = pinned_workspace_text(*session, in.replay_id);
    if (!had_metadata && workspace_text.empty()) {
        workspace_text = workspace_metadata_with_run(YamlValue(), in.replay_id, format_timestamp_utc9(current_instant()));
    }
    Result<HandoffResult> written = write_handoff(ws, in, std::move(change), workspace_text);
    if (!written) return written.error();
    if (!written->entries.empty()) result.entry = written->entries.front();
    result.handoff = std::move(*written);
    if (result.gitignore) {
        if (Status s = write_gitignore_update(ws, *result.gitignore); !s) return s.error();
    }
    return result;
}

// ---------------------------------------------------------------------------

Result<ResetResult> reset_command(const FileSystem& fs, const WorkspacePaths& ws, const ResetRequest& req) {
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, true, req.lock_wait});
    if (!session) return session.error();
    if (!fs.file_exists(ws.path_of(file_of(ArtifactType::Progress)))) {
        return Error::system(ws.display_of(file_of(ArtifactType::Progress)) + " is missing; run `small init --force`");
    }

    ResetResult result;
    const YamlValue previous_handoff = old_handoff(fs, ws);
    result.previous_replay_id =
        !session->run_replay_id.empty() ? session->run_replay_id : old_replay_id(previous_handoff);

    // D7: intent is human-owned; a new run keeps it (change it with draft/accept).
    Result<std::string> intent_text = fs.read_file(ws.path_of(file_of(ArtifactType::Intent)));
    if (!intent_text) return intent_text.error();
    const YamlValue plan = plan_template();
    const std::string plan_text = emit_document(plan);
    std::optional<std::string> constraints;
    if (fs.file_exists(ws.path_of(file_of(ArtifactType::Constraints)))) {
        Result<std::string> c = fs.read_file(ws.path_of(file_of(ArtifactType::Constraints)));
        if (!c) return c.error();
        constraints = std::move(*c);
    }
    Result<std::string> id = manifest_replay_id(*intent_text, plan_text, constraints, ws);
    if (!id) return id.error();
    Result<std::set<std::string>> used = used_run_ids(fs, ws);
    if (!used) return used.error();
    result.replay_id = new_run_id(*id, result.previous_replay_id, *used);

    SnapshotMade made;
    Result<std::string> snapshot = snapshot_before_replace(fs, ws, result.previous_replay_id, &made);
    if (!snapshot) return snapshot.error();
    result.snapshot_dir = *snapshot;

    HandoffInputs in;
    in.plan = plan;  // a fresh run: readiness is that of the templates
    in.replay_id = result.replay_id;
    in.run = run_block("reset", result.previous_replay_id);
    EntryFields fields;
    fields.evidence = "Reset plan and handoff for a new run (intent and constraints kept)";
    fields.notes = "small reset";
    WorkspaceChange change;
    change.entries.push_back(build_progress_entry("meta/reset", "completed", fields, "", result.replay_id));
    change.files.push_back({ws.path_of(file_of(ArtifactType::Plan)), plan_text});
    result.reset_files.push_back(file_of(ArtifactType::Plan));
    result.reset_files.push_back(file_of(ArtifactType::Handoff));
    Result<HandoffResult> written =
        write_handoff(ws, in, std::move(change), pinned_workspace_text(*session, result.replay_id));
    if (!written) {
        discard_unused_snapshot(ws, made);  // the reset did not happen: neither did its copy
        return written.error();
    }
    remember_valid_plan(ws, plan_index_of(plan));
    result.handoff = written->handoff;
    result.entry = written->entries.front();
    return result;
}

}  // namespace small
