// `small drift`: files the run changed outside the intent's scope
// (docs/git.md "Scope drift"). The work is in store/scope_drift, which
// `small doctor` shares.
#pragma once

#include "small/store/scope_drift.hpp"

namespace small {

Result<DriftReport> drift(const FileSystem& fs, const WorkspacePaths& ws, const DriftOptions& options);

}  // namespace small
