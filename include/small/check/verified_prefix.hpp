// The verified prefix of the progress log: once a verdict found the log
// clean up to some byte, the next one parses and checks only what was
// appended after it (git's index, for one append-only file). What the rules
// that span the log (order, S1, S2, the handoff's freshness) need from the
// verified entries travels with it; the bytes themselves are only hashed.
// It never changes a verdict: anything it cannot decide sends the verdict
// back to the whole log.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "small/base/filesystem.hpp"
#include "small/base/timestamp.hpp"
#include "small/doc/entry_windows.hpp"
#include "small/model/workspace.hpp"

namespace small {

// Which checks found the verified entries clean.
enum PrefixCheck : unsigned { kPrefixSchema = 1, kPrefixRules = 2, kPrefixStrict = 4 };

struct VerifiedPrefix {
    std::uint64_t length = 0;         // bytes [0, length) of progress.small.yml were verified
    std::uint64_t header_length = 0;  // bytes [0, header_length): the lines up to and including `entries:`
    std::uint32_t item_indent = 0;    // columns before each entry's `-`
    std::string hash;                 // fast_hash_hex of bytes [0, length)
    std::uint64_t entries = 0;
    unsigned checks = 0;              // PrefixCheck bits
    std::string last_timestamp;       // the newest entry's timestamp, as written
    std::map<std::string, bool> evidence;                   // S1: task id -> some entry has evidence
    std::map<std::string, std::set<std::string>> task_ids;  // S2: replayId -> task ids (not meta/)
    std::uint64_t work_entries = 0;   // HANDOFF-STALE: LogFacts's count and newest work entry
    std::string newest_work;
    // The file when it was all verified bytes (git's index entry): while it
    // keeps this stamp, recorded after the clock read stamp_clock_ns and not
    // racy, its bytes are not read again (stamp_proves_unchanged).
    std::optional<FileStamp> stamp;
    std::int64_t stamp_clock_ns = 0;
    bool operator==(const VerifiedPrefix&) const = default;
};

// Folds entries (a sequence node) into the carried facts.
void fold_entries(VerifiedPrefix& prefix, NodeRef entries);

// A prefix covering all of `progress` as loaded (its text is the whole
// file), found clean by `checks`; nullopt when its layout does not allow
// appending to be recognised (a flow `entries`, a key after it, a document
// marker, an alias, no final line break, a last entry that reads otherwise
// once another entry follows, ...).
std::optional<VerifiedPrefix> start_prefix(const Artifact& progress, unsigned checks);

// The log as the verdict sees it after a verified prefix: the header and
// the appended bytes, parsed as one document. The verified bytes are only
// hashed, streamed. nullopt when the file no longer starts with them or
// what follows them is not whole entries at the entries' indentation (the
// verdict then reads the whole log).
struct LogAfterPrefix {
    Artifact progress;       // header + appended entries
    std::uint64_t size = 0;  // the file's bytes, verified and appended
    std::string whole_hash;  // fast_hash_hex of all of them
    std::optional<FileStamp> stamp;  // the file's stamp throughout the reading, if it kept one
    std::int64_t clock_ns = 0;       // the change clock just before that stamp was taken
    bool trusted = false;            // the prefix's stamp vouched for the bytes: none was read
};
std::optional<LogAfterPrefix> load_after_prefix(const FileSystem& fs, const WorkspacePaths& ws,
                                                const VerifiedPrefix& prefix);

// Whether entries appended after `before` keep the log's order (INV-R6 at
// the seam) and no verified entry is now dated too far ahead (INV-R8).
bool continues_prefix(const VerifiedPrefix& before, NodeRef entries, Instant now);

// `before` extended to all of `after`'s file, whose appended entries were read
// behind the header as `appended`; nothing when the last of them could read
// otherwise once another entry follows.
std::optional<VerifiedPrefix> extend_prefix(const VerifiedPrefix& before, const Document& appended,
                                            const LogAfterPrefix& after);

// A file's stamp and the filesystem's change clock read just before it.
struct StampedFile {
    std::optional<FileStamp> stamp;  // none for a missing or non-regular file
    std::int64_t clock_ns = 0;       // 0: the filesystem cannot tell
};
StampedFile stamp_file(const FileSystem& fs, const std::string& path);

// `prefix` with the stamp the file had while it was read whole (`clock_ns`
// read before `stamp` was taken); no stamp when the file was not the same
// file, unchanged, throughout.
void record_stamp(VerifiedPrefix& prefix, const std::optional<FileStamp>& stamp, std::int64_t clock_ns);

}  // namespace small
