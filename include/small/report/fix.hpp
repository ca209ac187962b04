// The JSON body of `small fix` and `small fix workspace` (without the
// envelope, report/envelope.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include "small/ops/maintenance/fix.hpp"

namespace small {

// Files are named relative to the workspace root (".small/plan.small.yml").
nlohmann::json fix_json(const FixResult& r);

}  // namespace small
