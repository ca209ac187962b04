// Where the progress log's verified prefix (check/verified_prefix) is kept
// between verdicts: `.small-cache/progress.verified`. It is a cache: a
// missing, unreadable, corrupt or other-version file reads as none, and a
// failed write only costs speed (a read-only workspace still verifies).
// It is kept only where .small-cache/ exists (every write of small makes
// it): a verdict never creates the folder, so verifying a fresh clone or
// someone else's folder writes nothing.
#pragma once

#include <optional>
#include <string>

#include "small/base/filesystem.hpp"
#include "small/check/verified_prefix.hpp"
#include "small/model/workspace.hpp"

namespace small {

std::optional<VerifiedPrefix> load_verified_prefix(const FileSystem& fs, const WorkspacePaths& ws);
void save_verified_prefix(const FileSystem& fs, const WorkspacePaths& ws, const VerifiedPrefix& prefix);

// The text form (tests: a corrupt cache is ignored).
std::string encode_verified_prefix(const VerifiedPrefix& prefix);
std::optional<VerifiedPrefix> decode_verified_prefix(std::string_view body);

}  // namespace small
