// Per-artifact invariants: global rules (INV-G*), intent (INV-I*),
// constraints (INV-C*), plan (INV-P*), progress (INV-R*), handoff (INV-H*).
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "rules_internal.hpp"
#include "small/check/entry_evidence.hpp"
#include "small/model/plan_model.hpp"
#include "small/base/text.hpp"
#include "small/base/timestamp.hpp"

namespace small::rules {

void Reporter::error(std::string_view rule, NodeRef at, std::string message, std::string hint, NodeRef fallback) {
    Finding f;
    f.rule = std::string(rule);
    f.file = file_;
    f.file_order = order_;
    f.mark = at.valid() ? at.mark() : fallback.mark();
    f.message = std::move(message);
    f.hint = std::move(hint);
    out_.push_back(std::move(f));
}

void Reporter::warning(std::string_view rule, NodeRef at, std::string message, std::string hint) {
    error(rule, at, std::move(message), std::move(hint));
    out_.back().severity = Severity::Warning;
}

bool is_blank(NodeRef node) {
    return !node.valid() || node.is_null() || (node.is_string() && trim(node.as_string()).empty());
}

std::string show(NodeRef node) { return shown_value(node); }

Mark key_mark(NodeRef mapping, std::string_view key) {
    for (std::size_t i = 0; i < mapping.size(); ++i) {
        if (mapping.key(i) == key) return mapping.key_node(i).mark();
    }
    return mapping.mark();
}

namespace {

// Where a field is, or (when it is missing) the mapping that lacks it.
NodeRef field_or(NodeRef mapping, std::string_view key) {
    const NodeRef v = mapping.find(key);
    return v.valid() ? v : mapping;
}

bool non_empty_string(NodeRef node) { return node.is_string() && !trim(node.as_string()).empty(); }

const std::vector<std::string_view>& allowed_keys(ArtifactType type) {
    static const std::vector<std::string_view> intent = {"small_version", "owner", "intent", "scope", "success_criteria"};
    static const std::vector<std::string_view> constraints = {"small_version", "owner", "constraints"};
    static const std::vector<std::string_view> plan = {"small_version", "owner", "tasks"};
    static const std::vector<std::string_view> progress = {"small_version", "owner", "entries"};
    static const std::vector<std::string_view> handoff = {"small_version", "owner", "summary", "resume",
                                                          "links", "replayId", "run"};
    switch (type) {
        case ArtifactType::Intent: return intent;
        case ArtifactType::Constraints: return constraints;
        case ArtifactType::Plan: return plan;
        case ArtifactType::Progress: return progress;
        case ArtifactType::Handoff: return handoff;
    }
    return intent;
}

}  // namespace

void check_global(NodeRef root, ArtifactType type, Reporter& r) {
    const NodeRef version = root.find("small_version");
    if (!(version.is_string() && version.as_string() == "1.0.0")) {
        r.error("INV-G1", version, "small_version must be exactly \"1.0.0\", got: " + show(version),
                "set `small_version: \"1.0.0\"` (quoted)", root);
    }
    const NodeRef owner = root.find("owner");
    if (!(owner.is_string() && (owner.as_string() == "human" || owner.as_string() == "agent"))) {
        r.error("INV-G2", owner, "owner must be \"human\" or \"agent\", got: " + show(owner), {}, root);
    }
    const auto& allowed = allowed_keys(type);
    for (std::size_t i = 0; i < root.size(); ++i) {
        if (std::find(allowed.begin(), allowed.end(), root.key(i)) != allowed.end()) continue;
        r.error("INV-G3", root.key_node(i),
                "unknown top-level key " + quoted_excerpt(root.key(i)) + " for " + std::string(artifact_name(type)) + " artifact",
                "remove it or move it into an allowed field");
    }
}

namespace {

void check_owner(NodeRef root, std::string_view expected, std::string_view type, Reporter& r) {
    const NodeRef owner = root.find("owner");
    if (owner.is_string() && owner.as_string() == expected) return;
    r.error(type == "intent" ? "INV-I1" : type == "constraints" ? "INV-C1" : type == "plan" ? "INV-P1"
            : type == "progress" ? "INV-R1" : "INV-H1",
            owner, std::string(type) + " must have owner: \"" + std::string(expected) + "\"",
            "set `owner: \"" + std::string(expected) + "\"`", root);
}

}  // namespace

void check_intent(NodeRef root, Reporter& r) {
    check_owner(root, "human", "intent", r);
    if (!non_empty_string(root.find("intent"))) {
        r.error("INV-I2", field_or(root, "intent"), "intent.intent must be a non-empty string", "say what the work should achieve");
    }
    const NodeRef scope = root.find("scope");
    if (!scope.is_mapping()) {
        r.error("INV-I3", field_or(root, "scope"), "intent.scope must be an object with include/exclude arrays",
                "add `scope: {include: [], exclude: []}`");
    } else {
        if (!scope.find("include").is_sequence()) {
            r.error("INV-I4", field_or(scope, "include"), "intent.scope.include must be an array");
        }
        if (!scope.find("exclude").is_sequence()) {
            r.error("INV-I5", field_or(scope, "exclude"), "intent.scope.exclude must be an array");
        }
    }
    // Unlike the reference, a bad scope does not hide a bad success_criteria.
    if (!root.find("success_criteria").is_sequence()) {
        r.error("INV-I6", field_or(root, "success_criteria"), "intent.success_criteria must be an array");
    }
}

void check_constraints(NodeRef root, Reporter& r) {
    check_owner(root, "human", "constraints", r);
    const NodeRef list = root.find("constraints");
    if (!list.is_sequence() || list.size() == 0) {
        r.error("INV-C2", field_or(root, "constraints"), "constraints.constraints must be a non-empty array",
                "list at least one constraint with id, rule and severity");
        return;
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
        const NodeRef item = list.item(i);
        const std::string at = "constraints[" + std::to_string(i) + "]";
        if (!item.is_mapping()) {
            r.error("INV-C3", item, at + " must be an object");
            continue;
        }
        if (!non_empty_string(item.find("id"))) r.error("INV-C4", field_or(item, "id"), at + ".id must be a non-empty string");
        if (!non_empty_string(item.find("rule"))) {
            r.error("INV-C5", field_or(item, "rule"), at + ".rule must be a non-empty string");
        }
        const NodeRef severity = item.find("severity");
        if (!(severity.is_string() && (severity.as_string() == "error" || severity.as_string() == "warn"))) {
            r.error("INV-C6", field_or(item, "severity"), at + ".severity must be \"error\" or \"warn\", got: " + show(severity));
        }
    }
}

namespace {

// depends_on (D6), with dependencies read as an alias.
NodeRef task_dependencies(NodeRef task) {
    const NodeRef deps = task.find("depends_on");
    return deps.valid() ? deps : task.find("dependencies");
}

// A task's status as every rule reads it: trimmed, lower-cased, blank is pending.
WrittenStatus read_status(NodeRef task) {
    const NodeRef status = task.find("status");
    return normal_task_status(status.is_string() ? status.as_string() : std::string_view());
}

// D18: a completed task whose dependencies are not all completed. A warning:
// the reference accepts it, and verdicts stay the reference's.
void check_completed_dependencies(NodeRef tasks, const std::vector<std::vector<std::size_t>>& edges, Reporter& r) {
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        if (!read_status(tasks.item(i)).is(TaskStatus::Completed)) continue;
        std::string unmet;
        for (const std::size_t d : edges[i]) {
            const WrittenStatus status = read_status(tasks.item(d));
            if (status.is(TaskStatus::Completed)) continue;
            unmet += (unmet.empty() ? "" : ", ") + excerpt(trim(tasks.item(d).find("id").as_string())) + " (" +
                     excerpt(status.word()) + ")";
        }
        if (unmet.empty()) continue;
        const NodeRef task = tasks.item(i);
        r.warning("INV-P10", task.find("status"),
                  "task " + excerpt(trim(task.find("id").as_string())) +
                      " is completed but its dependencies are not: " + unmet,
                  "complete the dependencies, or set this task back to what it really is (small plan --pending ID); "
                  "small checkpoint refuses this unless --force");
    }
}

// D6: dependencies must name plan tasks, and must not form a cycle.
void check_plan_dependencies(NodeRef tasks, Reporter& r) {
    std::unordered_map<std::string_view, std::size_t> index;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const NodeRef id = tasks.item(i).find("id");
        if (id.is_string()) index.emplace(trim(id.as_string()), i);
    }
    std::vector<std::vector<std::size_t>> edges(tasks.size());
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const NodeRef task = tasks.item(i);
        const NodeRef deps = task_dependencies(task);
        if (!deps.valid() || deps.is_null()) continue;
        const std::string task_id(trim(task.find("id").as_string()));
        if (!deps.is_sequence()) {
            r.error("INV-P6", deps, "tasks[" + std::to_string(i) + "] dependencies must be a list of task ids");
            continue;
        }
        for (std::size_t k = 0; k < deps.size(); ++k) {
            const NodeRef dep = deps.item(k);
            const auto it = dep.is_string() ? index.find(trim(dep.as_string())) : index.end();
            if (it == index.end()) {
                r.error("INV-P6", dep, "task " + excerpt(task_id) + " depends on unknown task " + show(dep),
                        "add that task to the plan or remove the dependency");
            } else if (std::find(edges[i].begin(), edges[i].end(), it->second) == edges[i].end()) {
                edges[i].push_back(it->second);  // a repeated dependency is one edge
            }
        }
    }
    check_completed_dependencies(tasks, edges, r);
    // Iterative DFS with colours; report each cycle once, as a path.
    std::vector<int> colour(tasks.size(), 0);
    for (std::size_t start = 0; start < tasks.size(); ++start) {
        if (colour[start] != 0) continue;
        std::vector<std::pair<std::size_t, std::size_t>> stack = {{start, 0}};
        colour[start] = 1;
        while (!stack.empty()) {
            auto& [node, next] = stack.back();
            if (next == edges[node].size()) {
                colour[node] = 2;
                stack.pop_back();
                continue;
            }
            const std::size_t to = edges[node][next++];
            if (colour[to] == 0) {
                colour[to] = 1;
                stack.push_back({to, 0});
            } else if (colour[to] == 1) {
                std::string path;
                bool on = false;
                for (const auto& frame : stack) {
                    on = on || frame.first == to;
                    if (on) path += excerpt(trim(tasks.item(frame.first).find("id").as_string())) + " -> ";
                }
                path += excerpt(trim(tasks.item(to).find("id").as_string()));
                r.error("INV-P7", task_dependencies(tasks.item(to)), "dependency cycle: " + path,
                        "remove one of these dependencies");
            }
        }
    }
}

// D6 names five statuses; the schema allows any value, so a typo would
// silently read as a task that is never runnable nor settled. Statuses are
// read trimmed and case-insensitively (as S1 does), so only that is judged.
void check_task_status(NodeRef task, const std::string& at, Reporter& r) {
    const NodeRef status = task.find("status");
    if (is_blank(status)) return;  // missing or blank reads as pending
    const std::vector<std::string> statuses = status_names(kTaskStatuses);
    const std::string read = status.is_string() ? lower_ascii(trim(status.as_string())) : std::string();
    if (std::find(statuses.begin(), statuses.end(), read) != statuses.end()) return;
    const std::vector<std::string> near = closest_matches(read, statuses, 1);
    r.warning("INV-P8", status,
              at + ".status " + show(status) + " is not a plan status (pending, in_progress, completed, blocked, "
                   "cancelled)" + (near.empty() ? "" : "; did you mean \"" + near.front() + "\"?"),
              "write one of the five statuses (small plan --done/--pending/--blocked/--in-progress/--cancel ID does)");
}

// Tasks may carry any key (schema), so a misspelt known key is silently
// ignored: `stauts: completed` leaves the task pending.
void check_task_keys(NodeRef task, const std::string& at, Reporter& r) {
    for (std::size_t i = 0; i < task.size(); ++i) {
        const std::string_view key = task.key(i);
        if (std::find(std::begin(kTaskKeys), std::end(kTaskKeys), key) != std::end(kTaskKeys)) continue;
        for (std::string_view known : kTaskKeys) {
            if (!one_typo_apart(key, known)) continue;
            r.warning("INV-P9", task.key_node(i),
                      at + " key \"" + std::string(key) + "\" is not a task key; did you mean \"" +
                          std::string(known) + "\"?",
                      "rename the key: no rule or command reads \"" + std::string(key) + "\"");
            break;
        }
    }
}

// Two tasks with one id: the reference accepts them (a warning keeps its
// verdicts, and the shared case verdict/078), but an id then names two tasks,
// so every write, `ready`, `claim` and the resume point refuse it (issue 41).
void check_duplicate_ids(NodeRef tasks, Reporter& r) {
    std::unordered_map<std::string_view, std::size_t> first;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const NodeRef id = tasks.item(i).find("id");
        if (!id.is_string() || trim(id.as_string()).empty()) continue;
        const auto [it, fresh] = first.emplace(trim(id.as_string()), i);
        if (fresh) continue;
        const NodeRef earlier = tasks.item(it->second).find("id");
        r.warning("INV-P11", id,
                  "task id " + quoted_excerpt(std::string(it->first)) + " is used again by tasks[" + std::to_string(i) +
                      "] (first by tasks[" + std::to_string(it->second) + "], line " +
                      std::to_string(earlier.mark().line) + "); writes, ready and claim refuse an id two tasks share",
                  "give one of the two tasks a new, unused id in .small/plan.small.yml (and move its progress entries "
                  "to it), or remove the duplicate");
    }
}

}  // namespace

void check_plan(NodeRef root, Reporter& r) {
    check_owner(root, "agent", "plan", r);
    const NodeRef tasks = root.find("tasks");
    if (!tasks.is_sequence() || tasks.size() == 0) {
        r.error("INV-P2", field_or(root, "tasks"), "plan.tasks must be a non-empty array",
                "add a task (small plan --add \"<title>\")");
        return;
    }
    bool all_mappings = true;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const NodeRef task = tasks.item(i);
        const std::string at = "tasks[" + std::to_string(i) + "]";
        if (!task.is_mapping()) {
            r.error("INV-P3", task, at + " must be an object");
            all_mappings = false;
            continue;
        }
        if (!non_empty_string(task.find("id"))) r.error("INV-P4", field_or(task, "id"), at + ".id must be a non-empty string");
        if (!non_empty_string(task.find("title"))) {
            r.error("INV-P5", field_or(task, "title"), at + ".title must be a non-empty string");
        }
        check_task_status(task, at, r);
        check_task_keys(task, at, r);
    }
    check_duplicate_ids(tasks, r);
    if (all_mappings) check_plan_dependencies(tasks, r);
}

}  // namespace small::rules

namespace small::rules {

namespace {

// INV-R8: every later entry is stamped after this one (D8), so a date far
// ahead of the clock is a typo or a wrong clock, not a plan.
void check_not_ahead(NodeRef stamp, Instant at, Instant now, const std::string& n, Reporter& r) {
    if (!too_far_ahead(at, now)) return;
    r.warning("INV-R8", stamp,
              "progress entry " + n + " timestamp \"" + format_timestamp_short(at) + "\" is " +
                  duration_text(at.seconds - now.seconds) + " ahead of the clock (" + format_timestamp_short(now) +
                  "); every entry written after it is stamped after it",
              "if the date is wrong, correct it and the entries stamped after it; if this machine's clock is "
              "behind, set it right");
}

}  // namespace

void check_progress(NodeRef root, Instant now, Reporter& r) {
    check_owner(root, "agent", "progress", r);
    const NodeRef entries = root.find("entries");
    if (!entries.is_sequence()) {
        r.error("INV-R2", field_or(root, "entries"), "progress.entries must be an array", "use `entries: []` for an empty log");
        return;
    }
    bool have_previous = false;
    Instant previous;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const NodeRef entry = entries.item(i);
        const std::string n = std::to_string(i);
        if (!entry.is_mapping()) {
            r.error("INV-R3", entry, "entries[" + n + "] must be an object");
            continue;
        }
        const NodeRef task_id = entry.find("task_id");
        if (!non_empty_string(task_id)) {
            r.error("INV-R4", field_or(entry, "task_id"), "progress entry " + n + " must include task_id (non-empty string)");
        }
        const NodeRef stamp = entry.find("timestamp");
        if (stamp.valid() && !stamp.is_string() && !stamp.is_null()) {
            r.error("INV-R5", stamp,
                    "progress entry " + n + " timestamp " + show(stamp) + " invalid: timestamp must be a string, got " +
                        kind_name(stamp.kind()) + " (expected RFC3339Nano with fractional seconds, strictly increasing)",
                    "quote it, e.g. \"2025-01-15T10:00:00.000000000Z\"");
            continue;
        }
        Result<Instant> parsed = parse_progress_timestamp(stamp.as_string());
        if (!parsed) {
            r.error("INV-R5", field_or(entry, "timestamp"),
                    "progress entry " + n + " timestamp " + show(stamp) + " invalid: " + parsed.error().message +
                        " (expected RFC3339Nano with fractional seconds, strictly increasing)",
                    "small progress migrate, or write e.g. 2025-01-15T10:00:00.000000000Z");
            continue;
        }
        if (have_previous && !(previous < *parsed)) {
            r.error("INV-R6", stamp,
                    "progress entry " + n + " timestamp \"" + format_timestamp_short(*parsed) +
                        "\" must be after previous entry \"" + format_timestamp_short(previous) +
                        "\" (expected strictly increasing RFC3339Nano)",
                    "entries are append-only: give this entry a later timestamp");
            continue;
        }
        previous = *parsed;
        have_previous = true;
        check_not_ahead(stamp, *parsed, now, n, r);
        if (!entry_has_evidence(entry)) {
            r.error("INV-R7", entry,
                    "progress entry " + n + " (task_id: " + excerpt(task_id.scalar_text()) +
                        ") must have at least one evidence field (evidence, verification, command, test, link, commit)",
                    "add evidence, verification, command, test, link, or commit to the entry");
        }
    }
}

void check_handoff(NodeRef root, Reporter& r) {
    check_owner(root, "agent", "handoff", r);
    if (!non_empty_string(root.find("summary"))) {
        r.error("INV-H2", field_or(root, "summary"), "handoff.summary must be a non-empty string",
                "small handoff --summary \"<summary>\"");
    }
    const NodeRef resume = root.find("resume");
    if (!resume.is_mapping()) {
        r.error("INV-H3", field_or(root, "resume"), "handoff.resume must be an object", "small handoff");
    } else {
        const NodeRef current = resume.find("current_task_id");
        if (current.valid() && !current.is_null() && !current.is_string()) {
            r.error("INV-H4", current, "handoff.resume.current_task_id must be a string or null");
        } else if (current.is_string() && trim(current.as_string()).empty()) {
            r.error("INV-H5", current, "handoff.resume.current_task_id must not be an empty string",
                    "use null (or leave it out) when there is no current task");
        }
        if (!resume.find("next_steps").is_sequence()) {
            r.error("INV-H6", field_or(resume, "next_steps"), "handoff.resume.next_steps must be an array");
        }
    }
    if (!root.find("links").is_sequence()) {
        r.error("INV-H7", field_or(root, "links"), "handoff.links must be an array", "use `links: []` when there are none");
    }
}

}  // namespace small::rules
