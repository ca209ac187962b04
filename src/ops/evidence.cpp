#include "small/ops/evidence.hpp"

namespace small {

Result<EvidenceReport> verify_evidence(const FileSystem& fs, const WorkspacePaths& ws) { return check_evidence(fs, ws); }

}  // namespace small
