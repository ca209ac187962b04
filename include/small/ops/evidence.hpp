// `small verify --evidence`: progress evidence checked against git
// (docs/git.md "Evidence verification"); the rules are in
// store/evidence_check, which `small doctor` shares.
#pragma once

#include "small/store/evidence_check.hpp"

namespace small {

Result<EvidenceReport> verify_evidence(const FileSystem& fs, const WorkspacePaths& ws);

}  // namespace small
