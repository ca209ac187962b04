// `small progress list` (see the header).
#include "small/ops/progress_list.hpp"

namespace small {

Result<EntryList> progress_list(const FileSystem& fs, const WorkspacePaths& ws, const EntryQuery& query) {
    if (Status s = require_small_dir(fs, ws); !s) return s.error();
    const std::string name = artifact_file_name(ArtifactType::Progress);
    if (!fs.file_exists(ws.path_of(name))) {
        return Error::system(ws.display_of(name) + " is missing; run `small init` first");
    }
    return query_entries(fs, ws, query);
}

}  // namespace small
