// The plan as an editable value (D6) and the task-queue rules that
// plan, checkpoint and handoff share. Edits work on the whole parsed document, so task fields and
// top-level keys the tool does not know are kept in place on every rewrite.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/result.hpp"
#include "small/doc/document.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/task_status.hpp"

namespace small {

// The task keys the protocol and this tool read (others are kept, unread).
inline constexpr std::string_view kTaskKeys[] = {"id",     "title",      "steps",       "acceptance",
                                                 "status", "depends_on", "dependencies"};

// Index of the task whose id is exactly `id`.
std::optional<std::size_t> find_task(const YamlValue& plan, std::string_view id);

// `task-<N+1>`, N the largest number among ids of the exact form task-<digits>
// (0 when none); other ids are ignored and gaps are not reused.
// `floor`: a number reserved elsewhere (D21, domain/task_ids); the id is
// above it too.
std::string next_task_id(const YamlValue& plan, std::int64_t floor = 0);
std::string next_task_id(const std::vector<std::string>& ids, std::int64_t floor = 0);  // the same from the plan's ids
// The N of the largest task-<N> among `ids` (0 when none).
std::int64_t highest_task_number(const std::vector<std::string>& ids);
// The largest N of an `id: task-<N>` line in a plan's text (0 when none):
// another side's plan read without parsing it (D21's id reservation).
std::int64_t highest_task_number_in(std::string_view plan_text);

// A task's status, trimmed and lower-cased; blank or missing means pending.
WrittenStatus task_status(const YamlValue& task);
// The same rule on a status scalar's text.
WrittenStatus normal_task_status(std::string_view raw);

// Ids the task depends on: `depends_on` (D6), then `dependencies` (read as
// an alias), duplicates dropped, in order.
std::vector<std::string> task_dependencies(const YamlValue& task);
// The task's `key` list (steps, acceptance): its strings in order, anything else skipped.
std::vector<std::string> task_strings(const YamlValue& task, const char* key);

// The dependencies of task `id` that are not `completed` (unknown ids
// included), in order; empty when the task is unknown or ready (D18).
std::vector<std::string> unmet_dependencies(const YamlValue& plan, std::string_view id);

// How the MCP server's plan tool signs the log lines of its plan edits
// (evidence "Added task task-8 via the MCP plan tool", notes starting with
// "MCP plan tool"), where the CLI names its flag.
inline constexpr std::string_view kViaMcpPlanTool = " via the MCP plan tool";
inline constexpr std::string_view kMcpPlanToolNotes = "MCP plan tool";
// The same for a person's edit on `small serve --write`'s board: "Added task
// task-8 via the board (small serve) by alice", notes "small serve board: …".
inline constexpr std::string_view kViaBoard = " via the board (small serve)";
inline constexpr std::string_view kBoardNotes = "small serve board";

// True for the log lines of plan edits (`small plan --add/--title/--depends/
// --done …`, evidence "… via small plan --FLAG" or notes "small plan --FLAG";
// the MCP plan tool's, signed as above),
// the claims' lines (" via small claim" / " via small release", D19), a
// merge's record of a renamed task (" via small merge", D21) and
// meta/ entries: bookkeeping, not work. Only work entries (progress
// add, checkpoint, apply) make a task "started" (D18).
bool is_bookkeeping_entry(std::string_view task_id, std::string_view evidence, std::string_view notes);

// Sets `status`, keeping the key's position when it exists.
void set_task_status(YamlValue& task, TaskStatus status);

// The task whose id is `id` in a parsed plan (a null ref when none).
NodeRef find_task_node(const Document& plan, std::string_view id);

// The plan's text with `task`'s status set (checkpoint, apply
// --auto-checkpoint). Replaces just the status scalar's bytes when it can be
// located, else edits the text in place (model/plan_text_edit, D20: a task
// without a status gets a line); only when neither can, re-emits the whole
// plan and says why in `warning` (":<line>: rewritten …", to follow the
// file's name).
std::string plan_text_with_status(const Document& plan, NodeRef task, TaskStatus status,
                                  std::string* warning = nullptr);

// `status` written as `old` (a status scalar's source text) was: plain,
// 'single' or "double" quoted (D20).
std::string status_text_like(std::string_view old, TaskStatus status);

// Adds `dep` to the dependencies of task `task_id` (into `depends_on`, or
// into `dependencies` when only that key exists). Errors, in this order:
// unknown task, unknown dependency, self-dependency, duplicate (Invalid),
// and a cycle the new edge would close (Invalid, listing it: a -> b -> a).
Status add_dependency(YamlValue& plan, std::string_view task_id, std::string_view dep);

// Removes `dep` from the dependencies of task `task_id` (from `depends_on`
// and `dependencies`; a list left empty is dropped). Invalid when the task
// is unknown or does not depend on `dep` (the message lists what it does
// depend on).
Status remove_dependency(YamlValue& plan, std::string_view task_id, std::string_view dep);

// A dependency cycle as a closed path (first id repeated at the end), or
// nothing. Deterministic: searches from tasks in plan order.
std::optional<std::vector<std::string>> find_dependency_cycle(const YamlValue& plan);

// The task an agent should work on: the first `in_progress` task, else the
// first `pending` task whose dependencies all exist and are `completed`.
std::optional<std::string> next_runnable_task(const YamlValue& plan);

// The id of the first `blocked` task.
std::optional<std::string> first_blocked_task(const YamlValue& plan);

// True when the plan has tasks and every one is `completed` (or `cancelled`).
bool all_tasks_done(const YamlValue& plan);

}  // namespace small
