#include "small/lsp/task_facts.hpp"

#include <algorithm>

#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/workspace.hpp"

namespace small::lsp {

namespace {

std::string string_of(NodeRef node) { return node.is_string() ? std::string(node.as_string()) : std::string(); }

std::size_t indent_of(std::string_view line) {
    std::size_t n = 0;
    while (n < line.size() && line[n] == ' ') ++n;
    return n;
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// The key a line sets (`  - task_id: "x"` -> task_id), "" when none.
std::string_view key_of(std::string_view line) {
    std::size_t i = indent_of(line);
    if (starts_with(line.substr(i), "- ")) i = line.find_first_not_of(' ', i + 1);
    if (i == std::string_view::npos) return {};
    const std::size_t colon = line.find(':', i);
    if (colon == std::string_view::npos) return {};
    return line.substr(i, colon - i);
}

bool takes_task_id(std::string_view key) {
    return key == "task_id" || key == "current_task_id" || key == "depends_on" || key == "dependencies";
}

// A block list item (`    - "task-2"`) under a `depends_on:` key above it.
bool in_depends_on_list(const LineIndex& lines, std::size_t n) {
    const std::string_view line = lines.line(n);
    const std::size_t indent = indent_of(line);
    if (!starts_with(line.substr(indent), "-")) return false;
    for (std::size_t up = n; up-- > 0;) {
        const std::string_view above = lines.line(up);
        if (above.find_first_not_of(' ') == std::string_view::npos) continue;
        const std::size_t above_indent = indent_of(above);
        if (above_indent > indent || (above_indent == indent && starts_with(above.substr(indent), "-"))) continue;
        const std::string_view key = key_of(above);
        return key == "depends_on" || key == "dependencies";
    }
    return false;
}

}  // namespace

const TaskFacts* TaskIndex::find(std::string_view id) const {
    const auto it = std::find_if(tasks.begin(), tasks.end(), [&](const TaskFacts& t) { return t.id == id; });
    return it == tasks.end() ? nullptr : &*it;
}

Result<TaskIndex> index_plan(std::string_view plan_text) {
    YamlLimits limits;
    limits.parallel = false;  // a plan is small; no threads for it
    Result<Document> doc = parse_yaml(std::string(plan_text), "plan", limits);
    if (!doc) return doc.error();
    TaskIndex index;
    const NodeRef tasks = doc->root().valid() ? doc->root().find("tasks") : NodeRef();
    if (!tasks.is_sequence()) return index;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const NodeRef task = tasks.item(i);
        if (!task.is_mapping()) continue;
        const NodeRef id = task.find("id");
        if (!id.is_string() || id.as_string().empty()) continue;
        TaskFacts facts{std::string(id.as_string()), string_of(task.find("title")), string_of(task.find("status")), {},
                        id.mark().line, id.mark().column};
        if (facts.status.empty()) facts.status = "pending";
        NodeRef deps = task.find("depends_on");
        if (!deps.valid()) deps = task.find("dependencies");
        for (std::size_t d = 0; deps.is_sequence() && d < deps.size(); ++d) {
            if (deps.item(d).is_string()) facts.depends_on.emplace_back(deps.item(d).as_string());
        }
        index.tasks.push_back(std::move(facts));
    }
    return index;
}

Result<std::map<std::string, NewestEntry>> newest_entries(const FileSystem& fs, const std::string& log_path) {
    std::map<std::string, NewestEntry> newest;
    Status read = for_each_log_entry(
        fs, log_path, log_path, [&] { newest.clear(); },
        [&](NodeRef entry) {
            const std::string task = string_of(entry.find("task_id"));
            const std::string evidence = string_of(entry.find("evidence"));
            if (!task.empty() && !evidence.empty()) {
                newest[task] = NewestEntry{string_of(entry.find("timestamp")), string_of(entry.find("status")), evidence};
            }
            return true;
        });
    if (!read) return read.error();
    return newest;
}

std::string hover_text(const TaskFacts& task, const std::string& holder, const NewestEntry* newest) {
    std::string text = visible(task.id) + ": " + visible(task.title) + "\nstatus: " + visible(task.status);
    text += "\nholder: " + (holder.empty() ? std::string("nobody (no live claim)") : visible(holder));
    if (!task.depends_on.empty()) {
        text += "\ndepends on:";
        for (const std::string& d : task.depends_on) text += " " + visible(d);
    }
    if (newest) {
        text += "\nlast evidence (" + visible(newest->timestamp) + ", " + visible(newest->status) +
                "): " + visible(newest->evidence);
    } else {
        text += "\nlast evidence: none in the progress log";
    }
    return text;
}

CompletionPlace completion_place(const LineIndex& lines, Position p) {
    const std::string_view line = lines.line(p.line);
    const std::size_t at = std::min(lines.offset_of(p) - lines.offset_of({p.line, 0}), line.size());
    std::size_t begin = at;
    while (begin > 0 && line[begin - 1] != ' ' && line[begin - 1] != '"' && line[begin - 1] != '\'' &&
           line[begin - 1] != '[' && line[begin - 1] != ',') {
        --begin;
    }
    const std::string_view key = key_of(line);
    const bool after_colon = line.find(':') != std::string_view::npos && line.find(':') < begin;
    if (key == "status" && after_colon) return {CompletionKind::Status, begin};
    if (takes_task_id(key) && after_colon) return {CompletionKind::TaskId, begin};
    if (key.empty() && in_depends_on_list(lines, p.line)) return {CompletionKind::TaskId, begin};
    return {};
}

}  // namespace small::lsp
