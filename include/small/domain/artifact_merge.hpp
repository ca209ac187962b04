// Three-way merges of the `.small/` files, as the git merge driver
// (`small merge`) needs them: pure functions over the three texts (common
// ancestor, CURRENT, OTHER) that return the merged text or the conflicts.
// Nothing here touches the disk. The rules are docs/design.md D17 and
// docs/git.md.
#pragma once

#include <cstddef>
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

}  // namespace small
