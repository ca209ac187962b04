// The JSON body of `small selftest` (without the envelope, envelope.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include "small/ops/maintenance/selftest.hpp"

namespace small {

// {workspace, kept, steps: [{name, argv, ok, exit_code, error?}], failed_step?, cleanup_warning?}
nlohmann::json selftest_json(const SelftestResult& r);

}  // namespace small
