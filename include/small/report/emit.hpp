// The JSON body of `small emit`, without the envelope (envelope.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "small/ops/emit.hpp"

namespace small {

// The reference's camelCase keys (cliVersion, specVersion, workspace,
// paths, status, progress, intent, constraints, plan, enforcement), only the
// selected sections, plus the snake_case additions (present, warnings, the
// plan tasks' lower-case keys).
nlohmann::json emit_json(const EmitResult& r, const std::string& cli_version);

}  // namespace small
