#include "small/model/run_start.hpp"

#include "small/base/text.hpp"
#include "small/doc/document.hpp"
#include "small/model/workspace.hpp"

namespace small {

Result<RunStart> find_run_start(const FileSystem& fs, const WorkspacePaths& ws) {
    RunStart out;
    if (Result<WorkspaceMetadata> meta = load_workspace_metadata(fs, ws)) out.run_id = lower_ascii(meta->run_replay_id);
    const std::string path = ws.path_of(kProgressFileName);
    if (!fs.file_exists(path)) return out;
    Result<Document> doc = load_yaml_file(fs, path, ws.display_of(kProgressFileName));
    if (!doc) return doc.error();
    const NodeRef entries = doc->root().find("entries");
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const NodeRef e = entries.item(i);
        Result<Instant> t = parse_progress_timestamp(trim(e.find("timestamp").as_string()));
        if (!t) continue;
        const bool of_run = !out.run_id.empty() && lower_ascii(trim(e.find("replayId").as_string())) == out.run_id;
        if (of_run) {
            out.at = *t, out.from_run_entry = true;
            return out;
        }
        if (!out.at) out.at = *t;
    }
    return out;
}

}  // namespace small
