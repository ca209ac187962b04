// A finding: one problem in a workspace, with a stable rule id, a location
// and (where there is one) a hint that says how to fix it.
#pragma once

#include <string>
#include <vector>

#include "small/doc/document.hpp"
#include "small/base/result.hpp"

namespace small {

enum class Severity { Error, Warning };

struct Finding {
    std::string rule;       // stable id: "SCHEMA", "INV-R6", "S1", "SEC", ...
    Severity severity = Severity::Error;
    std::string file;       // display path, e.g. ".small/progress.small.yml"
    int file_order = 0;     // canonical file order, for sorting
    Mark mark;              // 0:0 when the finding is about the whole file
    std::string pointer;    // JSON pointer of the value, when there is one
    std::string message;
    std::string hint;       // how to fix it; may be empty

    // "file:line:column: message" (unknown parts left out).
    std::string location_text() const;
};

// Canonical file order, then line, column, rule (D9).
void sort_findings(std::vector<Finding>& findings);

// A finding for a load error (missing file, YAML syntax error, ...).
Finding finding_from_error(const Error& error, int file_order);

std::size_t count_errors(const std::vector<Finding>& findings);

// What a rule checks, in a few words ("Plan invariant", "Potential
// secret"), for reports that list rules apart from their findings (SARIF);
// docs/rules.md has each rule in full. "" for an id it does not know.
std::string_view rule_summary(std::string_view rule);

}  // namespace small
