// The --json shape of `small drift` (docs/json/drift.schema.json) and the
// words its text and doctor's line use.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "small/domain/scope_drift.hpp"

namespace small {

// "outside_scope" / "excluded".
const char* drift_kind_name(DriftKind kind);

// {drift, has_scope, base: {source, commit|null}, run_start|null, changed,
// files: [{path, kind, glob?}]}.
nlohmann::json drift_json(const DriftReport& r);

// One line per file: "<path>: outside the scope" / "<path>: excluded by '<glob>'".
std::string drift_file_line(const DriftFile& f);

}  // namespace small
