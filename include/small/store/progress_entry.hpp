// What a new progress entry is, shared by every command that appends one
// (progress add, plan, checkpoint, handoff, reset, accept): its fields, the
// instant it asks for, and the checks it must pass before the append.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "small/base/result.hpp"
#include "small/base/timestamp.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/layout.hpp"

namespace small {

// The five progress statuses, in the order messages list them.
inline constexpr std::string_view kProgressStatuses[] = {"pending", "in_progress", "completed", "blocked",
                                                         "cancelled"};

// --at / --after, parsed (both given, or a bad value: Usage errors).
struct EntryTime {
    std::optional<Instant> at;     // exact instant, strictly after the last entry
    std::optional<Instant> after;  // max(after + 1 ns, last + 1 ns)
};
Result<EntryTime> parse_entry_time(const std::optional<std::string>& at, const std::optional<std::string>& after);

// The instant to request from the append (nullopt: "now", bumped past the
// last entry). Reads the log's tail for --after; call under the lock.
Result<std::optional<Instant>> requested_instant(const WorkspacePaths& ws, const EntryTime& time);

// An instant to validate a not-yet-written entry with.
Instant probe_instant(const EntryTime& time);

// Evidence fields (D9) and notes given on the command line.
struct EntryFields {
    std::optional<std::string> evidence, verification, command, test, link, commit, notes;
};

// task_id, status, the given fields that are not blank (in schema order;
// `default_evidence` when no evidence field is given, so D9 holds) and
// replayId when `run_id` is not empty.
YamlValue build_progress_entry(const std::string& task, const std::string& status, const EntryFields& fields,
                               std::string_view default_evidence, const std::string& run_id);

// A new entry (without timestamp) checked alone, as a one-entry log stamped
// `timestamp`: schema, per-entry invariants, and no secret or insecure link
// (an append-only log could never drop them again). Usage errors for values
// that came from flags; Invalid for the rest.
Status validate_progress_entry(const YamlValue& entry, const std::string& timestamp, const WorkspacePaths& ws);

}  // namespace small
