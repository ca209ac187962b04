// A plan write that keeps the author's formatting (D20): the new plan, as
// data, is applied to the old file's bytes as the smallest edits that make
// it, and everything else — comments, blank lines, key order, quoting,
// indentation, flow or block style, line endings — stays byte for byte.
//
// Handled, each only where the old text allows it:
//   * a scalar field of a task changed (status, title, priority, ...): its
//     bytes are replaced, quoted as the old value was (plain stays plain when
//     that re-reads as the same string);
//   * items appended to or dropped from a list of scalars (depends_on,
//     steps, acceptance), block or flow;
//   * a field added to a task: a line after the task's last one, at its
//     fields' indentation, quoted like its other strings;
//   * tasks appended: after the last task, shaped and quoted like it
//     (separated by a blank line when the tasks are);
//   * a task removed: its lines and the comment lines directly above it.
// Anything else (a top-level field or a task's field removed, tasks
// reordered, a nested value changed, a multi-line scalar, an alias...) is
// not attempted: the result says why and where, and the caller writes the
// file in house style and says so. Every edited text is parsed again and
// must hold exactly the new plan, or it is not used.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "small/doc/document.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small {

struct PlanTextEdit {
    std::optional<std::string> text;  // the edited file; nullopt: not possible in place
    std::string why;                  // when not: what could not be kept
    std::uint32_t line = 0;           // and where (1-based; 0 = the whole file)
    std::optional<Document> parsed;   // `text` as parsed by the read-back check (for the plan's caches)
    // Issue 41: comments of `old` that `text` no longer has (a removed task's
    // or dependency's, a field set to null), each as "<line>: # text", so the
    // write can say so instead of dropping them without a word.
    std::vector<std::string> dropped_comments;
};

// The comments of a YAML text (a '#' at a line's start or after a blank,
// outside quotes), as (1-based line, "# text").
std::vector<std::pair<std::uint32_t, std::string>> yaml_comments(std::string_view text);

// `old` is the plan as parsed (with its source text); `target` the plan to
// write. `donor` (the merge's other side): a task appended that it holds
// with the same value, at the same columns, is copied with its own lines
// and leading comments instead of being written in `old`'s style.
PlanTextEdit edit_plan_text(const Document& old, const YamlValue& target, const Document* donor = nullptr);

// Whether each line is the text of a block scalar (`key: |` or `- >-` and
// the deeper or blank lines after it): a `#` there is not a comment.
std::vector<bool> block_scalar_text(const std::vector<std::string_view>& lines);

// Where each task is written: [from, to) holds its lines, the comment lines
// directly above it included (as a removal takes them). Empty when the tasks
// are not a block list of mappings alike.
struct TaskRegion {
    std::string id;
    std::size_t from = 0, to = 0;
};
std::vector<TaskRegion> plan_task_regions(const Document& plan);

// Where the plan's last two tasks are written: `from` starts the lines of
// the one before the last (its leading comments included), `insert_at` is
// where a task appended after the last goes. A task appended by editing
// just those lines (as `tasks:` + them) is the edit the whole file gets, so
// `plan --add` need not parse the plan (domain/plan_status_edit). nullopt
// for fewer than two tasks, or tasks edit_plan_text would not append to.
struct PlanTail {
    std::size_t from = 0, insert_at = 0;
};
std::optional<PlanTail> plan_tail(const Document& plan);

}  // namespace small
