// What the editor features know of the tasks: the plan's tasks with where
// each is defined, each task's newest progress entry, and what the cursor
// stands on (a task id, a place that takes a task id or a status). Pure
// functions over texts, so hover, definition and completion are tested
// without a server.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/lsp/text_position.hpp"

namespace small::lsp {

struct TaskFacts {
    std::string id, title, status;  // status as written ("pending" when none is)
    std::vector<std::string> depends_on;
    std::size_t id_line = 0, id_column = 0;  // the id's 1-based mark in the plan
};

struct TaskIndex {
    std::vector<TaskFacts> tasks;  // plan order
    const TaskFacts* find(std::string_view id) const;
};

// The plan's tasks; an error when the text does not parse (the caller keeps
// the last index that did: a plan half typed still has its ids).
Result<TaskIndex> index_plan(std::string_view plan_text);

struct NewestEntry {
    std::string timestamp, status, evidence;
};

// Each task's newest progress entry that carries evidence (the log's order:
// the last one written), read entry by entry (a long log in windows).
Result<std::map<std::string, NewestEntry>> newest_entries(const FileSystem& fs, const std::string& log_path);

// The hover of a task: id and title, status, who holds it (`holder`, "" when
// nobody), its newest evidence; plain text, every value made visible.
std::string hover_text(const TaskFacts& task, const std::string& holder, const NewestEntry* newest);

// What a completion at `p` offers: a task id where one is written
// (depends_on items, task_id, current_task_id), a status after `status:`.
enum class CompletionKind { None, TaskId, Status };
struct CompletionPlace {
    CompletionKind kind = CompletionKind::None;
    std::size_t begin = 0;  // byte offset in the line where the typed word starts
};
CompletionPlace completion_place(const LineIndex& lines, Position p);

}  // namespace small::lsp
