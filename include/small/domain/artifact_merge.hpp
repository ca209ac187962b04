// Three-way merges of the `.small/` files, as the git merge driver
// (`small merge`) needs them: pure functions over the three texts (common
// ancestor, CURRENT, OTHER) that return the merged text or the conflicts.
// Nothing here touches the disk. The rules are docs/design.md D17 and
// docs/git.md.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/result.hpp"

namespace small {

// One thing the two sides disagree on that no rule settles.
struct MergeConflict {
    std::string id;       // task id (plan), "" when about the whole file or a top-level key
    std::string field;    // the field or top-level key, "" when about the whole file
    std::string message;  // what collides
    std::string hint;     // how to resolve it
};

struct MergeOutcome {
    std::string text;                      // the merged file (empty when there are conflicts)
    std::vector<MergeConflict> conflicts;  // empty: clean
    std::vector<std::string> notes;        // clean but worth saying (a bumped timestamp, a handoff to redo)
    std::vector<std::string> renamed;      // D21: OTHER's tasks this merge renamed, "task-3 -> task-5 (\"title\")"
    std::size_t ancestor_entries = 0;      // progress: entries kept from the ancestor
    std::size_t added_entries = 0;         // progress: new entries in the result
    std::size_t duplicate_entries = 0;     // progress: new entries both sides had
    std::size_t bumped_timestamps = 0;     // progress: new entries moved forward to stay strictly increasing
};

// Which merge rule a file gets, from its name (the %P path git passes).
enum class MergeKind { Progress, Plan, Handoff, Whole };
MergeKind merge_kind_for(std::string_view path);
const char* merge_rule_name(MergeKind kind);  // "progress", "plan", "handoff", "whole"

// The rule for `kind` over the three texts (one of the functions below).
Result<MergeOutcome> merge_by_rule(MergeKind kind, std::string_view ancestor, std::string_view current,
                                   std::string_view other, const std::string& display);

// progress.small.yml: the union of the three versions' entries by content
// (each once; one a side lacks is kept). The leading entries all three
// share keep their bytes (usually the whole ancestor); the rest follow by
// instant, the ancestor's entry first at a tie, then canonical JSON; a new
// entry not after the previous one moves to it plus 1 ns, and a copy an
// earlier merge's bump moved stands for its original (and nothing else
// stands for another entry: two entries 1 ns apart are two). A side that
// changed or moved (by at most 1 µs, not as a bump) an ancestor entry or
// changed the header, an entry that fails the schema or invariants, or a
// file that does not parse: Invalid (file label, line and column).
// `display` names the file in messages.
Result<MergeOutcome> merge_progress_texts(std::string_view ancestor, std::string_view current, std::string_view other,
                                          const std::string& display);

// plan.small.yml: three-way by task id and by field, values compared as
// data (status by rank completed > cancelled > blocked > in_progress >
// pending); new tasks follow the ancestor's by id; the same id added on
// both sides with different content is a conflict.
Result<MergeOutcome> merge_plan_texts(std::string_view ancestor, std::string_view current, std::string_view other,
                                      const std::string& display);

// Every other file as one value: identical sides or a one-sided change
// merge; two different changes are a conflict, except for the handoff
// (`handoff_keeps_current`), where CURRENT is kept with a note to run
// `small handoff` after the merge.
MergeOutcome merge_whole_texts(std::string_view ancestor, std::string_view current, std::string_view other,
                               bool handoff_keeps_current, const std::string& display);

// ---- D21: a task id added on both sides ----
//
// A task id both sides of a merge added with different content (two sides
// that ran `small plan --add` offline) is not a conflict. OTHER's task
// takes the next free id, its entries follow it, and the merged log records
// the rename in a bookkeeping entry, so that a later merge of a version
// that still has the old id maps it the same way. Pure functions over the
// three versions (ancestor, CURRENT, OTHER) of the plan and the progress
// log; the merge driver finds the sibling file's versions through git
// (merge_sides_from_git). The rules are docs/design.md D21 and docs/git.md.

// OTHER's new task `from` became `to`; `title` is its title then.
struct TaskRename {
    std::string from;
    std::string to;
    std::string title;
    bool operator==(const TaskRename&) const = default;
};

// The notes of the entry that records a rename, and back:
//   small merge: renamed task-3 -> task-5 (title "Write the docs")
// (the title as a JSON string). nullopt for any other notes.
std::string rename_note(const TaskRename& r);
std::optional<TaskRename> parse_rename_note(std::string_view notes);
// "task-3 -> task-5 (\"Write the docs\")", for messages.
std::string describe_rename(const TaskRename& r);

// The three versions of both files: [0] the common ancestor ("" when the
// file did not exist), [1] CURRENT, [2] OTHER.
struct WorkspaceMergeSides {
    std::string plan[3];
    std::string progress[3];
    // Of the files git merges with the driver in this merge (their three
    // versions all differ), the one whose driver says what to do after the
    // merge, so that it is said once: handoff.small.yml, else
    // progress.small.yml, else plan.small.yml.
    std::string advises;
};

// What the renames do to the sides before the rules merge them.
struct TaskRenames {
    std::vector<TaskRename> fresh;     // OTHER's tasks this merge renames (recorded in the merged log)
    std::vector<TaskRename> replayed;  // renames an earlier merge recorded, applied to a version from before it
    std::string plan[3];               // the sides with every rename applied (their other bytes kept)
    std::string progress[3];
};

// The renames the sides need: nullopt when none (no id added on both sides
// with different content, no version that predates a recorded rename).
// Invalid when they cannot be applied safely (a rename's new id is taken in
// a version that still has the old one, a value small cannot edit in
// place); the merge then goes on without them, and the collision is a
// conflict as before.
//
// Rules: a collision is an id both CURRENT and OTHER added since the
// ancestor with different content; OTHER's task takes the next free id
// (1 + the largest task-<N> of the three plans; several in id order), and
// with it every reference to the old id in OTHER's plan and OTHER's new
// entries (those neither the ancestor nor CURRENT has) that name it. A
// recorded rename (an entry with a rename note) applies to every version
// that lacks the record but descends from the renamed side: one that has
// an entry naming the old id which, renamed, is an entry of a version with
// the record (its title in the plan when it has no entry naming the old
// id); there the old id becomes the new one in the plan and in every
// entry, first.
Result<std::optional<TaskRenames>> task_renames(const WorkspaceMergeSides& sides);

// The merged log with one entry per fresh rename appended: task_id the new
// id, status that task's in `merged_plan`, evidence "Renamed task A to B
// via small merge", notes rename_note(), the replayId of the log's last
// entry that has one, at the log's last instant plus 1 ns (the same bytes
// whichever clone merges).
Result<std::string> with_rename_records(std::string_view merged_log, std::string_view merged_plan,
                                        const std::vector<TaskRename>& fresh, const std::string& display);

// The renames a log records, oldest first, each with its entry's timestamp
// (`small doctor`, `small merge --explain`).
struct RecordedRename {
    std::string timestamp;
    TaskRename rename;
};
std::vector<RecordedRename> recorded_renames(std::string_view progress_text);

// The merge driver's rule for a plan or progress file: merge_by_rule over
// the sides with the renames applied (when `sides` is given and they need
// any), the fresh renames recorded in the log and named in the outcome's
// notes. Without `sides`, or when the renames cannot be applied,
// merge_by_rule as it is.
Result<MergeOutcome> merge_with_renames(MergeKind kind, std::string_view ancestor, std::string_view current,
                                        std::string_view other, const std::string& display,
                                        const std::optional<WorkspaceMergeSides>& sides);

// Where the merge driver finds the other file of the pair: the commits git
// is merging (for a plan, progress or handoff file; the handoff's driver
// only needs `advises`). `top` is the work tree's top (git runs drivers there),
// `pathname` the file's path as git passes it (%P), `texts` the driver's
// %O %A %B. `sides_hint` is "BASE OURS THEIRS" (commits or trees, set by
// git-merge-small as SMALL_MERGE_SIDES); else `others` are the commits git
// names in GITHEAD_<id> (`git merge`, `git pull`): exactly one, merged into
// HEAD from their merge base. The sides are used only when the driver's
// three texts are that file in those commits; nullopt otherwise (a
// cherry-pick, a rebase, a criss-cross merge's virtual base, no git).
std::optional<WorkspaceMergeSides> merge_sides_from_git(const std::string& top, const std::string& pathname,
                                                        const std::string_view texts[3], const std::string& sides_hint,
                                                        const std::vector<std::string>& others);

}  // namespace small
