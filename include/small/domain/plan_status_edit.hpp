// The plan's two common edits made in place without parsing the plan while
// its caches describe the file as it is: one task's status set (checkpoint,
// `plan --done`...) and tasks appended (`plan --add`). On a 1,000-task plan
// a parse costs 30 M instructions, ten times the rest of a checkpoint.
//
// The `plan.spans` section of `.small-cache/plan.cache` keeps, under the plan
// file's version stamp (like plan.tasks), where each task's status value sits in the text: one line a
// task, "<id> <offset> <length>" (fields escaped as in plan_cache); a task
// whose status cannot be replaced in place has no line. The `plan.tail`
// section keeps where the last two tasks are written (model/plan_text_edit's
// PlanTail, "<from> <insert_at>"). After the write the plan caches (valid,
// tasks, outline, spans, tail) are moved on to the new file,
// so the next checkpoint or append parses nothing either. A missing, stale
// or malformed cache only means the plan is parsed (and validated) again.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/base/text.hpp"
#include "small/model/plan_text_edit.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/task_status.hpp"
#include "small/model/workspace.hpp"
#include "small/domain/progress_entry.hpp"
#include "small/store/plan_cache.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

struct PlanStatusEdit {
    std::string text;             // the plan text with the new status
    PlanIndex index;              // the plan's tasks, the edited one with its new status
    WrittenStatus previous_status;  // the task's status before (trimmed, lower-cased; blank is pending)
    std::string old_stamp;        // the plan file's version stamp the edit was made from ("" unknown)
    std::vector<std::pair<std::string, SourceRange>> spans;  // status values in `text`; empty: unknown
    std::optional<std::vector<PlanTaskOutline>> outline;  // the edited plan's outline, when the edit parsed it
    std::optional<PlanTail> tail;  // where the last two tasks are in `text`, when known
    std::string warning;          // the plan could not be edited in place (D20): where and why; "" when it was
};

// The plan with task `id`'s status set to `status`: from the caches when
// plan.valid, plan.tasks and plan.spans all match the file, else from the
// parsed plan. Errors: those of load_valid_plan_document; a task the plan
// does not have (unknown_task_error).
Result<PlanStatusEdit> plan_status_edit(const FileSystem& fs, const WorkspacePaths& ws, const std::string& id,
                                        TaskStatus status);

// After the edit is written (under the lock): the plan caches describe the
// file as it now is. Best effort.
void remember_plan_status_edit(const FileSystem& fs, const WorkspacePaths& ws, const PlanStatusEdit& edit,
                               const std::string& id, TaskStatus status);

// A status recorded as an entry and set in the plan in one locked, atomic
// change: what checkpoint does, and progress add when the plan says
// otherwise (one status per task, design.md D18). The caller holds the
// workspace lock (`session`).
struct StatusChange {
    std::string task;  // trimmed
    TaskStatus status = TaskStatus::Completed;
    EntryFields fields;                    // evidence fields and notes, as given
    std::string_view default_evidence;     // written when no evidence field is given (D9)
    std::optional<std::string> at, after;  // the entry's time (D8)
    bool force = false;                    // D18/D19 exceptions, recorded in the notes
    std::optional<std::string> agent;      // who writes (D19 claims)
};
struct StatusChangeWritten {
    YamlValue entry;                // as written, `timestamp` first
    std::string timestamp;
    WrittenStatus previous_status;  // as the plan had it
    std::string replay_id;
    bool pinned_run = false;
    bool plan_written = true;  // false: the plan changed meanwhile (a hand edit), only the entry was written
    std::vector<std::string> warnings;
};
// The change a checkpoint or progress add request asks for (both have these fields).
template <typename Request>
StatusChange status_change_of(const Request& req, std::string_view default_evidence) {
    return {std::string(trim(req.task)),
            req.status,
            {req.evidence, req.verification, req.command, req.test, req.link, req.commit, req.notes},
            default_evidence,
            req.at,
            req.after,
            req.force,
            req.agent};
}

// Errors: those of plan_status_edit, the dependency and claim gates, the
// entry's validation (Usage) and the commit.
Result<StatusChangeWritten> write_status_change(const FileSystem& fs, const WorkspacePaths& ws,
                                                const MutationSession& session, const StatusChange& change);

// `plan --add` without a parse: the tasks (id, title, status pending; ids
// as next_task_id gives them) appended by editing only the last two tasks'
// lines (plan_tail), which is the edit the whole file would get. nullopt
// when the caches (valid, tasks, tail) do not describe the file as it is,
// or that edit cannot be made: the caller then edits the parsed plan.
struct PlanAppendEdit {
    std::string text;              // the plan with the new tasks
    std::vector<std::string> ids;  // the new tasks' ids, in order
    PlanIndex index;               // the plan's tasks after the edit
    std::vector<StampedCacheBody> caches;  // the sections that describe `text` (tail; spans, outline when known)
};
// `id_floor`: the ids are above it (D21's reservation).
std::optional<PlanAppendEdit> plan_append_edit(const FileSystem& fs, const WorkspacePaths& ws,
                                               const std::vector<std::string>& titles, std::int64_t id_floor = 0);

// After the append is written (under the lock). Best effort.
void remember_plan_append(const FileSystem& fs, const WorkspacePaths& ws, const PlanAppendEdit& edit);

// After any other plan write (under the lock): `written` is the text written,
// as parsed; the plan's caches (valid, tasks, outline, spans) describe it, so
// the next status change parses nothing. Best effort.
void remember_plan_write(const FileSystem& fs, const WorkspacePaths& ws, const Document& written);

}  // namespace small
