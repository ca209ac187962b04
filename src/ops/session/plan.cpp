// `small plan` (see the header).
#include "small/ops/session/plan.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include "small/store/plan_cache.hpp"
#include "small/check/placeholder.hpp"
#include "small/model/plan_model.hpp"
#include "small/model/plan_text_edit.hpp"
#include "small/domain/claim_gate.hpp"
#include "small/domain/plan_status_edit.hpp"
#include "small/domain/progress_entry.hpp"
#include "small/model/templates.hpp"
#include "small/model/replay_id.hpp"
#include "small/domain/run_state.hpp"
#include "small/base/text.hpp"
#include "small/store/workspace_change.hpp"
#include "small/doc/yaml.hpp"

namespace small {

namespace {

// Without replayId: the run is pinned once the new plan is known.
YamlValue plan_entry(const std::string& task, const WrittenStatus& status, const std::string& evidence,
                     const std::string& notes) {
    EntryFields fields;
    fields.evidence = evidence;
    fields.notes = notes;
    return build_progress_entry(task, status, fields, evidence, "");
}

// "<task-id>:<rest>": the id trimmed; the rest as typed (issue 41) but for
// one space after the colon, which belongs to the separator ("task-1: Write
// it"); neither blank.
Result<std::pair<std::string, std::string>> split_flag(const std::string& raw, const char* flag, const char* rest) {
    const auto colon = raw.find(':');
    std::string task(trim(std::string_view(raw).substr(0, colon)));
    std::string value(colon == std::string::npos ? "" : raw.substr(colon + 1));
    if (!value.empty() && value.front() == ' ') value.erase(0, 1);
    if (colon == std::string::npos || task.empty() || trim(value).empty()) {
        return Error::usage(std::string(flag) + " format must be <task-id>:" + rest + ", got \"" + raw + "\"");
    }
    return std::make_pair(std::move(task), std::move(value));
}

// "<task-id>:<dep-id>[,<dep-id>...]": the task and its listed ids.
Result<std::pair<std::string, std::vector<std::string>>> split_depends(const std::string& raw, const char* flag) {
    Result<std::pair<std::string, std::string>> pair = split_flag(raw, flag, "<dep-id>[,<dep-id>...]");
    if (!pair) return pair.error();
    std::vector<std::string> deps;
    const std::string& list = pair->second;
    for (std::size_t from = 0; from <= list.size();) {
        const std::size_t comma = std::min(list.find(',', from), list.size());
        std::string id(trim(std::string_view(list).substr(from, comma - from)));
        if (id.empty()) {
            return Error::usage(std::string(flag) + " lists a blank dependency id in \"" + raw +
                                "\"; write <task-id>:<dep-id>[,<dep-id>...]");
        }
        deps.push_back(std::move(id));
        from = comma + 1;
    }
    return std::make_pair(pair->first, std::move(deps));
}

bool has_added_fields(const PlanRequest& req) {
    return !req.added_steps.empty() || !req.added_acceptance.empty() || !req.added_depends.empty();
}

// A NUL has no place in a title: one starting with NUL was written, and the
// plan's own check then called that title empty. Every other byte is kept as
// typed (issue 41); what prints a title escapes its control characters.
Status refuse_nul(const char* flag, const std::string& title) {
    if (title.find('\0') == std::string::npos) return ok_status();
    return Error::usage(std::string(flag) + " needs a title without a NUL byte");
}

// Flag values that are wrong whatever the plan holds: refused before the lock.
Status check_flag_formats(const PlanRequest& req) {
    if (has_added_fields(req) && req.add.empty()) {
        return Error::usage("steps, acceptance criteria or dependencies for a new task need its title to add");
    }
    for (const std::string& raw : req.depends) {
        if (auto p = split_depends(raw, "--depends"); !p) return p.error();
    }
    for (const std::string& raw : req.undepend) {
        if (auto p = split_depends(raw, "--undepend"); !p) return p.error();
    }
    for (const std::string& title : req.add) {
        if (Status s = refuse_placeholder("add", title); !s) return s;
        if (Status s = refuse_nul("--add", title); !s) return s;
    }
    for (const auto& retitle : req.retitle) {
        if (Status s = refuse_placeholder("title", retitle.second); !s) return s;
        if (Status s = refuse_nul("--title", retitle.second); !s) return s;
    }
    const std::tuple<const char*, const char*, const std::vector<std::string>*> items[] = {
        {"steps", "--step", &req.steps}, {"acceptance", "--acceptance", &req.acceptance}};
    for (const auto& [field, flag, raws] : items) {
        for (const std::string& raw : *raws) {
            auto p = split_flag(raw, flag, "<text>");
            if (!p) return p.error();
            if (Status s = refuse_placeholder(field, p->second); !s) return s;
        }
    }
    for (const auto& [field, texts] : {std::pair{"steps", &req.added_steps}, std::pair{"acceptance", &req.added_acceptance}}) {
        for (const std::string& text : *texts) {
            if (Status s = refuse_placeholder(field, text); !s) return s;
        }
    }
    return ok_status();
}

std::string joined(const std::vector<std::string>& ids) {
    std::string out;
    for (const std::string& id : ids) out += (out.empty() ? "" : ", ") + id;
    return out;
}

struct PlanEdits {
    PlanOrigin origin = PlanOrigin::Cli;
    std::string actor;  // PlanOrigin::Board's person
    YamlValue plan;
    PlanIndex before;  // the plan as it was: "did you mean" never names a task this call adds
    const FileSystem* fs = nullptr;  // to name the lines of an id two tasks share
    std::vector<YamlValue> entries;
    std::vector<std::string> messages;
    std::vector<std::string> warnings;
    std::vector<std::string> added_ids;
    std::vector<std::string> status_set;  // ids whose status this call set (D18 looks at them)
    std::int64_t id_floor = 0;            // new ids are above it (D21's reservation)
    bool changed = false;
};

Status require_task(const PlanEdits& e, const std::string& id, const WorkspacePaths& ws) {
    if (e.fs && e.before.count(id) > 1) return refuse_ambiguous_task(*e.fs, ws, e.before, id);
    if (find_task(e.plan, id)) return ok_status();
    return unknown_task_error(e.before, id, ws);
}

YamlValue& task_at(PlanEdits& e, const std::string& id) { return e.plan["tasks"][*find_task(e.plan, id)]; }

// How an entry says who made the edit: " via small plan --FLAG" (the CLI),
// " via the MCP plan tool" (the MCP server).
std::string via(PlanOrigin origin, std::string_view flag, std::string_view actor = {}) {
    if (origin == PlanOrigin::Board) return std::string(kViaBoard) + (actor.empty() ? "" : " by " + std::string(actor));
    return origin == PlanOrigin::Cli ? " via small plan " + std::string(flag) : std::string(kViaMcpPlanTool);
}
// The notes of an entry that has nothing else to say: "small plan --FLAG",
// or "MCP plan tool".
std::string edit_notes(PlanOrigin origin, std::string_view flag, std::string_view actor = {}) {
    if (origin == PlanOrigin::Board) {
        return std::string(kBoardNotes) + ": plan " + std::string(flag) + (actor.empty() ? "" : " by " + std::string(actor));
    }
    return origin == PlanOrigin::Cli ? "small plan " + std::string(flag) : std::string(kMcpPlanToolNotes);
}

void record(PlanEdits& e, YamlValue entry, std::string message) {
    e.entries.push_back(std::move(entry));
    e.messages.push_back(std::move(message));
    e.changed = true;
}

void append_task(PlanEdits& e, YamlValue task) {
    if (!e.plan.contains("tasks") || !e.plan["tasks"].is_array()) e.plan["tasks"] = YamlValue::array();
    e.added_ids.push_back(task["id"].get<std::string>());
    e.plan["tasks"].push_back(std::move(task));
}

Status add_task(PlanEdits& e, const std::string& raw_title) {
    const std::string& title = raw_title;  // as typed (issue 41)
    if (trim(title).empty()) return Error::usage("--add needs a task title that is not blank");
    const std::string id = next_task_id(e.plan, e.id_floor);
    YamlValue task = YamlValue::object();
    task["id"] = id;
    task["title"] = title;
    set_task_status(task, TaskStatus::Pending);
    append_task(e, std::move(task));
    record(e, plan_entry(id, TaskStatus::Pending, "Added task " + id + via(e.origin, "--add", e.actor), title),
           "Added task " + id + ": " + title);
    return ok_status();
}

Status retitle_task(PlanEdits& e, const std::pair<std::string, std::string>& req, const WorkspacePaths& ws) {
    const std::string id(trim(req.first));
    const std::string& title = req.second;  // as typed (issue 41)
    if (trim(title).empty()) return Error::usage("--title needs a task title that is not blank");
    if (Status s = require_task(e, id, ws); !s) return s;
    YamlValue& task = task_at(e, id);
    task["title"] = title;
    record(e, plan_entry(id, task_status(task), "Retitled task " + id + via(e.origin, "--title", e.actor), title),
           "Retitled task " + id + ": " + title);
    return ok_status();
}

// --step / --acceptance: each flag appends one item to the task's list; a
// task's items of one call are one entry.
Status append_items(PlanEdits& e, const std::vector<std::string>& raws, const char* key, const char* flag,
                    const char* noun, const WorkspacePaths& ws) {
    std::vector<std::pair<std::string, std::size_t>> counts;  // task, items added; first-seen order
    for (const std::string& raw : raws) {
        Result<std::pair<std::string, std::string>> pair = split_flag(raw, flag, "<text>");
        if (!pair) return pair.error();
        const auto& [id, text] = *pair;
        if (Status s = require_task(e, id, ws); !s) return s;
        YamlValue& task = task_at(e, id);
        if (!task.contains(key) || !task[key].is_array()) task[key] = YamlValue::array();
        task[key].push_back(text);
        e.messages.push_back("Added " + std::string(noun) + " to task " + id + ": " + text);
        auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == id; });
        if (it == counts.end()) {
            counts.emplace_back(id, 1);
        } else {
            ++it->second;
        }
    }
    for (const auto& [id, n] : counts) {
        const std::string what = std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
        e.entries.push_back(plan_entry(id, task_status(task_at(e, id)),
                                       "Added " + what + " to task " + id + via(e.origin, flag, e.actor),
                                       edit_notes(e.origin, flag, e.actor)));
        e.changed = true;
    }
    return ok_status();
}

Status set_status(PlanEdits& e, const std::string& raw_id, TaskStatus status, const char* flag,
                  const WorkspacePaths& ws) {
    const std::string id(trim(raw_id));
    if (Status s = require_task(e, id, ws); !s) return s;
    set_task_status(task_at(e, id), status);
    e.status_set.push_back(id);
    const std::string name(status_name(status));
    record(e,
           plan_entry(id, status, "Updated task " + id + " to " + name + via(e.origin, flag, e.actor), edit_notes(e.origin, flag, e.actor)),
           "Marked task " + id + " as " + name);
    return ok_status();
}

Status add_depends(PlanEdits& e, const std::string& raw, const WorkspacePaths& ws) {
    Result<std::pair<std::string, std::vector<std::string>>> pair = split_depends(raw, "--depends");
    if (!pair) return pair.error();
    const auto& [task, deps] = *pair;
    if (Status s = require_task(e, task, ws); !s) return s;
    for (const std::string& dep : deps) {
        if (Status s = require_task(e, dep, ws); !s) return s;
        if (Status s = add_dependency(e.plan, task, dep); !s) return s;
    }
    const std::string noun = deps.size() == 1 ? "dependency" : "dependencies";
    record(e,
           plan_entry(task, task_status(task_at(e, task)),
                      "Added " + noun + " " + joined(deps) + " to " + task +
                          (e.origin == PlanOrigin::Cli ? "" : via(e.origin, "--depends", e.actor)),
                      edit_notes(e.origin, "--depends", e.actor)),
           "Added " + noun + ": " + task + " depends on " + joined(deps));
    return ok_status();
}

Status remove_depends(PlanEdits& e, const std::string& raw, const WorkspacePaths& ws) {
    Result<std::pair<std::string, std::vector<std::string>>> pair = split_depends(raw, "--undepend");
    if (!pair) return pair.error();
    const auto& [task, deps] = *pair;
    if (Status s = require_task(e, task, ws); !s) return s;
    for (const std::string& dep : deps) {
        if (Status s = remove_dependency(e.plan, task, dep); !s) {
            Error err = s.error();
            err.message += " (nothing written)";
            return err;
        }
    }
    const std::string noun = deps.size() == 1 ? "dependency" : "dependencies";
    record(e,
           plan_entry(task, task_status(task_at(e, task)),
                      "Removed " + noun + " " + joined(deps) + " from " + task + via(e.origin, "--undepend", e.actor),
                      edit_notes(e.origin, "--undepend", e.actor)),
           "Removed " + noun + ": " + task + " no longer depends on " + joined(deps));
    return ok_status();
}

// ---------------------------------------------------------------- --from

// The optional task fields --from checks; other keys are kept as given.
constexpr std::string_view kListKeys[] = {"depends_on", "dependencies", "steps", "acceptance"};

bool is_list_key(std::string_view key) {
    return std::find(std::begin(kListKeys), std::end(kListKeys), key) != std::end(kListKeys);
}

struct FromList {
    const PlanInput& input;
    NodeRef items;  // the sequence of task mappings
};

Error input_error(const PlanInput& input, NodeRef node, const std::string& message) {
    Error e = Error::invalid(message + " (nothing written)");
    e.file = input.name;
    e.line = node.mark().line;
    e.column = node.mark().column;
    return e;
}

std::string item_path(std::size_t i, std::string_view key = {}) {
    return "tasks[" + std::to_string(i) + "]" + (key.empty() ? "" : "." + std::string(key));
}

// One field of one input task: the value it has in the plan (trimmed,
// statuses lower-cased), or an error at its position. Null means "remove".
Result<YamlValue> field_value(const PlanInput& input, std::size_t i, std::string_view key, NodeRef v) {
    if (v.is_null()) {
        if (key == "id" || key == "title") {
            return input_error(input, v, item_path(i, key) + " cannot be null: a task needs an id and a title");
        }
        return YamlValue();
    }
    if (key == "id" || key == "title" || key == "status") {
        const std::string text(v.is_string() ? trim(v.as_string()) : std::string_view());
        if (text.empty()) return input_error(input, v, item_path(i, key) + " must be a non-empty string");
        if (is_placeholder(text)) {
            return input_error(input, v, item_path(i, key) + " is the placeholder \"" + text + "\", not a value");
        }
        if (key != "status") return YamlValue(text);
        const std::string status = lower_ascii(text);
        if (!parse_task_status(status)) {
            return input_error(input, v,
                               item_path(i, key) + " \"" + text +
                                   "\" is not a plan status: write pending, in_progress, completed, blocked or cancelled");
        }
        return YamlValue(status);
    }
    if (!is_list_key(key)) return to_yaml_value(v);
    const bool ids = key == "depends_on" || key == "dependencies";
    if (!v.is_sequence()) {
        return input_error(input, v, item_path(i, key) + " must be a list of " + (ids ? "task ids" : "strings"));
    }
    YamlValue list = YamlValue::array();
    for (std::size_t k = 0; k < v.size(); ++k) {
        const NodeRef item = v.item(k);
        const std::string text(item.is_string() ? (ids ? trim(item.as_string()) : item.as_string()) : std::string_view());
        if (!item.is_string() || (ids && text.empty())) {
            return input_error(input, item,
                               item_path(i, key) + "[" + std::to_string(k) + "] must be a " +
                                   (ids ? "non-empty task id" : "string"));
        }
        if (is_placeholder(text)) {
            return input_error(input, item,
                               item_path(i, key) + "[" + std::to_string(k) + "] is the placeholder \"" +
                                   std::string(trim(text)) + "\", not a value");
        }
        list.push_back(text);
    }
    return list;
}

Result<FromList> from_items(const PlanInput& input, const Document& doc) {
    NodeRef root = doc.root();
    if (root.is_mapping() && root.find("tasks").valid()) root = root.find("tasks");
    if (!root.valid() || !root.is_sequence() || root.size() == 0) {
        Error e = Error::invalid(
            "expected a non-empty list of tasks (a YAML or JSON sequence of mappings with id, title, status, "
            "depends_on, steps, acceptance), or a mapping with such a `tasks` list; nothing written");
        e.file = input.name;
        e.line = root.valid() ? root.mark().line : 1;
        e.column = root.valid() ? root.mark().column : 1;
        return e;
    }
    return FromList{input, root};
}

// Every field of every item, and ids that repeat, before the plan changes.
Status check_from_items(const FromList& list) {
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
        const NodeRef item = list.items.item(i);
        if (!item.is_mapping()) {
            return input_error(list.input, item, item_path(i) + " must be a mapping (id, title, status, ...)");
        }
        for (std::size_t k = 0; k < item.size(); ++k) {
            Result<YamlValue> v = field_value(list.input, i, item.key(k), item.value(k));
            if (!v) return v.error();
        }
        const NodeRef id = item.find("id");
        if (!id.valid()) continue;
        const std::string key(trim(id.as_string()));
        if (const auto [at, fresh] = seen.emplace(key, i); !fresh) {
            return input_error(list.input, id,
                               item_path(i) + ": task " + key + " is listed twice (also " + item_path(at->second) +
                                   "); give each task once");
        }
    }
    return ok_status();
}

// A new task: id, title and status first, the other fields in input order.
Result<YamlValue> new_task(const FromList& list, std::size_t i, const std::string& id) {
    const NodeRef item = list.items.item(i);
    if (!item.find("title").valid()) {
        return input_error(list.input, item,
                           item_path(i) + " adds task " + (item.find("id").valid() ? id : "without an id") +
                               " but has no title; a new task needs one");
    }
    YamlValue task = YamlValue::object();
    task["id"] = id;
    set_task_status(task, TaskStatus::Pending);
    for (std::size_t k = 0; k < item.size(); ++k) {
        const std::string key(item.key(k));
        if (key == "id") continue;
        YamlValue v = *field_value(list.input, i, key, item.value(k));  // checked already
        if (!v.is_null()) task[key] = std::move(v);
    }
    YamlValue ordered = YamlValue::object();
    for (const char* key : {"id", "title", "status"}) ordered[key] = task[key];
    for (auto it = task.begin(); it != task.end(); ++it) {
        if (!ordered.contains(it.key())) ordered[it.key()] = it.value();
    }
    return ordered;
}

// Field by field: the names of the fields whose value changed.
std::vector<std::string> update_task(YamlValue& task, const FromList& list, std::size_t i) {
    const NodeRef item = list.items.item(i);
    std::vector<std::string> changed;
    for (std::size_t k = 0; k < item.size(); ++k) {
        const std::string key(item.key(k));
        if (key == "id") continue;
        YamlValue v = *field_value(list.input, i, key, item.value(k));  // checked already
        if (v.is_null()) {
            if (task.contains(key)) {
                task.erase(key);
                changed.push_back(key);
            }
        } else if (!task.contains(key) || task[key] != v) {
            task[key] = std::move(v);
            changed.push_back(key);
        }
    }
    return changed;
}

void merge_item(PlanEdits& e, const FromList& list, std::size_t i, YamlValue added) {
    const std::string id = added["id"].get<std::string>();
    const WrittenStatus status = task_status(added);
    const std::string title = added["title"].get<std::string>();
    if (list.items.item(i).find("status").valid()) e.status_set.push_back(id);
    append_task(e, std::move(added));
    record(e, plan_entry(id, status, "Added task " + id + via(e.origin, "--from", e.actor), title),
           "Added task " + id + ": " + title);
}

// Dependencies the list names must exist once it is merged, and close no cycle.
Status check_from_dependencies(const PlanEdits& e, const FromList& list, const WorkspacePaths& ws) {
    for (std::size_t i = 0; i < list.items.size(); ++i) {
        const NodeRef item = list.items.item(i);
        for (const char* key : {"depends_on", "dependencies"}) {
            const NodeRef deps = item.find(key);
            for (std::size_t k = 0; deps.is_sequence() && k < deps.size(); ++k) {
                const std::string dep(trim(deps.item(k).as_string()));
                if (find_task(e.plan, dep)) continue;
                return input_error(list.input, deps.item(k),
                                   item_path(i, key) + ": " + unknown_task_error(e.before, dep, ws).message);
            }
        }
    }
    const std::optional<std::vector<std::string>> cycle = find_dependency_cycle(e.plan);
    if (!cycle) return ok_status();
    NodeRef where = list.items;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
        const NodeRef item = list.items.item(i);
        const NodeRef id = item.find("id");
        const bool in_cycle = id.valid() && std::find(cycle->begin(), cycle->end(), trim(id.as_string())) != cycle->end();
        const NodeRef deps = item.find("depends_on").valid() ? item.find("depends_on") : item.find("dependencies");
        if (in_cycle && deps.valid()) {
            where = deps;
            break;
        }
    }
    std::string path;
    for (const std::string& id : *cycle) path += (path.empty() ? "" : " -> ") + id;
    return input_error(list.input, where, "dependency cycle: " + path + "; remove one of these dependencies");
}

Status merge_from(PlanEdits& e, const PlanInput& input, const WorkspacePaths& ws) {
    Result<Document> doc = parse_yaml(input.text, input.name);
    if (!doc) {
        Error err = doc.error();
        err.message += " (nothing written)";
        return err;
    }
    Result<FromList> list = from_items(input, *doc);
    if (!list) return list.error();
    if (Status s = check_from_items(*list); !s) return s;
    for (std::size_t i = 0; i < list->items.size(); ++i) {
        const NodeRef id_node = list->items.item(i).find("id");
        const std::string id = id_node.valid() ? std::string(trim(id_node.as_string())) : next_task_id(e.plan, e.id_floor);
        if (!find_task(e.plan, id)) {
            Result<YamlValue> task = new_task(*list, i, id);
            if (!task) return task.error();
            merge_item(e, *list, i, std::move(*task));
            continue;
        }
        YamlValue& task = task_at(e, id);
        const std::vector<std::string> changed = update_task(task, *list, i);
        if (changed.empty()) continue;
        if (std::find(changed.begin(), changed.end(), "status") != changed.end()) e.status_set.push_back(id);
        record(e,
               plan_entry(id, task_status(task), "Updated task " + id + " (" + joined(changed) + ")" + via(e.origin, "--from", e.actor),
                          edit_notes(e.origin, "--from", e.actor)),
               "Updated task " + id + ": " + joined(changed));
    }
    return check_from_dependencies(e, *list, ws);
}

// ---------------------------------------------------------------- D18

// What D18 says about the tasks whose status a call set: refusals, warnings,
// and the notes a forced completion's entries carry.
struct DependencyVerdict {
    std::vector<std::string> refused;
    std::map<std::string, std::vector<std::string>> forced;
};

// Task `id`, set to `status`, has the dependencies `unmet` not completed:
// starting it is a warning, completing it is refused, or with `force` recorded.
void judge_dependencies(DependencyVerdict& v, std::vector<std::string>& warnings, const std::string& id,
                        const WrittenStatus& status, const std::vector<std::string>& unmet, bool force) {
    if (unmet.empty()) return;
    if (status.is(TaskStatus::InProgress)) {
        warnings.push_back("task " + id + " is in_progress but its dependencies " + joined(unmet) +
                           " are not completed (D18); finish them first");
    } else if (status.is(TaskStatus::Completed) && force) {
        v.forced[id] = unmet;
        warnings.push_back("task " + id + " completed with dependencies " + joined(unmet) +
                           " not completed (--force; the entry records it)");
    } else if (status.is(TaskStatus::Completed)) {
        v.refused.push_back("task " + id + " (unmet: " + joined(unmet) + ")");
    }
}

// The refusal, or the forced notes written into the entries.
Status settle_dependencies(const DependencyVerdict& v, std::vector<YamlValue>& entries) {
    if (!v.refused.empty()) {
        Error err = Error::invalid("cannot complete " + joined(v.refused) +
                                   ": a task is completed only after its dependencies (D18); nothing written");
        err.hint = "complete the dependencies first (small plan --done ID, repeatable), or add --force to record "
                   "the completion anyway";
        return err;
    }
    for (YamlValue& entry : entries) {
        const auto it = v.forced.find(entry["task_id"].get<std::string>());
        if (it == v.forced.end() || entry["status"] != status_name(TaskStatus::Completed)) continue;
        const std::string notes = entry.contains("notes") ? entry["notes"].get<std::string>() : "";
        entry["notes"] = notes + (notes.empty() ? "" : "; ") + "forced: dependencies " + joined(it->second) +
                         " not completed";
    }
    return ok_status();
}

// D18 on the edited plan for every task this call set a status on.
Status check_dependencies_met(PlanEdits& e, bool force) {
    DependencyVerdict verdict;
    std::vector<std::string> checked;
    for (const std::string& id : e.status_set) {
        if (std::find(checked.begin(), checked.end(), id) != checked.end() || !find_task(e.plan, id)) continue;
        checked.push_back(id);
        judge_dependencies(verdict, e.warnings, id, task_status(task_at(e, id)), unmet_dependencies(e.plan, id), force);
    }
    return settle_dependencies(verdict, e.entries);
}

// Entries of the current run that name `id`: their count and the first one's line.
struct Naming {
    std::size_t count = 0;
    unsigned first_line = 0;
};

Result<Naming> run_entries_naming(const FileSystem& fs, const WorkspacePaths& ws, const std::string& id,
                                  const std::string& run_id) {
    const std::string path = ws.artifact_path(ArtifactType::Progress);
    if (!fs.file_exists(path)) return Naming{};
    Result<std::string> bytes = fs.read_file(path);
    if (!bytes) return bytes.error();
    if (bytes->find(id) == std::string::npos) return Naming{};  // cheap and exact "no"
    Result<Document> log = parse_yaml(*bytes, ws.artifact_display(ArtifactType::Progress));
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
    if (Status s = require_task(e, id, ws); !s) return s;
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
            ws.artifact_display(ArtifactType::Progress) + ":" + std::to_string(naming->first_line) +
            "), and the append-only log keeps them, so removing it would fail strict check S2 (nothing written). "
            "Cancel it instead: small plan --cancel " + id);
    }
    YamlValue kept = YamlValue::array();
    for (const YamlValue& t : e.plan["tasks"]) {
        if (!(t.contains("id") && t["id"].is_string() && t["id"].get<std::string>() == id)) kept.push_back(t);
    }
    e.plan["tasks"] = std::move(kept);
    // D8: the task is gone, so the entry that records it uses a meta/ id.
    record(e,
           plan_entry("meta/plan-remove", TaskStatus::Completed, "Removed task " + id + via(e.origin, "--remove", e.actor), id),
           "Removed task " + id);
    return ok_status();
}

// Applies every edit in memory, in the order of plan_command's comment,
// then checks D18 on the result. Any error aborts before a write.
Status apply_plan_flags(PlanEdits& e, const PlanRequest& req, const FileSystem& fs, const WorkspacePaths& ws,
                        const std::string& run_id) {
    if (req.from) {
        if (Status s = merge_from(e, *req.from, ws); !s) return s;
    }
    for (const std::string& title : req.add) {
        if (Status s = add_task(e, title); !s) return s;
    }
    for (const auto& retitle : req.retitle) {
        if (Status s = retitle_task(e, retitle, ws); !s) return s;
    }
    // The added task's own steps, criteria and dependencies join the edits of their kind.
    std::vector<std::string> steps = req.steps, acceptance = req.acceptance, depends = req.depends;
    if (has_added_fields(req)) {
        const std::string& id = e.added_ids.back();  // check_flag_formats: add is not empty
        for (const std::string& text : req.added_steps) steps.push_back(id + ":" + text);
        for (const std::string& text : req.added_acceptance) acceptance.push_back(id + ":" + text);
        if (!req.added_depends.empty()) depends.push_back(id + ":" + joined(req.added_depends));
    }
    if (Status s = append_items(e, steps, "steps", "--step", "step", ws); !s) return s;
    if (Status s = append_items(e, acceptance, "acceptance", "--acceptance", "acceptance criterion", ws); !s) {
        return s;
    }
    for (const auto& [ids, status, flag] : kPlanStatusFlags) {
        for (const std::string& id : req.*ids) {
            if (Status s = set_status(e, id, status, flag, ws); !s) return s;
        }
    }
    for (const std::string& raw : depends) {
        if (Status s = add_depends(e, raw, ws); !s) return s;
    }
    for (const std::string& raw : req.undepend) {
        if (Status s = remove_depends(e, raw, ws); !s) return s;
    }
    for (const std::string& id : req.remove) {
        if (Status s = remove_task(e, id, fs, ws, run_id); !s) return s;
    }
    return check_dependencies_met(e, req.force);
}

// D19: a status set on a task another agent holds is refused unless
// `force`; the task's entries carry the claim in their notes, and the gate
// is settled (renewed, released) once the change is written.
Result<ClaimGate> gate_one_claim(const FileSystem& fs, const WorkspacePaths& ws, std::vector<YamlValue>& entries,
                                 const std::string& id, TaskStatus status, const ClaimContext& who, bool force) {
    std::string evidence;  // a blocked task's reason is its entry's evidence
    for (const YamlValue& entry : entries) {
        if (entry["task_id"] == id && entry.contains("evidence") && entry["evidence"].is_string()) evidence = entry["evidence"].get<std::string>();
    }
    Result<ClaimGate> gate = gate_on_claim(fs, ws, id, status, who, force, evidence);
    if (!gate) return gate.error();
    for (YamlValue& entry : entries) {
        if (gate->note.empty() || entry["task_id"] != id) continue;
        std::optional<std::string> notes;
        if (entry.contains("notes") && entry["notes"].is_string()) notes = entry["notes"].get<std::string>();
        entry["notes"] = *notes_with_claim(notes, *gate);
    }
    return gate;
}

// gate_one_claim for every task whose status this call set.
Result<std::vector<ClaimGate>> gate_claims(const FileSystem& fs, const WorkspacePaths& ws, PlanEdits& e,
                                           const ClaimContext& who, bool force, TakenClaims& taken) {
    std::vector<ClaimGate> gates;
    std::vector<std::string> seen;
    for (const std::string& id : e.status_set) {
        if (std::find(seen.begin(), seen.end(), id) != seen.end() || !find_task(e.plan, id)) continue;
        seen.push_back(id);
        const std::optional<TaskStatus> status = task_status(task_at(e, id)).known();
        if (!status) continue;
        Result<ClaimGate> gate = gate_one_claim(fs, ws, e.entries, id, *status, who, force);
        if (!gate) return gate.error();
        taken.add(*gate);
        gates.push_back(std::move(*gate));
    }
    return gates;
}

// --from may write any field: the plan it makes passes the plan schema and
// invariants before it is written (the flags' edits keep a valid plan valid).
Status check_merged_plan(const std::string& text, const WorkspacePaths& ws) {
    Result<Document> doc = parse_yaml(text, ws.artifact_display(ArtifactType::Plan));
    if (!doc) return doc.error();
    Result<Document> valid = validate_plan_document(std::move(*doc), ws);
    if (!valid) return valid.error();
    return ok_status();
}

std::string plan_path(const WorkspacePaths& ws) { return ws.artifact_path(ArtifactType::Plan); }

// The text a plan write puts on disk, and that text as parsed when the
// write already parsed it (its caches are then kept without a parse).
struct PlanText {
    std::string text;
    std::optional<Document> parsed;
};

// D20: the new plan applied to the file's own bytes; where that cannot be
// done, house style, and a warning that says where and why.
PlanText text_keeping_format(const Document& written, PlanEdits& e, const WorkspacePaths& ws) {
    PlanTextEdit edit = edit_plan_text(written, e.plan);
    for (const std::string& c : edit.dropped_comments) {  // issue 41: never without a word
        e.warnings.push_back(ws.artifact_display(ArtifactType::Plan) + ":" + c.substr(0, c.find(':')) + ": the comment " +
                             quoted_excerpt(c.substr(c.find(':') + 2)) +
                             " was not kept: the value it was written beside was removed or rewritten");
    }
    if (edit.text) return {std::move(*edit.text), std::move(edit.parsed)};
    const std::string where = ws.artifact_display(ArtifactType::Plan) + (edit.line ? ":" + std::to_string(edit.line) : "");
    std::vector<std::string> kept;  // issue 41: a BOM and CRLF line breaks survive a rewrite
    std::string text = with_layout_of(emit_document(e.plan), written.source(), &kept);
    std::string also;
    for (std::size_t i = 0; i < kept.size(); ++i) also += (i ? " and " : "; its ") + kept[i];
    e.warnings.push_back(where + ": rewritten in house style, its comments and formatting not kept (" + edit.why + ")" +
                         (also.empty() ? "" : also + " kept"));
    return {std::move(text), std::nullopt};
}

// Whether the call asks for edits other than adding tasks and setting statuses.
bool has_other_edits(const PlanRequest& req) {
    return req.from || req.reset || !req.retitle.empty() || !req.steps.empty() || !req.acceptance.empty() ||
           !req.depends.empty() || !req.undepend.empty() || !req.remove.empty() || has_added_fields(req);
}

bool has_status_flags(const PlanRequest& req) {
    return std::any_of(std::begin(kPlanStatusFlags), std::end(kPlanStatusFlags),
                       [&](const PlanStatusFlag& flag) { return !(req.*flag.ids).empty(); });
}

// The one status flag of a call that gives nothing else, or nullopt.
std::optional<std::pair<std::string, const PlanStatusFlag*>> lone_status_change(const PlanRequest& req) {
    const bool others = has_other_edits(req) || !req.add.empty();
    std::optional<std::pair<std::string, const PlanStatusFlag*>> lone;
    for (const PlanStatusFlag& flag : kPlanStatusFlags) {
        for (const std::string& id : req.*flag.ids) {
            if (others || lone) return std::nullopt;
            lone.emplace(std::string(trim(id)), &flag);
        }
    }
    return lone;
}

// Pins the run, stamps and checks the entries, and writes the plan text and
// the entries as one change; `remember` then updates the plan's caches.
Result<PlanResult> write_plan_change(const FileSystem& fs, const WorkspacePaths& ws, const MutationSession& session,
                                     PlanEdits& edits, const std::string& text, PlanResult result,
                                     const std::function<void()>& remember) {
    Result<RunPin> pin = pin_run(fs, ws, session, text);
    if (!pin) return pin.error();
    if (!pin->warning.empty()) edits.warnings.push_back(pin->warning);
    const std::string probe = format_timestamp_utc9(current_instant());
    for (YamlValue& entry : edits.entries) {
        entry["replayId"] = pin->replay_id;  // D8: every entry of the run
        if (Status v = validate_progress_entry(entry, probe, ws); !v) return v.error();
    }
    if (!edits.entries.empty()) {
        const char* recreate = "run `small init --force` to recreate the workspace files";
        if (Status s = require_artifact(fs, ws, ArtifactType::Progress, recreate); !s) return s.error();
    }

    WorkspaceChange change;
    change.entries = edits.entries;
    change.files.push_back({plan_path(ws), text});
    if (pin->pinned) change.files.push_back({ws.path_of(kWorkspaceFileName), pin->workspace_text});
    Result<CommittedChange> committed = commit_workspace_change(fs, ws, change);
    if (!committed) return committed.error();
    if (committed->was_skipped(plan_path(ws))) {
        edits.warnings.push_back(ws.artifact_display(ArtifactType::Plan) +
                                 " changed while this command ran (a hand edit?), so this call's plan changes were "
                                 "not applied; its progress entries were recorded. Run the command again.");
    } else {
        remember();
    }

    result.messages = std::move(edits.messages);
    result.warnings = std::move(edits.warnings);
    for (AppendResult& a : committed->appended) result.entries.push_back(std::move(a.entry));
    result.changed = true;
    if (!edits.added_ids.empty()) result.added_task_id = edits.added_ids.back();
    result.added_task_ids = std::move(edits.added_ids);
    result.replay_id = pin->replay_id;
    result.pinned_run = pin->pinned;
    return result;
}

void settle_claims(const FileSystem& fs, const WorkspacePaths& ws, const std::vector<ClaimGate>& gates,
                   const ClaimContext& claimer, PlanResult& result) {
    for (const ClaimGate& gate : gates) {
        if (std::string w = settle_claim(fs, ws, gate, claimer); !w.empty()) result.warnings.push_back(w);
    }
}

// The titles of a call that only adds tasks (as typed), or nullopt.
std::optional<std::vector<std::string>> lone_adds(const PlanRequest& req) {
    if (has_other_edits(req) || has_status_flags(req) || req.add.empty()) return std::nullopt;
    std::vector<std::string> titles;
    for (const std::string& raw : req.add) {
        titles.emplace_back(raw);
        if (trim(titles.back()).empty()) return std::nullopt;  // the general path says why
    }
    return titles;
}

// `plan --add` alone on a plan whose caches are current: the new tasks
// appended by editing only the last two tasks' lines (plan_append_edit), no
// parse of the plan; nullopt when that cannot be done (the general path then).
std::optional<Result<PlanResult>> add_from_caches(const FileSystem& fs, const WorkspacePaths& ws,
                                                  const MutationSession& session,
                                                  const std::vector<std::string>& titles, const TaskIdReservation& ids,
                                                  PlanOrigin origin, const std::string& actor) {
    std::optional<PlanAppendEdit> edit = plan_append_edit(fs, ws, titles, ids.floor);
    if (!edit) return std::nullopt;
    PlanEdits edits;
    edits.origin = origin;
    edits.actor = actor;
    if (!ids.warning.empty()) edits.warnings.push_back(ids.warning);
    for (std::size_t i = 0; i < titles.size(); ++i) {
        const std::string& id = edit->ids[i];
        edits.added_ids.push_back(id);
        record(edits, plan_entry(id, TaskStatus::Pending, "Added task " + id + via(origin, "--add", actor), titles[i]),
               "Added task " + id + ": " + titles[i]);
    }
    return write_plan_change(fs, ws, session, edits, edit->text, PlanResult{},
                             [&] { remember_plan_append(fs, ws, *edit); });
}

// How many new tasks get a task-<N> id: the --add titles and the --from
// items without an id of the plan's (a --from that does not parse counts
// none: the general path says why).
std::int64_t new_id_count(const PlanRequest& req, const PlanIndex& plan) {
    std::int64_t count = static_cast<std::int64_t>(req.add.size());
    if (!req.from) return count;
    Result<Document> doc = parse_yaml(req.from->text, req.from->name);
    if (!doc) return count;
    Result<FromList> list = from_items(*req.from, *doc);
    if (!list) return count;
    for (std::size_t i = 0; i < list->items.size(); ++i) {
        const NodeRef id = list->items.item(i).find("id");
        if (!id.valid() || !plan.find(std::string(trim(id.as_string())))) ++count;
    }
    return count;
}

// D21: the ids the request adds, reserved across the sides before anything is written.
Result<TaskIdReservation> reserve_new_ids(const FileSystem& fs, const WorkspacePaths& ws, const PlanRequest& req,
                                          bool plan_exists) {
    if (req.reset || (req.add.empty() && !req.from)) return TaskIdReservation{};
    PlanIndex index;
    if (plan_exists) {
        Result<PlanIndex> loaded = load_plan_index(fs, ws);
        if (!loaded) return TaskIdReservation{};  // the general path reports the plan's problem
        index = std::move(*loaded);
    }
    const std::int64_t count = new_id_count(req, index);
    return reserve_task_numbers(fs, ws, claim_context(req.agent, ws), highest_task_number(index.ids()), count);
}

// Item 6 of D20: one status flag and nothing else is checkpoint's edit: the
// status value replaced in the file's bytes at its cached span, so a plan
// whose caches are current is not parsed (plan_status_edit). The messages,
// D18 and D19 are those of the general path.
Result<PlanResult> change_one_status(const FileSystem& fs, const WorkspacePaths& ws, const PlanRequest& req,
                                     const MutationSession& session, const std::string& id,
                                     const PlanStatusFlag& flag) {
    Result<PlanStatusEdit> edit = plan_status_edit(fs, ws, id, flag.status);
    if (!edit) return edit.error();
    PlanEdits edits;
    edits.origin = req.origin;
    edits.actor = req.actor;
    if (!edit->warning.empty()) edits.warnings.push_back(edit->warning);
    const std::string name(status_name(flag.status));
    record(edits,
           plan_entry(id, flag.status, "Updated task " + id + " to " + name + via(req.origin, flag.flag, req.actor),
                      edit_notes(req.origin, flag.flag, req.actor)),
           "Marked task " + id + " as " + name);
    // The gate's own refusal is checkpoint's wording; its list of unmet
    // dependencies is all plan needs to say it in plan's.
    Result<DependencyGate> deps = gate_on_dependencies(fs, ws, id, flag.status, /*force=*/true);
    if (!deps) return deps.error();
    DependencyVerdict verdict;
    judge_dependencies(verdict, edits.warnings, id, flag.status, deps->unmet, req.force);
    if (Status s = settle_dependencies(verdict, edits.entries); !s) return s.error();
    const ClaimContext claimer = claim_context(req.agent, ws);
    Result<ClaimGate> claim = gate_one_claim(fs, ws, edits.entries, id, flag.status, claimer, req.force);
    if (!claim) return claim.error();
    TakenClaims taken(fs, ws, claimer);
    taken.add(*claim);

    Result<PlanResult> result = write_plan_change(fs, ws, session, edits, edit->text, PlanResult{},
                                                  [&] { remember_plan_status_edit(fs, ws, *edit, id, flag.status); });
    if (result) {
        taken.keep();
        settle_claims(fs, ws, {*claim}, claimer, *result);
    } else {
        taken.keep_if_it_stands(result.error());
    }
    return result;
}

}  // namespace

Result<PlanResult> plan_command(const FileSystem& fs, const WorkspacePaths& ws, const PlanRequest& req) {
    if (req.reset && !req.yes) {
        return Error::usage("--reset requires --yes to confirm that plan.small.yml is replaced by the template");
    }
    if (Status s = check_flag_formats(req); !s) return s.error();
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, true, req.lock_wait});
    if (!session) return session.error();

    PlanResult result;
    const bool exists = fs.file_exists(plan_path(ws));
    if (const auto lone = lone_status_change(req); lone && exists) {
        return change_one_status(fs, ws, req, *session, lone->first, *lone->second);
    }
    Result<TaskIdReservation> ids = reserve_new_ids(fs, ws, req, exists);
    if (!ids) return ids.error();
    if (const auto titles = lone_adds(req); titles && exists) {
        if (std::optional<Result<PlanResult>> added = add_from_caches(fs, ws, *session, *titles, *ids, req.origin, req.actor)) {
            return std::move(*added);
        }
    }
    PlanEdits edits;
    edits.origin = req.origin;
    edits.actor = req.actor;
    edits.id_floor = ids->floor;
    if (!ids->warning.empty()) edits.warnings.push_back(ids->warning);
    std::optional<Document> written;  // the plan as it is, whose formatting the write keeps (D20)
    if (req.reset || !exists) {
        edits.plan = plan_template();
        edits.changed = true;
        result.created = !exists;
        if (!exists) edits.messages.push_back("Creating new plan from template");
    } else {
        Result<Document> plan = load_valid_plan_document(fs, ws);
        if (!plan) return plan.error();
        edits.plan = to_yaml_value(plan->root());
        written = std::move(*plan);
    }
    edits.before = plan_index_of(edits.plan);
    edits.fs = &fs;

    if (req.reset) {
        edits.entries.push_back(plan_entry("meta/plan-reset", TaskStatus::Completed,
                                           "Reset plan.small.yml to the template", "small plan --reset"));
        edits.messages.push_back("Plan reset to template");
    } else if (Status s = apply_plan_flags(edits, req, fs, ws, session->run_replay_id); !s) {
        return s.error();
    }
    const ClaimContext claimer = claim_context(req.agent, ws);
    TakenClaims taken(fs, ws, claimer);  // given back unless the change is written
    Result<std::vector<ClaimGate>> claims = gate_claims(fs, ws, edits, claimer, req.force, taken);
    if (!claims) return claims.error();
    if (!edits.changed) {
        result.messages.push_back("No changes made to plan");
        result.replay_id = session->run_replay_id;
        return result;
    }

    const PlanText text = written ? text_keeping_format(*written, edits, ws) : PlanText{emit_document(edits.plan), {}};
    if (req.from) {
        if (Status s = check_merged_plan(text.text, ws); !s) return s.error();
    }
    Result<PlanResult> written_result = write_plan_change(fs, ws, *session, edits, text.text, std::move(result), [&] {
        if (text.parsed) remember_plan_write(fs, ws, *text.parsed);
        else remember_valid_plan(fs, ws, plan_index_of(edits.plan));
    });
    if (written_result) {
        taken.keep();
        settle_claims(fs, ws, *claims, claimer, *written_result);
    } else {
        taken.keep_if_it_stands(written_result.error());
    }
    return written_result;
}

}  // namespace small
