// `small verify --evidence` and doctor's evidence line: progress evidence
// checked against the git repository (docs/git.md "Evidence verification").
//
// Rules (errors):
//   EV-COMMIT-UNKNOWN      `commit` names no commit in this repository (a
//                          typo, another repository, history a shallow
//                          clone lacks) or is ambiguous
//   EV-COMMIT-UNREACHABLE  the commit exists but is not HEAD or an ancestor
//                          of it (rebased away, another branch)
//   EV-STALE               a completed task's evidence (its newest
//                          `completed` entry) was recorded, or its commit
//                          made, before the run's start (model/run_start)
//   EV-LINK                `link` is not a well-formed URL (syntax only)
#pragma once

#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/check/finding.hpp"
#include "small/doc/entry_windows.hpp"
#include "small/model/layout.hpp"

namespace small {

struct EvidenceReport {
    std::size_t commits = 0;  // commit evidences checked
    std::size_t links = 0;    // link evidences checked
    std::string run_start;    // "" when unknown (EV-STALE not checked)
    std::vector<Finding> findings;  // sorted
};

// Usage error (exit 2) outside a git repository; Invalid/System when the
// progress log or plan cannot be read. A long log is read in `windows`
// (memory flat in its length, any length; issue 39); a finding sends it to
// the whole read, which says where.
Result<EvidenceReport> check_evidence(const FileSystem& fs, const WorkspacePaths& ws, const LogWindows& windows = {});

}  // namespace small
