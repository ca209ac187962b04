// `small status --brief`: what the primer gathers (ops/status_brief) and the
// byte budget it never exceeds (report/status_brief), including a property
// test over random and huge inputs.
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>

#include "small/base/text.hpp"
#include "small/base/utf8.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/resume_point.hpp"
#include "small/ops/inspect/status_brief.hpp"
#include "small/report/status_brief.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using testing::TestWorkspace;

ResumeBrief brief_of(const TestWorkspace& t) {
    const MemoryFileSystem mem = t.fs();
    Result<ResumeBrief> r = status_brief_command(mem, TestWorkspace::paths(mem), {});
    EXPECT_TRUE(r) << (r ? "" : r.error().describe());
    return r ? *r : ResumeBrief{};
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

// The properties every primer has, whatever the workspace.
void expect_well_formed(const FittedBrief& fit, std::size_t budget, const std::string& command) {
    EXPECT_LE(fit.text.size(), std::max(budget, kMinBriefBytes));
    EXPECT_TRUE(is_valid_utf8(fit.text));
    ASSERT_FALSE(fit.text.empty());
    EXPECT_EQ(fit.text.back(), '\n');
    const std::vector<std::string> lines = lines_of(fit.text);
    for (const std::string& l : lines) {
        EXPECT_LE(l.size(), kBriefLineBytes) << l;
        EXPECT_TRUE(l.empty() || l[0] != ' ' || l.rfind("  - ", 0) == 0 || l.rfind("  …(+", 0) == 0) << l;
        EXPECT_TRUE(std::none_of(l.begin(), l.end(), [](char c) { return c == '\r' || c == '\t' || c == '\0'; }));
    }
    EXPECT_EQ(lines.back(), one_line("Run next: " + command, kBriefLineBytes));
}

const char* kWorkingPlan = R"(small_version: "1.0.0"
owner: "agent"
tasks:
  - {id: task-1, title: "Set up", status: completed}
  - {id: task-2, title: "Write the parser", status: in_progress}
  - {id: task-3, title: "Write the lexer", depends_on: [task-1]}
  - {id: task-4, title: "Ship it", depends_on: [task-2]}
  - {id: task-5, title: "Wait for keys", status: blocked}
)";

TEST(ResumeBriefOp, GathersEverySectionFromTheWorkspace) {
    TestWorkspace t;
    t.set("plan", kWorkingPlan);
    const ResumeBrief b = brief_of(t);
    EXPECT_EQ(b.intent, "Build a widget");
    EXPECT_EQ(b.run_id, testing::kRunId);
    ASSERT_TRUE(b.current);
    EXPECT_EQ(b.current->id, "task-2");
    ASSERT_EQ(b.next.size(), 1u);  // task-4 waits on task-2
    EXPECT_EQ(b.next[0].id, "task-3");
    ASSERT_EQ(b.blocked.size(), 1u);
    EXPECT_EQ(b.blocked[0].title, "Wait for keys");
    EXPECT_EQ(b.constraint_ids, (std::vector<std::string>{"no-secrets", "no-prod-writes"}));
    EXPECT_EQ(b.recent.size(), 3u);
    EXPECT_TRUE(b.problems.empty());
    EXPECT_EQ(b.total_tasks, 5u);
    EXPECT_EQ(b.completed_tasks, 1u);
    EXPECT_EQ(b.next_command, "small checkpoint --task task-2 --status completed --evidence \"<what proves it is done>\"");
}

TEST(ResumeBriefOp, TheCommandToRunNextFollowsTheRunsState) {
    TestWorkspace t;
    t.set("plan", "small_version: \"1.0.0\"\nowner: agent\ntasks:\n  - {id: a-1, title: A}\n");
    EXPECT_EQ(brief_of(t).next_command, "small checkpoint --task a-1 --status in_progress");
    t.set("plan", "small_version: \"1.0.0\"\nowner: agent\ntasks:\n  - {id: \"it's\", title: A, status: blocked}\n");
    // Only a human can unblock it: stop (issue 37), never a made-up unblocking entry.
    EXPECT_EQ(brief_of(t).next_command,
              "stop: it's waits on a human (no reason recorded); write the handoff and end the session");
    EXPECT_EQ(brief_of(t).next_action.stop, "it's waits on a human (no reason recorded)");
    EXPECT_EQ(brief_of(TestWorkspace{}).next_command, "small handoff");  // every task completed
    t.set("plan", "small_version: \"1.0.0\"\nowner: agent\ntasks: []\n");
    EXPECT_EQ(brief_of(t).next_command, "small plan --add \"<first task>\"");
    t.set("plan", "tasks: [\n");
    const ResumeBrief broken = brief_of(t);
    ASSERT_EQ(broken.problems.size(), 1u);
    EXPECT_NE(broken.problems[0].find("plan.small.yml:"), std::string::npos) << broken.problems[0];
    EXPECT_EQ(broken.next_command, "small check --strict");
    EXPECT_EQ(brief_for_missing_workspace().next_command, "small init --intent \"<what this run is for>\"");
}

// The handoff's first line as `small handoff` writes it for `t` as it is.
std::string source_line_of(TestWorkspace& t) {
    Result<Document> plan = parse_yaml(t.text("plan"), "plan");
    Result<Document> log = parse_yaml(t.text("progress"), "progress");
    EXPECT_TRUE(plan && log);
    return source_comment(handoff_source(outline_plan(plan->root()), log_facts(log->root(), testing::kRunId)));
}

TEST(ResumeBriefOp, ACompleteRunWithAFreshHandoffNamesNoCommandSoNothingLoops) {
    TestWorkspace t;  // every task completed
    EXPECT_EQ(brief_of(t).next_command, "small handoff");  // the handoff does not say what it describes
    t.set("handoff", source_line_of(t) + t.text("handoff"));
    const ResumeBrief b = brief_of(t);
    EXPECT_TRUE(b.next_action.tool.empty());
    EXPECT_EQ(b.next_command.rfind("nothing: the run is complete", 0), 0u) << b.next_command;
    EXPECT_TRUE(b.handoff_stale.empty());
    const std::string text = fit_brief(b, kDefaultBriefBytes).text;
    EXPECT_NE(text.find("Run next: nothing: the run is complete"), std::string::npos) << text;
}

TEST(ResumeBriefOp, AStaleHandoffIsMarkedAndItsStepsAreComputedNow) {
    TestWorkspace t;
    t.set("plan", kWorkingPlan);
    t.set("handoff", "# small: computed from plan 0000000000000000, 0 work entries, newest none\n" + t.text("handoff"));
    const ResumeBrief b = brief_of(t);
    EXPECT_EQ(b.handoff_stale.rfind("the plan changed", 0), 0u) << b.handoff_stale;
    ASSERT_FALSE(b.handoff_next_steps.empty());
    EXPECT_NE(b.handoff_next_steps[0].find("task-2"), std::string::npos) << b.handoff_next_steps[0];
    const std::string text = fit_brief(b, kDefaultBriefBytes).text;
    EXPECT_NE(text.find("Handoff: stale — the plan changed"), std::string::npos) << text;
    // A blocked task's line carries its reason (none was recorded here).
    EXPECT_NE(text.find("Wait for keys — no reason recorded"), std::string::npos) << text;
}

TEST(ResumeBriefText, WithoutAWorkspaceOnlyTheProblemAndInit) {
    const ResumeBrief b = brief_for_missing_workspace();
    EXPECT_EQ(fit_brief(b, kDefaultBriefBytes).text,
              "SMALL resume primer (small status --brief)\nProblems:\n  - no .small/ workspace here\n"
              "Run next: small init --intent \"<what this run is for>\"\n");
}

TEST(ResumeBriefOp, RecentZeroMeansEveryEntryAsInStatus) {
    const TestWorkspace t;
    const MemoryFileSystem mem = t.fs();
    Result<ResumeBrief> all = status_brief_command(mem, TestWorkspace::paths(mem), {0});
    ASSERT_TRUE(all);
    EXPECT_GE(all->recent.size(), 3u);
    for (const BriefEntry& e : all->recent) {  // work, not bookkeeping (plan edits, claims)
        EXPECT_EQ(e.text.find(" via small "), std::string::npos) << e.text;
    }
    Result<ResumeBrief> one = status_brief_command(mem, TestWorkspace::paths(mem), {1});
    ASSERT_TRUE(one);
    ASSERT_EQ(one->recent.size(), 1u);
    EXPECT_EQ(one->recent[0].timestamp, all->recent[0].timestamp);  // newest first
}

TEST(ResumeBriefOp, NoSmallDirIsAnError) {
    MemoryFileSystem mem;
    WorkspacePaths ws;
    ws.root = "/empty";
    ws.small_dir = "/empty/.small";
    EXPECT_FALSE(status_brief_command(mem, ws, {}));
}

TEST(ResumeBriefText, SectionsInTheirFixedOrderAndTheCommandLast) {
    TestWorkspace t;
    t.set("plan", kWorkingPlan);
    const ResumeBrief b = brief_of(t);
    const FittedBrief fit = fit_brief(b, kDefaultBriefBytes);
    expect_well_formed(fit, kDefaultBriefBytes, b.next_command);
    std::size_t at = 0;
    for (const char* heading : {"Intent: Build a widget", "Run: 52c9315ec1e4 | tasks 1/5 completed",
                                "Current: task-2 Write the parser [in_progress]", "Next:", "  - task-3 Write the lexer",
                                "Blocked:", "  - task-5 Wait for keys", "Handoff:", "Recent:",
                                "Constraints: no-secrets, no-prod-writes", "Run next: small checkpoint"}) {
        const std::size_t found = fit.text.find(heading, at);
        ASSERT_NE(found, std::string::npos) << heading << "\n" << fit.text;
        at = found;
    }
    EXPECT_TRUE(fit.omitted_sections.empty());
    EXPECT_EQ(fit_brief(b, kDefaultBriefBytes).text, fit.text);  // deterministic
}

TEST(ResumeBriefText, ACutIsMarkedWithWhatWasLeftOut) {
    ResumeBrief b;
    b.intent = "Intent";
    for (int i = 0; i < 200; ++i) b.next.push_back({"task-" + std::to_string(i), "A title", TaskStatus::Pending, "", {}, {}});
    for (int i = 0; i < 50; ++i) b.recent.push_back({"2026-11-23T10:00:00Z", "task-1", "completed", "done"});
    b.next_command = "small handoff";
    const FittedBrief fit = fit_brief(b, 600);
    expect_well_formed(fit, 600, b.next_command);
    const auto [shown, left] = fit.items.at("next");
    EXPECT_EQ(shown + left, 200u);
    EXPECT_GT(left, 0u);
    EXPECT_NE(fit.text.find("  …(+" + std::to_string(left) + " more)\n"), std::string::npos) << fit.text;
    EXPECT_EQ(fit.omitted_sections, (std::vector<std::string>{"recent"}));
    EXPECT_NE(fit.text.find("…(+1 more sections)\n"), std::string::npos) << fit.text;

    const nlohmann::json j = brief_json(b, fit, 600);
    EXPECT_EQ(j["next_tasks"].size(), shown);
    EXPECT_EQ(j["omitted"]["items"]["next"], left);
    EXPECT_FALSE(j.contains("recent"));
    EXPECT_EQ(j["text"], fit.text);
    EXPECT_EQ(j["bytes"], fit.text.size());
}

TEST(ResumeBriefText, BudgetBelowTheMinimumIsRaisedToIt) {
    ResumeBrief b;
    b.next_command = std::string(5000, 'x');
    const FittedBrief fit = fit_brief(b, 10);
    expect_well_formed(fit, kMinBriefBytes, b.next_command);
}

// Random text: ASCII, multi-byte characters, controls, invalid bytes, long runs.
std::string random_text(std::mt19937& rng, std::size_t max_len) {
    static const std::vector<std::string> pieces = {"a", "Z", " ", "\n", "\t", "\r", "é", "€", "😀", "\x80", "\xff",
                                                    "\xe2\x82", "…", "\"", "'", "\\", "\x7f", "-", "task", "\0"};
    std::string out;
    const std::size_t len = std::uniform_int_distribution<std::size_t>(0, max_len)(rng);
    for (std::size_t i = 0; i < len; ++i) out += pieces[rng() % pieces.size()];
    return out;
}

ResumeBrief random_brief(std::mt19937& rng, std::size_t scale) {
    const auto count = [&] { return std::uniform_int_distribution<std::size_t>(0, scale)(rng); };
    const auto task = [&] {
        return BriefTask{random_text(rng, 40), random_text(rng, 400), WrittenStatus(random_text(rng, 12)), "", {}, {}};
    };
    ResumeBrief b;
    b.has_workspace = rng() % 8 != 0;
    b.intent = random_text(rng, 600);
    b.run_id = random_text(rng, 70);
    if (rng() % 2) b.current = task();
    for (std::size_t i = count(); i > 0; --i) b.next.push_back(task());
    for (std::size_t i = count(); i > 0; --i) b.blocked.push_back(task());
    b.handoff_summary = random_text(rng, 300);
    for (std::size_t i = count(); i > 0; --i) b.handoff_next_steps.push_back(random_text(rng, 300));
    for (std::size_t i = count(); i > 0; --i) {
        b.recent.push_back({random_text(rng, 30), random_text(rng, 20), random_text(rng, 12), random_text(rng, 500)});
    }
    for (std::size_t i = count(); i > 0; --i) b.constraint_ids.push_back(random_text(rng, 30));
    for (std::size_t i = count(); i > 0; --i) b.problems.push_back(random_text(rng, 200));
    b.next_command = random_text(rng, 300);
    b.total_tasks = count();
    return b;
}

TEST(ResumeBriefProperty, RandomAndHugeBriefsNeverExceedTheBudget) {
    std::mt19937 rng(20261123);
    for (int round = 0; round < 400; ++round) {
        const std::size_t scale = round % 10 == 0 ? 2000 : 12;
        const ResumeBrief b = random_brief(rng, scale);
        const std::size_t budget = std::uniform_int_distribution<std::size_t>(0, 6000)(rng);
        const FittedBrief fit = fit_brief(b, budget);
        expect_well_formed(fit, budget, b.next_command);
        for (const auto& [name, counts] : fit.items) {
            if (counts.second) {
                EXPECT_NE(fit.text.find("…(+" + std::to_string(counts.second) + " more)"), std::string::npos) << name;
            }
        }
        EXPECT_EQ(fit_brief(b, budget).text, fit.text);
        const nlohmann::json j = brief_json(b, fit, budget);
        EXPECT_NO_THROW((void)j.dump()) << "round " << round;  // every string in it is valid UTF-8
        if (HasFailure()) {
            ADD_FAILURE() << "round " << round << ", budget " << budget;
            return;
        }
    }
}

// MCP resume ends with two lines (the tool call, the shell line): the first
// always, the second whenever the shortest primer has room for it.
TEST(ResumeBriefProperty, SeveralLastLinesKeepTheBudget) {
    std::mt19937 rng(20261126);
    for (int round = 0; round < 100; ++round) {
        const ResumeBrief b = random_brief(rng, round % 20 == 0 ? 500 : 12);
        const std::size_t budget = std::uniform_int_distribution<std::size_t>(0, 3000)(rng);
        const std::string call = random_text(rng, 300), shell = random_text(rng, 300);
        const FittedBrief fit = fit_brief(b, budget, {call, shell});
        EXPECT_LE(fit.text.size(), std::max(budget, kMinBriefBytes)) << "round " << round;
        EXPECT_TRUE(is_valid_utf8(fit.text));
        const std::string first = one_line(call, kBriefLineBytes) + "\n";
        const std::string both = first + one_line(shell, kBriefLineBytes) + "\n";
        const bool ends_with_both = fit.text.size() >= both.size() && fit.text.ends_with(both);
        EXPECT_TRUE(ends_with_both || fit.text.ends_with(first)) << "round " << round;
        if (budget >= 400) {
            EXPECT_TRUE(ends_with_both) << "round " << round << ": room for both lines";
        }
        if (HasFailure()) return;
    }
}

TEST(ResumeBriefProperty, AHugeWorkspaceStaysWithinTheBudget) {
    TestWorkspace t;
    std::string plan = "small_version: \"1.0.0\"\nowner: agent\ntasks:\n";
    for (int i = 0; i < 5000; ++i) {
        plan += "  - {id: task-" + std::to_string(i) + ", title: \"" + std::string(300, 'w') + " é\", status: " +
                (i % 3 ? "pending" : "blocked") + "}\n";
    }
    t.set("plan", plan);
    t.set("intent", "small_version: \"1.0.0\"\nowner: human\nintent: \"" + std::string(100000, 'i') +
                        "\"\nscope: {include: [], exclude: []}\nsuccess_criteria: []\n");
    const ResumeBrief b = brief_of(t);
    EXPECT_EQ(b.total_tasks, 5000u);
    for (std::size_t budget : {std::size_t{256}, std::size_t{2000}, std::size_t{10000}}) {
        expect_well_formed(fit_brief(b, budget), budget, b.next_command);
    }
}

TEST(OneLine, CollapsesControlsReplacesBadBytesAndCutsAtACharacter) {
    EXPECT_EQ(one_line("  a\n\tb \r\n c  ", 100), "a b c");
    EXPECT_EQ(one_line("x\xffy", 100), "x\uFFFDy");
    EXPECT_EQ(one_line("a\u2028b\u2029c\u0085d\u009be", 100), "a b c d e") << "Unicode line breaks and C1 controls fold too";
    EXPECT_EQ(one_line("abcdef", 6), "abcdef");
    EXPECT_EQ(one_line("abcdefg", 6), "abc…");
    EXPECT_EQ(one_line("ééééé", 8), "éé…");  // 2-byte characters are never split
    EXPECT_EQ(one_line("😀😀😀", 9), "😀…");
    EXPECT_EQ(one_line("", 5), "");
}

TEST(ShellQuote, PlainWordsStayAndOthersAreSingleQuoted) {
    EXPECT_EQ(shell_quote("task-1"), "task-1");
    EXPECT_EQ(shell_quote("a b"), "'a b'");
    EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
    EXPECT_EQ(shell_quote(""), "''");
    EXPECT_EQ(shell_quote("$(rm -rf)"), "'$(rm -rf)'");
}

}  // namespace
}  // namespace small
