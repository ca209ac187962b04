// The JSON body of `small doctor`, without the envelope (envelope.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include "small/ops/inspect/doctor.hpp"

namespace small {

// {"workspace", "checks": [{category, status, message, suggestion?,
// findings[]}], "summary": {errors, warnings}}.
nlohmann::json doctor_json(const DoctorReport& r, const WorkspacePaths& ws);

}  // namespace small
