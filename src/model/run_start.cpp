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
    const std::string run_id = out.run_id;
    Status read = for_each_log_entry(
        fs, path, ws.display_of(kProgressFileName), [&] { out = RunStart{}, out.run_id = run_id; },
        [&](NodeRef e) {
            Result<Instant> t = parse_progress_timestamp(trim(e.find("timestamp").as_string()));
            if (!t) return true;
            if (!run_id.empty() && lower_ascii(trim(e.find("replayId").as_string())) == run_id) {
                out.at = *t, out.from_run_entry = true;
                return false;
            }
            if (!out.at) out.at = *t;
            return true;
        });
    if (!read) return read.error();
    return out;
}

}  // namespace small
