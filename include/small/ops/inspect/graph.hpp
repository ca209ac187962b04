// `small graph`: the plan's dependency graph (model/plan_graph) as the
// work and the live claims show it now. Read-only, no lock; the CLI draws
// it (view/graph_render, view/graphviz).
#pragma once

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/plan_graph.hpp"
#include "small/model/workspace.hpp"

namespace small {

// Errors: no .small/ or no plan (System), the plan or the log does not
// parse (Invalid, file:line:column).
Result<PlanGraph> graph_command(const FileSystem& fs, const WorkspacePaths& ws);

}  // namespace small
