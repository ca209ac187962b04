// Findings as SARIF 2.1.0 and as GitHub workflow annotations (`--format
// sarif|github` of the verdict commands). The schema itself is checked by
// the sarif.schema test (tests/sarif) against the official JSON Schema.
#include <gtest/gtest.h>

#include "small/report/findings.hpp"

namespace small {
namespace {

Finding finding(std::string rule, std::string file, Mark mark, std::string message, std::string hint = "",
                Severity severity = Severity::Error) {
    Finding f;
    f.rule = std::move(rule);
    f.file = std::move(file);
    f.mark = mark;
    f.message = std::move(message);
    f.hint = std::move(hint);
    f.severity = severity;
    return f;
}

TEST(Sarif, OneRulePerIdAndAResultPerFinding) {
    const std::vector<Finding> findings = {
        finding("INV-P1", ".small/plan.small.yml", {2, 8}, "plan must have owner: \"agent\"", "set it"),
        finding("INV-P7", ".small/plan.small.yml", {4, 5}, "dependency cycle: a -> b -> a"),
        finding("INV-P1", "sub dir/.small/plan.small.yml", {0, 0}, "again", "", Severity::Warning),
        finding("IO", "/abs/p#1/.small/intent.small.yml", {1, 0}, "cannot read"),
    };
    const nlohmann::json doc = findings_sarif(findings, {"/work/repo", 1, ""});
    EXPECT_EQ(doc["version"], "2.1.0");
    const nlohmann::json& run = doc["runs"][0];
    EXPECT_EQ(run["tool"]["driver"]["name"], "small");
    ASSERT_EQ(run["tool"]["driver"]["rules"].size(), 3u);
    EXPECT_EQ(run["tool"]["driver"]["rules"][0]["id"], "INV-P1");
    EXPECT_EQ(run["tool"]["driver"]["rules"][0]["shortDescription"]["text"], "Plan invariant");
    EXPECT_EQ(run["originalUriBaseIds"]["%SRCROOT%"]["uri"], "file:///work/repo/");
    EXPECT_EQ(run["invocations"][0]["exitCode"], 1);
    EXPECT_EQ(run["invocations"][0]["executionSuccessful"], true);
    const nlohmann::json& results = run["results"];
    ASSERT_EQ(results.size(), 4u);
    EXPECT_EQ(results[0]["message"]["text"], "plan must have owner: \"agent\"\nFix: set it");
    EXPECT_EQ(results[0]["locations"][0]["physicalLocation"]["region"], nlohmann::json({{"startLine", 2}, {"startColumn", 8}}));
    EXPECT_EQ(results[2]["ruleIndex"], 0);
    EXPECT_EQ(results[2]["level"], "warning");
    const nlohmann::json& spaced = results[2]["locations"][0]["physicalLocation"];
    EXPECT_EQ(spaced["artifactLocation"]["uri"], "sub%20dir/.small/plan.small.yml");
    EXPECT_FALSE(spaced.contains("region"));  // a finding about the whole file
    const nlohmann::json& absolute = results[3]["locations"][0]["physicalLocation"];
    EXPECT_EQ(absolute["artifactLocation"], nlohmann::json({{"uri", "file:///abs/p%231/.small/intent.small.yml"}}));
    EXPECT_EQ(absolute["region"], nlohmann::json({{"startLine", 1}}));
}

TEST(Sarif, AFailedRunIsANotificationWithoutResults) {
    const nlohmann::json doc = findings_sarif({}, {"/w", 2, "invalid workspace scope: x"});
    const nlohmann::json& inv = doc["runs"][0]["invocations"][0];
    EXPECT_EQ(inv["executionSuccessful"], false);
    EXPECT_EQ(inv["toolExecutionNotifications"][0]["message"]["text"], "invalid workspace scope: x");
    EXPECT_TRUE(doc["runs"][0]["results"].empty());
    EXPECT_EQ(findings_sarif({}, {"/w", 2, ""})["runs"][0]["invocations"][0]["executionSuccessful"], false);  // WS-1
    EXPECT_EQ(doc["runs"][0]["columnKind"], "unicodeCodePoints");
}

TEST(GithubAnnotations, EscapeAsTheRunnerRequires) {
    const std::vector<Finding> findings = {
        finding("INV-P1", ".small/plan.small.yml", {2, 8}, "owner: 100% wrong", "line one\nline two"),
        finding("S4", "a,b:c.yml", {0, 0}, "stray\r", "", Severity::Warning),
    };
    EXPECT_EQ(github_annotations(findings),
              "::error file=.small/plan.small.yml,line=2,col=8,title=INV-P1::owner: 100%25 wrong%0AFix: line one%0Aline two\n"
              "::warning file=a%2Cb%3Ac.yml,title=S4::stray%0D\n");
}

TEST(RuleSummary, WholeIdsBeforeFamilies) {
    EXPECT_EQ(rule_summary("VER-0"), "All five artifact files exist");
    EXPECT_EQ(rule_summary("VER-3"), "Verify gate: the handoff's replay id");
    EXPECT_EQ(rule_summary("INV-P10"), "Plan invariant");
    EXPECT_EQ(rule_summary("EV-STALE"), "Progress evidence against git");
    EXPECT_EQ(rule_summary("NOPE"), "");
}

}  // namespace
}  // namespace small

namespace small {
namespace {

TEST(CodeQuality, OneIssuePerFindingWithAStableFingerprint) {
    Finding f;
    f.rule = "INV-P7";
    f.file = ".small/plan.small.yml";
    f.mark = {4, 5};
    f.message = "dependency cycle: a -> b -> a";
    Finding whole = f;
    whole.mark = {0, 0};
    whole.severity = Severity::Warning;
    const nlohmann::json report = findings_code_quality({f, whole});
    ASSERT_EQ(report.size(), 2u);
    EXPECT_EQ(report[0]["check_name"], "INV-P7");
    EXPECT_EQ(report[0]["severity"], "major");
    EXPECT_EQ(report[0]["location"], nlohmann::json({{"path", ".small/plan.small.yml"}, {"lines", {{"begin", 4}}}}));
    EXPECT_EQ(report[1]["severity"], "minor");
    EXPECT_EQ(report[1]["location"]["lines"]["begin"], 1);  // GitLab needs a line: the file's first
    EXPECT_EQ(report[0]["fingerprint"].get<std::string>().size(), 64u);
    EXPECT_NE(report[0]["fingerprint"], report[1]["fingerprint"]);
    EXPECT_EQ(findings_code_quality({f})[0]["fingerprint"], report[0]["fingerprint"]);
}

}  // namespace
}  // namespace small
