// Copies of the files a command is about to replace or rewrite (D15:
// nothing a command replaces is lost): `fix` and `run checkout` keep them
// under `.small-cache/backups/<stamp>-<reason>/` before they change anything.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/base/timestamp.hpp"
#include "small/model/layout.hpp"

namespace small {

struct Backup {
    std::string dir;                 // absolute folder; "" when nothing was copied
    std::vector<std::string> files;  // the names copied, in the order asked
};

// Copies those of `file_names` (plain names of files in `.small/`, e.g.
// "plan.small.yml" or "workspace.small.yml") that exist into
// `.small-cache/backups/<UTC stamp of now>-<reason>/`. The folder appears
// complete or not at all (store/atomic_file write_folder_atomic); an
// existing folder of the same name is never reused or overwritten.
// `reason` names the command ("checkout", "fix-versions"): [a-z0-9-]+.
// A name with a '/' or that is "." or ".." is refused (Kind::Internal).
Result<Backup> backup_artifacts(const FileSystem& fs, const WorkspacePaths& ws, std::string_view reason,
                                const std::vector<std::string>& file_names, Instant now);

}  // namespace small
