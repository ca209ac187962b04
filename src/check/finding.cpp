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

namespace {

struct RuleSummary {
    std::string_view id;       // a whole id, or a family's prefix
    bool family;               // `id` is a prefix ("INV-P" for INV-P1 … INV-P10)
    std::string_view summary;
};

// Whole ids before families: "VER-0" is not the VER- family's summary.
constexpr RuleSummary kRuleSummaries[] = {
    {"SCHEMA", false, "Artifact does not match its JSON Schema"},
    {"FMT-1", false, "small_version is not double-quoted"},
    {"SEC", false, "Potential secret in an artifact"},
    {"LINK", false, "Insecure http:// link"},
    {"S1", false, "Completed or blocked tasks need evidence"},
    {"S2", false, "Progress of the current run names plan tasks"},
    {"S3", false, "The handoff's current task is in the plan"},
    {"S4", false, "Nothing unexpected under .small/"},
    {"HANDOFF-STALE", false, "The handoff describes an older plan or log"},
    {"VER-0", false, "All five artifact files exist"},
    {"WS-1", false, "No .small/ directory"},
    {"WS-2", false, "Workspace metadata missing or invalid"},
    {"WS-3", false, "Workspace kind not allowed by --workspace"},
    {"LOAD", false, "File cannot be used as an artifact"},
    {"IO", false, "File cannot be read"},
    {"INV-G", true, "Artifact header (small_version, owner, top-level keys)"},
    {"INV-I", true, "Intent invariant"},
    {"INV-C", true, "Constraints invariant"},
    {"INV-P", true, "Plan invariant"},
    {"INV-R", true, "Progress log invariant"},
    {"INV-H", true, "Handoff invariant"},
    {"VER-", true, "Verify gate: the handoff's replay id"},
    {"EV-", true, "Progress evidence against git"},
};

}  // namespace

std::string_view rule_summary(std::string_view rule) {
    for (const RuleSummary& r : kRuleSummaries) {
        if (r.family ? rule.starts_with(r.id) : rule == r.id) return r.summary;
    }
    return "";
}

}  // namespace small
