// Findings as diagnostics: the document, the UTF-16 range, the hint, and
// the quick fixes whose edit is mechanical.
#include "small/lsp/diagnostics.hpp"

#include <gtest/gtest.h>

namespace small::lsp {
namespace {

Finding finding(std::string rule, std::string file, std::uint32_t line, std::uint32_t column, std::string message,
                std::string hint = "") {
    Finding f;
    f.rule = std::move(rule);
    f.file = std::move(file);
    f.mark = Mark{line, column};
    f.message = std::move(message);
    f.hint = std::move(hint);
    return f;
}

const std::string kPlan =
    "tasks:\n"
    "  - id: \"täsk-1\"\n"
    "    status: \"pendng\"\n"
    "    depnds_on: [\"täsk-l\"]\n";

TextOf texts() {
    return [](const std::string& path) -> std::optional<std::string> {
        if (path == "/w/.small/plan.small.yml") return kPlan;
        return std::nullopt;
    };
}

TEST(LspDiagnostics, FindingsLandOnTheirDocumentWithUtf16Ranges) {
    const TaskIndex tasks = *index_plan(kPlan);
    const std::vector<Finding> findings = {
        finding("INV-P8", ".small/plan.small.yml", 3, 14,
                "tasks[0].status \"pendng\" is not a plan status; did you mean \"pending\"?", "write one of the five"),
        finding("S4", ".small/", 0, 0, "stray file"),
        finding("INV-H1", ".small/handoff.small.yml", 2, 3, "bad"),
    };
    const auto out = diagnostics_of(findings, "/w", texts(), tasks);
    ASSERT_EQ(out.size(), 3u);
    const Diagnostic& d = out.at("/w/.small/plan.small.yml").at(0);
    EXPECT_EQ(d.range, (Range{{2, 12}, {2, 20}}));  // the quoted value, quotes included
    EXPECT_EQ(d.message, "tasks[0].status \"pendng\" is not a plan status; did you mean \"pending\"?\nFix: write one of the five");
    ASSERT_TRUE(d.fix);
    EXPECT_EQ(d.fix->range, (Range{{2, 13}, {2, 19}}));  // inside the quotes
    EXPECT_EQ(d.fix->new_text, "pending");
    EXPECT_TRUE(out.count("/w/.small"));
    // A file that cannot be read: the whole file.
    EXPECT_EQ(out.at("/w/.small/handoff.small.yml").at(0).range, (Range{}));
    const nlohmann::json j = diagnostic_json(d);
    EXPECT_EQ(j["code"], "INV-P8");
    EXPECT_EQ(j["severity"], 1);
    EXPECT_EQ(j["source"], "small");
}

TEST(LspDiagnostics, AKeyTypoAndANearTaskIdAreFixedAndOthersAreNot) {
    const TaskIndex tasks = *index_plan(kPlan);
    const std::vector<Finding> findings = {
        finding("INV-P9", ".small/plan.small.yml", 4, 5, "key \"depnds_on\" is not a task key; did you mean \"depends_on\"?"),
        finding("INV-P6", ".small/plan.small.yml", 4, 18, "task \"täsk-1\" depends on unknown task \"täsk-l\""),
        finding("INV-P5", ".small/plan.small.yml", 2, 5, "title must be a non-empty string; did you mean \"x\"?"),
    };
    const auto out = diagnostics_of(findings, "/w", texts(), tasks);
    const std::vector<Diagnostic>& plan = out.at("/w/.small/plan.small.yml");
    ASSERT_EQ(plan.size(), 3u);
    ASSERT_TRUE(plan[0].fix);
    EXPECT_EQ(plan[0].fix->range, (Range{{3, 4}, {3, 13}}));
    EXPECT_EQ(plan[0].fix->new_text, "depends_on");
    ASSERT_TRUE(plan[1].fix);
    EXPECT_EQ(plan[1].fix->new_text, "täsk-1");
    EXPECT_EQ(plan[1].fix->range, (Range{{3, 17}, {3, 23}}));  // "täsk-l": 6 UTF-16 units
    EXPECT_FALSE(plan[2].fix);  // only the rules whose fix is mechanical
}

TEST(LspDiagnostics, ClientPositionsAreRead) {
    EXPECT_EQ(position_from_json({{"line", 3}, {"character", 4}}), (Position{3, 4}));
    EXPECT_FALSE(position_from_json({{"line", -1}, {"character", 4}}));
    EXPECT_FALSE(position_from_json({{"line", "3"}, {"character", 4}}));
    EXPECT_FALSE(range_from_json({{"start", {{"line", 0}, {"character", 0}}}}));
}

}  // namespace
}  // namespace small::lsp
