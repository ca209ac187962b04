// The JSON body of `small apply` (without the envelope, envelope.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include "small/model/layout.hpp"
#include "small/ops/session/apply.hpp"

namespace small {

// What `small apply` exits with (D4): the command's code (128 + signal when
// it was killed); when the command succeeded but recording it failed, the
// code of that error (1 invalid, 2 system, 3 busy).
int apply_exit_code(const ApplyResult& r);

// The error of an apply that exits non-zero: kind "command" when the exit
// code is the command's (not one of D4's codes), else the recording error.
std::optional<nlohmann::json> apply_error_json(const ApplyResult& r);

nlohmann::json apply_json(const ApplyResult& r, const WorkspacePaths& ws);

}  // namespace small
