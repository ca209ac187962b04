// What `run diff` and `run show` need to know about a progress log (entry
// count, completed tasks, latest timestamp, entries per run) without
// building the document of a 100k-entry log.
//
// The items of the `entries:` block sequence are scanned line by line: a
// key line at the item's key indentation with a plain or simply quoted
// scalar is read directly. An item with anything the scanner is not sure of
// (a flow mapping, a quoted or complex key, a block or escaped scalar, a
// value on the next line, an anchor or tag) is parsed by the YAML loader on
// its own, and a log that is not one plain block sequence is parsed whole,
// so for a log the loader accepts the digest equals that of a full parse;
// only the cost differs. (A syntax error outside those four keys is found
// by validate/lint, not here.)
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/doc/entry_windows.hpp"

namespace small {

struct ProgressDigest {
    std::size_t entries = 0;
    std::set<std::string, std::less<>> completed_tasks;            // task_id of entries with status completed
    std::string latest;                                // raw text of the latest parseable timestamp, else the first one
    std::map<std::string, std::size_t, std::less<>> runs;          // replayId (as written) -> entries ("" = none)
};

// Errors: the text is not YAML (Invalid, `display`:line:column).
Result<ProgressDigest> digest_progress(std::string_view text, const std::string& display);

// The digest of `after` when it is `before` plus appended items (the usual
// case for two snapshots of one append-only log): `before_digest` merged
// with the digest of the appended bytes only. nullopt when `after` does not
// extend `before` that way (the caller digests it whole).
std::optional<ProgressDigest> digest_appended(const ProgressDigest& before_digest, std::string_view before,
                                              std::string_view after);

// The digest of the log `dir`/`name` (neither followed, as
// FileSystem::read_file_no_follow reads them): a long one digested a window
// of whole items at a time, each merged as digest_appended merges appended
// items (memory flat in its length); a short one, or one whose layout
// windows cannot follow, read whole. Errors: as read_file_no_follow, and
// digest_progress's.
Result<ProgressDigest> digest_progress_file(const FileSystem& fs, const std::string& dir, const std::string& name,
                                            const std::string& display, const LogWindows& windows = {});

}  // namespace small
