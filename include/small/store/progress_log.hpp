// Appending one entry to `.small/progress.small.yml` (D7, D8):
// O(1) in the size of the log, existing bytes never rewritten, crash-safe.
// The command layer (`small progress add`, checkpoint, ...) builds the entry
// and holds the WorkspaceLock around recover_progress + append_progress_entry.
//
// Two small files under `<root>/.small-cache/` make this work:
//   progress.tail     what an append needs to know about the end of the log
//                     (size, last instant, append point), keyed by the log's
//                     size, mtime, ctime, inode, device and a hash of its last
//                     bytes. Only ever a shortcut: when it does not match the
//                     file it is ignored and rebuilt by parsing the log once.
//   progress.journal  written before an in-place append and removed after it
//                     is durable; tells recover_progress how to undo a torn one.
//
// Crash-safety invariant (D7: "loses no entry whose command already exited 0",
// "every artifact parseable at any instant"):
//   The journal is made durable before the first byte of an append is
//   written, and append_progress_entry returns success only after the
//   entry's bytes are fsynced (the journal is then unlinked; that need not
//   be durable, see below).
//   recover_progress removes bytes only when (1) the journal names this very
//   file (device + inode), (2) the file's size lies in (expected_size,
//   expected_size + length], and (3) the bytes after expected_size are NOT
//   the complete journaled bytes but a shorter prefix of them (zero fill
//   after the prefix allowed: what a power cut can leave). An acknowledged
//   append never matches (3): its bytes are fsynced, so the complete copy is
//   there and is kept; and any later append replaces the journal before
//   writing. Bytes before expected_size are never touched. Hence no
//   acknowledged entry is ever removed, and after recovery the log ends on a
//   complete entry, as it did before the interrupted append. This holds even
//   if the journal's removal was lost in a power cut (the resurrected journal
//   finds its complete bytes and keeps them). A complete but unacknowledged
//   entry (killed after the fsync, before returning) is kept too:
//   at-least-once, so a retried command may record the same step twice.
// Readers take no lock: during the microseconds of the append's write() a
// concurrent reader may see a partial last entry (a parse error at the very
// end of the file); such a reader should re-read once before reporting it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/base/timestamp.hpp"
#include "small/model/layout.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small {

// What an append needs to know about the end of the log.
struct ProgressTail {
    std::uint64_t size = 0;     // bytes in the file
    Instant last_instant;       // the last entry's timestamp (when has_entries)
    bool has_entries = false;
    AppendPoint point;          // where and how the next item goes
};

// The tail of the progress log. O(1) when `.small-cache/progress.tail`
// matches the file; otherwise the whole file is parsed once and the cache
// rewritten. Errors: the file is missing or unreadable (System), it does not
// parse or has a shape that cannot be appended to (Invalid, with
// file:line:column), or its last entry's timestamp is invalid (Invalid,
// "existing progress timestamps invalid: ... (run 'small progress migrate' to
// repair)"). The cache is keyed by the log's identity, size, mtime and ctime
// (FileInfo) and a hash of its last bytes. Callers should hold the workspace lock.
Result<ProgressTail> read_tail(const FileSystem& fs, const WorkspacePaths& ws);

// D8: `now`, or last + 1 ns when the clock is not ahead of the last entry.
Instant next_timestamp(Instant now, const ProgressTail& tail);

struct AppendResult {
    Instant timestamp;           // the entry's instant
    std::string timestamp_text;  // as written (format_timestamp_utc9)
    std::uint64_t new_size = 0;  // size of the log after the append
    YamlValue entry;             // the entry as written, `timestamp` first
    // Set when the entry had to be stamped after an entry dated more than
    // kFutureToleranceSeconds ahead of the clock: names that entry (position,
    // timestamp) and what to do. Only the first entry of an append carries it.
    std::string clock_warning;
};

// Appends one entry (a mapping; any `timestamp` member is replaced) to the
// log. The caller holds the WorkspaceLock. `requested_at` (--at) must be
// strictly after the last entry (else Invalid, "... must be after previous
// entry ..."), otherwise the current time is used, bumped past the last
// entry (D8). Runs recover_progress first.
//
// The bytes go at the end of the file with FileSystem::append_file, guarded by
// the journal. The one exception is `entries: []` (a fresh log): a block item
// cannot follow `[]`, so those two bytes must become the item; the whole
// (entry-less, hence tiny) file is then replaced atomically with
// write_file_atomic, which changes no entry and needs no journal.
Result<AppendResult> append_progress_entry(const FileSystem& fs, const WorkspacePaths& ws, const YamlValue& entry_without_timestamp,
                                           std::optional<Instant> requested_at);

// Several entries appended in ONE write (all or none survive a crash), with
// strictly increasing timestamps: the first as append_progress_entry
// chooses it, each next one max(now, previous + 1 ns). The work among them
// is recorded as this checkout's (store/local_work) unless `record_local`
// is false: a multi-file change records it once the whole change stands.
Result<std::vector<AppendResult>> append_progress_entries(const FileSystem& fs, const WorkspacePaths& ws,
                                                          const std::vector<YamlValue>& entries,
                                                          std::optional<Instant> requested_at,
                                                          bool record_local = true);

// What an in-place append writes and where: enough to tell, after a crash,
// a torn append (a prefix of `bytes` after `expected_size`) from a complete one.
struct AppendRecord {
    std::uint64_t dev = 0;            // the log's identity when the append was prepared
    std::uint64_t ino = 0;
    std::uint64_t expected_size = 0;  // the log's size before the append
    std::string bytes;                // exactly what the append writes
};

// The two halves of append_progress_entries, for a caller that journals
// the append inside a larger change (store/workspace_change): first the
// entries are stamped and rendered (recover_progress and read_tail run
// here), then written.
struct PendingAppend {
    ProgressTail tail;                     // the log's end before the append
    std::vector<AppendResult> results;     // one per entry; new_size set by the write
    std::string items;                     // the rendered items
    std::optional<AppendRecord> in_place;  // unset for `entries: []` (the file is replaced whole)
};
Result<PendingAppend> prepare_progress_append(const FileSystem& fs, const WorkspacePaths& ws, const std::vector<YamlValue>& entries,
                                             std::optional<Instant> requested_at);

// Who guards an in-place append against a torn write: its own journal
// (progress.journal, as described above), or the caller, which has made an
// AppendRecord durable in its own journal and recovers it with
// settle_interrupted_append.
enum class TornAppendGuard { OwnJournal, CallersJournal };
Result<std::vector<AppendResult>> write_progress_append(const FileSystem& fs, const WorkspacePaths& ws, PendingAppend pending,
                                                        TornAppendGuard guard, bool record_local);

// Cuts a torn append described by `record` off the log, by the rule at the
// top of this file; a complete append, or bytes that are not the record's,
// are left alone. Errors only when a torn append could not be cut.
Status settle_interrupted_append(const FileSystem& fs, const AppendRecord& record, const std::string& file);

// Whether the record's bytes are all in the log at their place; nullopt
// when the log is no longer the file the record names (another inode).
std::optional<bool> append_landed(const FileSystem& fs, const AppendRecord& record, const std::string& file);

// Finishes or undoes an append that was interrupted (see the invariant
// above), under the lock, before anything reads the log's tail. With no
// journal it only removes stale temporary files. A journal that does not
// describe the current file (other inode, size outside
// [expected_size, expected_size + length], bytes that are not its own) is
// stale: it is deleted and the log is left alone.
Status recover_progress(const FileSystem& fs, const WorkspacePaths& ws);

// Test hook: how many times read_tail has parsed a whole log (the cold path)
// in this process.
std::size_t progress_full_parses_for_tests();

}  // namespace small
