// `small progress list`: the newest entries, read from the end of the log
// (no lock, no write; flat in the log's size).
#pragma once

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/workspace.hpp"
#include "small/domain/progress_query.hpp"

namespace small {

// `small progress list`: query_entries after the workspace checks.
Result<EntryList> progress_list_command(const FileSystem& fs, const WorkspacePaths& ws, const EntryQuery& query);

}  // namespace small
