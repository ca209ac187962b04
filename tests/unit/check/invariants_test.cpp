// The invariant engine (protocol.md §3 as amended by DECISIONS D6 and D9):
// every rule from a minimal mutation of a valid workspace, the reference's
// test checklist (protocol.md §11.1-11.2), S4 layout, small_version quoting
// and verify's own rules.
#include "small/check/entry_evidence.hpp"
#include "small/check/invariants.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <tuple>
#include <vector>

#include "small/check/verdict.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using namespace small::testing;

struct Expected {
    std::string rule;
    std::string file;  // short name: "plan", ...
    std::string fragment;
    unsigned line = 0;  // 0: do not check the line (the node does not exist)
};

void expect_finding(const Finding& f, const Expected& e) {
    EXPECT_EQ(f.rule, e.rule);
    EXPECT_EQ(f.file, shown(e.file));
    EXPECT_TRUE(contains(f.message, e.fragment)) << "message: " << f.message << "\nwanted: " << e.fragment;
    EXPECT_EQ(f.severity, Severity::Error);
    if (e.line > 0) {
        EXPECT_EQ(f.mark.line, e.line) << f.message;
    }
    EXPECT_GT(f.mark.line, 0u) << "finding has no line: " << f.message;
}

// Exactly one finding, which is `e`.
void expect_single(const std::vector<Finding>& findings, const Expected& e) {
    ASSERT_EQ(findings.size(), 1u) << "expected only " << e.rule << ", got:\n" << describe(findings);
    expect_finding(findings[0], e);
}

class InvariantRules : public ::testing::Test {
protected:
    TestWorkspace ws;

    // The mutation gives exactly `e`, in non-strict and in strict mode.
    void expect_only(const Expected& e) {
        for (bool strict : {false, true}) {
            SCOPED_TRACE(strict ? "strict" : "non-strict");
            expect_single(ws.invariants(strict), e);
        }
    }
    unsigned line(const std::string& file, std::string_view needle, int nth = 0) {
        const unsigned l = line_of(ws.text(file), needle, nth);
        EXPECT_GT(l, 0u) << needle << " not in " << file;
        return l;
    }
    // Appends one progress entry (YAML lines without the leading "  - ").
    void add_entry(const std::string& body) { ws.append("progress", "  - " + body); }
    void add_task(const std::string& body) { ws.append("plan", "  - " + body); }
};

// ---------------------------------------------------------------- baseline

TEST_F(InvariantRules, BaselineIsCleanInBothModes) {
    EXPECT_TRUE(ws.invariants(false).empty()) << describe(ws.invariants(false));
    EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
    // Without a workspace run id the handoff's id scopes S2: still clean.
    EXPECT_TRUE(ws.invariants(true, "").empty()) << describe(ws.invariants(true, ""));
}

TEST_F(InvariantRules, DisplayNameIsRelativeToTheCurrentDirectory) {
    ws.replace("plan", "owner: \"agent\"", "owner: \"human\"");
    const MemoryFileSystem mem = ws.fs();
    const ArtifactSet set = load_artifacts(mem, locate_workspace(mem, std::string("/ws"), "/"));
    const auto findings = check_invariants(set, {});
    ASSERT_EQ(findings.size(), 1u) << describe(findings);
    EXPECT_EQ(findings[0].file, "ws/.small/plan.small.yml");
}

// ---------------------------------------------------------------- global rules

TEST_F(InvariantRules, G1VersionWrongValues) {
    // protocol §11.1 item 2: each gives exactly one version violation.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"small_version: \"0.1\"", "got: \"0.1\""},
        {"small_version: 1.0", "got: 1.0"},
        {"small_version: \"\"", "got: \"\""},
        {"small_version: 1", "got: 1"},
    };
    for (const auto& [mutation, fragment] : cases) {
        SCOPED_TRACE(mutation);
        ws = TestWorkspace();
        ws.replace("progress", "small_version: \"1.0.0\"", mutation);
        expect_only({"INV-G1", "progress", "small_version must be exactly \"1.0.0\", " + fragment, 1});
    }
}

TEST_F(InvariantRules, G1UnquotedVersionIsTheString100) {
    ws.replace("progress", "small_version: \"1.0.0\"", "small_version: 1.0.0");
    EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
}

TEST_F(InvariantRules, G1VersionMissing) {
    ws.replace("progress", "small_version: \"1.0.0\"\n", "");
    expect_only({"INV-G1", "progress", "small_version must be exactly \"1.0.0\"", 0});
}

TEST_F(InvariantRules, G2OwnerNotHumanOrAgentAlsoFailsTypeRule) {
    ws.replace("plan", "owner: \"agent\"", "owner: \"system\"");
    const auto findings = ws.invariants(false);
    ASSERT_EQ(findings.size(), 2u) << describe(findings);
    EXPECT_EQ(rules_of(findings), (std::vector<std::string>{"INV-G2", "INV-P1"})) << describe(findings);
    expect_finding(findings[0], {"INV-G2", "plan", "owner must be \"human\" or \"agent\", got: \"system\"", 2});
    expect_finding(findings[1], {"INV-P1", "plan", "plan must have owner: \"agent\"", 2});
}

TEST_F(InvariantRules, G2OwnerMissing) {
    ws.replace("intent", "owner: \"human\"\n", "");
    const auto findings = ws.invariants(false);
    EXPECT_EQ(rules_of(findings), (std::vector<std::string>{"INV-G2", "INV-I1"})) << describe(findings);
}

TEST_F(InvariantRules, G3UnknownTopLevelKey) {
    ws.append("progress", "typo_field: 1\n");
    expect_only({"INV-G3", "progress", "unknown top-level key \"typo_field\" for progress artifact",
                 line("progress", "typo_field")});
}

TEST_F(InvariantRules, G3OneFindingPerKey) {
    ws.append("handoff", "current_task: x\ncompleted_tasks: []\n");
    const auto findings = ws.invariants(false);
    ASSERT_EQ(findings.size(), 2u) << describe(findings);
    expect_finding(findings[0], {"INV-G3", "handoff", "\"current_task\"", line("handoff", "current_task:")});
    expect_finding(findings[1], {"INV-G3", "handoff", "\"completed_tasks\"", line("handoff", "completed_tasks")});
}

// ---------------------------------------------------------------- owners per type

TEST_F(InvariantRules, OwnerRulePerArtifactType) {
    // protocol §11.1 item 4: the "other" owner is an owner violation.
    const std::vector<std::tuple<std::string, std::string, std::string, std::string>> cases = {
        {"intent", "human", "INV-I1", "intent must have owner: \"human\""},
        {"constraints", "human", "INV-C1", "constraints must have owner: \"human\""},
        {"plan", "agent", "INV-P1", "plan must have owner: \"agent\""},
        {"progress", "agent", "INV-R1", "progress must have owner: \"agent\""},
        {"handoff", "agent", "INV-H1", "handoff must have owner: \"agent\""},
    };
    for (const auto& [file, owner, rule, fragment] : cases) {
        SCOPED_TRACE(file);
        ws = TestWorkspace();
        const std::string other = owner == "human" ? "agent" : "human";
        ws.replace(file, "owner: \"" + owner + "\"", "owner: \"" + other + "\"");
        expect_only({rule, file, fragment, 2});
    }
}

// ---------------------------------------------------------------- intent

TEST_F(InvariantRules, I2IntentEmptyOrBlank) {
    for (const char* value : {"\"\"", "\"   \"", "42"}) {
        SCOPED_TRACE(value);
        ws = TestWorkspace();
        ws.replace("intent", "intent: \"Build a widget\"", std::string("intent: ") + value);
        expect_only({"INV-I2", "intent", "intent.intent must be a non-empty string", 3});
    }
}

TEST_F(InvariantRules, I3ScopeNotAMapping) {
    ws.replace("intent", "scope:\n  include: []\n  exclude: []\n", "scope: \"everything\"\n");
    expect_only({"INV-I3", "intent", "intent.scope must be an object with include/exclude arrays", 4});
}

TEST_F(InvariantRules, I4IncludeNotAList) {
    ws.replace("intent", "include: []", "include: \"src\"");
    expect_only({"INV-I4", "intent", "intent.scope.include must be an array", 5});
}

TEST_F(InvariantRules, I5ExcludeNotAList) {
    ws.replace("intent", "exclude: []", "exclude: {}");
    expect_only({"INV-I5", "intent", "intent.scope.exclude must be an array", 6});
}

TEST_F(InvariantRules, I6SuccessCriteriaNotAList) {
    ws.replace("intent", "success_criteria: []", "success_criteria: \"it works\"");
    expect_only({"INV-I6", "intent", "intent.success_criteria must be an array", 7});
}

// ---------------------------------------------------------------- constraints

TEST_F(InvariantRules, C2ConstraintsEmpty) {
    ws.set("constraints", "small_version: \"1.0.0\"\nowner: \"human\"\nconstraints: []\n");
    expect_only({"INV-C2", "constraints", "constraints.constraints must be a non-empty array", 3});
}

TEST_F(InvariantRules, C2ConstraintsNotAList) {
    ws.set("constraints", "small_version: \"1.0.0\"\nowner: \"human\"\nconstraints: \"none\"\n");
    expect_only({"INV-C2", "constraints", "constraints.constraints must be a non-empty array", 3});
}

TEST_F(InvariantRules, C3ItemNotAMapping) {
    ws.append("constraints", "  - \"be nice\"\n");
    expect_only({"INV-C3", "constraints", "constraints[2] must be an object", line("constraints", "be nice")});
}

TEST_F(InvariantRules, C4IdBlank) {
    ws.replace("constraints", "id: \"no-prod-writes\"", "id: \" \"");
    expect_only({"INV-C4", "constraints", "constraints[1].id must be a non-empty string", 7});
}

TEST_F(InvariantRules, C5RuleMissing) {
    ws.replace("constraints", "    rule: \"No secrets in .small artifacts\"\n", "");
    // The item itself is located (its first line).
    expect_only({"INV-C5", "constraints", "constraints[0].rule must be a non-empty string", 4});
}

TEST_F(InvariantRules, C6SeverityNotErrorOrWarn) {
    for (const char* value : {"\"fatal\"", "\"Error\"", "1"}) {
        SCOPED_TRACE(value);
        ws = TestWorkspace();
        ws.replace("constraints", "severity: \"error\"", std::string("severity: ") + value);
        expect_only({"INV-C6", "constraints", "constraints[0].severity must be \"error\" or \"warn\"", 6});
    }
}

// ---------------------------------------------------------------- plan

TEST_F(InvariantRules, P2TasksEmpty) {
    ws.set("plan", "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks: []\n");
    expect_only({"INV-P2", "plan", "plan.tasks must be a non-empty array", 3});
}

TEST_F(InvariantRules, P3TaskNotAMapping) {
    add_task("\"loose\"\n");
    expect_only({"INV-P3", "plan", "tasks[3] must be an object", line("plan", "loose")});
}

TEST_F(InvariantRules, P4IntegerId) {
    add_task("id: 7\n    title: \"Seven\"\n");
    expect_only({"INV-P4", "plan", "tasks[3].id must be a non-empty string", line("plan", "id: 7")});
}

TEST_F(InvariantRules, P5TitleEmpty) {
    ws.replace("plan", "title: \"Design widget\"", "title: \"\"");
    expect_only({"INV-P5", "plan", "tasks[1].title must be a non-empty string", 8});
}

TEST_F(InvariantRules, DependenciesOnKnownTasksAreFine) {
    add_task("id: \"task-4\"\n    title: \"Four\"\n    depends_on: [\"task-1\", \"task-2\"]\n");
    add_task("id: \"task-5\"\n    title: \"Five\"\n    dependencies:\n      - \"task-4\"\n");
    add_task("id: \"task-6\"\n    title: \"Six\"\n    depends_on: null\n");
    EXPECT_TRUE(ws.invariants(false).empty()) << describe(ws.invariants(false));
    EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
}

TEST_F(InvariantRules, P6UnknownDependencyViaDependsOn) {
    add_task("id: \"task-4\"\n    title: \"Four\"\n    depends_on: [\"task-1\", \"task-9\"]\n");
    expect_only({"INV-P6", "plan", "task task-4 depends on unknown task \"task-9\"", line("plan", "depends_on")});
}

TEST_F(InvariantRules, P6UnknownDependencyViaDependenciesAlias) {
    add_task("id: \"task-4\"\n    title: \"Four\"\n    dependencies:\n      - \"nope\"\n");
    expect_only({"INV-P6", "plan", "depends on unknown task \"nope\"", line("plan", "- \"nope\"")});
}

TEST_F(InvariantRules, P6DependencyListNotAList) {
    add_task("id: \"task-4\"\n    title: \"Four\"\n    depends_on: \"task-1\"\n");
    expect_only({"INV-P6", "plan", "tasks[3] dependencies must be a list of task ids", line("plan", "depends_on")});
}

TEST_F(InvariantRules, P7ThreeCycleReportedOnceWithPath) {
    ws.replace("plan", "title: \"Initial task\"", "title: \"Initial task\"\n    depends_on: [\"task-3\"]");
    ws.replace("plan", "title: \"Design widget\"", "title: \"Design widget\"\n    depends_on: [\"task-1\"]");
    ws.replace("plan", "title: \"Build widget\"", "title: \"Build widget\"\n    dependencies: [\"task-2\"]");
    const auto findings = ws.invariants(false);
    ASSERT_EQ(findings.size(), 1u) << describe(findings);
    expect_finding(findings[0], {"INV-P7", "plan", "dependency cycle: task-1 -> task-3 -> task-2 -> task-1",
                                 line("plan", "depends_on")});
    EXPECT_EQ(ws.invariants(true).size(), 1u) << describe(ws.invariants(true));
}

TEST_F(InvariantRules, P7SelfDependency) {
    ws.replace("plan", "title: \"Design widget\"", "title: \"Design widget\"\n    depends_on: [\"task-2\"]");
    expect_only({"INV-P7", "plan", "dependency cycle: task-2 -> task-2", line("plan", "depends_on")});
}

// P8/P9 are warnings: the workspace stays valid (exit codes as the reference).
void expect_single_warning(const std::vector<Finding>& findings, const std::string& rule, const std::string& fragment,
                           unsigned line) {
    ASSERT_EQ(findings.size(), 1u) << describe(findings);
    EXPECT_EQ(findings[0].rule, rule);
    EXPECT_EQ(findings[0].severity, Severity::Warning);
    EXPECT_EQ(findings[0].file, shown("plan"));
    EXPECT_TRUE(contains(findings[0].message, fragment)) << findings[0].message << "\nwanted: " << fragment;
    EXPECT_EQ(findings[0].mark.line, line) << findings[0].message;
    EXPECT_GT(findings[0].mark.column, 0u) << findings[0].message;
    EXPECT_EQ(count_errors(findings), 0u);
}

TEST_F(InvariantRules, P8StatusOutsideTheFiveWarnsAndNamesTheClosest) {
    add_task("id: \"task-4\"\n    title: \"Four\"\n    status: \"complete\"\n");
    expect_single_warning(ws.invariants(false), "INV-P8",
                          "tasks[3].status \"complete\" is not a plan status (pending, in_progress, completed, "
                          "blocked, cancelled); did you mean \"completed\"?",
                          line("plan", "status: \"complete\""));
}

TEST_F(InvariantRules, P8CaseVariantIsJudgedAsEveryRuleReadsIt) {
    // Statuses are read trimmed and case-insensitively (S1 too): " Blocked " is blocked.
    add_task("id: \"task-4\"\n    title: \"Four\"\n    status: \" Blocked \"\n");
    EXPECT_TRUE(ws.invariants(false).empty()) << describe(ws.invariants(false));
    ws.replace("plan", "\" Blocked \"", "\"Complete\"");
    expect_single_warning(ws.invariants(false), "INV-P8", "\"Complete\" is not a plan status", line("plan", "Complete"));
    EXPECT_TRUE(contains(ws.invariants(false)[0].message, "did you mean \"completed\"?"));
}

TEST_F(InvariantRules, P8FarOffOrNonStringStatusWarnsWithoutASuggestion) {
    add_task("id: \"task-4\"\n    title: \"Four\"\n    status: \"done\"\n");
    const auto done = ws.invariants(false);
    expect_single_warning(done, "INV-P8", "\"done\" is not a plan status", line("plan", "\"done\""));
    EXPECT_FALSE(contains(done[0].message, "did you mean")) << done[0].message;
    ws.replace("plan", "status: \"done\"", "status: 3");
    expect_single_warning(ws.invariants(false), "INV-P8", "tasks[3].status 3 is not a plan status",
                          line("plan", "status: 3"));
}

TEST_F(InvariantRules, P8EveryPlanStatusAndAMissingOneAreFine) {
    for (const char* status : {"pending", "in_progress", "completed", "blocked", "cancelled"}) {
        add_task("id: \"t-" + std::string(status) + "\"\n    title: \"T\"\n    status: \"" + status + "\"\n");
    }
    add_task("id: \"t-none\"\n    title: \"T\"\n");
    add_task("id: \"t-null\"\n    title: \"T\"\n    status: null\n");
    EXPECT_TRUE(ws.invariants(false).empty()) << describe(ws.invariants(false));
}

TEST_F(InvariantRules, P9KeyOneTypoFromATaskKeyWarns) {
    add_task("id: \"task-4\"\n    title: \"Four\"\n    stauts: \"completed\"\n");
    expect_single_warning(ws.invariants(false), "INV-P9",
                          "tasks[3] key \"stauts\" is not a task key; did you mean \"status\"?", line("plan", "stauts"));
    ws.replace("plan", "stauts", "dependson");
    expect_single_warning(ws.invariants(true), "INV-P9", "did you mean \"depends_on\"?", line("plan", "dependson"));
}

TEST_F(InvariantRules, P9OtherExtraTaskKeysAreFine) {
    add_task("id: \"task-4\"\n    title: \"Four\"\n    notes: \"x\"\n    estimate: 3\n    owner: \"me\"\n");
    EXPECT_TRUE(ws.invariants(false).empty()) << describe(ws.invariants(false));
}

TEST_F(InvariantRules, P7TwoDisjointCyclesReportedSeparately) {
    ws.replace("plan", "title: \"Initial task\"", "title: \"Initial task\"\n    depends_on: [\"task-2\"]");
    ws.replace("plan", "title: \"Design widget\"", "title: \"Design widget\"\n    depends_on: [\"task-1\"]");
    ws.replace("plan", "title: \"Build widget\"", "title: \"Build widget\"\n    depends_on: [\"task-3\"]");
    const auto findings = with_rule(ws.invariants(false), "INV-P7");
    ASSERT_EQ(findings.size(), 2u) << describe(findings);
    EXPECT_TRUE(contains(findings[0].message, "task-1 -> task-2 -> task-1")) << findings[0].message;
    EXPECT_TRUE(contains(findings[1].message, "task-3 -> task-3")) << findings[1].message;
}

TEST_F(InvariantRules, P7CycleWithRepeatedDependencyReportedOnce) {
    ws.replace("plan", "title: \"Initial task\"", "title: \"Initial task\"\n    depends_on: [\"task-2\"]");
    ws.replace("plan", "title: \"Design widget\"", "title: \"Design widget\"\n    depends_on: [\"task-1\", \"task-1\"]");
    const auto findings = ws.invariants(false);
    EXPECT_EQ(findings.size(), 1u) << describe(findings);
}

// Accepted as the reference does (verdict/078 exits 0), with a warning at the
// second id (issue 41: every write refuses an id two tasks share).
TEST_F(InvariantRules, DuplicateTaskIdsAcceptedWithAWarning) {
    add_task("id: \"task-1\"\n    title: \"Initial task again\"\n    status: \"completed\"\n");
    for (const bool strict : {false, true}) {
        const std::vector<Finding> findings = ws.invariants(strict);
        ASSERT_EQ(findings.size(), 1u) << describe(findings);
        EXPECT_EQ(findings[0].rule, "INV-P11");
        EXPECT_EQ(findings[0].severity, Severity::Warning);
        EXPECT_NE(findings[0].message.find("task id \"task-1\" is used again"), std::string::npos) << findings[0].message;
        EXPECT_GT(findings[0].mark.line, 4u);  // the second id's line
    }
}

// ---------------------------------------------------------------- progress

TEST_F(InvariantRules, R2EntriesNotAList) {
    for (const char* value : {" null", " ~", " \"none\"", " {}"}) {
        SCOPED_TRACE(value);
        ws = TestWorkspace();
        ws.set("progress", std::string("small_version: \"1.0.0\"\nowner: \"agent\"\nentries:") + value + "\n");
        expect_only({"INV-R2", "progress", "progress.entries must be an array", 3});
    }
}

TEST_F(InvariantRules, R2EntriesEmptyValueIsLocated) {
    ws.set("progress", "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n");
    const auto findings = ws.invariants(false);
    ASSERT_EQ(rules_of(findings), (std::vector<std::string>{"INV-R2"})) << describe(findings);
    // An empty (implicit null) value is located at its key's line.
    EXPECT_EQ(findings[0].mark.line, 3u);
}

TEST_F(InvariantRules, EmptyProgressIsFine) {
    ws.set("progress", "small_version: \"1.0.0\"\nowner: \"agent\"\nentries: []\n");
    EXPECT_TRUE(ws.invariants(false).empty()) << describe(ws.invariants(false));
}

TEST_F(InvariantRules, R3EntryNotAMapping) {
    add_entry("\"did stuff\"\n");
    expect_only({"INV-R3", "progress", "entries[6] must be an object", line("progress", "did stuff")});
}

TEST_F(InvariantRules, R4TaskIdMissingOrBlank) {
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"  \"\n    evidence: \"x\"\n");
    expect_only({"INV-R4", "progress", "progress entry 6 must include task_id (non-empty string)",
                 line("progress", "task_id: \"  \"")});
    ws = TestWorkspace();
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    evidence: \"x\"\n");
    expect_only({"INV-R4", "progress", "progress entry 6 must include task_id", line("progress", "10:00:06.0Z")});
}

TEST_F(InvariantRules, R5TimestampWithoutFraction) {
    // protocol §11.1 item 7.
    add_entry("timestamp: \"2025-06-01T10:00:06Z\"\n    task_id: \"task-1\"\n    evidence: \"x\"\n");
    expect_only({"INV-R5", "progress", "fractional seconds", line("progress", "10:00:06Z")});
    const auto f = ws.invariants(false);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_TRUE(contains(f[0].message, "progress entry 6 timestamp \"2025-06-01T10:00:06Z\" invalid: ")) << f[0].message;
    EXPECT_TRUE(contains(f[0].message, "(expected RFC3339Nano with fractional seconds, strictly increasing)"))
        << f[0].message;
}

TEST_F(InvariantRules, R5TimestampShapes) {
    for (const char* stamp : {"2025-06-01T10:00:06.0123456789Z",  // 10 fractional digits
                              "2025-06-01T12:00:06.1+0200",       // offset without colon
                              "2025-02-30T10:00:06.1Z",           // February 30
                              "2025-06-01T10:00:06.1z", "2025-06-01 10:00:06.1Z", "not-a-time"}) {
        SCOPED_TRACE(stamp);
        ws = TestWorkspace();
        add_entry(std::string("timestamp: \"") + stamp + "\"\n    task_id: \"task-1\"\n    evidence: \"x\"\n");
        expect_only({"INV-R5", "progress", std::string("progress entry 6 timestamp \"") + stamp + "\" invalid",
                     line("progress", stamp)});
    }
}

TEST_F(InvariantRules, AcceptedTimestampShapes) {
    for (const char* stamp : {"2025-06-01T10:00:06.1Z", "2025-06-01T10:00:06.123456789Z", "2025-06-01T12:00:06.5+02:00",
                              "2025-06-01T10:00:06.5-00:00", "2025-06-01T05:00:06.5-05:00", "2025-06-01T10:00:06.5+00:00"}) {
        SCOPED_TRACE(stamp);
        ws = TestWorkspace();
        add_entry(std::string("timestamp: \"") + stamp + "\"\n    task_id: \"task-1\"\n    evidence: \"x\"\n");
        EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
    }
    // Unquoted timestamps are strings (D2) and just work.
    ws = TestWorkspace();
    add_entry("timestamp: 2025-06-01T10:00:06.1Z\n    task_id: task-1\n    evidence: x\n");
    EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
}

TEST_F(InvariantRules, R5TimestampMissing) {
    add_entry("task_id: \"task-1\"\n    evidence: \"x\"\n");
    expect_only({"INV-R5", "progress", "timestamp is required", 0});
}

TEST_F(InvariantRules, R6EqualTimestamp) {
    // protocol §11.1 item 8.
    add_entry("timestamp: \"2025-06-01T10:00:05.100000005Z\"\n    task_id: \"task-1\"\n    evidence: \"x\"\n");
    expect_only({"INV-R6", "progress",
                 "progress entry 6 timestamp \"2025-06-01T10:00:05.100000005Z\" must be after previous entry "
                 "\"2025-06-01T10:00:05.100000005Z\"",
                 line("progress", "10:00:05.100000005Z", 1)});
}

TEST_F(InvariantRules, R6DecreasingTimestamp) {
    // protocol §11.1 item 9.
    add_entry("timestamp: \"2025-06-01T10:00:04.5Z\"\n    task_id: \"task-1\"\n    evidence: \"x\"\n");
    expect_only({"INV-R6", "progress", "must be after previous entry", line("progress", "10:00:04.5Z")});
}

TEST_F(InvariantRules, R6ComparesInstantsNotText) {
    // Two entries appended to the baseline (whose last entry is 2025-06-01T10:00:05Z).
    const auto two = [&](const char* a, const char* b) {
        ws = TestWorkspace();
        add_entry(std::string("timestamp: \"") + a + "\"\n    task_id: \"task-1\"\n    evidence: \"x\"\n");
        add_entry(std::string("timestamp: \"") + b + "\"\n    task_id: \"task-1\"\n    evidence: \"y\"\n");
        return line("progress", b);
    };
    // Later instant, later text.
    two("2025-06-02T10:00:03.0Z", "2025-06-02T12:00:04.0+02:00");
    EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
    // Later instant, earlier text.
    two("2025-06-02T10:00:03.0+02:00", "2025-06-02T09:00:04.0Z");
    EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
    // Earlier instant, later text.
    unsigned l = two("2025-06-02T10:00:03.0Z", "2025-06-02T11:00:04.0+02:00");
    expect_only({"INV-R6", "progress",
                 "progress entry 7 timestamp \"2025-06-02T09:00:04Z\" must be after previous entry \"2025-06-02T10:00:03Z\"", l});
    // The same instant written two ways.
    l = two("2025-06-02T10:00:03.5Z", "2025-06-02T12:00:03.500+02:00");
    expect_only({"INV-R6", "progress", "must be after previous entry", l});
}

TEST_F(InvariantRules, R6PreviousOnlyAdvancesOnGoodEntries) {
    add_entry("timestamp: \"2025-06-01T10:00:09.0Z\"\n    task_id: \"task-1\"\n    evidence: \"a\"\n");
    add_entry("timestamp: \"garbage\"\n    task_id: \"task-1\"\n    evidence: \"b\"\n");
    add_entry("timestamp: \"2025-06-01T10:00:07.0Z\"\n    task_id: \"task-1\"\n    evidence: \"c\"\n");
    add_entry("timestamp: \"2025-06-01T10:00:08.0Z\"\n    task_id: \"task-1\"\n    evidence: \"d\"\n");
    add_entry("timestamp: \"2025-06-01T10:00:09.5Z\"\n    task_id: \"task-1\"\n    evidence: \"e\"\n");
    const auto findings = ws.invariants(false);
    EXPECT_EQ(rules_of(findings), (std::vector<std::string>{"INV-R5", "INV-R6", "INV-R6"})) << describe(findings);
    ASSERT_EQ(findings.size(), 3u);
    EXPECT_TRUE(contains(findings[1].message, "previous entry \"2025-06-01T10:00:09Z\"")) << findings[1].message;
    EXPECT_TRUE(contains(findings[2].message, "previous entry \"2025-06-01T10:00:09Z\"")) << findings[2].message;
}

TEST_F(InvariantRules, R7NoEvidence) {
    // protocol §11.1 item 6.
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-1\"\n    status: \"completed\"\n");
    expect_only({"INV-R7", "progress",
                 "progress entry 6 (task_id: task-1) must have at least one evidence field (evidence, verification, "
                 "command, test, link, commit)",
                 line("progress", "10:00:06.0Z")});
}

TEST_F(InvariantRules, R7NotesAndBlankValuesAreNotEvidence) {
    for (const char* extra : {"notes: \"did it\"", "evidence: \"   \"", "evidence: null", "command: \"\"",
                              "evidence: \"\"\n    notes: \"done\""}) {
        SCOPED_TRACE(extra);
        ws = TestWorkspace();
        add_entry(std::string("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-1\"\n    ") + extra + "\n");
        expect_only({"INV-R7", "progress", "must have at least one evidence field", line("progress", "10:00:06.0Z")});
    }
}

TEST_F(InvariantRules, R7AnyEvidenceFieldCounts) {
    for (const char* extra : {"evidence: \"ok\"", "verification: \"ok\"", "command: \"make test\"", "test: \"unit\"",
                              "link: \"https://ci.example.com/1\"", "commit: \"abc1234\"", "evidence: {}",
                              "verification: {result: pass}", "test: 5"}) {
        SCOPED_TRACE(extra);
        ws = TestWorkspace();
        add_entry(std::string("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-1\"\n    ") + extra + "\n");
        EXPECT_TRUE(ws.invariants(false).empty()) << describe(ws.invariants(false));
    }
}

TEST_F(InvariantRules, BadTimestampEntryIsNotEvidenceChecked) {
    add_entry("timestamp: \"bad\"\n    task_id: \"task-1\"\n");
    expect_only({"INV-R5", "progress", "progress entry 6 timestamp \"bad\" invalid", line("progress", "\"bad\"")});
}

TEST_F(InvariantRules, OutOfOrderEntryIsNotEvidenceChecked) {
    add_entry("timestamp: \"2025-06-01T10:00:01.0Z\"\n    task_id: \"task-1\"\n");
    expect_only({"INV-R6", "progress", "must be after previous entry", line("progress", "10:00:01.0Z")});
}

TEST(InvariantEvidence, EntryHasEvidenceDefinition) {
    const auto has = [](const char* yaml) {
        Result<Document> doc = parse_yaml(yaml, "entry.yml");
        EXPECT_TRUE(doc.ok()) << (doc.ok() ? "" : doc.error().describe());
        return doc.ok() && entry_has_evidence(doc->root());
    };
    EXPECT_TRUE(has("evidence: x"));
    EXPECT_TRUE(has("verification: x"));
    EXPECT_TRUE(has("command: x"));
    EXPECT_TRUE(has("test: x"));
    EXPECT_TRUE(has("link: x"));
    EXPECT_TRUE(has("commit: abc1234"));
    EXPECT_TRUE(has("evidence: {}"));
    EXPECT_TRUE(has("evidence: 5"));
    EXPECT_FALSE(has("notes: x"));
    EXPECT_FALSE(has("evidence: ''"));
    EXPECT_FALSE(has("evidence: ' \t '"));
    EXPECT_FALSE(has("evidence: ~"));
    EXPECT_FALSE(has("task_id: x\nstatus: completed"));
}

// ---------------------------------------------------------------- handoff

TEST_F(InvariantRules, H2SummaryBlank) {
    ws.replace("handoff", "summary: \"Run complete. strict check passed. All plan tasks completed.\"", "summary: \" \"");
    expect_only({"INV-H2", "handoff", "handoff.summary must be a non-empty string", 3});
}

TEST_F(InvariantRules, H3ResumeNotAMapping) {
    ws.replace("handoff", "resume:\n  next_steps: []\n", "resume: []\n");
    expect_only({"INV-H3", "handoff", "handoff.resume must be an object", 4});
}

TEST_F(InvariantRules, H4CurrentTaskIdNotAString) {
    ws.replace("handoff", "  next_steps: []\n", "  current_task_id: 5\n  next_steps: []\n");
    expect_only({"INV-H4", "handoff", "handoff.resume.current_task_id must be a string or null", 5});
}

TEST_F(InvariantRules, H5CurrentTaskIdEmptyString) {
    ws.replace("handoff", "  next_steps: []\n", "  current_task_id: \"\"\n  next_steps: []\n");
    expect_only({"INV-H5", "handoff", "handoff.resume.current_task_id must not be an empty string", 5});
}

TEST_F(InvariantRules, H4H5NullOrAbsentCurrentTaskIsFine) {
    ws.replace("handoff", "  next_steps: []\n", "  current_task_id: null\n  next_steps: []\n");
    EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
}

TEST_F(InvariantRules, H6NextStepsNotAList) {
    ws.replace("handoff", "next_steps: []", "next_steps: \"rest\"");
    expect_only({"INV-H6", "handoff", "handoff.resume.next_steps must be an array", 5});
}

TEST_F(InvariantRules, H7LinksNotAList) {
    ws.replace("handoff", "links: []", "links: {}");
    expect_only({"INV-H7", "handoff", "handoff.links must be an array", 6});
}

// ---------------------------------------------------------------- strict-only: S1

TEST_F(InvariantRules, S1CompletedTaskWithoutEntries) {
    // protocol §11.1 item 14.
    add_task("id: \"task-4\"\n    title: \"Ship it\"\n    status: \"completed\"\n");
    EXPECT_TRUE(ws.invariants(false).empty()) << describe(ws.invariants(false));
    expect_single(ws.invariants(true), {"S1", "progress", "strict invariant S1 failed: task-4 (Ship it) [no progress entry]",
                                        line("progress", "entries:")});
}

TEST_F(InvariantRules, S1StatusIsCaseInsensitiveAndTrimmed) {
    add_task("id: \"task-4\"\n    title: \"Ship it\"\n    status: \" Completed \"\n");
    add_task("id: \"task-5\"\n    title: \"Wait\"\n    status: \"BLOCKED\"\n");
    add_task("id: \"task-6\"\n    title: \"Later\"\n    status: \"pending\"\n");
    const auto findings = ws.invariants(true);
    ASSERT_EQ(findings.size(), 1u) << describe(findings);
    EXPECT_TRUE(contains(findings[0].message, "task-4 (Ship it) [no progress entry]; task-5 (Wait) [no progress entry]"))
        << findings[0].message;
    EXPECT_FALSE(contains(findings[0].message, "task-6"));
}

TEST_F(InvariantRules, S1NotesAloneIsNotEvidence) {
    // D9: the reference's S1 counts notes; ours does not, so S1 and INV-R7 both fire.
    add_task("id: \"task-4\"\n    title: \"Ship it\"\n    status: \"completed\"\n");
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-4\"\n    status: \"pending\"\n"
              "    notes: \"all done\"\n");
    EXPECT_EQ(rules_of(ws.invariants(false)), (std::vector<std::string>{"INV-R7"})) << describe(ws.invariants(false));
    const auto findings = ws.invariants(true);
    EXPECT_EQ(rules_of(findings), (std::vector<std::string>{"S1", "INV-R7"})) << describe(findings);
    const auto s1 = with_rule(findings, "S1");
    ASSERT_EQ(s1.size(), 1u);
    expect_finding(s1[0], {"S1", "progress", "strict invariant S1 failed: task-4 (Ship it) [empty evidence",
                           line("progress", "entries:")});
    EXPECT_FALSE(contains(s1[0].message, "no progress entry"));
}

TEST_F(InvariantRules, S1WhitespaceNotesOnly) {
    // protocol §11.1 item 16.
    add_task("id: \"task-4\"\n    title: \"Ship it\"\n    status: \"completed\"\n");
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-4\"\n    notes: \"   \"\n");
    EXPECT_EQ(with_rule(ws.invariants(true), "S1").size(), 1u) << describe(ws.invariants(true));
}

TEST_F(InvariantRules, S1SatisfiedByLinkCommandOrCommitAlone) {
    for (const char* extra : {"link: \"https://ci.example.com/run/1\"", "command: \"make test\"", "commit: \"abc1234\"",
                              "verification: \"checked\"", "test: \"unit\""}) {
        SCOPED_TRACE(extra);
        ws = TestWorkspace();
        add_task("id: \"task-4\"\n    title: \"Ship it\"\n    status: \"completed\"\n");
        add_entry(std::string("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-4\"\n    ") + extra + "\n");
        EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
    }
}

TEST_F(InvariantRules, S1NamesEveryOffenderOnceSorted) {
    // protocol §11.1 item 18.
    add_task("id: \"task-5\"\n    title: \"Wait\"\n    status: \"blocked\"\n");
    add_task("id: \"task-4\"\n    title: \"Ship it\"\n    status: \"completed\"\n");
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-5\"\n    evidence: \" \"\n    notes: \" \"\n");
    const auto s1 = with_rule(ws.invariants(true), "S1");
    ASSERT_EQ(s1.size(), 1u) << describe(ws.invariants(true));
    EXPECT_TRUE(contains(s1[0].message, "strict invariant S1 failed: task-4 (Ship it) [no progress entry]; task-5 (Wait) [empty evidence"))
        << s1[0].message;
}

TEST_F(InvariantRules, S1EvidenceOnAnyEntryOfTheTaskCounts) {
    // Evidence on an earlier entry (of any status/run) satisfies S1.
    ws.replace("progress", "evidence: \"Widget built; make test passes\"", "notes: \"Widget built\"");
    EXPECT_TRUE(with_rule(ws.invariants(true), "S1").empty()) << describe(ws.invariants(true));
    EXPECT_EQ(rules_of(ws.invariants(false)), (std::vector<std::string>{"INV-R7"}));
}

TEST_F(InvariantRules, S1EntryWithBadTimestampStillCountsButD9NotesDoNot) {
    // protocol §11.1 item 17 adjusted by D9: the timestamp rule reports the
    // entry, and notes alone do not satisfy S1.
    add_task("id: \"task-4\"\n    title: \"Ship it\"\n    status: \"completed\"\n");
    add_entry("timestamp: \"not-a-time\"\n    task_id: \"task-4\"\n    notes: \"done\"\n");
    const auto findings = ws.invariants(true);
    EXPECT_EQ(rules_of(findings), (std::vector<std::string>{"S1", "INV-R5"})) << describe(findings);
    const auto r5 = with_rule(findings, "INV-R5");
    ASSERT_EQ(r5.size(), 1u);
    EXPECT_TRUE(contains(r5[0].message, "timestamp") && contains(r5[0].message, "RFC3339Nano")) << r5[0].message;
    // With evidence instead of notes, only the timestamp rule remains.
    ws.replace("progress", "notes: \"done\"", "evidence: \"done\"");
    EXPECT_EQ(rules_of(ws.invariants(true)), (std::vector<std::string>{"INV-R5"})) << describe(ws.invariants(true));
}

// ---------------------------------------------------------------- strict-only: S2

TEST_F(InvariantRules, S2UnknownTaskInCurrentRun) {
    // protocol §11.1 item 19.
    add_entry(std::string("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"ghost\"\n    evidence: \"x\"\n") +
              "    replayId: \"" + kRunId + "\"\n");
    add_entry(std::string("timestamp: \"2025-06-01T10:00:07.0Z\"\n    task_id: \"meta/reset\"\n    evidence: \"x\"\n") +
              "    replayId: \"" + kRunId + "\"\n");
    EXPECT_TRUE(ws.invariants(false).empty()) << describe(ws.invariants(false));
    const auto findings = ws.invariants(true);
    expect_single(findings, {"S2", "progress",
                             std::string("strict invariant S2 failed (replayId scope: ") + kRunId +
                                 "): unknown progress task ids: ghost",
                             line("progress", "\"ghost\"")});
    EXPECT_FALSE(contains(findings[0].message, "meta/reset"));
    EXPECT_FALSE(contains(findings[0].message, "closest")) << findings[0].message;
}

TEST_F(InvariantRules, S2ClosestHint) {
    const std::string rid = std::string("    replayId: \"") + kRunId + "\"\n";
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task\"\n    evidence: \"x\"\n" + rid);
    add_entry("timestamp: \"2025-06-01T10:00:07.0Z\"\n    task_id: \"Task-2\"\n    evidence: \"x\"\n" + rid);
    add_entry("timestamp: \"2025-06-01T10:00:08.0Z\"\n    task_id: \"reset\"\n    evidence: \"x\"\n" + rid);
    add_entry("timestamp: \"2025-06-01T10:00:09.0Z\"\n    task_id: \"reset\"\n    evidence: \"y\"\n" + rid);
    const auto s2 = with_rule(ws.invariants(true), "S2");
    ASSERT_EQ(s2.size(), 1u) << describe(ws.invariants(true));
    // Offenders sorted, each named once; substring matches (up to 3),
    // else case-insensitive matches.
    EXPECT_TRUE(contains(s2[0].message, "unknown progress task ids: Task-2 (closest: task-2); reset; "
                                        "task (closest: task-1, task-2, task-3)"))
        << s2[0].message;
    EXPECT_EQ(s2[0].mark.line, line("progress", "\"task\""));
}

TEST_F(InvariantRules, S2OtherRunAndUnboundEntriesAreOutOfScope) {
    // protocol §11.1 items 20 and 21.
    add_entry(std::string("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"ghost\"\n    evidence: \"x\"\n") +
              "    replayId: \"" + kOtherRunId + "\"\n");
    add_entry("timestamp: \"2025-06-01T10:00:07.0Z\"\n    task_id: \"phantom\"\n    evidence: \"x\"\n");
    EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
    EXPECT_TRUE(ws.invariants(true, "").empty()) << describe(ws.invariants(true, ""));
}

TEST_F(InvariantRules, S2ScopeIsTheWorkspaceRunIdFirst) {
    // D9: run.replay_id of workspace.small.yml wins over the handoff's id.
    add_entry(std::string("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"ghost\"\n    evidence: \"x\"\n") +
              "    replayId: \"" + kOtherRunId + "\"\n");
    add_entry(std::string("timestamp: \"2025-06-01T10:00:07.0Z\"\n    task_id: \"phantom\"\n    evidence: \"x\"\n") +
              "    replayId: \"" + kRunId + "\"\n");
    // Workspace run = the other run: only "ghost" is in scope.
    auto s2 = with_rule(ws.invariants(true, kOtherRunId), "S2");
    ASSERT_EQ(s2.size(), 1u);
    EXPECT_TRUE(contains(s2[0].message, std::string("(replayId scope: ") + kOtherRunId + "): unknown progress task ids: ghost"))
        << s2[0].message;
    EXPECT_FALSE(contains(s2[0].message, "phantom"));
    // No workspace run id: the handoff's id scopes, so only "phantom".
    s2 = with_rule(ws.invariants(true, ""), "S2");
    ASSERT_EQ(s2.size(), 1u);
    EXPECT_TRUE(contains(s2[0].message, std::string("(replayId scope: ") + kRunId + "): unknown progress task ids: phantom"))
        << s2[0].message;
    EXPECT_FALSE(contains(s2[0].message, "ghost"));
}

TEST_F(InvariantRules, S2WithoutAnyRunIdEveryEntryIsInScope) {
    ws.remove("handoff");
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"phantom\"\n    evidence: \"x\"\n");
    add_entry("timestamp: \"2025-06-01T10:00:07.0Z\"\n    task_id: \"meta/accept-intent\"\n    evidence: \"x\"\n");
    const MemoryFileSystem mem = ws.fs();
    const ArtifactSet set = load_artifacts(mem, TestWorkspace::paths(mem));
    InvariantOptions options;
    options.strict = true;
    const auto findings = check_invariants(set, options);
    const auto s2 = with_rule(findings, "S2");
    ASSERT_EQ(s2.size(), 1u) << describe(findings);
    EXPECT_TRUE(contains(s2[0].message, "strict invariant S2 failed (replayId scope: unknown): unknown progress task ids: phantom"))
        << s2[0].message;
    EXPECT_FALSE(contains(s2[0].message, "meta/"));
}

TEST_F(InvariantRules, S2HandoffIdIsTrimmed) {
    ws.replace("handoff", std::string("value: \"") + kRunId + "\"", std::string("value: \" ") + kRunId + " \"");
    add_entry(std::string("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"ghost\"\n    evidence: \"x\"\n") +
              "    replayId: \"" + kRunId + "\"\n");
    const auto s2 = with_rule(ws.invariants(true, ""), "S2");
    ASSERT_EQ(s2.size(), 1u) << describe(ws.invariants(true, ""));
    EXPECT_TRUE(contains(s2[0].message, std::string("(replayId scope: ") + kRunId + ")")) << s2[0].message;
}

// ---------------------------------------------------------------- strict-only: S3

TEST_F(InvariantRules, S3CurrentTaskMissingFromPlan) {
    // protocol §11.1 item 22.
    ws.replace("handoff", "  next_steps: []\n", "  current_task_id: \"task-missing\"\n  next_steps: []\n");
    EXPECT_TRUE(ws.invariants(false).empty()) << describe(ws.invariants(false));
    expect_single(ws.invariants(true),
                  {"S3", "handoff",
                   "strict invariant S3 failed: resume.current_task_id references \"task-missing\" which is missing from plan",
                   5});
}

TEST_F(InvariantRules, S3MetaNullAbsentOrKnownAreFine) {
    // protocol §11.1 items 23 and 24.
    for (const char* value : {"\"meta/blocker\"", "null", "~", "\"task-2\"", "\" task-2 \""}) {
        SCOPED_TRACE(value);
        ws = TestWorkspace();
        ws.replace("handoff", "  next_steps: []\n", std::string("  current_task_id: ") + value + "\n  next_steps: []\n");
        EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
    }
}

// ---------------------------------------------------------------- strict-only: secrets

TEST_F(InvariantRules, SecretKeyNameOnlyInStrictMode) {
    // protocol §11.1 item 25.
    ws.append("progress", "api_key: \"abc\"\n");
    const auto loose = ws.invariants(false);
    EXPECT_EQ(rules_of(loose), (std::vector<std::string>{"INV-G3"})) << describe(loose);
    for (const Finding& f : loose) EXPECT_FALSE(contains(f.message, "secret"));
    const auto strict = ws.invariants(true);
    const auto sec = with_rule(strict, "SEC");
    ASSERT_EQ(sec.size(), 1u) << describe(strict);
    expect_finding(sec[0], {"SEC", "progress", "potential secret detected at api_key", line("progress", "api_key")});
}

TEST_F(InvariantRules, SecretUnderHandoffRun) {
    // protocol §11.1 item 39.
    ws.append("handoff", "run:\n  api_key: \"abc\"\n");
    EXPECT_TRUE(ws.invariants(false).empty()) << describe(ws.invariants(false));
    expect_single(ws.invariants(true), {"SEC", "handoff", "potential secret detected at run.api_key", line("handoff", "api_key")});
}

TEST_F(InvariantRules, SecretAwsKeyInEvidence) {
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-1\"\n"
              "    evidence: \"deployed with AKIAIOSFODNN7EXAMPLE\"\n");
    EXPECT_TRUE(ws.invariants(false).empty()) << describe(ws.invariants(false));
    const auto findings = ws.invariants(true);
    expect_single(findings, {"SEC", "progress", "potential secret detected at entries[6].evidence",
                             line("progress", "AKIAIOSFODNN7EXAMPLE")});
    EXPECT_TRUE(contains(findings[0].message, "AWS")) << findings[0].message;
    EXPECT_FALSE(contains(findings[0].message, "AKIAIOSFODNN7EXAMPLE")) << "the secret itself must not be echoed";
}

TEST_F(InvariantRules, FortyHexCommitIsNotASecret) {
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-1\"\n"
              "    commit: \"0123456789abcdef0123456789abcdef01234567\"\n"
              "    command_sha256: \"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"\n");
    EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
}

TEST_F(InvariantRules, HexCommitLongerThanFortyDigitsIsASecretInStrictMode) {
    // D9 exempts hex only as a commit hash (7-40 digits); the reference flags 32+ base64.
    const std::string sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-1\"\n    commit: \"" + sha256 + "\"\n"
              "    notes: \"" + sha256 + "\"\n");
    EXPECT_TRUE(ws.invariants(false).empty()) << describe(ws.invariants(false));
    const auto findings = ws.invariants(true);
    expect_single(findings, {"SEC", "progress", "potential secret detected at entries[6].commit",
                             line("progress", "commit: \"" + sha256)});
    EXPECT_TRUE(contains(findings[0].message, "a commit hash has 7-40 hex digits")) << findings[0].message;
    EXPECT_FALSE(contains(findings[0].message, sha256)) << "the value itself must not be echoed";
}

TEST_F(InvariantRules, ReplayIdFieldsAreExemptFromTheSecretScan) {
    // A value that is flagged anywhere else ...
    const std::string secretish = "AbCdEfGh0123456789AbCdEfGh0123456789xyZ";
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-1\"\n    evidence: \"x\"\n    notes: \"" +
              secretish + "\"\n");
    expect_single(ws.invariants(true), {"SEC", "progress", "potential secret detected at entries[6].notes",
                                        line("progress", secretish)});
    // ... is not flagged under replayId, command_sha256, run.previous_replay_id
    // or the handoff's replayId (protocol §3.9, §11.1 item 38).
    ws = TestWorkspace();
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"meta/x\"\n    evidence: \"x\"\n"
              "    replayId: \"" + secretish + "\"\n    command_sha256: \"" + secretish + "\"\n");
    ws.append("handoff", "run:\n  previous_replay_id: \"" + secretish + "\"\n  replay_id: \"" + secretish + "\"\n");
    ws.replace("handoff", std::string("value: \"") + kRunId + "\"", "value: \"" + secretish + "\"");
    EXPECT_TRUE(with_rule(ws.invariants(true, kRunId), "SEC").empty()) << describe(ws.invariants(true));
}

TEST_F(InvariantRules, PreviousReplayIdHexIsNotASecret) {
    ws.append("handoff", std::string("run:\n  previous_replay_id: \"") + kOtherRunId + "\"\n  transition_reason: \"reset\"\n");
    EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
}

// ---------------------------------------------------------------- strict-only: insecure links

TEST_F(InvariantRules, InsecureLinkInHandoffOnlyInStrictMode) {
    // protocol §11.1 item 26.
    ws.replace("handoff", "links: []", "links:\n  - url: \"http://insecure.example.com\"");
    EXPECT_TRUE(ws.invariants(false).empty()) << describe(ws.invariants(false));
    const auto findings = ws.invariants(true);
    expect_single(findings, {"LINK", "handoff", "insecure link detected (http://). Use https://",
                             line("handoff", "http://insecure")});
    EXPECT_FALSE(contains(findings[0].message, "allowed in progress")) << findings[0].message;
}

TEST_F(InvariantRules, LoopbackLinksAllowedInProgress) {
    // protocol §11.1 item 33.
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-1\"\n"
              "    evidence: \"checked http://localhost:3001/api and http://localhost/test\"\n"
              "    verification: \"curl http://127.0.0.1:8080/health; http://0.0.0.0:3000; http://[::1]:3000/api\"\n");
    EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
}

TEST_F(InvariantRules, RemoteHttpLinkInProgress) {
    // protocol §11.1 items 34 and 36.
    for (const char* url : {"http://example.com", "http://api.example.com/v1", "http://localhost.evil.example/x"}) {
        SCOPED_TRACE(url);
        ws = TestWorkspace();
        add_entry(std::string("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-1\"\n    evidence: \"see ") + url +
                  "\"\n");
        const auto findings = ws.invariants(true);
        expect_single(findings, {"LINK", "progress", "insecure link detected (http://). Use https://", line("progress", url)});
        EXPECT_TRUE(contains(findings[0].message, "localhost") && contains(findings[0].message, "127.0.0.1"))
            << findings[0].message;
    }
}

TEST_F(InvariantRules, LoopbackLinkOutsideProgressIsInsecure) {
    // protocol §11.1 item 35.
    ws.replace("handoff", "summary: \"Run complete.", "summary: \"Served on http://localhost:3001. Run complete.");
    expect_single(ws.invariants(true), {"LINK", "handoff", "insecure link detected", 3});
}

TEST_F(InvariantRules, BareSchemeInProseIsIgnored) {
    // protocol §11.1 item 37.
    add_entry("timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-1\"\n"
              "    evidence: \"replaced insecure link http:// in docs; verified http://localhost:3000\"\n");
    EXPECT_TRUE(ws.invariants(true).empty()) << describe(ws.invariants(true));
}

TEST_F(InvariantRules, LinksInListsAndNestedMappingsAreFound) {
    ws.replace("handoff", "next_steps: []", "next_steps:\n    - \"open http://docs.example.com\"");
    expect_single(ws.invariants(true), {"LINK", "handoff", "insecure link detected", line("handoff", "http://docs")});
}

// ---------------------------------------------------------------- order

TEST_F(InvariantRules, FindingsSortedByFileThenLine) {
    ws.append("handoff", "extra_handoff: 1\n");
    ws.replace("handoff", "summary: \"Run complete. strict check passed. All plan tasks completed.\"", "summary: \"\"");
    add_entry("timestamp: \"bad\"\n    task_id: \"task-1\"\n");
    ws.append("progress", "extra_progress: 1\n");
    ws.replace("plan", "title: \"Build widget\"", "title: \"\"");
    ws.replace("plan", "owner: \"agent\"", "owner: \"human\"");
    ws.replace("constraints", "severity: \"error\"", "severity: \"oops\"");
    ws.append("intent", "zzz: 1\n");
    ws.replace("intent", "intent: \"Build a widget\"", "intent: \"\"");
    const auto findings = ws.invariants(false);
    ASSERT_GE(findings.size(), 9u) << describe(findings);
    const std::vector<std::string> order = {"intent", "constraints", "plan", "progress", "handoff"};
    int last_order = -1;
    unsigned last_line = 0;
    for (const Finding& f : findings) {
        const auto it = std::find_if(order.begin(), order.end(), [&](const std::string& n) { return shown(n) == f.file; });
        ASSERT_NE(it, order.end()) << f.file;
        const int o = static_cast<int>(it - order.begin());
        EXPECT_EQ(f.file_order, o);
        ASSERT_GE(o, last_order) << describe(findings);
        if (o == last_order) {
            EXPECT_GE(f.mark.line, last_line) << describe(findings);
        }
        last_order = o;
        last_line = f.mark.line;
    }
    EXPECT_EQ(findings.front().rule, "INV-I2");
    EXPECT_EQ(findings.back().rule, "INV-G3");
    EXPECT_EQ(findings.back().file, shown("handoff"));
}

TEST(InvariantOrder, LintOrdersWorkspaceAndSmallDirLast) {
    TestWorkspace ws;
    ws.replace("workspace", "small_version: \"1.0.0\"", "small_version: 1.0.0");
    ws.add_extra_file("notes.txt");
    ws.replace("handoff", "links: []", "links: {}");
    ws.replace("intent", "include: []", "include: 1");
    const MemoryFileSystem mem = ws.fs();
    const SchemaSet schemas = std::move(SchemaSet::embedded().value());
    const VerdictInput in{mem, TestWorkspace::paths(mem), schemas};
    VerdictOptions options;
    options.strict = true;
    const Verdict v = run_lint(in, options);
    const auto findings = v.all_findings();
    EXPECT_EQ(rules_of(findings), (std::vector<std::string>{"INV-I4", "INV-H7", "FMT-1", "S4"})) << describe(findings);
    ASSERT_EQ(findings.size(), 4u);
    EXPECT_EQ(findings[2].file, ".small/workspace.small.yml");
    EXPECT_EQ(findings[2].file_order, kWorkspaceFileOrder);
    EXPECT_EQ(findings[3].file, ".small/");
    EXPECT_EQ(findings[3].file_order, kSmallDirOrder);
}

// ---------------------------------------------------------------- S4 layout

class LayoutS4 : public ::testing::Test {
protected:
    TestWorkspace ws;
    std::vector<Finding> layout() {
        const MemoryFileSystem mem = ws.fs();
        Result<std::vector<Finding>> r = check_layout(mem, TestWorkspace::paths(mem));
        EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().describe());
        return r.ok() ? *r : std::vector<Finding>{};
    }
};

TEST_F(LayoutS4, SixAllowedFilesPass) {
    // protocol §11.2 item 40.
    EXPECT_TRUE(layout().empty()) << describe(layout());
}

TEST_F(LayoutS4, ExtDirectoryAllowed) {
    // D9: seed 001 permits extensions under .small/ext/.
    ws.add_extra_file("ext/my-tool/config.yml");
    ws.add_extra_dir("ext/empty");
    EXPECT_TRUE(layout().empty()) << describe(layout());
}

TEST_F(LayoutS4, UnexpectedFileAndDirectory) {
    // protocol §11.2 item 41.
    ws.add_extra_file("notes.txt");
    ws.add_extra_dir("logs");
    const auto findings = layout();
    ASSERT_EQ(findings.size(), 1u) << describe(findings);
    const Finding& f = findings[0];
    EXPECT_EQ(f.rule, "S4");
    EXPECT_EQ(f.file, ".small/");
    EXPECT_EQ(f.file_order, kSmallDirOrder);
    EXPECT_TRUE(contains(f.message, "strict invariant S4 failed: unexpected paths under .small/: .small/logs/, .small/notes.txt."))
        << f.message;
    EXPECT_TRUE(contains(f.message, "Delete or move remaining unexpected paths outside .small/")) << f.message;
    EXPECT_FALSE(contains(f.message, "Legacy")) << f.message;
    EXPECT_FALSE(f.hint.empty());
}

TEST_F(LayoutS4, HiddenFilesNearMissNamesAndExtAsFileFlagged) {
    for (const char* name : {".hidden", ".DS_Store", "intent.small.yaml", "Plan.small.yml", "ext", "AGENTS.md"}) {
        SCOPED_TRACE(name);
        ws = TestWorkspace();
        ws.add_extra_file(name);
        const auto findings = layout();
        ASSERT_EQ(findings.size(), 1u) << describe(findings);
        EXPECT_TRUE(contains(findings[0].message, std::string(".small/") + name + ".")) << findings[0].message;
    }
}

TEST_F(LayoutS4, CanonicalNamesAsDirectoriesFlagged) {
    ws.remove("handoff");
    ws.add_extra_dir("handoff.small.yml");
    const auto findings = layout();
    ASSERT_EQ(findings.size(), 1u) << describe(findings);
    EXPECT_TRUE(contains(findings[0].message, ".small/handoff.small.yml/")) << findings[0].message;
}

TEST_F(LayoutS4, LegacyRuntimeDirectoriesOnly) {
    // protocol §11.2 item 42.
    ws.add_extra_dir("archive");
    ws.add_extra_file("runs/abc/handoff.small.yml");
    const auto findings = layout();
    ASSERT_EQ(findings.size(), 1u) << describe(findings);
    const std::string& m = findings[0].message;
    EXPECT_TRUE(contains(m, ".small/archive/, .small/runs/")) << m;
    EXPECT_TRUE(contains(m, "Legacy runtime layout detected")) << m;
    EXPECT_TRUE(contains(m, "small fix --runtime-layout")) << m;
    EXPECT_TRUE(contains(m, ".small-archive/") && contains(m, ".small-runs/")) << m;
    EXPECT_FALSE(contains(m, "Delete or move remaining")) << m;
}

TEST_F(LayoutS4, LegacyAndOtherPathsTogether) {
    ws.add_extra_dir("runs");
    ws.add_extra_file("scratch.md");
    const auto findings = layout();
    ASSERT_EQ(findings.size(), 1u) << describe(findings);
    const std::string& m = findings[0].message;
    EXPECT_TRUE(contains(m, ".small/runs/, .small/scratch.md.")) << m;
    EXPECT_TRUE(contains(m, "small fix --runtime-layout")) << m;
    EXPECT_TRUE(contains(m, "Delete or move remaining")) << m;
}

TEST(LayoutS4Missing, NoSmallDirectoryIsAnError) {
    MemoryFileSystem mem;
    mem.add_directory("/ws");
    const Result<std::vector<Finding>> r = check_layout(mem, locate_workspace(mem, std::string("/ws"), "/ws"));
    EXPECT_FALSE(r.ok());
}

// ---------------------------------------------------------------- FMT-1 quoting

class QuotingFmt1 : public ::testing::Test {
protected:
    TestWorkspace ws;
    std::vector<Finding> quoting(bool as_errors = false) {
        const MemoryFileSystem mem = ws.fs();
        const WorkspacePaths paths = TestWorkspace::paths(mem);
        return check_version_quoting(mem, paths, load_artifacts(mem, paths), as_errors);
    }
};

TEST_F(QuotingFmt1, DoubleQuotedIsFine) { EXPECT_TRUE(quoting().empty()) << describe(quoting()); }

TEST_F(QuotingFmt1, UnquotedIsAWarningOrAnError) {
    ws.replace("plan", "small_version: \"1.0.0\"", "small_version: 1.0.0");
    auto findings = quoting();
    ASSERT_EQ(findings.size(), 1u) << describe(findings);
    EXPECT_EQ(findings[0].rule, "FMT-1");
    EXPECT_EQ(findings[0].severity, Severity::Warning);
    EXPECT_EQ(findings[0].file, shown("plan"));
    EXPECT_EQ(findings[0].mark.line, 1u);
    EXPECT_TRUE(contains(findings[0].message, "small_version should be a quoted string")) << findings[0].message;
    EXPECT_EQ(count_errors(findings), 0u);
    findings = quoting(true);
    ASSERT_EQ(findings.size(), 1u) << describe(findings);
    EXPECT_EQ(findings[0].severity, Severity::Error);
    EXPECT_EQ(count_errors(findings), 1u);
}

TEST_F(QuotingFmt1, SingleQuotedIsNotCanonical) {
    ws.replace("constraints", "small_version: \"1.0.0\"", "small_version: '1.0.0'");
    const auto findings = quoting();
    ASSERT_EQ(findings.size(), 1u) << describe(findings);
    EXPECT_EQ(findings[0].file, shown("constraints"));
}

TEST_F(QuotingFmt1, CommentAfterTheValue) {
    ws.replace("intent", "small_version: \"1.0.0\"", "small_version: \"1.0.0\" # pinned");
    EXPECT_TRUE(quoting().empty()) << describe(quoting());
    ws.replace("intent", "small_version: \"1.0.0\" # pinned", "small_version: 1.0.0 # pinned");
    const auto findings = quoting();
    ASSERT_EQ(findings.size(), 1u) << describe(findings);
    EXPECT_EQ(findings[0].file, shown("intent"));
}

TEST_F(QuotingFmt1, TabBeforeComment) {
    // The reference cuts the value at the first '#'; a tab is YAML whitespace too.
    ws.replace("intent", "small_version: \"1.0.0\"", "small_version: \"1.0.0\"\t# pinned");
    ASSERT_TRUE(ws.load().complete());
    const auto findings = quoting();
    EXPECT_TRUE(findings.empty()) << describe(findings);
}

TEST_F(QuotingFmt1, LineNumberOfTheVersionLine) {
    ws.set("handoff", std::string("# handoff\n\n") + ws.text("handoff"));
    ws.replace("handoff", "small_version: \"1.0.0\"", "small_version: 1.0.0");
    const auto findings = quoting();
    ASSERT_EQ(findings.size(), 1u) << describe(findings);
    EXPECT_EQ(findings[0].mark.line, 3u);
}

TEST_F(QuotingFmt1, WorkspaceMetadataReadFromDisk) {
    ws.replace("workspace", "small_version: \"1.0.0\"", "small_version: 1.0.0");
    const auto findings = quoting();
    ASSERT_EQ(findings.size(), 1u) << describe(findings);
    EXPECT_EQ(findings[0].file, ".small/workspace.small.yml");
    EXPECT_EQ(findings[0].file_order, kWorkspaceFileOrder);
}

TEST_F(QuotingFmt1, EveryFileReportedInOrder) {
    for (const char* name : {"handoff", "workspace", "intent", "progress", "plan", "constraints"}) {
        ws.replace(name, "small_version: \"1.0.0\"", "small_version: '1.0.0'");
    }
    const auto findings = quoting();
    ASSERT_EQ(findings.size(), 6u) << describe(findings);
    int i = 0;
    for (const char* name : {"intent", "constraints", "plan", "progress", "handoff", "workspace"}) {
        EXPECT_EQ(findings[i].file, shown(name));
        EXPECT_EQ(findings[i].file_order, i);
        ++i;
    }
}

// ---------------------------------------------------------------- verify rules

class VerifyRules : public ::testing::Test {
protected:
    TestWorkspace ws;
    std::vector<Finding> verify_rules() { return check_verify_rules(ws.load()); }
    void expect_rule(const Expected& e) { expect_single(verify_rules(), e); }
};

TEST_F(VerifyRules, BaselineClean) { EXPECT_TRUE(verify_rules().empty()) << describe(verify_rules()); }

TEST_F(VerifyRules, Ver1ReplayIdMissingOrNotAMapping) {
    ws.replace("handoff", std::string("replayId:\n  value: \"") + kRunId + "\"\n  source: \"auto\"\n", "");
    expect_rule({"VER-1", "handoff", "handoff.small.yml must include replayId", 0});
    ws = TestWorkspace();
    ws.replace("handoff", std::string("replayId:\n  value: \"") + kRunId + "\"\n  source: \"auto\"\n",
               std::string("replayId: \"") + kRunId + "\"\n");
    expect_rule({"VER-1", "handoff", "handoff.small.yml must include replayId", 7});
}

TEST_F(VerifyRules, Ver2ValueMissingOrBlank) {
    ws.replace("handoff", std::string("  value: \"") + kRunId + "\"\n", "");
    // Located at the replayId mapping (its remaining member's line).
    expect_rule({"VER-2", "handoff", "replayId.value must be a non-empty string", 8});
    ws = TestWorkspace();
    ws.replace("handoff", std::string("  value: \"") + kRunId + "\"", "  value: \" \"");
    expect_rule({"VER-2", "handoff", "replayId.value must be a non-empty string", 8});
}

TEST_F(VerifyRules, Ver3ValueNotSha256) {
    ws.replace("handoff", std::string("  value: \"") + kRunId + "\"", "  value: \"abc123\"");
    expect_rule({"VER-3", "handoff", "replayId.value must be a valid SHA256 hash (64 hex chars), got: \"abc123\"", 8});
}

TEST_F(VerifyRules, Ver3UpperCaseHexIsAccepted) {
    std::string upper = kRunId;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    ws.replace("handoff", std::string("  value: \"") + kRunId + "\"", "  value: \"" + upper + "\"");
    EXPECT_TRUE(verify_rules().empty()) << describe(verify_rules());
}

TEST_F(VerifyRules, Ver4SourceMissing) {
    ws.replace("handoff", "  source: \"auto\"\n", "");
    expect_rule({"VER-4", "handoff", "replayId.source must be a non-empty string", 8});
}

TEST_F(VerifyRules, Ver5SourceUnknown) {
    ws.replace("handoff", "source: \"auto\"", "source: \"robot\"");
    expect_rule({"VER-5", "handoff", "replayId.source must be one of [auto, manual], got: \"robot\"", 9});
}

TEST_F(VerifyRules, Ver6CurrentTaskEmpty) {
    ws.replace("handoff", "  next_steps: []\n", "  current_task_id: \"\"\n  next_steps: []\n");
    expect_rule({"VER-6", "handoff", "handoff.resume.current_task_id must not be an empty string", 5});
}

TEST_F(VerifyRules, Ver7CurrentTaskNotInPlan) {
    ws.replace("handoff", "  next_steps: []\n", "  current_task_id: \"task-9\"\n  next_steps: []\n");
    expect_rule({"VER-7", "handoff",
                 "handoff.resume.current_task_id \"task-9\" is not in plan.small.yml and does not use meta/", 5});
}

TEST_F(VerifyRules, Ver7MetaAndPlanTasksAreFine) {
    for (const char* value : {"\"meta/reset\"", "\"task-3\"", "null"}) {
        SCOPED_TRACE(value);
        ws = TestWorkspace();
        ws.replace("handoff", "  next_steps: []\n", std::string("  current_task_id: ") + value + "\n  next_steps: []\n");
        EXPECT_TRUE(verify_rules().empty()) << describe(verify_rules());
    }
}

}  // namespace
}  // namespace small
