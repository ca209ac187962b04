// Findings (check/finding): their location text, the canonical order (D9),
// the finding a load error becomes, and the rule summaries SARIF lists.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "small/check/finding.hpp"

namespace small {
namespace {

Finding at(int file_order, unsigned line, unsigned column, std::string rule) {
    Finding f;
    f.file_order = file_order;
    f.mark = {line, column};
    f.rule = std::move(rule);
    return f;
}

TEST(Finding, LocationTextLeavesOutWhatIsUnknown) {
    Finding f;
    f.message = "missing key";
    EXPECT_EQ(f.location_text(), "missing key");
    f.file = ".small/plan.small.yml";
    EXPECT_EQ(f.location_text(), ".small/plan.small.yml: missing key");
    f.mark = {3, 5};
    EXPECT_EQ(f.location_text(), ".small/plan.small.yml:3:5: missing key");
}

TEST(Finding, SortIsByFileThenLineThenColumnAndKeepsTies) {
    std::vector<Finding> findings = {at(2, 1, 1, "a"), at(1, 9, 1, "b"), at(1, 2, 7, "c"),
                                     at(1, 2, 3, "d"), at(1, 2, 3, "e"), at(0, 40, 2, "f")};
    sort_findings(findings);
    std::vector<std::string> order;
    for (const Finding& f : findings) order.push_back(f.rule);
    EXPECT_EQ(order, (std::vector<std::string>{"f", "d", "e", "c", "b", "a"}));
}

TEST(Finding, ALoadErrorBecomesLoadOrIo) {
    Error syntax = Error::invalid("mapping values are not allowed here");
    syntax.file = ".small/intent.small.yml";
    syntax.line = 4;
    syntax.column = 9;
    syntax.hint = "quote the value";
    const Finding load = finding_from_error(syntax, 3);
    EXPECT_EQ(load.rule, "LOAD");
    EXPECT_EQ(load.severity, Severity::Error);
    EXPECT_EQ(load.file_order, 3);
    EXPECT_EQ(load.location_text(), ".small/intent.small.yml:4:9: mapping values are not allowed here");
    EXPECT_EQ(load.hint, "quote the value");
    EXPECT_EQ(finding_from_error(Error::system("cannot read"), 0).rule, "IO");
}

TEST(Finding, OnlyErrorsAreCounted) {
    std::vector<Finding> findings = {at(0, 1, 1, "a"), at(0, 2, 1, "b"), at(0, 3, 1, "c")};
    findings[1].severity = Severity::Warning;
    EXPECT_EQ(count_errors(findings), 2u);
    EXPECT_EQ(count_errors({}), 0u);
}

TEST(Finding, RuleSummariesPreferAWholeIdToItsFamily) {
    const std::pair<const char*, const char*> summaries[] = {
        {"S1", "Completed or blocked tasks need evidence"},
        {"INV-P10", "Plan invariant"},
        {"VER-0", "All five artifact files exist"},
        {"VER-3", "Verify gate: the handoff's replay id"},
        {"NOT-A-RULE", ""},
        {"S", ""},  // a prefix of a whole id is not that id
    };
    for (const auto& [rule, summary] : summaries) EXPECT_EQ(rule_summary(rule), summary) << rule;
}

}  // namespace
}  // namespace small
