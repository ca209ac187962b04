// Reading the newest progress entries without parsing the whole log, for
// `small progress list` and `small plan show ID`.
//
// A log is one block sequence under `entries:`; a line that starts an item
// at the sequence's indentation is a safe cut point (item content, block
// scalars and continuation lines are indented deeper). The query reads a
// window at the end of the file, parses the complete items in it, and
// widens the window (x4) only while it still needs older entries. A log of
// an unusual shape (flow style, `entries` not found near the top) or a
// window that does not parse falls back to parsing the whole file, so the
// answer is always the same as a full read; only the cost differs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/base/timestamp.hpp"
#include "small/model/layout.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small {

struct EntryQuery {
    std::optional<std::string> task;    // task_id equals (trimmed)
    std::optional<std::string> status;  // status equals (trimmed, case-insensitive)
    std::optional<Instant> since;       // timestamp at or after (entries are in time order, INV-R5)
    std::string run_id;                 // replayId equals ("" = every run)
    bool signal_only = false;           // skip noise entries (is_signal_entry)
    bool work_only = false;             // skip bookkeeping too: plan edits, claims, meta/ (is_bookkeeping_entry)
    std::size_t limit = 0;              // the newest N matches; 0 = all
};

struct EntryList {
    std::vector<YamlValue> entries;  // newest first
    bool more = false;               // further matches exist beyond `limit`
    bool whole_log_parsed = false;   // the fallback ran (or the window reached the start)
};

// `status`'s "signal" entries: a non-blank task_id that is not `apply` or
// `meta/apply*`, and notes other than "apply: execution started" (the
// start marker of a command whose outcome has its own entry).
bool is_signal_entry(const NodeRef& entry);

// One entry as `status` and `emit` list it (the reference's fields).
struct ProgressItem {
    std::string timestamp, task_id, status;  // always reported, possibly ""
    std::string evidence, notes;             // only string values
    std::string command_summary;             // command_summary, else command
    std::string command_ref, command_sha256;
};
ProgressItem progress_item_of(const YamlValue& entry);
// Where the items of a block `entries:` sequence start, and their indent.
struct SequenceStart {
    std::size_t offset = 0;
    std::size_t indent = 0;
};

// Whether `line` starts an item of a block sequence indented by `indent`.
bool starts_item(std::string_view line, std::size_t indent);

// The `entries:` block sequence in `head` (the start of a log; `whole_file`
// when it is the whole log); nullopt when the log is not a plain block
// sequence near the top (readers then parse the whole file).
std::optional<SequenceStart> find_sequence(std::string_view head, bool whole_file);

// Errors: the log is missing or unreadable (System), does not parse
// (Invalid, file:line:column from the full parse).
Result<EntryList> query_entries(const FileSystem& fs, const WorkspacePaths& ws, const EntryQuery& query);

}  // namespace small
