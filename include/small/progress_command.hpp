// The logic behind `small progress add` and `small progress migrate`
// (authoring.md §6 as amended by DECISIONS D4, D7, D8, D9). The CLI only
// parses flags and renders; everything that touches the workspace is here.
//
// progress add: one entry appended under the workspace lock with
// append_progress_entry (O(1), existing bytes never rewritten, D7). Only the
// NEW entry is validated (schema + per-entry invariants) before the append;
// the existing log is neither re-validated nor rewritten.
//
// progress migrate: the explicit repair D7 allows. It rewrites existing
// timestamps to the canonical 9-digit UTC form, bumping every timestamp that
// is not strictly after the previous one by 1 ns. Only the timestamp scalars
// change (comments and formatting elsewhere are kept) when they can be located
// in the source; otherwise the whole file is re-emitted. Fail-fast: any
// missing or unparseable timestamp aborts before anything is written.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/filesystem.hpp"
#include "small/result.hpp"
#include "small/timestamp.hpp"
#include "small/workspace.hpp"
#include "small/yaml_writer.hpp"

namespace small {

// Evidence written when no evidence field is given (authoring.md §6.1), so
// every entry `small` writes satisfies D9's evidence rule.
inline constexpr std::string_view kDefaultProgressEvidence = "Recorded progress via small progress add";

// The five progress statuses, in the order messages list them.
inline constexpr std::string_view kProgressStatuses[] = {"pending", "in_progress", "completed", "blocked",
                                                         "cancelled"};

struct ProgressAddRequest {
    std::string task;    // trimmed when stored; blank is a usage error
    std::string status;  // trimmed and lower-cased; must be a progress status
    // Evidence fields (D9) and notes, stored verbatim when not blank.
    std::optional<std::string> evidence, verification, command, test, link, commit, notes;
    std::optional<std::string> at;     // exact instant (strictly after the last entry)
    std::optional<std::string> after;  // max(after, last) + 1 ns
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

struct ProgressAddResult {
    YamlValue entry;             // as written, `timestamp` first
    std::string timestamp;       // 9-digit UTC
    bool task_exists_in_plan = false;
    std::string plan_status;     // the task's status in the plan ("" for meta/ ids)
    bool meta_task = false;      // task id starts with "meta/"
    bool created_log = false;    // progress.small.yml did not exist and was created
    std::vector<std::string> warnings;  // e.g. "the plan still says task X is pending; ..."
};

// Error kinds: Usage (bad flag value: status, --at/--after, both given,
// blank task, a field the schema rejects), System (no .small/, I/O),
// Busy (lock held), Invalid (a non-meta/ task the plan does not have, D14,
// with the closest ids; a plan that does not parse; --at not after the last
// entry, unusable log or workspace metadata, run replay id malformed).
Result<ProgressAddResult> progress_add(const FileSystem& fs, const WorkspacePaths& ws, const ProgressAddRequest& req);

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

struct ProgressMigrateRequest {
    WorkspaceScope scope = WorkspaceScope::Root;
    bool dry_run = false;  // report what would change, write nothing
    std::chrono::milliseconds lock_wait{10'000};
};

struct TimestampChange {
    std::size_t index = 0;  // 0-based entry index
    std::string before;     // as found
    std::string after;      // canonical
};

struct ProgressMigrateResult {
    std::string file;                     // absolute path of progress.small.yml
    std::size_t entries = 0;              // entries in the log
    std::vector<TimestampChange> changes; // empty: already canonical
    bool written = false;                 // the file was rewritten
    bool whole_file_rewritten = false;    // fallback: re-emitted (comments lost)
};

Result<ProgressMigrateResult> progress_migrate(const FileSystem& fs, const WorkspacePaths& ws,
                                               const ProgressMigrateRequest& req);

// RFC 3339 with optional fraction (0-9 digits), `Z`/`z` or an offset: what
// `progress migrate` accepts. Stricter readers use parse_progress_timestamp.
Result<Instant> parse_lenient_timestamp(std::string_view raw);

}  // namespace small
