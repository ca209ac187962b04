// What a new progress entry is, shared by every command that appends one
// (progress add, plan, checkpoint, handoff, reset, accept): its fields, the
// instant it asks for, and the checks it must pass before the append.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/base/timestamp.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/layout.hpp"
#include "small/model/task_status.hpp"
#include "small/model/workspace.hpp"

namespace small {

// The --task and --status flags of a command that records a task's status
// (progress add, checkpoint), checked in the order it reports them: a blank
// task, then a status (trimmed, case-insensitive) that is not `allowed`.
struct StatusFlagRule {
    std::span<const TaskStatus> allowed;
    std::string_view blank_task;  // the Usage message for a blank --task
    std::string_view must_be;     // the allowed words as "invalid status" names them
};
Result<TaskStatus> parse_status_flag(std::string_view task, std::string_view status, const StatusFlagRule& rule);

// --at / --after, parsed (both given, or a bad value: Usage errors).
struct EntryTime {
    std::optional<Instant> at;     // exact instant, strictly after the last entry
    std::optional<Instant> after;  // max(after + 1 ns, last + 1 ns)
};
Result<EntryTime> parse_entry_time(const std::optional<std::string>& at, const std::optional<std::string>& after);

// The instant to request from the append (nullopt: "now", bumped past the
// last entry). Reads the log's tail for --after; call under the lock.
Result<std::optional<Instant>> requested_instant(const FileSystem& fs, const WorkspacePaths& ws, const EntryTime& time);

// An instant to validate a not-yet-written entry with.
Instant probe_instant(const EntryTime& time);

// Evidence fields (D9) and notes given on the command line.
// Evidence written when no evidence field is given, so every entry `small`
// writes satisfies D9's evidence rule; readers that show work (the primer)
// leave these texts out: they say nothing.
inline constexpr std::string_view kDefaultProgressEvidence = "Recorded progress via small progress add";
inline constexpr std::string_view kDefaultCheckpointEvidence = "Recorded checkpoint via small checkpoint";

struct EntryFields {
    std::optional<std::string> evidence, verification, command, test, link, commit, notes;
};
// A Usage error when a field is exactly a placeholder small printed (check/placeholder).
Status refuse_placeholders(const EntryFields& fields);

// task_id, status, the given fields that are not blank (in schema order;
// `default_evidence` when no evidence field is given, so D9 holds) and
// replayId when `run_id` is not empty. A plan edit records the task's
// status as the plan has it, which may be a word of its own (the entry
// check then refuses it): hence a written status, not only the five.
YamlValue build_progress_entry(const std::string& task, const WrittenStatus& status, const EntryFields& fields,
                               std::string_view default_evidence, const std::string& run_id);

// A new entry (without timestamp) checked alone, as a one-entry log stamped
// `timestamp`: schema, per-entry invariants, and no secret or insecure link
// (an append-only log could never drop them again). Usage errors for values
// that came from flags; Invalid for the rest.
Status validate_progress_entry(const YamlValue& entry, const std::string& timestamp, const WorkspacePaths& ws);

// D18: what the plan's dependencies say about an entry that records `status`
// for `task` (progress add, checkpoint, apply).
struct DependencyGate {
    std::vector<std::string> unmet;  // ids of the dependencies not completed, in depends_on order
    std::string warning;             // starting (in_progress) before them; "" otherwise
    std::string forced_note;         // completing with --force: what the entry's notes record; "" otherwise
};

// Completing a task whose dependencies are not all completed is Invalid,
// naming them, with "nothing written" and what to do, unless `force` (then
// `forced_note` is set). Starting one sets `warning`. Other statuses and
// meta/ ids pass untouched. Reads the plan's outline (cached by its stamp).
Result<DependencyGate> gate_on_dependencies(const FileSystem& fs, const WorkspacePaths& ws, const std::string& task,
                                            TaskStatus status, bool force);

// `notes` with the gate's forced note in front ("forced: …; <notes>").
std::optional<std::string> notes_with_forced(const std::optional<std::string>& notes, const DependencyGate& gate);

}  // namespace small
