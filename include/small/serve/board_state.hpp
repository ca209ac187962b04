// What `small serve`'s page shows, as one JSON document: the current side's
// board (every task with its status, marks, claim, blocked reason, newest
// evidence, and the dependency edges), the ready queue, the inbox of tasks
// that wait on a human, the intent, constraints and handoff, every side of
// the repository (`status --all`) and the run's newest log entries. Built
// from the same operations as `small board`, `small ready` and `small
// status --all`; bounded whatever the log's length (the newest entries
// only). Read-only, no lock.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/workspace.hpp"

namespace small::serve {

struct StateOptions {
    std::size_t recent = 50;           // newest log entries sent
    std::size_t evidence_window = 2000;  // newest entries searched for each task's evidence (as board)
    bool sides = true;                 // every work tree and branch (status --all); false outside git is implied
    bool write = false;                // the page may offer actions
};

// Errors: no .small/ or no plan (System), a plan or log that does not parse
// (Invalid, file:line:column). The parts that can fail alone (sides, the
// claims, the ready queue, a missing intent) become `problems`.
Result<nlohmann::json> board_state(const FileSystem& fs, const WorkspacePaths& ws, const StateOptions& options);

}  // namespace small::serve
