// The read-only inspection operations: status, emit and doctor, and the
// plan summary they share. Fake workspaces in a MemoryFileSystem.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "small/domain/artifact_merge.hpp"
#include "small/model/plan_summary.hpp"
#include "small/model/resume_point.hpp"
#include "small/ops/inspect/doctor.hpp"
#include "small/ops/inspect/emit.hpp"
#include "small/ops/inspect/status.hpp"
#include "small/report/status.hpp"
#include "small/doc/yaml.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using testing::TestWorkspace;

PlanSummary summary_of(const std::string& yaml, std::size_t limit = 0) {
    Result<Document> doc = parse_yaml(yaml, "plan");
    EXPECT_TRUE(doc) << (doc ? "" : doc.error().describe());
    return summarize_plan(doc ? doc->root() : NodeRef(), limit);
}

const char* kQueuePlan = R"(tasks:
  - {id: a, title: A, status: completed}
  - {id: b, title: B, depends_on: [a]}
  - {id: c, title: C, dependencies: [b]}
  - {id: d, title: D, status: blocked}
  - {id: e, title: E, depends_on: [ghost]}
  - {id: f, title: F, status: Cancelled}
  - {id: g, title: G}
)";

TEST(PlanSummary, CountsStatusesAndQueuesReadyTasksInPlanOrder) {
    const PlanSummary s = summary_of(kQueuePlan, 0);
    EXPECT_EQ(s.total_tasks, 7u);
    EXPECT_EQ(s.tasks_by_status.at("completed"), 1u);
    EXPECT_EQ(s.tasks_by_status.at("pending"), 4u);
    EXPECT_EQ(s.tasks_by_status.at("blocked"), 1u);
    EXPECT_EQ(s.tasks_by_status.at("in_progress"), 0u);
    EXPECT_EQ(s.tasks_by_status.at("cancelled"), 1u);  // lower-cased, its own key
    // c waits on pending b; e on an unknown id (unknown dependencies block).
    EXPECT_EQ(s.next_actionable, (std::vector<std::string>{"b", "g"}));
    EXPECT_EQ(s.first_incomplete, "b");
    EXPECT_FALSE(s.all_done);
}

TEST(PlanSummary, LimitCapsTheQueueButNotTheCounts) {
    const PlanSummary s = summary_of(kQueuePlan, 1);
    EXPECT_EQ(s.next_actionable, (std::vector<std::string>{"b"}));
    EXPECT_EQ(s.total_tasks, 7u);
}

TEST(PlanSummary, FirstIncompletePrefersInProgressThenActionableThenBlocked) {
    EXPECT_EQ(summary_of("tasks:\n  - {id: x, status: blocked}\n  - {id: y, status: in_progress}\n", 0)
                  .first_incomplete,
              "y");
    // The reference's case: blocked task-29, then pending task-37.
    const PlanSummary s = summary_of("tasks:\n  - {id: task-29, status: blocked}\n  - {id: task-37}\n", 0);
    EXPECT_EQ(s.next_actionable, (std::vector<std::string>{"task-37"}));
    EXPECT_EQ(s.first_incomplete, "task-37");
    EXPECT_EQ(summary_of("tasks:\n  - {id: x, status: blocked}\n", 0).first_incomplete, "x");
}

TEST(PlanSummary, NextTaskResolution) {
    const PlanSummary ready = summary_of("tasks:\n  - {id: task-1, status: completed}\n  - {id: task-2}\n", 0);
    EXPECT_EQ(resolve_next_task(&ready, "task-9"), "task-2");
    EXPECT_EQ(resolve_next_task(&ready, ""), "task-2");
    const PlanSummary done = summary_of("tasks:\n  - {id: task-1, status: completed}\n", 0);
    EXPECT_EQ(resolve_next_task(&done, ""), kRunCompleteText);
    EXPECT_EQ(resolve_next_task(&done, " task-1 "), "task-1");
    EXPECT_EQ(resolve_next_task(nullptr, " task-4 "), "task-4");
}

// --- status ---------------------------------------------------------------

StatusReport status_of(const TestWorkspace& t, StatusOptions o = {}) {
    const MemoryFileSystem mem = t.fs();
    Result<StatusReport> r = status_command(mem, TestWorkspace::paths(mem), o);
    EXPECT_TRUE(r) << (r ? "" : r.error().describe());
    return r ? *r : StatusReport{};
}

TEST(StatusOp, ReportsArtifactsPlanRunAndNewestEntries) {
    const StatusReport r = status_of(TestWorkspace{});
    EXPECT_TRUE(r.small_dir_exists);
    EXPECT_TRUE(std::all_of(r.artifacts.begin(), r.artifacts.end(), [](bool b) { return b; }));
    ASSERT_TRUE(r.plan);
    EXPECT_EQ(r.plan->total_tasks, 3u);
    EXPECT_EQ(r.next_task, kRunCompleteText);
    EXPECT_EQ(r.replay_id, testing::kRunId);
    ASSERT_EQ(r.recent.size(), 5u);
    EXPECT_EQ(r.recent.front().task_id, "task-3");  // newest first
    EXPECT_TRUE(r.more_progress);
    EXPECT_TRUE(r.problems.empty());
}

TEST(StatusOp, SignalModeDropsApplyNoiseAuditModeKeepsIt) {
    TestWorkspace t;
    t.append("progress", R"(  - timestamp: "2025-06-01T10:00:06.1Z"
    task_id: "task-3"
    status: "in_progress"
    notes: "apply: execution started"
    command: "make"
  - timestamp: "2025-06-01T10:00:07.1Z"
    task_id: "meta/apply"
    status: "completed"
    command: "make"
)");
    StatusOptions o;
    o.recent = 1;
    EXPECT_EQ(status_of(t, o).recent.front().timestamp, "2025-06-01T10:00:05.100000005Z");
    o.audit = true;
    const StatusReport audit = status_of(t, o);
    EXPECT_EQ(audit.recent.front().task_id, "meta/apply");
    EXPECT_EQ(audit.recent.front().command_summary, "make");  // command when no command_summary
}

TEST(StatusOp, ZeroRecentMeansEveryEntry) {
    StatusOptions o;
    o.recent = 0;
    const StatusReport r = status_of(TestWorkspace{}, o);
    EXPECT_EQ(r.recent.size(), 6u);
    EXPECT_FALSE(r.more_progress);
}

TEST(StatusOp, BrokenHandoffIsAProblemWithItsPositionNotAFailure) {
    TestWorkspace t;
    t.set("handoff", "small_version: \"1.0.0\"\nresume: [unclosed\n");
    const StatusReport r = status_of(t);
    ASSERT_EQ(r.problems.size(), 1u);
    EXPECT_EQ(r.problems[0].file, ".small/handoff.small.yml");
    EXPECT_GT(r.problems[0].line, 0u);
    ASSERT_TRUE(r.plan);  // the rest is still reported
    EXPECT_EQ(r.recent.size(), 5u);
}

TEST(StatusOp, MissingPlanLeavesPlanOutAndUsesTheHandoff) {
    TestWorkspace t;
    t.remove("plan");
    t.replace("handoff", "  next_steps: []", "  current_task_id: \"task-7\"\n  next_steps: []");
    const StatusReport r = status_of(t);
    EXPECT_FALSE(r.plan);
    EXPECT_FALSE(r.artifacts[2]);
    EXPECT_EQ(r.next_task, "task-7");
}

TEST(StatusOp, BadPinnedRunIdIsReportedNotShown) {
    TestWorkspace t;
    t.replace("workspace", testing::kRunId, "../../etc");
    const StatusReport r = status_of(t);
    EXPECT_TRUE(r.replay_id.empty());
    ASSERT_EQ(r.problems.size(), 1u);
    EXPECT_NE(r.problems[0].describe().find("workspace.small.yml"), std::string::npos);
}

TEST(StatusOp, NoSmallDirIsAReportAndASmallFileAnError) {
    MemoryFileSystem mem;
    mem.add_directory("/elsewhere");
    Result<StatusReport> r = status_command(mem, locate_workspace(mem, std::string("/elsewhere"), "/"), {});
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_FALSE(r->small_dir_exists);
    EXPECT_FALSE(r->plan);
    EXPECT_EQ(status_json(&*r, "v1", false)["small_dir_exists"], false);
    EXPECT_FALSE(status_json(&*r, "v1", false).contains("warnings"));
    mem.add_file("/elsewhere/.small", "a file\n");
    r = status_command(mem, locate_workspace(mem, std::string("/elsewhere"), "/"), {});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, Error::Kind::System);
}

// --- emit -----------------------------------------------------------------

TEST(EmitSections, CanonicalNamesOnly) {
    Result<std::set<EmitSection>> ok = parse_emit_sections(" Plan, progress,,STATUS ");
    ASSERT_TRUE(ok);
    EXPECT_EQ(*ok, (std::set<EmitSection>{EmitSection::Plan, EmitSection::Progress, EmitSection::Status}));
    EXPECT_TRUE(parse_emit_sections("")->empty());
    for (const char* bad : {"bogus", "../plan", "plan.small.yml", "/etc/passwd", "plans"}) {
        Result<std::set<EmitSection>> r = parse_emit_sections(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().kind, Error::Kind::Usage);
        EXPECT_NE(r.error().message.find("; valid sections: paths, status"), std::string::npos);
    }
    EXPECT_NE(parse_emit_sections("plans").error().hint.find("--include plan"), std::string::npos);
}

EmitResult emit_of(const TestWorkspace& t, EmitOptions o = {}) {
    const MemoryFileSystem mem = t.fs();
    Result<EmitResult> r = emit_command(mem, TestWorkspace::paths(mem), o);
    EXPECT_TRUE(r) << (r ? "" : r.error().describe());
    return r ? std::move(*r) : EmitResult{};
}

TEST(EmitOp, DefaultSectionsFromTheTailWithoutRawArtifacts) {
    const EmitResult r = emit_of(TestWorkspace{});
    EXPECT_EQ(r.sections, (std::set<EmitSection>{EmitSection::Paths, EmitSection::Status, EmitSection::Progress,
                                                 EmitSection::Intent, EmitSection::Constraints}));
    EXPECT_EQ(r.kind, WorkspaceKind::RepoRoot);
    EXPECT_EQ(r.plan_summary.total_tasks, 3u);
    EXPECT_EQ(r.last_timestamp, "2025-06-01T10:00:05.100000005Z");
    EXPECT_EQ(r.recent.size(), 5u);
    EXPECT_FALSE(r.progress_log);
    EXPECT_FALSE(r.intent_doc);
    EXPECT_FALSE(r.plan_doc);
    EXPECT_EQ(r.intent.intent, "Build a widget");
    EXPECT_EQ(r.constraints.ids, (std::vector<std::string>{"no-prod-writes", "no-secrets"}));
    EXPECT_FALSE(r.enforcement);
}

TEST(EmitOp, NamedSectionsOnlyAndTheirRawArtifacts) {
    EmitOptions o;
    o.include = {EmitSection::Progress, EmitSection::Plan};
    const EmitResult r = emit_of(TestWorkspace{}, o);
    EXPECT_EQ(r.sections, o.include);
    ASSERT_TRUE(r.progress_log);
    EXPECT_EQ(r.progress_log->root().find("entries").size(), 6u);
    ASSERT_TRUE(r.plan_doc);
    EXPECT_FALSE(r.constraints.present);  // not selected: not read
    EXPECT_EQ(r.recent.size(), 5u);
}

TEST(EmitOp, BadLastTimestampIsAWarningNotAnAbort) {
    TestWorkspace t;
    t.append("progress", "  - task_id: \"task-3\"\n    status: \"completed\"\n    evidence: \"x\"\n");
    const EmitResult r = emit_of(t);
    EXPECT_TRUE(r.last_timestamp.empty());
    ASSERT_EQ(r.problems.size(), 1u);
    EXPECT_NE(r.problems[0].message.find("lastTimestamp left out"), std::string::npos);
}

TEST(EmitOp, ScopeMismatchIsInvalidAndAnyScopeToleratesMissingMetadata) {
    TestWorkspace t;
    t.replace("workspace", "repo-root", "examples");
    const MemoryFileSystem mem = t.fs();
    Result<EmitResult> r = emit_command(mem, TestWorkspace::paths(mem), {});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);

    TestWorkspace no_meta;
    no_meta.remove("workspace");
    EmitOptions any;
    any.scope = WorkspaceScope::Any;
    const EmitResult tolerant = emit_of(no_meta, any);
    EXPECT_FALSE(tolerant.kind);
    EXPECT_EQ(tolerant.problems.size(), 1u);
}

TEST(EmitOp, CheckRunsTheVerdictIntoEnforcement) {
    TestWorkspace t;
    t.replace("intent", "owner: \"human\"", "owner: \"agent\"");
    EmitOptions o;
    o.check = true;
    const EmitResult r = emit_of(t, o);
    ASSERT_TRUE(r.enforcement);
    EXPECT_EQ(r.check_exit_code, 1);
    EXPECT_TRUE(r.sections.count(EmitSection::Enforcement));
}

TEST(EmitOp, UnparsablePlanFailsWithItsPosition) {
    TestWorkspace t;
    t.set("plan", "tasks:\n  - id: [\n");
    const MemoryFileSystem mem = t.fs();
    Result<EmitResult> r = emit_command(mem, TestWorkspace::paths(mem), {});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().file, ".small/plan.small.yml");
    EXPECT_GT(r.error().line, 0u);
}

// --- doctor ---------------------------------------------------------------

DoctorReport doctor_of(const TestWorkspace& t) {
    const MemoryFileSystem mem = t.fs();
    Result<SchemaSet> schemas = SchemaSet::embedded();
    EXPECT_TRUE(schemas);
    return doctor_command(mem, TestWorkspace::paths(mem), *schemas);
}

const DoctorCheck* check_named(const DoctorReport& r, const std::string& category) {
    for (const DoctorCheck& c : r.checks) {
        if (c.category == category) return &c;
    }
    return nullptr;
}

TEST(DoctorOp, HealthyWorkspacePassesEveryCheck) {
    const DoctorReport r = doctor_of(TestWorkspace{});
    EXPECT_EQ(r.errors, 0u);
    EXPECT_EQ(r.warnings, 0u);
    for (const char* c : {"Workspace", "Metadata", "Files", "Runtime Layout", "Schema", "Invariant", "Strict",
                          "Replay Id", "Version", "Run State", "Progress"}) {
        ASSERT_TRUE(check_named(r, c)) << c;
        EXPECT_EQ(check_named(r, c)->status, DoctorStatus::Ok) << c;
    }
}

TEST(DoctorOp, NoSmallDirIsOneErrorSuggestingInit) {
    MemoryFileSystem mem;
    mem.add_directory("/x");
    Result<SchemaSet> schemas = SchemaSet::embedded();
    const DoctorReport r = doctor_command(mem, locate_workspace(mem, std::string("/x"), "/"), *schemas);
    ASSERT_EQ(r.checks.size(), 1u);
    EXPECT_EQ(r.errors, 1u);
    EXPECT_NE(r.checks[0].suggestion.find("small init"), std::string::npos);
}

TEST(DoctorOp, LegacyLayoutIsAWarningWithItsFix) {
    TestWorkspace t;
    t.add_extra_dir("runs");
    const DoctorReport r = doctor_of(t);
    const DoctorCheck* c = check_named(r, "Runtime Layout");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->status, DoctorStatus::Warning);
    EXPECT_NE(c->suggestion.find("small fix --runtime-layout"), std::string::npos);
    EXPECT_EQ(check_named(r, "Strict")->status, DoctorStatus::Ok);  // not reported twice
    EXPECT_EQ(r.errors, 0u);
}

TEST(DoctorOp, StrayFileIsStrictS4) {
    TestWorkspace t;
    t.add_extra_file("notes.txt");
    const DoctorReport r = doctor_of(t);
    const DoctorCheck* c = check_named(r, "Strict");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->status, DoctorStatus::Error);
    EXPECT_EQ(testing::rules_of(c->findings), (std::vector<std::string>{"S4"}));
}

TEST(DoctorOp, MissingMetadataAndSchemaErrorsAreBothReported) {
    TestWorkspace t;
    t.remove("workspace");
    t.replace("intent", "owner: \"human\"", "owner: \"agent\"");
    const DoctorReport r = doctor_of(t);
    EXPECT_EQ(check_named(r, "Metadata")->status, DoctorStatus::Error);
    EXPECT_NE(check_named(r, "Metadata")->suggestion.find("small fix workspace"), std::string::npos);
    EXPECT_EQ(check_named(r, "Schema")->status, DoctorStatus::Error);
    EXPECT_GE(r.errors, 2u);
}

TEST(DoctorOp, PlantedTraversalReplayIdIsAnError) {
    TestWorkspace t;
    t.replace("handoff", std::string("value: \"") + testing::kRunId + "\"", "value: \"../../escape\"");
    const DoctorReport r = doctor_of(t);
    const DoctorCheck* c = check_named(r, "Replay Id");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->status, DoctorStatus::Error);
    EXPECT_FALSE(c->findings.empty());
}

TEST(DoctorOp, HandoffOfAnotherRunIsAWarning) {
    TestWorkspace t;
    t.replace("handoff", testing::kRunId, testing::kOtherRunId);
    const DoctorReport r = doctor_of(t);
    const DoctorCheck* c = check_named(r, "Replay Id");
    ASSERT_TRUE(c);
    EXPECT_EQ(testing::rules_of(c->findings), (std::vector<std::string>{"RUN-1"}));
}

TEST(DoctorOp, BrokenYamlStopsContentChecksWithItsPosition) {
    TestWorkspace t;
    t.set("plan", "small_version: \"1.0.0\"\ntasks:\n  - id: [\n");
    const DoctorReport r = doctor_of(t);
    const DoctorCheck* c = check_named(r, "Loading");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->status, DoctorStatus::Error);
    ASSERT_EQ(c->findings.size(), 1u);
    EXPECT_EQ(c->findings[0].file, ".small/plan.small.yml");
    EXPECT_GT(c->findings[0].mark.line, 0u);
    EXPECT_FALSE(check_named(r, "Schema"));
}

TEST(DoctorOp, MissingFilesAreNamedInCanonicalOrder) {
    TestWorkspace t;
    t.remove("handoff");
    t.remove("intent");
    const DoctorReport r = doctor_of(t);
    EXPECT_EQ(check_named(r, "Files")->message, "Missing files: intent.small.yml, handoff.small.yml");
}

// --- doctor on a long log (issue 39) --------------------------------------

// The whole report, every finding's position included.
std::string report_text(const DoctorReport& r) {
    std::string out = std::to_string(r.errors) + " errors, " + std::to_string(r.warnings) + " warnings\n";
    for (const DoctorCheck& c : r.checks) {
        out += std::string("[") + doctor_status_name(c.status) + "] " + c.category + ": " + c.message + " -> " +
               c.suggestion + "\n";
        for (const Finding& f : c.findings) {
            std::string message = f.message;  // INV-R8 quotes the clock, which moves between two runs
            if (const std::size_t at = message.find("ahead of the clock ("); at != std::string::npos) message.resize(at);
            out += "  " + f.rule + "/" + std::to_string(static_cast<int>(f.severity)) + " " + f.file + ":" +
                   std::to_string(f.mark.line) + ":" + std::to_string(f.mark.column) + " " + f.pointer + " " + message +
                   " | " + f.hint + "\n";
        }
    }
    return out;
}

std::string entry_text_at(int n, const std::string& task, const std::string& evidence, const std::string& notes = "") {
    char ts[64];
    std::snprintf(ts, sizeof ts, "2025-06-01T%02d:%02d:%02d.%09dZ", 10 + n / 3600, n / 60 % 60, n % 60, 100000000 + n);
    std::string out = "  - timestamp: \"" + std::string(ts) + "\"\n    task_id: \"" + task + "\"\n    status: \"" +
                      (n % 3 ? "in_progress" : "completed") + "\"\n    evidence: \"" + evidence + "\"\n";
    if (!notes.empty()) out += "    notes: " + notes + "\n";
    return out + "    replayId: \"" + testing::kRunId + "\"\n";
}

constexpr const char* kFourTasks = R"(small_version: "1.0.0"
owner: "agent"
tasks:
  - id: "task-1"
    title: "One"
    status: "completed"
  - id: "task-2"
    title: "Two"
    status: "in_progress"
  - id: "task-3"
    title: "Three"
  - id: "task-4"
    title: "Four"
    depends_on: ["task-3"]
)";

// A run of `n` entries over four tasks; `odd` (when >= 0) is entry `odd` replaced by `odd_entry`.
std::string long_log(int n, int odd = -1, const std::string& odd_entry = "") {
    std::string out = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";
    for (int i = 0; i < n; ++i) {
        out += i == odd ? odd_entry : entry_text_at(i, "task-" + std::to_string(1 + i % 4), "step " + std::to_string(i));
    }
    return out;
}

TestWorkspace long_workspace(const std::string& log) {
    TestWorkspace t;
    t.set("plan", kFourTasks);
    t.set("progress", log);
    return t;
}

// The handoff's first line records the plan and log it was computed from.
void record_handoff_source(TestWorkspace& t) {
    Result<Document> plan = parse_yaml(t.text("plan"), "plan");
    Result<Document> log = parse_yaml(t.text("progress"), "progress");
    ASSERT_TRUE(plan && log);
    const HandoffSource source =
        handoff_source(outline_plan(plan->root()), log_facts(log->root(), testing::kRunId));
    t.set("handoff", source_comment(source) + t.text("handoff"));
}

constexpr LogWindows kWholeLog{UINT64_MAX, 1};

DoctorReport doctor_with(const MemoryFileSystem& fs, const LogWindows& windows) {
    Result<SchemaSet> schemas = SchemaSet::embedded();
    EXPECT_TRUE(schemas);
    return doctor_command(fs, TestWorkspace::paths(fs), *schemas, windows);
}

struct LongCase {
    const char* what;
    std::function<void(TestWorkspace&)> change;
    bool log_finding;  // a finding in the log itself: only the whole read says where
    const char* shows;  // what the report says of it
};

std::vector<LongCase> long_cases() {
    constexpr int kEntries = 40;
    const auto odd = [](int at, std::string entry) {
        return [at, entry](TestWorkspace& t) { t.set("progress", long_log(kEntries, at, entry)); };
    };
    return {
        {"clean", [](TestWorkspace&) {}, false, "40 progress entries recorded"},
        {"fresh handoff", [](TestWorkspace& t) { record_handoff_source(t); }, false, "[ok] Strict"},
        {"stale handoff",
         [](TestWorkspace& t) {
             record_handoff_source(t);
             t.append("progress", entry_text_at(kEntries, "task-2", "later work"));
         },
         false, "Handoff is stale: 1 work entry was added"},
        {"renamed by a merge",
         odd(17, entry_text_at(17, "task-3", "Renamed task task-9 to task-3 via small merge",
                               "'" + rename_note(TaskRename{"task-9", "task-3", "Three"}) + "'")),
         false, "[ok] Merge Renames: 1 task id(s) renamed"},
        {"plan finding", [](TestWorkspace& t) { t.replace("plan", "title: \"Two\"", "title: 2"); }, false, "[error] Schema"},
        {"intent finding", [](TestWorkspace& t) { t.replace("intent", "owner: \"human\"", "owner: \"agent\""); }, false, "intent.small.yml"},
        {"secret", odd(23, entry_text_at(23, "task-4", "token ghp_" + std::string(36, 'a'))), true, "SEC"},
        {"orphan task", odd(29, entry_text_at(29, "task-99", "lost")), true, "S2/"},
        {"out of order", odd(11, entry_text_at(3, "task-4", "early")), true, "INV-R6"},
        {"schema", odd(31, entry_text_at(31, "task-4", "x") + "    surprise: 1\n"), true, "SCHEMA"},
        {"far ahead", [](TestWorkspace& t) {
             t.append("progress", "  - timestamp: \"2099-01-01T00:00:00.000000000Z\"\n    task_id: \"task-1\"\n"
                                  "    status: \"completed\"\n    evidence: \"later\"\n");
         }, true, "INV-R8"},
    };
}

// Issue 39: doctor reads a long log in windows, and says what it says of
// the whole log, positions included: on a finding in the log it reads the
// whole log to say where.
TEST(DoctorOp, ALogReadInWindowsReportsWhatTheWholeReadReports) {
    for (const LongCase& c : long_cases()) {
        TestWorkspace t = long_workspace(long_log(40));
        c.change(t);
        const MemoryFileSystem fs = t.fs();
        const std::string whole = report_text(doctor_with(fs, kWholeLog));
        EXPECT_EQ(whole.find("[error] Loading"), std::string::npos) << c.what << "\n" << whole;
        EXPECT_NE(whole.find(c.shows), std::string::npos) << c.what << "\n" << whole;
        for (const std::size_t window : {std::size_t{1}, std::size_t{150}, std::size_t{700}, std::size_t{1} << 20}) {
            EXPECT_EQ(report_text(doctor_with(fs, LogWindows{0, window})), whole)
                << c.what << ", windows of " << window << " bytes";
        }
    }
}

// ... and needs no whole read for it while the log has no finding: a log
// larger than the file system reads whole (kMaxFileBytes on a disk) is
// reported in full; with a finding in it, the whole read's refusal says why
// and what to do.
TEST(DoctorOp, ALogOfAnyLengthIsReadInWindowsUnlessItHasAFinding) {
    for (const LongCase& c : long_cases()) {
        TestWorkspace t = long_workspace(long_log(40));
        c.change(t);
        MemoryFileSystem fs = t.fs();
        const std::string whole = report_text(doctor_with(fs, kWholeLog));
        fs.set_max_read_bytes(t.text("progress").size() - 1);
        const DoctorReport windowed = doctor_with(fs, LogWindows{0, 300});
        if (!c.log_finding) {
            EXPECT_EQ(report_text(windowed), whole) << c.what;
            continue;
        }
        const DoctorCheck* loading = check_named(windowed, "Loading");
        ASSERT_TRUE(loading) << c.what << "\n" << report_text(windowed);
        EXPECT_EQ(loading->status, DoctorStatus::Error);
        ASSERT_EQ(loading->findings.size(), 1u) << c.what;
        EXPECT_EQ(loading->findings[0].file, ".small/progress.small.yml");
        EXPECT_NE(loading->findings[0].message.find("small reads whole"), std::string::npos)
            << loading->findings[0].message;
        EXPECT_NE(loading->findings[0].hint.find("small archive"), std::string::npos) << loading->findings[0].hint;
        EXPECT_FALSE(check_named(windowed, "Schema")) << "no content check runs on a log that did not load";
    }
}

// A plan that does not load beside a long clean log: only the plan is
// reported, and the log (read cleanly in windows) is not read whole again.
TEST(DoctorOp, AnotherFileThatDoesNotLoadIsReportedWithoutReadingTheLogWhole) {
    TestWorkspace t = long_workspace(long_log(40));
    t.replace("plan", "title: \"Two\"", "title: [\"Two\"");
    MemoryFileSystem fs = t.fs();
    fs.set_max_read_bytes(t.text("progress").size() - 1);
    const DoctorReport windowed = doctor_with(fs, LogWindows{0, 300});
    const DoctorCheck* loading = check_named(windowed, "Loading");
    ASSERT_TRUE(loading) << report_text(windowed);
    ASSERT_EQ(loading->findings.size(), 1u) << report_text(windowed);
    EXPECT_EQ(loading->findings[0].file, ".small/plan.small.yml") << report_text(windowed);
}

}  // namespace
}  // namespace small
