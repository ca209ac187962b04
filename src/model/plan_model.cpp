// Plan edits and task-queue rules (see the header).
#include "small/model/plan_model.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include "small/base/text.hpp"
#include "small/model/plan_text_edit.hpp"

namespace small {

namespace {

const YamlValue& tasks_of(const YamlValue& plan) {
    static const YamlValue empty = YamlValue::array();
    if (!plan.is_object() || !plan.contains("tasks") || !plan["tasks"].is_array()) return empty;
    return plan["tasks"];
}

std::string task_id(const YamlValue& task) {
    if (!task.is_object() || !task.contains("id") || !task["id"].is_string()) return {};
    return task["id"].get<std::string>();
}

}  // namespace

std::optional<std::size_t> find_task(const YamlValue& plan, std::string_view id) {
    const YamlValue& tasks = tasks_of(plan);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        if (task_id(tasks[i]) == id) return i;
    }
    return std::nullopt;
}

std::string next_task_id(const YamlValue& plan, std::int64_t floor) {
    std::vector<std::string> ids;
    for (const YamlValue& task : tasks_of(plan)) ids.push_back(task_id(task));
    return next_task_id(ids, floor);
}

std::int64_t highest_task_number(const std::vector<std::string>& ids) {
    std::int64_t max = 0;
    for (const std::string& id : ids) {
        if (id.size() <= 5 || id.rfind("task-", 0) != 0) continue;
        const std::string_view digits = std::string_view(id).substr(5);
        if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
        std::int64_t n = 0;
        if (std::from_chars(digits.data(), digits.data() + digits.size(), n).ec == std::errc()) max = std::max(max, n);
    }
    return max;
}

std::int64_t highest_task_number_in(std::string_view text) {
    std::int64_t best = 0;
    std::size_t at = 0;
    while ((at = text.find("task-", at)) != std::string_view::npos) {
        const std::size_t line = text.rfind('\n', at) + 1;  // npos + 1 == 0
        std::string_view before = trim(text.substr(line, at - line));
        if (!before.empty() && (before.back() == '"' || before.back() == '\'')) before.remove_suffix(1);
        before = trim(before);
        if (before.starts_with("-")) before = trim(before.substr(1));
        at += 5;
        if (before != "id:") continue;
        std::int64_t n = 0;
        const auto [end, ec] = std::from_chars(text.data() + at, text.data() + text.size(), n);
        if (ec == std::errc() && n > 0 && n <= 1'000'000'000) best = std::max(best, n);
    }
    return best;
}

std::string next_task_id(const std::vector<std::string>& ids, std::int64_t floor) {
    return "task-" + std::to_string(std::max(highest_task_number(ids), floor) + 1);
}

WrittenStatus task_status(const YamlValue& task) {
    if (!task.is_object() || !task.contains("status") || !task["status"].is_string()) return TaskStatus::Pending;
    return normal_task_status(task["status"].get<std::string>());
}

WrittenStatus normal_task_status(std::string_view raw) {
    std::string s = lower_ascii(trim(raw));
    return s.empty() ? WrittenStatus(TaskStatus::Pending) : WrittenStatus(std::move(s));
}

std::vector<std::string> task_dependencies(const YamlValue& task) {
    std::vector<std::string> out;
    for (const char* key : {"depends_on", "dependencies"}) {
        if (!task.is_object() || !task.contains(key) || !task[key].is_array()) continue;
        for (const YamlValue& d : task[key]) {
            if (!d.is_string()) continue;
            std::string id = d.get<std::string>();
            if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(std::move(id));
        }
    }
    return out;
}

std::vector<std::string> task_strings(const YamlValue& task, const char* key) {
    std::vector<std::string> out;
    if (!task.is_object() || !task.contains(key) || !task[key].is_array()) return out;
    for (const YamlValue& item : task[key]) {
        if (item.is_string()) out.push_back(item.get<std::string>());
    }
    return out;
}

std::vector<std::string> unmet_dependencies(const YamlValue& plan, std::string_view id) {
    const std::optional<std::size_t> at = find_task(plan, id);
    if (!at) return {};
    std::vector<std::string> unmet;
    for (const std::string& dep : task_dependencies(tasks_of(plan)[*at])) {
        const std::optional<std::size_t> d = find_task(plan, dep);
        if (!d || !task_status(tasks_of(plan)[*d]).is(TaskStatus::Completed)) unmet.push_back(dep);
    }
    return unmet;
}

bool is_bookkeeping_entry(std::string_view task_id, std::string_view evidence, std::string_view notes) {
    if (task_id.substr(0, 5) == "meta/") return true;
    // One scan for " via " (every marker starts so), then the markers compared in place:
    // a verdict folds every entry of the log through here.
    for (std::size_t at = evidence.find(" via "); at != std::string_view::npos; at = evidence.find(" via ", at + 1)) {
        const std::string_view rest = evidence.substr(at);
        for (const std::string_view via :
             {std::string_view(" via small plan"), std::string_view(" via small claim"),
              std::string_view(" via small release"), std::string_view(" via small merge"), kViaMcpPlanTool, kViaBoard}) {
            if (rest.starts_with(via)) return true;
        }
    }
    return notes.substr(0, 11) == "small plan " || notes.starts_with(kMcpPlanToolNotes) || notes.starts_with(kBoardNotes);
}

void set_task_status(YamlValue& task, TaskStatus status) { task["status"] = std::string(status_name(status)); }

std::optional<std::vector<std::string>> find_dependency_cycle(const YamlValue& plan) {
    const YamlValue& tasks = tasks_of(plan);
    std::map<std::string, std::vector<std::string>> edges;
    std::vector<std::string> order;
    for (const YamlValue& t : tasks) {
        const std::string id = task_id(t);
        if (id.empty() || edges.count(id)) continue;
        edges[id] = task_dependencies(t);
        order.push_back(id);
    }
    enum class Mark { New, Active, Done };
    std::map<std::string, Mark> mark;
    std::vector<std::string> path;
    std::optional<std::vector<std::string>> cycle;
    // Depth-first with an explicit stack: a long dependency chain must not
    // overflow the call stack.
    for (const std::string& start : order) {
        if (mark[start] != Mark::New) continue;
        std::vector<std::pair<std::string, std::size_t>> stack{{start, 0}};
        mark[start] = Mark::Active;
        path = {start};
        while (!stack.empty() && !cycle) {
            auto& [node, next] = stack.back();
            const std::vector<std::string>& deps = edges[node];
            if (next == deps.size()) {
                mark[node] = Mark::Done;
                stack.pop_back();
                path.pop_back();
                continue;
            }
            const std::string dep = deps[next++];
            if (!edges.count(dep)) continue;  // unknown ids are reported elsewhere
            if (mark[dep] == Mark::Active) {
                auto from = std::find(path.begin(), path.end(), dep);
                cycle = std::vector<std::string>(from, path.end());
                cycle->push_back(dep);
            } else if (mark[dep] == Mark::New) {
                mark[dep] = Mark::Active;
                path.push_back(dep);
                stack.emplace_back(dep, 0);
            }
        }
        if (cycle) return cycle;
    }
    return std::nullopt;
}

Status add_dependency(YamlValue& plan, std::string_view task, std::string_view dep) {
    const std::optional<std::size_t> at = find_task(plan, task);
    if (!at) return Error::invalid("task " + std::string(task) + " not found in plan.small.yml");
    if (!find_task(plan, dep)) return Error::invalid("dependency task " + std::string(dep) + " not found in plan.small.yml");
    if (task == dep) return Error::invalid("task " + std::string(task) + " cannot depend on itself");
    YamlValue& t = plan["tasks"][*at];
    const std::vector<std::string> deps = task_dependencies(t);
    if (std::find(deps.begin(), deps.end(), dep) != deps.end()) {
        return Error::invalid("dependency " + std::string(dep) + " already exists for task " + std::string(task));
    }
    const char* key = (!t.contains("depends_on") && t.contains("dependencies") && t["dependencies"].is_array())
                          ? "dependencies"
                          : "depends_on";
    const bool created = !t.contains(key) || !t[key].is_array();
    if (created) t[key] = YamlValue::array();
    t[key].push_back(std::string(dep));
    if (const auto cycle = find_dependency_cycle(plan)) {
        t[key].erase(t[key].size() - 1);  // a refused edit leaves the plan as it was
        if (created) t.erase(key);
        std::string path;
        for (const std::string& id : *cycle) path += (path.empty() ? "" : " -> ") + id;
        return Error::invalid("dependency " + std::string(dep) + " for task " + std::string(task) +
                              " would create a cycle: " + path);
    }
    return ok_status();
}

Status remove_dependency(YamlValue& plan, std::string_view task, std::string_view dep) {
    const std::optional<std::size_t> at = find_task(plan, task);
    if (!at) return Error::invalid("task " + std::string(task) + " not found in plan.small.yml");
    YamlValue& t = plan["tasks"][*at];
    const std::vector<std::string> deps = task_dependencies(t);
    if (std::find(deps.begin(), deps.end(), dep) == deps.end()) {
        std::string have;
        for (const std::string& d : deps) have += (have.empty() ? "" : ", ") + d;
        return Error::invalid("task " + std::string(task) + " does not depend on " + std::string(dep) +
                              (have.empty() ? " (it has no dependencies)" : " (its dependencies: " + have + ")"));
    }
    for (const char* key : {"depends_on", "dependencies"}) {
        if (!t.contains(key) || !t[key].is_array()) continue;
        YamlValue kept = YamlValue::array();
        for (const YamlValue& d : t[key]) {
            if (!(d.is_string() && d.get<std::string>() == dep)) kept.push_back(d);
        }
        if (kept.empty()) {
            t.erase(key);
        } else {
            t[key] = std::move(kept);
        }
    }
    return ok_status();
}

std::optional<std::string> next_runnable_task(const YamlValue& plan) {
    const YamlValue& tasks = tasks_of(plan);
    std::map<std::string, int> uses;  // issue 41: an id two tasks share is never the next task
    for (const YamlValue& t : tasks) ++uses[task_id(t)];
    for (const YamlValue& t : tasks) {
        if (task_status(t).is(TaskStatus::InProgress) && uses[task_id(t)] == 1) return task_id(t);
    }
    std::map<std::string, WrittenStatus> status;
    for (const YamlValue& t : tasks) status.emplace(task_id(t), task_status(t));
    for (const YamlValue& t : tasks) {
        if (!task_status(t).is(TaskStatus::Pending) || uses[task_id(t)] > 1) continue;
        const std::vector<std::string> deps = task_dependencies(t);
        const bool ready = std::all_of(deps.begin(), deps.end(), [&](const std::string& d) {
            const auto it = status.find(d);
            return it != status.end() && it->second.is(TaskStatus::Completed);
        });
        if (ready) return task_id(t);
    }
    return std::nullopt;
}

std::optional<std::string> first_blocked_task(const YamlValue& plan) {
    for (const YamlValue& t : tasks_of(plan)) {
        if (task_status(t).is(TaskStatus::Blocked)) return task_id(t);
    }
    return std::nullopt;
}

bool all_tasks_done(const YamlValue& plan) {
    const YamlValue& tasks = tasks_of(plan);
    return !tasks.empty() &&
           std::all_of(tasks.begin(), tasks.end(), [](const YamlValue& t) { return is_done(task_status(t)); });
}

NodeRef find_task_node(const Document& plan, std::string_view id) {
    const NodeRef tasks = plan.root().find("tasks");
    for (std::size_t i = 0; tasks.is_sequence() && i < tasks.size(); ++i) {
        const NodeRef t = tasks.item(i);
        if (t.find("id").is_string() && t.find("id").as_string() == id) return t;
    }
    return NodeRef();
}

std::string status_text_like(std::string_view old, TaskStatus status) {
    return scalar_styled(YamlValue(std::string(status_name(status))), scalar_quote(old));
}

std::string plan_text_with_status(const Document& plan, NodeRef task, TaskStatus status, std::string* warning) {
    const NodeRef current = task.find("status");
    if (current.is_string() && !plan.source().empty()) {
        if (const auto at = ScalarLocator(plan.source()).find(current.mark(), current.as_string())) {
            std::string text = plan.source();
            const std::string old = text.substr(at->offset, at->length);
            text.replace(at->offset, at->length, status_text_like(old, status));
            return text;
        }
    }
    YamlValue value = to_yaml_value(plan.root());
    const std::string id(task.find("id").as_string());
    set_task_status(value["tasks"][*find_task(value, id)], status);
    PlanTextEdit kept = edit_plan_text(plan, value);  // D20: e.g. a status field added to the task
    if (kept.text) return std::move(*kept.text);
    if (warning) {
        *warning = (kept.line ? ":" + std::to_string(kept.line) : std::string()) +
                   ": rewritten in house style, its comments and formatting not kept (" + kept.why + ")";
    }
    return emit_document(value);
}

}  // namespace small
