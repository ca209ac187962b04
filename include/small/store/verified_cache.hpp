// Where the progress log's verified prefix (check/verified_prefix) is kept
// between verdicts: `.small-cache/progress.verified`. It is a cache: a
// missing, unreadable, corrupt or other-version file reads as none, and a
// failed write only costs speed (a read-only workspace still verifies).
// It is kept only where .small-cache/ exists (every write of small makes
// it): a verdict never creates the folder, so verifying a fresh clone or
// someone else's folder writes nothing.
//
// A verdict trusts only what this machine computed (issue 41): the file is
// authenticated with HMAC-SHA256 under a per-user secret that never lives in
// the work tree: `<git common dir>/small/verified-prefix.<uid>.key` (git
// cannot carry it: a cache committed or copied in fails its key), or, for a
// workspace in no git repository, `.small-cache/verified-prefix.key`. A
// cache or a key owned by another user, a key others may read or write, or
// a cache that fails its key is ignored (the whole log is read). Under
// CI=true the cache is neither read nor written unless
// SMALL_VERIFIED_CACHE=1; SMALL_VERIFIED_CACHE=0 turns it off everywhere.
#pragma once

#include <optional>
#include <string>

#include "small/base/filesystem.hpp"
#include "small/check/verified_prefix.hpp"
#include "small/model/workspace.hpp"

namespace small {

// The prefix this user's last clean verdict kept, or none. `why`, when
// given, gets the reason a cache that was there (or the policy) was not
// used ("" when there was none to use): the verdicts say it under --verbose.
std::optional<VerifiedPrefix> load_verified_prefix(const FileSystem& fs, const WorkspacePaths& ws,
                                                   std::string* why = nullptr);
void save_verified_prefix(const FileSystem& fs, const WorkspacePaths& ws, const VerifiedPrefix& prefix);

// Whether the cache may be used at all (CI=true, SMALL_VERIFIED_CACHE); the
// reason when not.
bool verified_cache_enabled(std::string* why = nullptr);

// The text form under a key (tests: a corrupt or forged cache is ignored).
std::string encode_verified_prefix(const VerifiedPrefix& prefix, std::string_view key);
std::optional<VerifiedPrefix> decode_verified_prefix(std::string_view body, std::string_view key);

}  // namespace small
