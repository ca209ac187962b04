// `small plan` (see the header).
#include "small/ops/plan.hpp"

#include <algorithm>
#include <tuple>

#include "small/store/plan_cache.hpp"
#include "small/model/plan_model.hpp"
#include "small/store/progress_entry.hpp"
#include "small/model/templates.hpp"
#include "small/model/replay_id.hpp"
#include "small/store/run_state.hpp"
#include "small/base/text.hpp"
#include "small/store/workspace_change.hpp"
#include "small/doc/yaml.hpp"

namespace small {

namespace {

// Without replayId: the run is pinned once the new plan is known.
YamlValue plan_entry(const std::string& task, const std::string& status, const std::string& evidence,
                     const std::string& notes) {
    EntryFields fields;
    fields.evidence = evidence;
    fields.notes = notes;
    return build_progress_entry(task, status, fields, evidence, "");
}

Result<std::pair<std::string, std::string>> split_depends(const std::string& raw) {
    const auto colon = raw.find(':');
    if (colon == std::string::npos) {
        return Error::usage("--depends format must be <task-id>:<dep-id>, got \"" + raw + "\"");
    }
    std::string task(trim(std::string_view(raw).substr(0, colon)));
    std::string dep(trim(std::string_view(raw).substr(colon + 1)));
    if (task.empty() || dep.empty()) {
        return Error::usage("--depends format must be <task-id>:<dep-id>, got \"" + raw + "\"");
    }
    return std::make_pair(std::move(task), std::move(dep));
}

Status require_task(const YamlValue& plan, const std::string& id, const WorkspacePaths& ws) {
    if (find_task(plan, id)) return ok_status();
    return unknown_task_error(plan_index_of(plan), id, ws);
}

struct PlanEdits {
    YamlValue plan;
    std::vector<YamlValue> entries;
    std::vector<std::string> messages;
    std::string added_id;
    bool changed = false;
};

void record(PlanEdits& e, YamlValue entry, std::string message) {
    e.entries.push_back(std::move(entry));
    e.messages.push_back(std::move(message));
    e.changed = true;
}

Status add_task(PlanEdits& e, const std::string& raw_title) {
    const std::string title(trim(raw_title));
    if (title.empty()) return Error::usage("--add needs a task title that is not blank");
    e.added_id = next_task_id(e.plan);
    YamlValue task = YamlValue::object();
    task["id"] = e.added_id;
    task["title"] = title;
    task["status"] = "pending";
    if (!e.plan.contains("tasks") || !e.plan["tasks"].is_array()) e.plan["tasks"] = YamlValue::array();
    e.plan["tasks"].push_back(std::move(task));
    record(e, plan_entry(e.added_id, "pending", "Added task " + e.added_id + " via small plan --add", title),
           "Added task " + e.added_id + ": " + title);
    return ok_status();
}

Status retitle_task(PlanEdits& e, const std::pair<std::string, std::string>& req, const WorkspacePaths& ws) {
    const std::string id(trim(req.first));
    const std::string title(trim(req.second));
    if (title.empty()) return Error::usage("--title needs a task title that is not blank");
    if (Status s = require_task(e.plan, id, ws); !s) return s;
    YamlValue& task = e.plan["tasks"][*find_task(e.plan, id)];
    task["title"] = title;
    record(e, plan_entry(id, task_status(task), "Retitled task " + id + " via small plan --title", title),
           "Retitled task " + id + ": " + title);
    return ok_status();
}

Status set_status(PlanEdits& e, const std::string& raw_id, const char* status, const char* flag,
                  const WorkspacePaths& ws) {
    const std::string id(trim(raw_id));
    if (Status s = require_task(e.plan, id, ws); !s) return s;
    set_task_status(e.plan["tasks"][*find_task(e.plan, id)], status);
    record(e,
           plan_entry(id, status, "Updated task " + id + " to " + status + " via small plan " + flag,
                      std::string("small plan ") + flag),
           "Marked task " + id + " as " + status);
    return ok_status();
}

Status add_depends(PlanEdits& e, const std::string& raw, const WorkspacePaths& ws) {
    Result<std::pair<std::string, std::string>> pair = split_depends(raw);
    if (!pair) return pair.error();
    const auto& [task, dep] = *pair;
    if (Status s = require_task(e.plan, task, ws); !s) return s;
    if (Status s = require_task(e.plan, dep, ws); !s) return s;
    if (Status s = add_dependency(e.plan, task, dep); !s) return s;
    const YamlValue& t = e.plan["tasks"][*find_task(e.plan, task)];
    record(e, plan_entry(task, task_status(t), "Added dependency " + dep + " to " + task, "small plan --depends"),
           "Added dependency: " + task + " depends on " + dep);
    return ok_status();
}

// Entries of the current run that name `id`: their count and the first one's line.
struct Naming {
    std::size_t count = 0;
    unsigned first_line = 0;
};

Result<Naming> run_entries_naming(const FileSystem& fs, const WorkspacePaths& ws, const std::string& id,
                                  const std::string& run_id) {
    const std::string path = ws.path_of(artifact_file_name(ArtifactType::Progress));
    if (!fs.file_exists(path)) return Naming{};
    Result<std::string> bytes = fs.read_file(path);
    if (!bytes) return bytes.error();
    if (bytes->find(id) == std::string::npos) return Naming{};  // cheap and exact "no"
    Result<Document> log = parse_yaml(*bytes, ws.display_of(artifact_file_name(ArtifactType::Progress)));
    if (!log) return log.error();
    Naming n;
    const NodeRef entries = log->root().find("entries");
    for (std::size_t i = 0; entries.is_sequence() && i < entries.size(); ++i) {
        const NodeRef entry = entries.item(i);
        if (trim(entry.find("task_id").as_string()) != id) continue;
        if (!run_id.empty() && lower_ascii(trim(entry.find("replayId").as_string())) != run_id) continue;
        if (n.count++ == 0) n.first_line = entry.mark().line;
    }
    return n;
}

Status remove_task(PlanEdits& e, const std::string& raw_id, const FileSystem& fs, const WorkspacePaths& ws,
                   const std::string& run_id) {
    const std::string id(trim(raw_id));
    if (Status s = require_task(e.plan, id, ws); !s) return s;
    if (e.plan["tasks"].size() == 1) {
        return Error::invalid("task " + id + " cannot be removed: it is the plan's only task, and a plan needs at "
                              "least one (nothing written). Add the next task first, or cancel it: small plan --cancel " +
                              id);
    }
    for (const YamlValue& t : e.plan["tasks"]) {
        const std::vector<std::string> deps = task_dependencies(t);
        if (std::find(deps.begin(), deps.end(), id) != deps.end()) {
            return Error::invalid("task " + id + " cannot be removed: task " + t["id"].get<std::string>() +
                                  " depends on it (nothing written). Cancel it instead: small plan --cancel " + id);
        }
    }
    Result<Naming> naming = run_entries_naming(fs, ws, id, run_id);
    if (!naming) return naming.error();
    if (naming->count > 0) {
        return Error::invalid(
            "task " + id + " cannot be removed: " + std::to_string(naming->count) + " progress entr" +
            (naming->count == 1 ? "y" : "ies") + " of the current run name it (first at " +
            ws.display_of(artifact_file_name(ArtifactType::Progress)) + ":" + std::to_string(naming->first_line) +
            "), and the append-only log keeps them, so removing it would fail strict check S2 (nothing written). "
            "Cancel it instead: small plan --cancel " + id);
    }
    YamlValue kept = YamlValue::array();
    for (const YamlValue& t : e.plan["tasks"]) {
        if (!(t.contains("id") && t["id"].is_string() && t["id"].get<std::string>() == id)) kept.push_back(t);
    }
    e.plan["tasks"] = std::move(kept);
    // D8: the task is gone, so the entry that records it uses a meta/ id.
    record(e, plan_entry("meta/plan-remove", "completed", "Removed task " + id + " via small plan --remove", id),
           "Removed task " + id);
    return ok_status();
}

// Applies every flag in memory, in the order of PlanRequest's comment. Any
// error aborts before a write.
Status apply_plan_flags(PlanEdits& e, const PlanRequest& req, const FileSystem& fs, const WorkspacePaths& ws,
                        const std::string& run_id) {
    if (req.add) {
        if (Status s = add_task(e, *req.add); !s) return s;
    }
    if (req.retitle) {
        if (Status s = retitle_task(e, *req.retitle, ws); !s) return s;
    }
    const std::tuple<const std::optional<std::string>*, const char*, const char*> flags[] = {
        {&req.done, "completed", "--done"},
        {&req.pending, "pending", "--pending"},
        {&req.blocked, "blocked", "--blocked"},
        {&req.in_progress, "in_progress", "--in-progress"},
        {&req.cancel, "cancelled", "--cancel"}};
    for (const auto& [id, status, flag] : flags) {
        if (!*id) continue;
        if (Status s = set_status(e, **id, status, flag, ws); !s) return s;
    }
    if (req.depends) {
        if (Status s = add_depends(e, *req.depends, ws); !s) return s;
    }
    if (req.remove) {
        if (Status s = remove_task(e, *req.remove, fs, ws, run_id); !s) return s;
    }
    return ok_status();
}

std::string plan_path(const WorkspacePaths& ws) { return ws.path_of(artifact_file_name(ArtifactType::Plan)); }

}  // namespace

Result<PlanResult> plan_command(const FileSystem& fs, const WorkspacePaths& ws, const PlanRequest& req) {
    if (req.reset && !req.yes) {
        return Error::usage("--reset requires --yes to confirm that plan.small.yml is replaced by the template");
    }
    if (req.depends) {
        if (Result<std::pair<std::string, std::string>> p = split_depends(*req.depends); !p) return p.error();
    }
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, true, req.lock_wait});
    if (!session) return session.error();

    PlanResult result;
    const bool exists = fs.file_exists(plan_path(ws));
    PlanEdits edits;
    if (req.reset || !exists) {
        edits.plan = plan_template();
        edits.changed = true;
        result.created = !exists;
        if (!exists) edits.messages.push_back("Creating new plan from template");
    } else {
        Result<YamlValue> plan = load_valid_plan(fs, ws);
        if (!plan) return plan.error();
        edits.plan = std::move(*plan);
    }

    if (req.reset) {
        edits.entries.push_back(plan_entry("meta/plan-reset", "completed", "Reset plan.small.yml to the template",
                                           "small plan --reset"));
        edits.messages.push_back("Plan reset to template");
    } else if (Status s = apply_plan_flags(edits, req, fs, ws, session->run_replay_id); !s) {
        return s.error();
    }
    if (!edits.changed) {
        result.messages.push_back("No changes made to plan");
        result.replay_id = session->run_replay_id;
        return result;
    }

    const std::string text = emit_document(edits.plan);
    Result<RunPin> pin = pin_run(fs, ws, *session, text);
    if (!pin) return pin.error();
    const std::string probe = format_timestamp_utc9(current_instant());
    for (YamlValue& entry : edits.entries) {
        entry["replayId"] = pin->replay_id;  // D8: every entry of the run
        if (Status v = validate_progress_entry(entry, probe, ws); !v) return v.error();
    }
    if (!edits.entries.empty() && !fs.file_exists(ws.path_of(artifact_file_name(ArtifactType::Progress)))) {
        return Error::system(ws.display_of(artifact_file_name(ArtifactType::Progress)) +
                             " is missing; run `small init --force` to recreate the workspace files");
    }

    WorkspaceChange change;
    change.entries = edits.entries;
    change.files.push_back({plan_path(ws), text});
    if (pin->pinned) change.files.push_back({ws.path_of(kWorkspaceFileName), pin->workspace_text});
    Result<CommittedChange> committed = commit_workspace_change(ws, change);
    if (!committed) return committed.error();
    remember_valid_plan(ws, plan_index_of(edits.plan));

    result.messages = std::move(edits.messages);
    for (AppendResult& a : committed->appended) result.entries.push_back(std::move(a.entry));
    result.changed = true;
    result.added_task_id = edits.added_id;
    result.replay_id = pin->replay_id;
    result.pinned_run = pin->pinned;
    return result;
}

}  // namespace small
