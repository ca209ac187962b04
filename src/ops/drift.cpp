#include "small/ops/drift.hpp"

namespace small {

Result<DriftReport> drift(const FileSystem& fs, const WorkspacePaths& ws, const DriftOptions& options) {
    return scope_drift(fs, ws, options);
}

}  // namespace small
