// Findings and verdicts as JSON (validate, lint, check, verify).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
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

// SARIF 2.1.0 (OASIS): one run of the tool "small" whose rules are the rule
// ids the findings name, each finding a result at its file, line and column
// (a file's path relative to the current folder is relative to
// %SRCROOT%, `base_dir`, as code scanning expects). `failure` (not empty)
// records a run that could not judge the workspace: no results, the
// invocation unsuccessful, the message as a notification.
struct SarifRun {
    std::string base_dir;   // absolute: the folder relative paths start from
    int exit_code = 0;
    std::string failure;
};
nlohmann::json findings_sarif(const std::vector<Finding>& findings, const SarifRun& run);

// GitHub Actions workflow commands, one line each:
// `::error file=F,line=L,col=C,title=RULE::message` (`::warning` for a
// warning; line and col left out when unknown; the hint follows the message
// on a line of its own). Values are escaped as the runner requires.
std::string github_annotations(const std::vector<Finding>& findings);

// GitLab's Code Quality report (a JSON array: description, check_name,
// fingerprint, severity, location.path, location.lines.begin), for the
// `codequality` report of a GitLab CI job. The fingerprint is the SHA-256 of
// rule, file, line, column and message: the same finding, the same id.
nlohmann::json findings_code_quality(const std::vector<Finding>& findings);

// validate, lint and verify: errors[] and warnings[] (+ schemas for validate).
nlohmann::json verdict_json(const Verdict& v, int exit_code, const WorkspacePaths& ws,
                            const std::string* schema_source);

// The body of a failed command: error {kind, message} and, when the error
// is about a file's content, errors[] with the finding (file, line, column,
// rule, hint) the verdict commands print.
nlohmann::json error_document(const Error& error);

}  // namespace small
