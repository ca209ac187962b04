// D18 at write time and honest time (issue 18, points 5 and 8) in the
// library: the dependency gate of checkpoint and progress add, the lint
// rules INV-P10 (completed before its dependencies) and INV-R8 (dated in the
// future), and the warning of an append stamped after a future-dated entry.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>

#include "small/base/timestamp.hpp"
#include "small/check/invariants.hpp"
#include "small/doc/yaml.hpp"
#include "small/ops/session/checkpoint.hpp"
#include "small/ops/session/init.hpp"
#include "small/ops/session/progress_add.hpp"
#include "small/domain/progress_entry.hpp"
#include "small/store/progress_log.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

namespace fs = std::filesystem;
using namespace small::testing;
using std::chrono::milliseconds;

// task-4 waits for task-1 (completed), task-2 (blocked) and task-3 (pending).
constexpr const char* kPlan = R"(small_version: "1.0.0"
owner: "agent"
tasks:
  - id: "task-1"
    title: "Design"
    status: "completed"
  - id: "task-2"
    title: "Decide"
    status: "blocked"
  - id: "task-3"
    title: "Build"
  - id: "task-4"
    title: "Ship"
    status: "pending"
    depends_on: ["task-1", "task-2"]
    dependencies: ["task-3"]
)";
constexpr const char* kUnmet = "task-2 (blocked), task-3 (pending)";

// A workspace made by init in a temporary directory, with kPlan.
class GateWorkspace {
public:
    GateWorkspace() {
        InitRequest req;
        req.dir = dir_.root();
        req.cwd = dir_.root();
        req.no_agents = true;
        Result<InitResult> r = init_command(real_fs, req);
        if (!r) throw std::runtime_error("init failed: " + r.error().describe());
        ws_.root = r->root;
        ws_.small_dir = r->small_dir;
        ws_.display_prefix = "";
        write_text(ws_.path_of("plan.small.yml"), kPlan);
    }
    const WorkspacePaths& ws() const { return ws_; }
    std::map<std::string, std::string> snapshot() const { return testing::snapshot(ws_.small_dir); }
    void append_log(const std::string& text) const {
        std::ofstream(ws_.path_of("progress.small.yml"), std::ios::binary | std::ios::app) << text;
    }

private:
    TempDir dir_;
    WorkspacePaths ws_;
};

CheckpointRequest checkpoint(const std::string& task, TaskStatus status, bool force = false) {
    CheckpointRequest r;
    r.task = task;
    r.status = status;
    r.force = force;
    r.lock_wait = milliseconds(2000);
    return r;
}

ProgressAddRequest progress(const std::string& task, TaskStatus status, bool force = false) {
    ProgressAddRequest r;
    r.task = task;
    r.status = status;
    r.force = force;
    r.lock_wait = milliseconds(2000);
    return r;
}

// ============================================================ the gate

TEST(DependencyGate, CheckpointCompletingBeforeDependenciesIsInvalidAndWritesNothing) {
    GateWorkspace w;
    const auto before = w.snapshot();
    Result<CheckpointResult> r = checkpoint_command(real_fs, w.ws(), checkpoint("task-4", TaskStatus::Completed));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(r.error().message, std::string("its dependencies ") + kUnmet + " are not completed"))
        << r.error().message;
    EXPECT_TRUE(contains(r.error().message, "nothing written")) << r.error().message;
    EXPECT_TRUE(contains(r.error().hint, "small checkpoint --task task-2 --status completed")) << r.error().hint;
    EXPECT_TRUE(contains(r.error().hint, "--force")) << r.error().hint;
    EXPECT_EQ(w.snapshot(), before);
}

TEST(DependencyGate, ForceRecordsTheUnmetDependenciesInTheNotes) {
    GateWorkspace w;
    CheckpointRequest req = checkpoint("task-4", TaskStatus::Completed, true);
    req.notes = "demo";
    Result<CheckpointResult> r = checkpoint_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->entry["notes"].get<std::string>(), std::string("forced: dependencies ") + kUnmet + " not completed; demo");
    EXPECT_TRUE(r->warnings.empty());
}

TEST(DependencyGate, StartingBeforeDependenciesWarnsAndWrites) {
    GateWorkspace w;
    Result<CheckpointResult> r = checkpoint_command(real_fs, w.ws(), checkpoint("task-4", TaskStatus::InProgress));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(r->warnings.size(), 1u);
    EXPECT_EQ(r->warnings[0], std::string("task-4 started before its dependencies are completed: ") + kUnmet +
                                  "; completing task-4 is refused until they are (or with --force)");
    EXPECT_FALSE(r->entry.contains("notes"));
}

TEST(DependencyGate, OtherStatusesAndReadyTasksPass) {
    GateWorkspace w;
    for (const TaskStatus status : {TaskStatus::Blocked, TaskStatus::Cancelled}) {
        Result<CheckpointResult> r = checkpoint_command(real_fs, w.ws(), checkpoint("task-4", status));
        ASSERT_TRUE(r.ok()) << status_name(status) << ": " << r.error().describe();
        EXPECT_TRUE(r->warnings.empty()) << status_name(status);
    }
    Result<CheckpointResult> ready = checkpoint_command(real_fs, w.ws(), checkpoint("task-3", TaskStatus::Completed));
    ASSERT_TRUE(ready.ok()) << ready.error().describe();
    EXPECT_FALSE(ready->entry.contains("notes"));
}

TEST(DependencyGate, ForceWithoutUnmetDependenciesAddsNoNote) {
    GateWorkspace w;
    Result<CheckpointResult> r = checkpoint_command(real_fs, w.ws(), checkpoint("task-3", TaskStatus::Completed, true));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_FALSE(r->entry.contains("notes"));
}

TEST(DependencyGate, ProgressAddIsGatedLikeCheckpoint) {
    GateWorkspace w;
    const auto before = w.snapshot();
    Result<ProgressAddResult> refused =
        progress_add_command(real_fs, w.ws(), progress("task-4", TaskStatus::Completed));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(refused.error().message, kUnmet)) << refused.error().message;
    EXPECT_EQ(w.snapshot(), before);

    Result<ProgressAddResult> started =
        progress_add_command(real_fs, w.ws(), progress("task-4", TaskStatus::InProgress));
    ASSERT_TRUE(started.ok()) << started.error().describe();
    ASSERT_EQ(started->warnings.size(), 1u);
    EXPECT_TRUE(contains(started->warnings[0], "task-4 started before its dependencies")) << started->warnings[0];

    Result<ProgressAddResult> forced =
        progress_add_command(real_fs, w.ws(), progress("task-4", TaskStatus::Completed, true));
    ASSERT_TRUE(forced.ok()) << forced.error().describe();
    EXPECT_EQ(forced->entry["notes"].get<std::string>(), std::string("forced: dependencies ") + kUnmet + " not completed");
}

TEST(DependencyGate, MetaTasksAreNotGated) {
    GateWorkspace w;
    Result<ProgressAddResult> r = progress_add_command(real_fs, w.ws(), progress("meta/review", TaskStatus::Completed));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    Result<DependencyGate> gate = gate_on_dependencies(real_fs, w.ws(), "meta/x", TaskStatus::Completed, false);
    ASSERT_TRUE(gate.ok());
    EXPECT_TRUE(gate->unmet.empty());
}

TEST(DependencyGate, AnUnknownDependencyIsUnmet) {
    GateWorkspace w;
    std::string plan = kPlan;
    plan.replace(plan.find("[\"task-3\"]"), 10, "[\"task-9\"]");
    std::ofstream(w.ws().path_of("plan.small.yml"), std::ios::binary | std::ios::trunc) << plan;
    Result<DependencyGate> gate = gate_on_dependencies(real_fs, w.ws(), "task-4", TaskStatus::Completed, true);
    ASSERT_TRUE(gate.ok()) << gate.error().describe();
    EXPECT_EQ(gate->unmet, (std::vector<std::string>{"task-2", "task-9"}));
    EXPECT_TRUE(contains(gate->forced_note, "task-9 (not in the plan)")) << gate->forced_note;
}

// ============================================================ time

Instant at(const char* text) {
    Result<Instant> t = parse_progress_timestamp(text);
    if (!t) throw std::runtime_error(t.error().message);
    return *t;
}

TEST(HonestTime, TooFarAheadIsMoreThanFiveMinutes) {
    const Instant now = at("2026-01-01T00:00:00.5Z");
    EXPECT_FALSE(too_far_ahead(at("2026-01-01T00:05:00.5Z"), now));
    EXPECT_TRUE(too_far_ahead(at("2026-01-01T00:05:00.500000001Z"), now));
    EXPECT_FALSE(too_far_ahead(at("2025-01-01T00:00:00.0Z"), now));
}

TEST(HonestTime, DurationTextUsesTheLargestWholeUnit) {
    EXPECT_EQ(duration_text(0), "0 seconds");
    EXPECT_EQ(duration_text(1), "1 second");
    EXPECT_EQ(duration_text(301), "5 minutes");
    EXPECT_EQ(duration_text(3600), "1 hour");
    EXPECT_EQ(duration_text(3 * 86400 + 5), "3 days");
    EXPECT_EQ(duration_text(73LL * 365 * 86400), "73 years");
}

TEST(HonestTime, AnAppendAfterAFutureEntryNamesItAndGoesThrough) {
    GateWorkspace w;
    w.append_log("  - timestamp: \"2099-06-01T10:20:00.0Z\"\n    task_id: \"task-3\"\n    status: \"in_progress\"\n"
                 "    evidence: \"hand-written\"\n");
    const std::string log = read_text(w.ws().path_of("progress.small.yml"));
    const unsigned line = line_of(log, "2099-06-01");
    Result<ProgressAddResult> r = progress_add_command(real_fs, w.ws(), progress("task-3", TaskStatus::InProgress));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->timestamp, "2099-06-01T10:20:00.000000001Z");
    ASSERT_EQ(r->warnings.size(), 1u);
    const std::string& w0 = r->warnings[0];
    EXPECT_TRUE(contains(w0, "this entry is stamped 2099-06-01T10:20:00.000000001Z, not now")) << w0;
    EXPECT_TRUE(contains(w0, "progress.small.yml:" + std::to_string(line) + ":17 is dated 2099-06-01T10:20:00Z")) << w0;
    EXPECT_TRUE(contains(w0, "years ahead of the clock")) << w0;
}

TEST(HonestTime, AnAppendAfterPresentEntriesHasNoWarning) {
    GateWorkspace w;
    Result<ProgressAddResult> r = progress_add_command(real_fs, w.ws(), progress("task-3", TaskStatus::InProgress));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
}

TEST(HonestTime, AnExplicitFutureAtIsNotAForcedStamp) {
    GateWorkspace w;
    ProgressAddRequest req = progress("task-3", TaskStatus::InProgress);
    req.at = "2099-01-01T00:00:00.5Z";
    Result<ProgressAddResult> r = progress_add_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(r->warnings.empty());
}

// ============================================================ lint rules

std::vector<Finding> findings_at(const TestWorkspace& ws, const char* now) {
    InvariantOptions options;
    options.run_replay_id = kRunId;
    options.now = at(now);
    return check_invariants(ws.load(), options);
}

TEST(DependencyLint, P10CompletedTaskWithIncompleteDependenciesIsAWarningAtItsStatus) {
    TestWorkspace ws;
    ws.replace("plan", "title: \"Design widget\"\n    status: \"completed\"",
               "title: \"Design widget\"\n    status: \" Blocked \"");
    ws.append("plan", "    depends_on: [\"task-1\", \"task-2\"]\n");  // task-3's
    for (bool strict : {false, true}) {
        InvariantOptions options;
        options.strict = strict;
        options.run_replay_id = kRunId;
        const std::vector<Finding> p10 = with_rule(check_invariants(ws.load(), options), "INV-P10");
        ASSERT_EQ(p10.size(), 1u) << describe(check_invariants(ws.load(), options));
        EXPECT_EQ(p10[0].severity, Severity::Warning);
        EXPECT_EQ(p10[0].file, shown("plan"));
        EXPECT_EQ(p10[0].mark.line, line_of(ws.text("plan"), "status", 2));
        EXPECT_EQ(p10[0].mark.column, 14u);  // inside the quotes, as every finding
        EXPECT_EQ(p10[0].message, "task task-3 is completed but its dependencies are not: task-2 (blocked)");
    }
}

TEST(DependencyLint, P10IsQuietWhenDependenciesAreCompletedOrTheTaskIsNot) {
    TestWorkspace ws;
    ws.append("plan", "    depends_on: [\"task-1\", \"task-2\"]\n");
    EXPECT_TRUE(with_rule(ws.invariants(false), "INV-P10").empty()) << describe(ws.invariants(false));
    ws.replace("plan", "title: \"Build widget\"\n    status: \"completed\"", "title: \"Build widget\"\n    status: \"pending\"");
    ws.replace("plan", "title: \"Design widget\"\n    status: \"completed\"", "title: \"Design widget\"\n    status: \"pending\"");
    EXPECT_TRUE(with_rule(ws.invariants(false), "INV-P10").empty()) << describe(ws.invariants(false));
}

TEST(DependencyLint, R8EntryDatedMoreThanFiveMinutesAheadIsAWarningAtItsTimestamp) {
    TestWorkspace ws;
    // The last baseline entry is 2025-06-01T10:00:05.1Z.
    EXPECT_TRUE(with_rule(findings_at(ws, "2025-06-01T09:55:06.0Z"), "INV-R8").empty());
    const std::vector<Finding> r8 = with_rule(findings_at(ws, "2025-06-01T09:55:05.0Z"), "INV-R8");
    ASSERT_EQ(r8.size(), 1u) << describe(findings_at(ws, "2025-06-01T09:55:05.0Z"));
    EXPECT_EQ(r8[0].severity, Severity::Warning);
    EXPECT_EQ(r8[0].mark.line, line_of(ws.text("progress"), "10:00:05.1"));
    EXPECT_EQ(r8[0].mark.column, 17u);
    EXPECT_EQ(r8[0].message, "progress entry 5 timestamp \"2025-06-01T10:00:05.100000005Z\" is 5 minutes ahead of the "
                             "clock (2025-06-01T09:55:05Z); every entry written after it is stamped after it");
    EXPECT_EQ(with_rule(findings_at(ws, "2024-06-01T00:00:00.0Z"), "INV-R8").size(), 6u);
}

}  // namespace
}  // namespace small
