// The --json shape of `small merge` (docs/json/merge.schema.json).
#pragma once

#include <nlohmann/json.hpp>

#include "small/ops/maintenance/merge.hpp"

namespace small {

// {pathname, rule, clean, written, conflicts: [{id, field, message, hint}],
// notes, entries?: {ancestor, added, duplicates, bumped}} (entries: progress rule only).
nlohmann::json merge_json(const MergeReport& r);

}  // namespace small
