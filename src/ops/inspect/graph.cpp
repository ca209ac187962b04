#include "small/ops/inspect/graph.hpp"

#include "small/domain/resume_state.hpp"

namespace small {

Result<PlanGraph> graph_command(const FileSystem& fs, const WorkspacePaths& ws) {
    if (Status s = require_small_dir(fs, ws); !s) return s.error();
    return load_plan_graph(fs, ws, pinned_run_of(fs, ws));
}

}  // namespace small
