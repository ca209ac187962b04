// `small progress list` (see the header).
#include "small/ops/inspect/progress_list.hpp"

namespace small {

Result<EntryList> progress_list_command(const FileSystem& fs, const WorkspacePaths& ws, const EntryQuery& query) {
    if (Status s = require_small_dir(fs, ws); !s) return s.error();
    if (Status s = require_artifact(fs, ws, ArtifactType::Progress); !s) return s.error();
    return query_entries(fs, ws, query);
}

}  // namespace small
