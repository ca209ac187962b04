// `small board`: the plan as columns of cards, one column per status: each
// task with its claim, what it waits on and its newest evidence. Read-only,
// no lock; the CLI lays it out (view/board_text). Its cost does not grow with
// the log: the evidence comes from the run's newest entries only.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/plan_graph.hpp"
#include "small/model/workspace.hpp"

namespace small {

struct BoardOptions {
    std::size_t evidence_window = 2000;  // newest signal entries of the run searched for evidence
};

// A task's newest work entry of the run (within the window).
struct CardEvidence {
    std::string timestamp;
    std::string status;
    std::string text;  // evidence, else the command, else the notes
};

struct BoardReport {
    PlanGraph graph;
    std::vector<std::string> columns;               // model/plan_graph board_columns
    std::map<std::string, CardEvidence> evidence;   // by task id; a task absent has no entry in the window
    std::string run_id;                             // "" when no run is pinned
    bool window_full = false;                       // older entries exist beyond the window
    std::vector<YamlValue> newest;                  // the window's entries, newest first (the report's timeline)
};

// Errors: no .small/ or no plan (System), the plan or the log does not
// parse (Invalid, file:line:column).
Result<BoardReport> board_command(const FileSystem& fs, const WorkspacePaths& ws, const BoardOptions& options);

}  // namespace small
