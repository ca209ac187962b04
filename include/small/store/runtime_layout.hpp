// The legacy runtime layout (`.small/archive/`, `.small/runs/`) and the
// moves that migrate it to `.small-archive/` and `.small-runs/` (D7: the
// runtime folders live beside `.small/`). Planning only reads; the moves
// are applied by commit_workspace_change, journaled, so a crash part-way
// is finished by the next write.
#pragma once

#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/layout.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

struct LayoutMigration {
    std::string from;                // root-relative, "/" separated: ".small/runs"
    std::string to;                  // ".small-runs"
    std::vector<std::string> moved;  // "<src> -> <dst>", root-relative, one per top-most move
};

struct LayoutPlan {
    std::vector<LayoutMigration> migrations;  // only those that move something
    std::vector<std::string> deduped;         // legacy files identical to their canonical copy (removed)
    std::vector<PathMove> moves;              // in order: renames, duplicate removals, emptied folders
    std::vector<std::string> removed_dirs;    // legacy folders left empty (removed), root-relative
    bool empty() const { return moves.empty(); }
};

// What migrating would do. Nothing is ever overwritten: a destination that
// exists with other bytes, or is not the same kind of thing (folder/file),
// is an error naming both paths, and nothing is moved. A legacy path that is
// a symbolic link, or a canonical store that is one, is refused (D7).
// Entries are visited in name order (deterministic output).
Result<LayoutPlan> plan_runtime_layout(const FileSystem& fs, const WorkspacePaths& ws);

}  // namespace small
