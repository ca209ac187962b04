// `small merge ANCESTOR CURRENT OTHER [PATHNAME]`: the git merge driver for
// the `.small/` files (git runs it as `small merge %O %A %B %P`). The merged
// text replaces CURRENT atomically only when the merge is clean; on a
// conflict or an error CURRENT is left exactly as git gave it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/domain/artifact_merge.hpp"
#include "small/domain/unmerged_files.hpp"

namespace small {

struct MergeRequest {
    std::string ancestor;  // %O
    std::string current;   // %A: read, and replaced with the result when clean
    std::string other;     // %B
    std::string pathname;  // %P: picks the rule; "" = CURRENT's own name
    // D21: where the driver finds the commits git is merging, to read the
    // other file of the plan/progress pair (domain/merge_renames). `top` is
    // the folder git runs the driver in ("" = no renames); `sides_hint`
    // SMALL_MERGE_SIDES (git-merge-small); `other_commits` the ids git
    // names in GITHEAD_<id> variables.
    std::string top;
    std::string sides_hint;
    std::vector<std::string> other_commits;
};

struct MergeReport {
    std::string pathname;  // what the rule was chosen by
    std::string rule;      // "progress", "plan", "handoff" or "whole"
    MergeOutcome outcome;
    bool written = false;  // CURRENT now holds the merged text
    // Whether this file's driver is the one that says "run small handoff"
    // in this merge (each file's driver runs on its own; one says it).
    bool advises_handoff = true;
    // --explain FILE, merged cleanly: why git left FILE unmerged and how to
    // finish the merge through the driver (domain/unmerged_files).
    std::optional<CleanMergeAdvice> index_advice;
    bool clean() const { return outcome.conflicts.empty(); }
};

// Errors: an input that is missing, not a regular file or a symbolic link
// (System/Invalid), a side that does not parse or would merge into an
// invalid artifact (Invalid). A conflict is not an error: the report lists it.
Result<MergeReport> merge_command(const FileSystem& fs, const MergeRequest& request);

// After a merge, rebase or cherry-pick stopped on FILE: what collides in
// git's index (domain/unmerged_files.hpp; nothing is written). `path` as the
// user gave it, from `cwd`.
Result<MergeReport> merge_explain_command(const FileSystem& fs, const std::string& path, const std::string& cwd);

}  // namespace small
