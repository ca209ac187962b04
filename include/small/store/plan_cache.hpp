// The plan's task ids and statuses, for the writes that must name an
// existing task (D14) without parsing the whole plan each time.
//
// The `plan.tasks` section of `.small-cache/plan.cache` keeps them under the
// plan file's version stamp (FileSystem::version_stamp: size, mtime, ctime, inode); a
// hand edit changes the stamp and the plan is parsed again. The plan's four
// caches (plan.tasks, plan.valid, plan.outline, plan.spans) are sections of
// that one file, all under one stamp. The cache is a shortcut only: it is
// written by rename and not fsynced, and a lost or stale one just costs a
// parse. Writers merge their section into the file without the lock, so two
// concurrent ones may drop each other's sections: that too only costs a parse.
#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/plan_summary.hpp"
#include "small/model/task_status.hpp"
#include "small/model/workspace.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small {

struct PlanTaskInfo {
    std::string id;
    WrittenStatus status;  // trimmed, lower-cased; blank is pending
};

struct PlanIndex {
    bool plan_exists = false;
    std::vector<PlanTaskInfo> tasks;  // plan order

    const PlanTaskInfo* find(std::string_view id) const;
    std::size_t count(std::string_view id) const;  // tasks with this id (2+: INV-P11)
    std::vector<std::string> ids() const;
};

// The index of plan.small.yml as it is now. A plan that does not parse is an
// Invalid error with its file:line:column (a task cannot be checked against it).
Result<PlanIndex> load_plan_index(const FileSystem& fs, const WorkspacePaths& ws);

// The outline status and emit summarise (model/plan_summary), from
// the `plan.outline` section while the plan file's stamp is unchanged, else
// parsed (a plan that does not parse is its Invalid error) and cached.
// Absent plan: nullopt.
Result<std::optional<std::vector<PlanTaskOutline>>> load_plan_outline(const FileSystem& fs,
                                                                      const WorkspacePaths& ws);

// The same outline cut down to task `id` and the tasks it depends on, in
// plan order (what the dependency gate reads): the other tasks' lines are
// not decoded. Without a matching cache: load_plan_outline's whole outline.
Result<std::optional<std::vector<PlanTaskOutline>>> load_plan_outline_near(const FileSystem& fs,
                                                                           const WorkspacePaths& ws,
                                                                           std::string_view id);

// A task's steps and acceptance criteria (the strings, in order).
struct TaskChecklist {
    std::vector<std::string> steps, acceptance;
};
// Those of task `id` (empty when the plan has no such task), from the
// `plan.checklists` section while the plan file's stamp is unchanged, else
// from one parse of the plan, which writes the section for every task: the
// primer shows the current task's work without parsing a large plan on
// every call. A plan that does not parse is its Invalid error.
Result<TaskChecklist> load_task_checklist(const FileSystem& fs, const WorkspacePaths& ws, std::string_view id);

// The index of a plan value or parsed plan, for the writers that hold one.
PlanIndex plan_index_of(const YamlValue& plan);
PlanIndex plan_index_of(const Document& plan);

// Stores `index` as the cache of the plan file as it now is on disk (call
// after writing the plan, under the lock).
void remember_plan_index(const FileSystem& fs, const WorkspacePaths& ws, const PlanIndex& index);

// D14: an Invalid error for a task id the plan does not have, naming the
// closest ids (or listing a few when none is close) and how to add one.
// `for_write` adds "nothing written".
Error unknown_task_error(const PlanIndex& index, const std::string& id, const WorkspacePaths& ws,
                         bool for_write = true);

// ok when `id` is a meta/ id or a task of the plan; else unknown_task_error.
Status require_plan_task(const PlanIndex& index, const std::string& id, const WorkspacePaths& ws);

// Issue 41: ok unless two or more tasks of the plan share `id` (INV-P11);
// then an Invalid error that names their lines (the plan is read again:
// this is the refusal's path only). A write, ready, claim or the resume
// point acting on such an id would act on one of them only.
Status refuse_ambiguous_task(const FileSystem& fs, const WorkspacePaths& ws, const PlanIndex& index,
                             const std::string& id);

// The line format of these caches: fields escaped ('\\' '\n' ' ' as
// "\\\\" "\\n" "\\s") and separated by one space, one record a line.
// decode_cache_lines calls `take` with each line's fields and is false when
// a line is unterminated, badly escaped or refused by `take`.
void append_cache_field(std::string& out, std::string_view field);
bool decode_cache_lines(std::string_view body, const std::function<bool(std::vector<std::string>&)>& take);
// The same without copies: each line's fields as written (escaped, checked),
// to compare with a field escaped by append_cache_field or to read with
// cache_field_text.
bool scan_cache_lines(std::string_view body, const std::function<bool(std::span<const std::string_view>)>& take);
std::string cache_field_text(std::string_view field);

// Small caches under .small-cache/ keyed by a file's version stamp: the body
// is returned only while `stamp` is unchanged. The plan's caches
// (kPlanTasksName, ...) are sections of kPlanCacheName: writing one keeps
// the others while their stamp is the same, and write_stamped_caches
// replaces several in one write.
std::optional<std::string> read_stamped_cache(const FileSystem& fs, const WorkspacePaths& ws, const char* name,
                                              const std::string& stamp);
void write_stamped_cache(const FileSystem& fs, const WorkspacePaths& ws, const char* name, const std::string& stamp,
                         const std::string& body);
// Several of the plan's sections from one read of kPlanCacheName, in the
// order of `names` (each nullopt when absent or stale).
std::vector<std::optional<std::string>> read_stamped_caches(const FileSystem& fs, const WorkspacePaths& ws,
                                                            const std::string& stamp,
                                                            std::initializer_list<const char*> names);
struct StampedCacheBody {
    const char* name;
    std::string body;
};
void write_stamped_caches(const FileSystem& fs, const WorkspacePaths& ws, const std::string& stamp,
                          const std::vector<StampedCacheBody>& caches);

// plan.small.yml as an editable value, once the file as it is has passed
// the plan schema and the plan invariants (errors carry file:line:column;
// an invalid plan is never rewritten). The edits plan and checkpoint make (a
// status from the enum, a new task with a fresh id and a title, an acyclic
// dependency on an existing task) keep a valid plan valid, so the result is
// emitted without a second parse. A plan this tool wrote is not validated
// again: the `plan.valid` section remembers its size, mtime, ctime and inode.
Result<YamlValue> load_valid_plan(const FileSystem& fs, const WorkspacePaths& ws);
// The plan schema and the plan invariants on `doc` (a plan about to be
// written, or as read): the document itself, or the first error with its
// position, labelled as plan.small.yml.
Result<Document> validate_plan_document(Document doc, const WorkspacePaths& ws);
// The same as load_valid_plan, as the parsed document (positions and source kept).
Result<Document> load_valid_plan_document(const FileSystem& fs, const WorkspacePaths& ws);

// Records that the plan file as it now is on disk is valid and has the
// tasks of `index` (after a write, under the lock).
// `more`: other plan caches of the same plan bytes, written in the same step.
void remember_valid_plan(const FileSystem& fs, const WorkspacePaths& ws, const PlanIndex& index, std::vector<StampedCacheBody> more = {});
// The `plan.outline` section holding `outline` (for remember_valid_plan's
// `more` when the writer knows the outline of the text it wrote).
StampedCacheBody plan_outline_cache(const std::vector<PlanTaskOutline>& outline);

}  // namespace small
