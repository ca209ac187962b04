#include "small/check/finding.hpp"

#include <algorithm>
#include <tuple>

namespace small {

std::string Finding::location_text() const {
    Error e;
    e.file = file;
    e.line = mark.line;
    e.column = mark.column;
    e.message = message;
    return e.describe();
}

void sort_findings(std::vector<Finding>& findings) {
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        return std::tie(a.file_order, a.mark.line, a.mark.column) < std::tie(b.file_order, b.mark.line, b.mark.column);
    });
}

Finding finding_from_error(const Error& error, int file_order) {
    Finding f;
    f.rule = error.kind == Error::Kind::System ? "IO" : "LOAD";
    f.file = error.file;
    f.file_order = file_order;
    f.mark = {error.line, error.column};
    f.message = error.message;
    f.hint = error.hint;
    return f;
}

std::size_t count_errors(const std::vector<Finding>& findings) {
    return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(),
                                                   [](const Finding& f) { return f.severity == Severity::Error; }));
}

}  // namespace small
