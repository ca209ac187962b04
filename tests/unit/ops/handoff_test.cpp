// `small handoff`, `start` and `reset` (ops/handoff, ops/start, ops/reset; domain/handoff_file).
#include "support/fixtures.hpp"

#include "small/ops/session/plan.hpp"
#include "small/ops/session/handoff.hpp"
#include "small/ops/session/init.hpp"
#include "small/store/plan_cache.hpp"
#include "small/model/plan_model.hpp"
#include "small/ops/session/progress_add.hpp"
#include "small/store/progress_log.hpp"
#include "small/model/replay_id.hpp"
#include "small/store/run_store.hpp"
#include "small/base/text.hpp"
#include "small/check/schema.hpp"
#include "small/check/verdict.hpp"
#include "small/store/workspace_change.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/doc/yaml.hpp"
#include "small/ops/session/start.hpp"
#include "small/ops/session/reset.hpp"
#include "small/ops/session/checkpoint.hpp"
#include "small/model/templates.hpp"
#include "small/store/local_work.hpp"
#include "small/store/log_facts_cache.hpp"
#include "small/domain/plan_status_edit.hpp"

namespace small {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using namespace small::testing;

void append_entry(const InitWorkspace& w, const std::string& task, const std::string& status,
                  const std::string& run_id) {
    Result<WorkspaceLock> lock = WorkspaceLock::acquire(w.fs(), w.ws(), milliseconds(2000));
    ASSERT_TRUE(lock.ok());
    YamlValue e = YamlValue::object();
    e["task_id"] = task;
    e["status"] = status;
    e["evidence"] = "worked on it";
    if (!run_id.empty()) e["replayId"] = run_id;
    ASSERT_TRUE(append_progress_entry(w.fs(), w.ws(), e, std::nullopt).ok());
}

TEST(Handoff, UnsettledTasksAreNamedNotRefused) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    append_entry(w, "task-1", "in_progress", kOtherRun);  // another run touched task-1
    append_entry(w, "task-1", "in_progress", "");          // and an entry without a run id
    Result<HandoffResult> quiet = handoff_command(w.fs(), w.ws(), handoff_req());
    ASSERT_TRUE(quiet.ok()) << quiet.error().describe();
    EXPECT_TRUE(quiet->unsettled.empty());  // entries of other runs do not count

    ProgressAddRequest add;
    add.task = "task-1";
    add.status = TaskStatus::InProgress;
    add.evidence = "started";
    add.lock_wait = milliseconds(2000);
    Result<ProgressAddResult> added = progress_add_command(w.fs(), w.ws(), add);
    ASSERT_TRUE(added.ok()) << added.error().describe();
    ASSERT_EQ(added->entry["replayId"], w.run_id());

    // D13: written anyway, naming the task (current task, first next step).
    Result<HandoffResult> r = handoff_command(w.fs(), w.ws(), handoff_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(r->unsettled.size(), 1u);
    EXPECT_EQ(r->unsettled[0].id, "task-1");
    EXPECT_EQ(r->unsettled[0].plan_status.word(), "in_progress");  // progress add set the plan's status too
    EXPECT_EQ(r->unsettled[0].last_status.word(), "in_progress");
    const YamlValue written = w.value("handoff.small.yml");
    EXPECT_EQ(written["resume"]["current_task_id"], "task-1");
    EXPECT_EQ(written["resume"]["next_steps"][0],
              "Resume task-1: Initial task (in_progress)");

    // --require-settled keeps the reference's refusal, writing nothing.
    const std::string handoff_before = w.read("handoff.small.yml");
    HandoffRequest strict = handoff_req();
    strict.require_settled = true;
    Result<HandoffResult> refused = handoff_command(w.fs(), w.ws(), strict);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(refused.error().message, "--require-settled")) << refused.error().message;
    EXPECT_TRUE(contains(refused.error().message, "task-1: Initial task (in_progress)"))
        << refused.error().message;
    EXPECT_EQ(w.read("handoff.small.yml"), handoff_before);

    ASSERT_TRUE(checkpoint_command(w.fs(), w.ws(), checkpoint_req("task-1", TaskStatus::Completed)).ok());
    Result<HandoffResult> settled = handoff_command(w.fs(), w.ws(), strict);
    ASSERT_TRUE(settled.ok()) << settled.error().describe();
    EXPECT_TRUE(settled->unsettled.empty());
}

TEST(Handoff, ManualReplayIdIsLowerCasedAndPinned) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    HandoffRequest req = handoff_req();
    req.replay_id = " " + upper(kOtherRun) + " ";
    Result<HandoffResult> r = handoff_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->replay_id, kOtherRun);
    EXPECT_EQ(r->source, "manual");
    EXPECT_TRUE(r->pinned_run);
    EXPECT_EQ(pinned_run(w), kOtherRun);
    const YamlValue written = w.value("handoff.small.yml");
    EXPECT_EQ(written["replayId"]["value"], kOtherRun);
    EXPECT_EQ(written["replayId"]["source"], "manual");
    EXPECT_EQ(written, r->handoff);
    EXPECT_EQ(w.read("handoff.small.yml"), r->text);

    // The next automatic handoff keeps the manual id and its source.
    Result<HandoffResult> again = handoff_command(w.fs(), w.ws(), handoff_req());
    ASSERT_TRUE(again.ok()) << again.error().describe();
    EXPECT_EQ(again->replay_id, kOtherRun);
    EXPECT_EQ(again->source, "manual");
    EXPECT_FALSE(again->pinned_run);
}

TEST(Handoff, MalformedManualReplayIdIsUsageAndWritesNothing) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const auto before = snapshot(w);
    for (const std::string& bad : {std::string("abc"), std::string(63, 'a'), std::string(64, 'z'), std::string()}) {
        HandoffRequest req = handoff_req();
        req.replay_id = bad;
        Result<HandoffResult> r = handoff_command(w.fs(), w.ws(), req);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().kind, Error::Kind::Usage) << bad;
    }
    EXPECT_EQ(snapshot(w), before);
}

TEST(Handoff, SummaryIsHonouredAndBlankMeansComputed) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    HandoffRequest req = handoff_req();
    req.summary = "Custom summary for the next agent.";
    Result<HandoffResult> r = handoff_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(w.value("handoff.small.yml")["summary"], "Custom summary for the next agent.");
    EXPECT_EQ(r->replay_id, w.run_id());
    EXPECT_EQ(r->source, "auto");
    EXPECT_FALSE(r->pinned_run);

    req.summary = "   ";
    Result<HandoffResult> computed = handoff_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(computed.ok()) << computed.error().describe();
    EXPECT_EQ(computed->handoff["summary"], "Run in progress. Next task: task-1.");
    EXPECT_EQ(computed->handoff["resume"]["current_task_id"], "task-1");
    expect_strict_ok(w);
}

TEST(Handoff, LinksAndRunBlockOfTheOldHandoffAreKept) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    YamlValue old = w.value("handoff.small.yml");
    YamlValue link = YamlValue::object();
    link["url"] = "https://example.com/pull/1";
    link["description"] = "the pull request";
    old["links"] = YamlValue::array({link});
    YamlValue run = YamlValue::object();
    run["created_at"] = "2025-01-01T00:00:00.000000000Z";
    run["transition_reason"] = "archive";
    run["previous_run_ref"] = "runs/1";
    old["run"] = run;
    w.write("handoff.small.yml", emit_document(old));

    Result<HandoffResult> r = handoff_command(w.fs(), w.ws(), handoff_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    const YamlValue written = w.value("handoff.small.yml");
    EXPECT_EQ(written["links"], YamlValue::array({link}));
    EXPECT_EQ(written["run"], run);
}

// ============================================================ reset / start

TEST(Reset, StartsANewRunAndSnapshotsTheOldOne) {
    InitWorkspace w;  // reset keeps the old run in .small-runs/, a folder published on disk
    PlanRequest add = plan_req();
    add.add = {"Work of the first run"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), add).ok());
    ASSERT_TRUE(checkpoint_command(w.fs(), w.ws(), checkpoint_req("task-2", TaskStatus::Completed)).ok());
    const std::string old_plan = w.plan_bytes();
    const std::string old_handoff = w.read("handoff.small.yml");
    const std::string old_intent = w.read("intent.small.yml");
    const std::string log_before = w.log_bytes();

    Result<ResetResult> r = reset_command(w.fs(), w.ws(), reset_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->previous_replay_id, w.run_id());
    EXPECT_TRUE(is_valid_replay_id(r->replay_id));
    EXPECT_NE(r->replay_id, w.run_id());
    EXPECT_EQ(pinned_run(w), r->replay_id);

    EXPECT_EQ(r->entry["task_id"], "meta/reset");
    EXPECT_EQ(r->entry["replayId"], r->replay_id);
    const std::string log_after = w.log_bytes();
    EXPECT_EQ(log_after.compare(0, log_before.size(), log_before), 0) << "progress history was rewritten";
    EXPECT_EQ(log_entries(w).back(), r->entry);

    const YamlValue handoff = w.value("handoff.small.yml");
    EXPECT_EQ(handoff["replayId"]["value"], r->replay_id);
    EXPECT_EQ(handoff["run"]["transition_reason"], "reset");
    EXPECT_EQ(handoff["run"]["previous_replay_id"], w.run_id());

    EXPECT_EQ(r->snapshot_dir, w.root_path(".small-runs/" + w.run_id()));
    EXPECT_EQ(read_text(w.root_path(".small-runs/" + w.run_id() + "/plan.small.yml")), old_plan);
    EXPECT_EQ(read_text(w.root_path(".small-runs/" + w.run_id() + "/handoff.small.yml")), old_handoff);
    EXPECT_EQ(w.plan_bytes(), emit_document(plan_template()));
    EXPECT_EQ(w.read("intent.small.yml"), old_intent);  // human-owned (D7)
    EXPECT_FALSE(fs::exists(w.root_path(kChangeJournalName)));
    expect_strict_ok(w);
}

TEST(Reset, ResettingTwiceGivesThreeDistinctRunIds) {
    InitWorkspace w;  // reset keeps the old run in .small-runs/, a folder published on disk
    Result<ResetResult> first = reset_command(w.fs(), w.ws(), reset_req());
    ASSERT_TRUE(first.ok()) << first.error().describe();
    Result<ResetResult> second = reset_command(w.fs(), w.ws(), reset_req());
    ASSERT_TRUE(second.ok()) << second.error().describe();
    const std::set<std::string> ids = {w.run_id(), first->replay_id, second->replay_id};
    EXPECT_EQ(ids.size(), 3u);
    EXPECT_EQ(second->previous_replay_id, first->replay_id);
    EXPECT_EQ(pinned_run(w), second->replay_id);
    EXPECT_TRUE(fs::exists(w.root_path(".small-runs/" + w.run_id() + "/plan.small.yml")));
    EXPECT_TRUE(fs::exists(w.root_path(".small-runs/" + first->replay_id + "/plan.small.yml")));
    // Every meta/reset entry carries its own run's id.
    std::vector<std::string> reset_ids;
    for (const YamlValue& e : log_entries(w)) {
        if (e["task_id"] == "meta/reset") reset_ids.push_back(e["replayId"].get<std::string>());
    }
    EXPECT_EQ(reset_ids, (std::vector<std::string>{first->replay_id, second->replay_id}));
    expect_strict_ok(w);
}

TEST(Reset, NeverWritesTheHumanOwnedIntent) {
    InitWorkspace w(std::string("Build a widget factory"));  // reset keeps the old run in .small-runs/, published on disk
    const std::string intent = w.read("intent.small.yml");
    ASSERT_TRUE(contains(intent, "Build a widget factory"));
    Result<ResetResult> r = reset_command(w.fs(), w.ws(), reset_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(w.read("intent.small.yml"), intent);
    EXPECT_EQ(std::count(r->reset_files.begin(), r->reset_files.end(), "intent.small.yml"), 0);
    EXPECT_NE(r->replay_id, w.run_id());
    // The intent is part of the snapshot of the old run all the same.
    EXPECT_EQ(read_text(w.root_path(".small-runs/" + w.run_id() + "/intent.small.yml")), intent);
}

// workspace.small.yml without its run block (a workspace from before D3).
void unpin_run(const InitWorkspace& w) {
    YamlValue meta = w.value("workspace.small.yml");
    meta.erase("run");
    w.write("workspace.small.yml", emit_document(meta));
}

StartRequest start_req() {
    StartRequest r;
    r.lock_wait = milliseconds(2000);
    return r;
}

TEST(Handoff, WithoutAPinnedRunPinsTheManifestId) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    unpin_run(w);
    Result<HandoffResult> r = handoff_command(w.fs(), w.ws(), handoff_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(r->pinned_run);
    EXPECT_EQ(r->replay_id, w.run_id()) << "the manifest is unchanged since init";
    EXPECT_EQ(r->source, "auto");
    EXPECT_EQ(pinned_run(w), w.run_id());
    EXPECT_EQ(w.value("workspace.small.yml")["kind"], "repo-root");
}

TEST(Start, WithoutAPinnedRunTakesTheOldHandoffsId) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    unpin_run(w);
    YamlValue handoff = w.value("handoff.small.yml");
    handoff["replayId"]["value"] = upper(kOtherRun);
    handoff["replayId"]["source"] = "manual";
    w.write("handoff.small.yml", emit_document(handoff));
    Result<StartResult> r = start_command(w.fs(), w.ws(), start_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_FALSE(r->self_heal);
    EXPECT_EQ(r->handoff.replay_id, kOtherRun);
    EXPECT_EQ(r->handoff.source, "manual");
    EXPECT_TRUE(r->handoff.pinned_run);
    EXPECT_EQ(pinned_run(w), kOtherRun);
    EXPECT_EQ(r->handoff.handoff["run"]["transition_reason"], "manual");
}

TEST(Start, WithNoRunIdAnywhereSelfHealsAndRecordsIt) {
    InitWorkspace w;  // removes files by hand on disk
    unpin_run(w);
    fs::remove(w.file("handoff.small.yml"));
    Result<StartResult> r = start_command(w.fs(), w.ws(), start_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(r->self_heal);
    EXPECT_EQ(r->handoff.replay_id, w.run_id()) << "the manifest is unchanged since init";
    ASSERT_TRUE(r->entry);
    EXPECT_EQ((*r->entry)["task_id"], "meta/replayid-self-heal");
    EXPECT_EQ((*r->entry)["replayId"], w.run_id());
    EXPECT_EQ(r->handoff.handoff["run"]["transition_reason"], "self_heal");
    EXPECT_EQ(pinned_run(w), w.run_id());
    EXPECT_EQ(log_entries(w).back(), *r->entry);
}

TEST(Start, RecreatesMissingArtifactsFromTemplates) {
    InitWorkspace w;  // removes files by hand on disk
    fs::remove(w.file("constraints.small.yml"));
    Result<StartResult> r = start_command(w.fs(), w.ws(), start_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->created, std::vector<std::string>{"constraints.small.yml"});
    EXPECT_EQ(w.read("constraints.small.yml"), emit_document(constraints_template()));
    EXPECT_EQ(r->handoff.replay_id, w.run_id());
}

TEST(Start, FreshInitKeepsThePinnedRunWithReasonManual) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const std::string metadata_before = w.read("workspace.small.yml");
    Result<StartResult> r = start_command(w.fs(), w.ws(), start_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_FALSE(r->self_heal);
    EXPECT_FALSE(r->entry);
    EXPECT_TRUE(r->created.empty());
    EXPECT_EQ(r->handoff.replay_id, w.run_id());
    EXPECT_FALSE(r->handoff.pinned_run);
    EXPECT_EQ(r->handoff.handoff["run"]["transition_reason"], "manual");
    EXPECT_FALSE(r->handoff.handoff["run"].contains("previous_replay_id"));
    EXPECT_EQ(w.read("workspace.small.yml"), metadata_before);
    EXPECT_EQ(w.value("handoff.small.yml")["replayId"]["value"], w.run_id());
    EXPECT_EQ(log_entries(w).size(), 1u);
    expect_strict_ok(w);
}

TEST(Start, CreatingDotSmallAddsTheGitignoreLinesAsInitDoes) {
    const TempDir dir;
    const std::string& root = dir.root();
    write_text(root + "/.gitignore", "node_modules/\n.small-cache/\n");
    WorkspacePaths ws = locate_workspace(real_fs, root, root);
    StartRequest req = start_req();
    req.scope = WorkspaceScope::Any;
    Result<StartResult> r = start_command(real_fs, ws, req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_TRUE(r->gitignore);
    EXPECT_EQ(r->gitignore->added, (std::vector<std::string>{".small-runs/", ".small-archive/"}));
    EXPECT_FALSE(r->gitignore->created());
    EXPECT_EQ(read_text(root + "/.gitignore"), "node_modules/\n.small-cache/\n.small-runs/\n.small-archive/\n");
    // .small/ exists now: a second start leaves .gitignore to the user.
    write_text(root + "/.gitignore", "mine/\n");
    Result<StartResult> again = start_command(real_fs, ws, req);
    ASSERT_TRUE(again.ok()) << again.error().describe();
    EXPECT_FALSE(again->gitignore);
    EXPECT_EQ(read_text(root + "/.gitignore"), "mine/\n");
}

// ============================================================ run store (D15)

}  // namespace
}  // namespace small
