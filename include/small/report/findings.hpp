// Findings and verdicts as JSON (validate, lint, check, verify).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "small/check/finding.hpp"
#include "small/check/verdict.hpp"
#include "small/model/workspace.hpp"

namespace small {

nlohmann::json finding_json(const Finding& f);
nlohmann::json findings_json(const std::vector<Finding>& findings);

// check's shape: the reference's per-stage {status, errors} with
// "<file>: <message>" strings, plus findings, errors[] and error (D16).
nlohmann::json check_json(const Verdict& v, int exit_code);

// validate, lint and verify: errors[] and warnings[] (+ schemas for validate).
nlohmann::json verdict_json(const Verdict& v, int exit_code, const WorkspacePaths& ws,
                            const std::string* schema_source);

}  // namespace small
