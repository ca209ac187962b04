// `small plan` (ops/plan): every flag, --from, and what each writes.
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
#include "small/model/plan_summary.hpp"
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

TEST(PlanCommand, AddAfterInitReusesThePinnedRunAndStampsTheEntry) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const std::string metadata_before = w.read("workspace.small.yml");
    PlanRequest req = plan_req();
    req.add = {"  Design widget  "};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_FALSE(r->pinned_run);
    EXPECT_EQ(r->replay_id, w.run_id());
    EXPECT_TRUE(r->changed);
    EXPECT_FALSE(r->created);
    EXPECT_EQ(r->added_task_id, "task-2");
    ASSERT_EQ(r->messages.size(), 1u);
    EXPECT_EQ(r->messages[0], "Added task task-2:   Design widget  ");  // issue 41: as typed
    EXPECT_EQ(w.read("workspace.small.yml"), metadata_before);

    ASSERT_EQ(r->entries.size(), 1u);
    EXPECT_EQ(r->entries[0]["task_id"], "task-2");
    EXPECT_EQ(r->entries[0]["status"], "pending");
    EXPECT_EQ(r->entries[0]["replayId"], w.run_id());
    const YamlValue entries = log_entries(w);
    ASSERT_EQ(entries.size(), 2u);  // meta/init + the add
    EXPECT_EQ(entries[1]["task_id"], "task-2");
    EXPECT_EQ(entries[1]["replayId"], w.run_id());

    const YamlValue plan = plan_of(w);
    ASSERT_TRUE(find_task(plan, "task-2"));
    EXPECT_EQ(plan["tasks"][1]["title"], "  Design widget  ");
    EXPECT_EQ(plan["tasks"][1]["status"], "pending");
    expect_strict_ok(w);
}

// The plan written by small is not validated again (.small-cache/plan.valid),
// but a hand edit afterwards changes the file's stamp and is validated.
TEST(PlanCommand, AHandEditedInvalidPlanIsRefusedEvenAfterAValidWrite) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest add = plan_req();
    add.add = {"First"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), add).ok());
    ASSERT_TRUE(w.fs().file_exists(w.root_path(".small-cache/plan.cache")));
    YamlValue plan = plan_of(w);
    plan["tasks"][0].erase("title");  // schema: every task needs a title
    w.write("plan.small.yml", emit_document(plan));
    const auto before = snapshot(w);
    add.add = {"Second"};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), add);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_NE(r.error().describe().find("plan.small.yml"), std::string::npos) << r.error().describe();
    EXPECT_EQ(snapshot(w), before);
}

TEST(PlanCommand, BlankAddIsUsageAndWritesNothing) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const auto before = snapshot(w);
    PlanRequest req = plan_req();
    req.add = {"   \t "};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Usage);
    EXPECT_EQ(snapshot(w), before);
}

// small serve found it: a title starting with NUL was written, and the plan's
// own check then called that title empty. A NUL is refused; other bytes stay.
TEST(PlanCommand, ATitleWithANulIsUsageAndWritesNothing) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const auto before = snapshot(w);
    for (const std::string& title : {std::string("\0bad", 4), std::string("in\0side", 7)}) {
        PlanRequest req = plan_req();
        req.add = {title};
        Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
        ASSERT_FALSE(r.ok()) << title;
        EXPECT_EQ(r.error().kind, Error::Kind::Usage);
        EXPECT_NE(r.error().message.find("NUL"), std::string::npos) << r.error().message;
        EXPECT_EQ(snapshot(w), before);
    }
    PlanRequest ok = plan_req();
    ok.add = {"two\nlines\tand \x1b[31m as typed"};  // issue 41; printing escapes them
    EXPECT_TRUE(plan_command(w.fs(), w.ws(), ok).ok());
}

TEST(PlanCommand, DependsWithoutColonOrWithABlankSideIsUsage) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const auto before = snapshot(w);
    for (const char* bad : {"task-1", "task-1 task-2", ":task-1", "task-1:", " : "}) {
        PlanRequest req = plan_req();
        req.depends = {bad};
        Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().kind, Error::Kind::Usage) << bad << ": " << r.error().message;
    }
    EXPECT_EQ(snapshot(w), before);
}

TEST(PlanCommand, UnknownTaskIsInvalidAndPlanAndProgressAreUnchanged) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const std::string plan_before = w.plan_bytes();
    const std::string log_before = w.log_bytes();
    std::vector<PlanRequest> requests;
    for (int i = 0; i < 5; ++i) requests.push_back(plan_req());
    requests[0].done = {"task-99"};
    requests[1].blocked = {"task-99"};
    requests[2].depends = {"task-99:task-1"};
    requests[3].depends = {"task-1:task-99"};
    requests[4].add = {"A task that must not be added"};  // applied in memory first...
    requests[4].in_progress = {"task-99"};                 // ...then this fails: nothing is written
    for (const PlanRequest& req : requests) {
        Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().kind, Error::Kind::Invalid) << r.error().message;
        EXPECT_TRUE(contains(r.error().message, "task-99")) << r.error().message;
        EXPECT_EQ(w.plan_bytes(), plan_before);
        EXPECT_EQ(w.log_bytes(), log_before);
    }
}

TEST(PlanCommand, EveryFlagThatNamesATaskSuggestsTheClosestIds) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest add = plan_req();
    add.add = {"Second"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), add).ok());
    const std::string plan_before = w.plan_bytes();
    const std::string log_before = w.log_bytes();
    std::vector<PlanRequest> requests(6, plan_req());
    requests[0].done = {"task-22"};
    requests[1].cancel = {"task-22"};
    requests[2].retitle = {std::make_pair(std::string("task-22"), std::string("x"))};
    requests[3].remove = {"task-22"};
    requests[4].depends = {"task-22:task-1"};
    requests[5].in_progress = {"tsak-2"};
    for (const PlanRequest& req : requests) {
        Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
        EXPECT_TRUE(contains(r.error().message, "Did you mean task-2?")) << r.error().message;
        EXPECT_EQ(w.plan_bytes(), plan_before);
        EXPECT_EQ(w.log_bytes(), log_before);
    }
}

TEST(PlanCommand, CancelSettlesATaskAndLogsIt) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest req = plan_req();
    req.cancel = {"task-1"};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(task_status(plan_of(w)["tasks"][0]).word(), "cancelled");
    ASSERT_EQ(r->entries.size(), 1u);
    EXPECT_EQ(r->entries[0]["status"], "cancelled");
    EXPECT_EQ(r->entries[0]["task_id"], "task-1");
    expect_strict_ok(w);
}

// The MCP plan tool's changes name the tool, not a CLI flag, and are still
// bookkeeping: the fast add path, the general path, --from and a lone status.
TEST(PlanCommand, TheMcpOriginSignsEveryEntryWithTheToolAndTheyStayBookkeeping) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const auto run = [&](PlanRequest req) {
        req.origin = PlanOrigin::McpPlanTool;
        Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
        EXPECT_TRUE(r.ok()) << r.error().describe();
        return r ? r->entries : std::vector<YamlValue>{};
    };
    PlanRequest add = plan_req();
    add.add = {"Design widget"};
    PlanRequest from = plan_req();
    from.from = PlanInput{R"([{"title": "Test widget"}, {"id": "task-2", "title": "Design the widget"}])", "tasks"};
    PlanRequest edits = plan_req();
    edits.depends = {"task-3:task-2"};
    edits.steps = {"task-3:Write cases"};
    PlanRequest status = plan_req();
    status.in_progress = {"task-1"};
    std::vector<YamlValue> entries;
    for (PlanRequest* req : {&add, &from, &edits, &status}) {
        for (YamlValue& e : run(*req)) entries.push_back(std::move(e));
    }
    ASSERT_EQ(entries.size(), 6u);
    for (const YamlValue& e : entries) {
        const std::string evidence = e["evidence"].get<std::string>();
        const std::string notes = e.contains("notes") ? e["notes"].get<std::string>() : "";
        EXPECT_EQ(evidence.find("small plan"), std::string::npos) << evidence;
        EXPECT_EQ(notes.find("small plan"), std::string::npos) << notes;
        EXPECT_NE(evidence.find(" via the MCP plan tool"), std::string::npos) << evidence;
        EXPECT_TRUE(is_bookkeeping_entry(e["task_id"].get<std::string>(), evidence, notes)) << evidence;
    }
    EXPECT_EQ(entries[1]["evidence"], "Added task task-3 via the MCP plan tool");
    EXPECT_EQ(entries[3]["evidence"], "Added 1 step to task task-3 via the MCP plan tool");
    EXPECT_EQ(entries[4]["evidence"], "Added dependency task-2 to task-3 via the MCP plan tool");
    EXPECT_EQ(entries[4]["notes"], "MCP plan tool");
    expect_strict_ok(w);
}

// The MCP plan tool's add with steps, acceptance and depends_on: they go to
// the task it adds, in the same change; without a title to add they are usage.
TEST(PlanCommand, AddedFieldsGoToTheTaskTheLastAddAdds) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest req = plan_req();
    req.add = {"Design widget", "Benchmarks"};
    req.added_steps = {"Pick the cases", "Run them"};
    req.added_acceptance = {"Numbers in docs/"};
    req.added_depends = {"task-1", "task-2"};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    const YamlValue plan = plan_of(w);
    const YamlValue& bench = plan["tasks"][*find_task(plan, "task-3")];
    EXPECT_EQ(bench["steps"], YamlValue::array({"Pick the cases", "Run them"}));
    EXPECT_EQ(bench["acceptance"], YamlValue::array({"Numbers in docs/"}));
    EXPECT_EQ(bench["depends_on"], YamlValue::array({"task-1", "task-2"}));
    EXPECT_FALSE(plan["tasks"][*find_task(plan, "task-2")].contains("steps"));
    expect_strict_ok(w);

    PlanRequest orphan = plan_req();
    orphan.added_steps = {"A step"};
    Result<PlanResult> refused = plan_command(w.fs(), w.ws(), orphan);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().kind, Error::Kind::Usage);
    PlanRequest unknown = plan_req();
    unknown.add = {"Ship"};
    unknown.added_depends = {"task-99"};
    const std::string before = w.read("plan.small.yml");
    Result<PlanResult> missing = plan_command(w.fs(), w.ws(), unknown);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("task-99"), std::string::npos) << missing.error().message;
    EXPECT_EQ(w.read("plan.small.yml"), before) << "nothing written";
}

TEST(PlanCommand, TitleRenamesTheTemplateTaskAndKeepsItsStatus) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest req = plan_req();
    req.retitle = {std::make_pair(std::string(" task-1 "), std::string("  Review the layout "))};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    const YamlValue task = plan_of(w)["tasks"][0];
    EXPECT_EQ(task["title"], "  Review the layout ");  // issue 41: as typed (the id is trimmed)
    EXPECT_EQ(task_status(task).word(), "pending");
    ASSERT_EQ(r->entries.size(), 1u);
    EXPECT_EQ(r->entries[0]["notes"], "  Review the layout ");
    EXPECT_EQ(r->messages, (std::vector<std::string>{"Retitled task task-1:   Review the layout "}));

    req.retitle = {std::make_pair(std::string("task-1"), std::string("   "))};
    const std::string before = w.plan_bytes();
    Result<PlanResult> blank = plan_command(w.fs(), w.ws(), req);
    ASSERT_FALSE(blank.ok());
    EXPECT_EQ(blank.error().kind, Error::Kind::Usage);
    EXPECT_EQ(w.plan_bytes(), before);
}

TEST(PlanCommand, RemoveDeletesATaskNoEntryOfTheRunNames) {
    InitWorkspace w(std::nullopt, Disk::Memory);  // init's entry is meta/init: nothing names task-1
    PlanRequest req = plan_req();
    req.remove = {"task-1"};
    const auto before = snapshot(w);
    Result<PlanResult> only = plan_command(w.fs(), w.ws(), req);  // a plan keeps one task (schema)
    ASSERT_FALSE(only.ok());
    EXPECT_TRUE(contains(only.error().message, "only task")) << only.error().message;
    EXPECT_EQ(snapshot(w), before);

    req.add = {"The real first task"};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(plan_of(w)["tasks"].size(), 1u);
    EXPECT_EQ(plan_of(w)["tasks"][0]["id"], "task-2");
    r->entries.erase(r->entries.begin());  // the --add entry
    ASSERT_EQ(r->entries.size(), 1u);
    EXPECT_EQ(r->entries[0]["task_id"], "meta/plan-remove");  // D8: not the removed id
    EXPECT_EQ(r->entries[0]["notes"], "task-1");
    expect_strict_ok(w);
}

TEST(PlanCommand, RemoveIsRefusedWhileTheRunsEntriesOrOtherTasksNameIt) {
    InitWorkspace w;  // reset keeps the old run in .small-runs/, a folder published on disk
    PlanRequest add = plan_req();
    add.add = {"Logged by plan --add"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), add).ok());  // an entry of this run names task-2
    add.add = {"Depends on task-1"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), add).ok());
    PlanRequest dep = plan_req();
    dep.depends = {"task-3:task-1"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), dep).ok());
    const auto before = snapshot(w);

    PlanRequest req = plan_req();
    req.remove = {"task-2"};
    Result<PlanResult> logged = plan_command(w.fs(), w.ws(), req);
    ASSERT_FALSE(logged.ok());
    EXPECT_EQ(logged.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(logged.error().message, "1 progress entry of the current run")) << logged.error().message;
    EXPECT_TRUE(contains(logged.error().message, "small plan --cancel task-2")) << logged.error().message;
    req.remove = {"task-1"};
    Result<PlanResult> depended = plan_command(w.fs(), w.ws(), req);
    ASSERT_FALSE(depended.ok());
    EXPECT_TRUE(contains(depended.error().message, "task task-3 depends on it")) << depended.error().message;
    EXPECT_EQ(snapshot(w), before);

    // Entries of another run do not count: task-1 is named by this run's
    // checkpoint, and after a reset (template plan, new run) it can go.
    ASSERT_TRUE(checkpoint_command(w.fs(), w.ws(), checkpoint_req("task-1", TaskStatus::Completed)).ok());
    ASSERT_TRUE(reset_command(w.fs(), w.ws(), reset_req()).ok());
    req.remove = {"task-1"};
    req.add = {"The new run's task"};  // the plan keeps one task
    Result<PlanResult> later = plan_command(w.fs(), w.ws(), req);
    EXPECT_TRUE(later.ok()) << later.error().describe();
}

TEST(PlanCommand, DependencyCycleIsInvalidAndNothingIsWritten) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest add = plan_req();
    add.add = {"Second"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), add).ok());
    PlanRequest dep = plan_req();
    dep.depends = {"task-2:task-1"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), dep).ok());
    const auto before = snapshot(w);
    PlanRequest cycle = plan_req();
    cycle.depends = {"task-1:task-2"};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), cycle);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(r.error().message, "task-1 -> task-2 -> task-1")) << r.error().message;
    EXPECT_EQ(snapshot(w), before);
}

TEST(PlanCommand, ResetWithoutYesIsUsage) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest add = plan_req();
    add.add = {"Second"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), add).ok());
    const auto before = snapshot(w);
    PlanRequest req = plan_req();
    req.reset = true;
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Usage);
    EXPECT_EQ(snapshot(w), before);
}

TEST(PlanCommand, ResetWritesTheTemplateAndAMetaPlanResetEntry) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    // A plan edited by hand (a `plan --add` would leave entries of this run
    // for a task the reset removes: strict S2 would then fail by design).
    w.write("plan.small.yml", "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n"
                                         "  - id: \"task-1\"\n    title: \"Edited by hand\"\n    extra: 1\n");
    ASSERT_NE(w.plan_bytes(), emit_document(plan_template()));

    PlanRequest req = plan_req();
    req.reset = true;
    req.yes = true;
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(r->changed);
    EXPECT_EQ(w.plan_bytes(), emit_document(plan_template()));
    ASSERT_EQ(r->entries.size(), 1u);
    EXPECT_EQ(r->entries[0]["task_id"], "meta/plan-reset");
    EXPECT_EQ(r->entries[0]["status"], "completed");
    EXPECT_EQ(r->entries[0]["replayId"], w.run_id());
    const YamlValue entries = log_entries(w);
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[1]["task_id"], "meta/plan-reset");
    expect_strict_ok(w);
}

TEST(PlanCommand, RewriteKeepsUnknownTaskFieldsAndDependencies) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    w.write("plan.small.yml",
               "small_version: \"1.0.0\"\n"
               "owner: \"agent\"\n"
               "tasks:\n"
               "  - id: \"task-1\"\n"
               "    title: \"First\"\n"
               "    estimate: 3\n"
               "    labels: [\"ui\", \"api\"]\n"
               "    depends_on: [\"task-2\"]\n"
               "    status: \"pending\"\n"
               "    x-owner: {name: \"sam\"}\n"
               "  - id: \"task-2\"\n"
               "    title: \"Second\"\n"
               "    dependencies: []\n");
    PlanRequest req = plan_req();
    req.in_progress = {"task-2"};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    const YamlValue plan = plan_of(w);
    const YamlValue& t1 = plan["tasks"][0];
    std::vector<std::string> keys;
    for (auto it = t1.begin(); it != t1.end(); ++it) keys.push_back(it.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"id", "title", "estimate", "labels", "depends_on", "status", "x-owner"}));
    EXPECT_EQ(t1["estimate"], 3);
    EXPECT_EQ(t1["labels"], YamlValue::array({"ui", "api"}));
    EXPECT_EQ(t1["depends_on"], YamlValue::array({"task-2"}));
    EXPECT_EQ(t1["x-owner"]["name"], "sam");
    EXPECT_EQ(plan["tasks"][1]["dependencies"], YamlValue::array());
    EXPECT_EQ(plan["tasks"][1]["status"], "in_progress");
}

TEST(PlanCommand, NoFlagsMeansNoChangesAndNoWrite) {
    InitWorkspace w;  // compares mtimes on disk
    const auto before = snapshot(w);
    const auto mtime = fs::last_write_time(w.file("plan.small.yml"));
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), plan_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_FALSE(r->changed);
    EXPECT_TRUE(r->entries.empty());
    ASSERT_EQ(r->messages.size(), 1u);
    EXPECT_TRUE(contains(r->messages[0], "No changes")) << r->messages[0];
    EXPECT_EQ(r->replay_id, w.run_id());
    EXPECT_EQ(snapshot(w), before);
    EXPECT_EQ(fs::last_write_time(w.file("plan.small.yml")), mtime);
}

TEST(PlanCommand, SeveralFlagsAreOneChangeWithOneEntryEach) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest req = plan_req();
    req.add = {"Second"};
    req.in_progress = {"task-1"};
    req.depends = {"task-2:task-1"};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(r->entries.size(), 3u);
    EXPECT_EQ(r->entries[0]["task_id"], "task-2");
    EXPECT_EQ(r->entries[1]["task_id"], "task-1");
    EXPECT_EQ(r->entries[1]["status"], "in_progress");
    EXPECT_EQ(r->entries[2]["task_id"], "task-2");
    for (const YamlValue& e : r->entries) EXPECT_EQ(e["replayId"], w.run_id());
    const YamlValue plan = plan_of(w);
    EXPECT_EQ(task_status(plan["tasks"][0]).word(), "in_progress");
    EXPECT_EQ(task_dependencies(plan["tasks"][1]), std::vector<std::string>{"task-1"});
    EXPECT_EQ(log_entries(w).size(), 4u);
    EXPECT_FALSE(fs::exists(w.root_path(kChangeJournalName)));
    expect_strict_ok(w);
}

// ------------------------------------------------------------ a plan in one call (issue 18)

std::vector<std::string> strings_of(const YamlValue& list) {
    std::vector<std::string> out;
    for (const YamlValue& v : list) out.push_back(v.get<std::string>());
    return out;
}

PlanInput input(const std::string& text, const std::string& name = "tasks.yml") { return PlanInput{text, name}; }

TEST(PlanCommand, RepeatedFlagsWriteAWholePlanInOneChange) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest req = plan_req();
    req.add = {"Parse", "Evaluate", "Report"};  // task-2, task-3, task-4
    req.depends = {"task-4:task-2,task-3", "task-3:task-2"};
    req.steps = {"task-2:Write the lexer", "task-2: Write the parser ", "task-3:Fold constants"};
    req.acceptance = {"task-2:Parses every example"};
    req.done = {"task-1"};
    req.in_progress = {"task-2"};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->added_task_ids, (std::vector<std::string>{"task-2", "task-3", "task-4"}));
    EXPECT_EQ(r->added_task_id, "task-4");
    EXPECT_TRUE(r->warnings.empty());
    const YamlValue plan = plan_of(w);
    const YamlValue& t2 = plan["tasks"][*find_task(plan, "task-2")];
    // One space after the colon is the separator's; the rest is kept as typed (issue 41).
    EXPECT_EQ(strings_of(t2["steps"]), (std::vector<std::string>{"Write the lexer", "Write the parser "}));
    EXPECT_EQ(strings_of(t2["acceptance"]), std::vector<std::string>{"Parses every example"});
    EXPECT_EQ(task_status(t2).word(), "in_progress");
    EXPECT_EQ(task_dependencies(plan["tasks"][*find_task(plan, "task-4")]),
              (std::vector<std::string>{"task-2", "task-3"}));
    EXPECT_EQ(task_status(plan["tasks"][0]).word(), "completed");
    // 3 adds, 2 step entries (one per task), 1 acceptance, done, in-progress, 2 depends.
    ASSERT_EQ(r->entries.size(), 10u);
    EXPECT_EQ(log_entries(w).size(), 11u);
    EXPECT_FALSE(fs::exists(w.root_path(kChangeJournalName)));
    expect_strict_ok(w);
}

TEST(PlanCommand, StepAndAcceptanceWithoutIdOrTextAreUsage) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const auto before = snapshot(w);
    for (const char* bad : {"task-1", "task-1:", ":text", "  :  "}) {
        PlanRequest steps = plan_req();
        steps.steps = {bad};
        PlanRequest acceptance = plan_req();
        acceptance.acceptance = {bad};
        for (const PlanRequest& req : {steps, acceptance}) {
            Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
            ASSERT_FALSE(r.ok()) << bad;
            EXPECT_EQ(r.error().kind, Error::Kind::Usage) << bad;
        }
    }
    PlanRequest blank_dep = plan_req();
    blank_dep.depends = {"task-1:task-2,,task-3"};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), blank_dep);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Usage) << r.error().message;
    EXPECT_EQ(snapshot(w), before);
}

// Issue 18: `--add X --depends task-4:...` that fails named the rolled-back
// task-4 in "did you mean".
TEST(PlanCommand, ErrorsNeverNameATaskTheFailedCallWouldHaveAdded) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};  // task-2, task-3
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), setup).ok());
    const auto before = snapshot(w);

    PlanRequest req = plan_req();
    req.add = {"Fourth"};  // task-4, rolled back
    req.depends = {"task-4:task-2,task-5"};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.error().message, "task-5")) << r.error().message;
    EXPECT_FALSE(contains(r.error().message, "task-4")) << r.error().message;
    EXPECT_EQ(snapshot(w), before);

    PlanRequest typo = plan_req();
    typo.add = {"Fourth"};
    typo.done = {"tsak-4"};
    r = plan_command(w.fs(), w.ws(), typo);
    ASSERT_FALSE(r.ok());
    EXPECT_FALSE(contains(r.error().message, "task-4")) << r.error().message;
    EXPECT_EQ(snapshot(w), before);

    // With the ids right, the same call succeeds.
    req.depends = {"task-4:task-2,task-3"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), req).ok());
    EXPECT_EQ(task_dependencies(plan_of(w)["tasks"][3]), (std::vector<std::string>{"task-2", "task-3"}));
}

TEST(PlanCommand, UndependRemovesDependenciesAndDropsAnEmptyList) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};
    setup.depends = {"task-3:task-1,task-2"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), setup).ok());

    PlanRequest one = plan_req();
    one.undepend = {"task-3:task-1"};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), one);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(task_dependencies(plan_of(w)["tasks"][2]), std::vector<std::string>{"task-2"});
    ASSERT_EQ(r->entries.size(), 1u);
    EXPECT_EQ(r->entries[0]["task_id"], "task-3");

    const auto before = snapshot(w);
    PlanRequest absent = plan_req();
    absent.undepend = {"task-3:task-1"};
    r = plan_command(w.fs(), w.ws(), absent);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(r.error().message, "does not depend on task-1")) << r.error().message;
    EXPECT_TRUE(contains(r.error().message, "task-2")) << r.error().message;  // what it does depend on
    EXPECT_EQ(snapshot(w), before);

    PlanRequest last = plan_req();
    last.undepend = {"task-3:task-2"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), last).ok());
    EXPECT_FALSE(plan_of(w)["tasks"][2].contains("depends_on"));
    expect_strict_ok(w);
}

// D18: a task is completed only after its dependencies, judged on the plan as
// the whole call leaves it.
TEST(PlanCommand, DoneWithUnmetDependenciesIsRefusedNamingThemAndWritesNothing) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};
    setup.depends = {"task-3:task-1,task-2"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), setup).ok());
    const auto before = snapshot(w);
    PlanRequest req = plan_req();
    req.done = {"task-3", "task-1"};  // task-2 stays pending
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(r.error().message, "task-3 (unmet: task-2)")) << r.error().message;
    EXPECT_TRUE(contains(r.error().hint, "--force")) << r.error().hint;
    EXPECT_EQ(snapshot(w), before);

    req.done = {"task-3", "task-2", "task-1"};  // the order of the flags does not matter
    r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(r->warnings.empty());
    expect_strict_ok(w);
}

TEST(PlanCommand, ForceCompletesAndTheEntryRecordsTheUnmetDependencies) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest setup = plan_req();
    setup.add = {"Second"};
    setup.depends = {"task-2:task-1"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), setup).ok());
    PlanRequest req = plan_req();
    req.done = {"task-2"};
    req.force = true;
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(r->entries.size(), 1u);
    const std::string notes = r->entries[0]["notes"].get<std::string>();
    EXPECT_EQ(notes, "small plan --done; forced: dependencies task-1 not completed");
    ASSERT_EQ(r->warnings.size(), 1u);
    EXPECT_TRUE(contains(r->warnings[0], "task-1")) << r->warnings[0];
    EXPECT_TRUE(is_bookkeeping_entry("task-2", r->entries[0]["evidence"].get<std::string>(), notes));
    EXPECT_EQ(task_status(plan_of(w)["tasks"][1]).word(), "completed");
}

TEST(PlanCommand, StartingATaskWithUnmetDependenciesWritesAndWarns) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest setup = plan_req();
    setup.add = {"Second"};
    setup.depends = {"task-2:task-1"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), setup).ok());
    PlanRequest req = plan_req();
    req.in_progress = {"task-2"};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(r->warnings.size(), 1u);
    EXPECT_TRUE(contains(r->warnings[0], "task-2 is in_progress but its dependencies task-1")) << r->warnings[0];
    EXPECT_EQ(task_status(plan_of(w)["tasks"][1]).word(), "in_progress");
}

TEST(PlanCommand, ALoneDoneWithUnmetDependenciesIsRefusedInPlansWords) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest setup = plan_req();
    setup.add = {"Second"};
    setup.depends = {"task-2:task-1"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), setup).ok());
    const auto before = snapshot(w);
    PlanRequest req = plan_req();
    req.done = {" task-2 "};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message,
              "cannot complete task task-2 (unmet: task-1): a task is completed only after its dependencies (D18); "
              "nothing written");
    EXPECT_TRUE(contains(r.error().hint, "small plan --done ID")) << r.error().hint;
    EXPECT_EQ(snapshot(w), before);
    req.done = {"task-9"};
    r = plan_command(w.fs(), w.ws(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.error().message, "task task-9 is not in")) << r.error().message;
    EXPECT_EQ(snapshot(w), before);
}

// Item 6 of D20: one status flag alone is an in-place edit from the plan's
// caches (as checkpoint's). Its plan bytes are those the general path
// writes for the same change (given here as --from), and every write leaves
// caches that describe the file it wrote.
TEST(PlanCommand, ALoneStatusFlagWritesWhatTheGeneralPathWrites) {
    const std::string plan =
        "# Hand-written plan\nsmall_version: \"1.0.0\"\nowner: agent\n\ntasks:\n"
        "  # the first one\n  - id: task-1\n    title: 'First'   # rename later\n    status: pending\n"
        "  - id: \"task-2\"\n    title: Second\n    status: 'pending'  # soon\n    depends_on: [task-1]\n"
        "  - id: task-3\n    title: Third\n";
    InitWorkspace fast(std::nullopt, Disk::Memory);
    InitWorkspace general(std::nullopt, Disk::Memory);
    fast.write("plan.small.yml", plan);
    general.write("plan.small.yml", plan);
    const std::vector<std::pair<std::string, TaskStatus>> steps = {
        {"task-3", TaskStatus::Blocked},   {"task-2", TaskStatus::InProgress}, {"task-1", TaskStatus::Completed},
        {"task-3", TaskStatus::Cancelled}, {"task-2", TaskStatus::Completed},  {"task-3", TaskStatus::Pending}};
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const auto& [id, status] = steps[i];
        const std::string name(status_name(status));
        SCOPED_TRACE(id + " " + name);
        PlanRequest one = plan_req();
        for (const PlanStatusFlag& flag : kPlanStatusFlags) {
            if (flag.status == status) (one.*flag.ids).push_back(id);
        }
        PlanRequest from = plan_req();
        from.from = input("- id: " + id + "\n  status: " + name + "\n");
        Result<PlanResult> a = plan_command(fast.fs(), fast.ws(), one);
        Result<PlanResult> b = plan_command(general.fs(), general.ws(), from);
        ASSERT_TRUE(a.ok()) << a.error().describe();
        ASSERT_TRUE(b.ok()) << b.error().describe();
        EXPECT_EQ(fast.plan_bytes(), general.plan_bytes());
        EXPECT_EQ(a->messages, std::vector<std::string>{"Marked task " + id + " as " + name});
        EXPECT_EQ(a->warnings, b->warnings);
        ASSERT_EQ(a->entries.size(), 1u);
        EXPECT_EQ(a->entries[0]["status"], name);
        EXPECT_TRUE(contains(a->entries[0]["evidence"].get<std::string>(), "to " + name + " via small plan --"));
        for (InitWorkspace* w : {&fast, &general}) {
            // The caches give what a parse gives: the index, the outline, and
            // the span checkpoint edits (its edit equals the parse-based one).
            const std::optional<std::string> stamp = w->fs().version_stamp(w->file("plan.small.yml"));
            ASSERT_TRUE(stamp);
            const std::optional<std::string> spans = read_stamped_cache(w->fs(), w->ws(), kPlanSpansName, *stamp);
            const std::optional<std::string> outline = read_stamped_cache(w->fs(), w->ws(), kPlanOutlineName, *stamp);
            EXPECT_TRUE(spans) << (w == &fast ? "fast" : "general");
            EXPECT_TRUE(outline) << (w == &fast ? "fast" : "general");
            Result<Document> doc = parse_yaml(w->plan_bytes(), "plan");
            ASSERT_TRUE(doc.ok());
            Result<std::optional<std::vector<PlanTaskOutline>>> cached = load_plan_outline(w->fs(), w->ws());
            ASSERT_TRUE(cached.ok() && *cached);
            const std::vector<PlanTaskOutline> parsed = outline_plan(doc->root());
            ASSERT_EQ((*cached)->size(), parsed.size());
            for (std::size_t t = 0; t < parsed.size(); ++t) {
                EXPECT_EQ((**cached)[t].status.word(), parsed[t].status.word());
                EXPECT_EQ((**cached)[t].depends_on, parsed[t].depends_on);
            }
            const std::string next_id = steps[(i + 1) % steps.size()].first;
            Result<PlanStatusEdit> edit = plan_status_edit(w->fs(), w->ws(), next_id, TaskStatus::Blocked);
            ASSERT_TRUE(edit.ok()) << edit.error().describe();
            EXPECT_EQ(edit->text, plan_text_with_status(*doc, find_task_node(*doc, next_id), TaskStatus::Blocked));
        }
    }
    for (const char* kept : {"# Hand-written plan", "# the first one", "title: 'First'   # rename later", "# soon",
                             "depends_on: [task-1]", "owner: agent\n\ntasks:"}) {
        EXPECT_TRUE(contains(fast.plan_bytes(), kept)) << kept << "\n" << fast.plan_bytes();
    }
    expect_strict_ok(fast);
}

// `plan --add` alone edits only the last two tasks' lines (plan_append_edit,
// no parse): its bytes are those the general path writes for the same tasks
// (given here as --from), the caches it leaves describe the file (a status
// change or another --add from them gives what a parse gives), and a tail
// cache that does not fit is ignored.
TEST(PlanCommand, ALoneAddWritesWhatTheGeneralPathWrites) {
    const std::string plan =
        "# Hand-written plan\nsmall_version: \"1.0.0\"\n\ntasks:\n"
        "  # the first one\n  - id: task-1\n    title: 'First'   # rename later\n    status: pending\n\n"
        "  - id: task-2\n    title: 'Second'  # soon\n    status: 'pending'\n    depends_on: [task-1]\n"
        "# footer\nowner: agent\n";
    InitWorkspace fast(std::nullopt, Disk::Memory);
    InitWorkspace general(std::nullopt, Disk::Memory);
    for (InitWorkspace* w : {&fast, &general}) {
        w->write("plan.small.yml", plan);
        PlanRequest warm = plan_req();
        warm.blocked = {"task-2"};  // a first write parses and leaves the caches
        Result<PlanResult> warmed = plan_command(w->fs(), w->ws(), warm);
        ASSERT_TRUE(warmed.ok()) << warmed.error().describe();
    }
    const std::vector<std::vector<std::string>> adds = {{"Third"}, {"Fourth, with a comma", "Fifth"}, {"it's six"}};
    for (const std::vector<std::string>& titles : adds) {
        SCOPED_TRACE(titles.front());
        ASSERT_TRUE(plan_append_edit(fast.fs(), fast.ws(), titles)) << "the caches describe the file";
        PlanRequest add = plan_req();
        add.add = titles;
        PlanRequest from = plan_req();
        std::string list;
        for (const std::string& t : titles) list += "- title: " + yaml_quoted(t) + "\n";
        from.from = input(list);
        Result<PlanResult> a = plan_command(fast.fs(), fast.ws(), add);
        Result<PlanResult> b = plan_command(general.fs(), general.ws(), from);
        ASSERT_TRUE(a.ok()) << a.error().describe();
        ASSERT_TRUE(b.ok()) << b.error().describe();
        EXPECT_EQ(fast.plan_bytes(), general.plan_bytes());
        EXPECT_EQ(a->added_task_ids, b->added_task_ids);
        EXPECT_EQ(a->messages, b->messages);
        ASSERT_EQ(a->entries.size(), titles.size());
        EXPECT_EQ(a->entries[0]["evidence"], "Added task " + a->added_task_ids[0] + " via small plan --add");
        // The next status change from the caches is the parse-based one.
        const Result<Document> doc = parse_yaml(fast.plan_bytes(), "plan");
        ASSERT_TRUE(doc.ok());
        const std::string last = a->added_task_ids.back();
        Result<PlanStatusEdit> edit = plan_status_edit(fast.fs(), fast.ws(), last, TaskStatus::InProgress);
        ASSERT_TRUE(edit.ok()) << edit.error().describe();
        EXPECT_EQ(edit->text, plan_text_with_status(*doc, find_task_node(*doc, last), TaskStatus::InProgress));
        Result<std::optional<std::vector<PlanTaskOutline>>> outline = load_plan_outline(fast.fs(), fast.ws());
        ASSERT_TRUE(outline.ok() && *outline);
        EXPECT_EQ((*outline)->size(), outline_plan(doc->root()).size());
        EXPECT_EQ((*outline)->back().title, titles.back());
    }
    for (const char* kept : {"# Hand-written plan", "# the first one", "'First'   # rename later", "# soon",
                             "# footer\nowner: agent\n"}) {
        EXPECT_TRUE(contains(fast.plan_bytes(), kept)) << kept << "\n" << fast.plan_bytes();
    }
    expect_strict_ok(fast);

    // A tail cache that does not point at the last two tasks is not used.
    const std::string stamp = *fast.fs().version_stamp(fast.file("plan.small.yml"));
    for (const std::string bad : {"0 10\n", "5 3\n", "1 99999999\n", "x y\n", "0 0\n1 1\n"}) {
        write_stamped_cache(fast.fs(), fast.ws(), kPlanTailName, stamp, bad);
        EXPECT_FALSE(plan_append_edit(fast.fs(), fast.ws(), {"Seven"})) << bad;
    }
    PlanRequest add = plan_req();
    add.add = {"Seven"};
    ASSERT_TRUE(plan_command(fast.fs(), fast.ws(), add).ok());
    // Each field quoted as the last task's same field (its title had to be double-quoted).
    EXPECT_TRUE(contains(fast.plan_bytes(), "  - id: task-7\n    title: \"Seven\"\n    status: 'pending'\n")) << fast.plan_bytes();
    EXPECT_TRUE(plan_append_edit(fast.fs(), fast.ws(), {"Eight"})) << "the general path leaves a tail again";
}

// The fast paths against the parse path, step by step: one workspace keeps
// its caches, the other loses them before every command. Status changes
// that change a value's length move what the caches point at (a plain
// `pending` becoming `in_progress` once left plan.tail 4 bytes short, and
// the next --add wrote into the middle of a value); CRLF too.
TEST(PlanCommand, CachedEditsMatchTheParsePathStepByStep) {
    const std::string plain = "small_version: \"1.0.0\"\nowner: agent\ntasks:\n  - id: task-1\n    title: Set up\n"
                              "    status: pending\n  - id: task-2\n    title: Build\n    status: pending\n";
    std::string crlf;
    for (char c : plain) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    for (const std::string& start : {plain, crlf}) {
        InitWorkspace cached(std::nullopt, Disk::Memory);
        InitWorkspace parsed(std::nullopt, Disk::Memory);
        cached.write("plan.small.yml", start);
        parsed.write("plan.small.yml", start);
        std::vector<PlanRequest> steps;
        const auto add = [&](std::vector<std::string> titles) {
            steps.push_back(plan_req());
            steps.back().add = std::move(titles);
        };
        const auto status = [&](std::vector<std::string> PlanRequest::*flag, const std::string& id) {
            steps.push_back(plan_req());
            (steps.back().*flag).push_back(id);
            steps.back().force = true;
        };
        add({"Test"});
        status(&PlanRequest::in_progress, "task-3");
        add({"Ship"});
        status(&PlanRequest::done, "task-2");
        add({"A", "B"});
        status(&PlanRequest::cancel, "task-6");
        status(&PlanRequest::blocked, "task-1");
        add({"C"});
        status(&PlanRequest::pending, "task-7");
        add({"D"});
        for (std::size_t i = 0; i < steps.size(); ++i) {
            SCOPED_TRACE("step " + std::to_string(i) + (start == crlf ? " (CRLF)" : ""));
            ASSERT_TRUE(parsed.fs().remove_file(parsed.ws().root, parsed.root_path(".small-cache/plan.cache")));
            Result<PlanResult> a = plan_command(cached.fs(), cached.ws(), steps[i]);
            Result<PlanResult> b = plan_command(parsed.fs(), parsed.ws(), steps[i]);
            ASSERT_TRUE(a.ok()) << a.error().describe();
            ASSERT_TRUE(b.ok()) << b.error().describe();
            ASSERT_EQ(cached.plan_bytes(), parsed.plan_bytes());
            // The caches point where a parse of the file says.
            const Result<Document> doc = parse_yaml(cached.plan_bytes(), "plan");
            ASSERT_TRUE(doc.ok());
            const std::optional<PlanTail> tail = plan_tail(*doc);
            ASSERT_TRUE(tail);
            const std::string stamp = *cached.fs().version_stamp(cached.file("plan.small.yml"));
            EXPECT_EQ(read_stamped_cache(cached.fs(), cached.ws(), kPlanTailName, stamp),
                      std::to_string(tail->from) + " " + std::to_string(tail->insert_at) + "\n");
            EXPECT_TRUE(plan_append_edit(cached.fs(), cached.ws(), {"probe"})) << "the next --add needs no parse";
        }
        expect_strict_ok(cached);
    }
}

TEST(PlanFrom, YamlListAppendsNewTasksAndUpdatesExistingOnesFieldByField) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    YamlValue plan = plan_of(w);
    plan["tasks"][0]["estimate"] = "2h";  // an unknown field the merge keeps
    plan["tasks"][0]["notes_for_me"] = "drop this";
    w.write("plan.small.yml", emit_document(plan));
    PlanRequest req = plan_req();
    req.from = input(
        "- id: task-1\n"
        "  title: Sketch the parser\n"
        "  steps: [Read the grammar]\n"
        "  notes_for_me: null\n"
        "- title: Evaluate\n"
        "  depends_on: [task-1]\n"
        "  owner_hint: alice\n"
        "- id: report\n"
        "  title: Report\n"
        "  status: Pending\n"
        "  depends_on: [task-2]\n"
        "  acceptance: [Prints the value]\n");
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->added_task_ids, (std::vector<std::string>{"task-2", "report"}));
    plan = plan_of(w);
    ASSERT_EQ(plan["tasks"].size(), 3u);
    const YamlValue& t1 = plan["tasks"][0];
    EXPECT_EQ(t1["title"], "Sketch the parser");
    EXPECT_EQ(t1["estimate"], "2h");
    EXPECT_FALSE(t1.contains("notes_for_me"));
    EXPECT_EQ(strings_of(t1["steps"]), std::vector<std::string>{"Read the grammar"});
    EXPECT_EQ(plan["tasks"][1]["id"], "task-2");
    EXPECT_EQ(plan["tasks"][1]["status"], "pending");
    EXPECT_EQ(plan["tasks"][1]["owner_hint"], "alice");
    EXPECT_EQ(plan["tasks"][2]["status"], "pending");  // read case-insensitively, written lower-case
    ASSERT_EQ(r->entries.size(), 3u);
    EXPECT_TRUE(contains(r->entries[0]["evidence"].get<std::string>(), "(title, steps, notes_for_me)"))
        << r->entries[0]["evidence"];
    for (const YamlValue& e : r->entries) EXPECT_EQ(e["replayId"], w.run_id());
    expect_strict_ok(w);

    // The same tasks again, by id, change nothing (an item without an id is always a new task).
    const auto before = snapshot(w);
    req.from = input(
        "- id: task-1\n"
        "  title: Sketch the parser\n"
        "  steps: [Read the grammar]\n"
        "- id: task-2\n"
        "  title: Evaluate\n"
        "  depends_on: [task-1]\n"
        "- id: report\n"
        "  status: pending\n");
    r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_FALSE(r->changed);
    EXPECT_EQ(snapshot(w), before);
}

TEST(PlanFrom, JsonListAndAWholePlanMappingAreAccepted) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest req = plan_req();
    req.from = input(R"([{"title": "Parse"}, {"id": "task-1", "status": "completed"}])", "tasks.json");
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(task_status(plan_of(w)["tasks"][0]).word(), "completed");
    EXPECT_EQ(plan_of(w)["tasks"][1]["title"], "Parse");

    req.from = input("small_version: \"1.0.0\"\nowner: agent\ntasks:\n  - title: Third\n");
    r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->added_task_id, "task-3");
    expect_strict_ok(w);
}

// Every mistake is found before anything is written, at its line and column.
TEST(PlanFrom, ErrorsNameTheInputsLineAndColumnAndWriteNothing) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const auto before = snapshot(w);
    struct Case {
        std::string text;
        unsigned line, column;
        std::string says;
    };
    const std::vector<Case> cases = {
        {"- id: task-1\n  status: finished\n", 2, 11, "is not a plan status"},
        {"- title: New\n  depends_on: [task-1, task-9]\n", 2, 24, "task-9"},
        {"- title: A\n- id: task-1\n  title: B\n- id: task-1\n", 4, 7, "listed twice"},
        {"- id: task-7\n  status: pending\n", 1, 3, "no title"},
        {"- title: A\n  steps: write it\n", 2, 10, "must be a list of strings"},
        {"- id: task-1\n  title: \"\"\n", 2, 11, "non-empty string"},  // inside the quotes
        {"- id: task-1\n  title: null\n", 2, 10, "cannot be null"},
        {"- just a string\n", 1, 3, "must be a mapping"},
        {"title: not a list\n", 1, 1, "expected a non-empty list of tasks"},
        {"", 1, 1, "expected a non-empty list of tasks"},
        {"- id: task-2\n  title: B\n  depends_on: [task-1]\n- id: task-1\n  depends_on: [task-2]\n", 3, 15,
         "dependency cycle: task-1 -> task-2 -> task-1"},
        {"- id: task-1\n  title: [unclosed\n", 3, 1, ""},
    };
    for (const Case& c : cases) {
        PlanRequest req = plan_req();
        req.from = input(c.text);
        Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
        ASSERT_FALSE(r.ok()) << c.text;
        EXPECT_EQ(r.error().kind, Error::Kind::Invalid) << c.text;
        EXPECT_EQ(r.error().file, "tasks.yml") << c.text;
        EXPECT_EQ(r.error().line, c.line) << c.text << r.error().describe();
        if (!c.says.empty()) {
            EXPECT_EQ(r.error().column, c.column) << c.text << r.error().describe();
        }
        EXPECT_TRUE(contains(r.error().message, c.says)) << c.text << r.error().describe();
        EXPECT_EQ(snapshot(w), before) << c.text;
    }
}

TEST(PlanFrom, CompletedWithUnmetDependenciesIsRefusedUnlessForced) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const auto before = snapshot(w);
    PlanRequest req = plan_req();
    req.from = input("- title: Second\n  status: completed\n  depends_on: [task-1]\n");
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.error().message, "task-2 (unmet: task-1)")) << r.error().message;
    EXPECT_EQ(snapshot(w), before);

    req.done = {"task-1"};  // flags apply after the list: the result is what is judged
    r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(r->warnings.empty());
    expect_strict_ok(w);
}

TEST(PlanFrom, FlagsApplyAfterTheListAndSeeItsTasks) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest req = plan_req();
    req.from = input("- id: parse\n  title: Parse\n");
    req.steps = {"parse:Tokenise"};
    req.depends = {"parse:task-1"};
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    const YamlValue plan = plan_of(w);
    EXPECT_EQ(strings_of(plan["tasks"][1]["steps"]), std::vector<std::string>{"Tokenise"});
    EXPECT_EQ(task_dependencies(plan["tasks"][1]), std::vector<std::string>{"task-1"});
}

// Plan edits are bookkeeping: they never make a task "started" (D18).
TEST(PlanCommand, EveryKindOfPlanEditEntryIsBookkeeping) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    // A task written by hand (no entry names it), so --remove may take it.
    YamlValue by_hand = plan_of(w);
    YamlValue doomed = YamlValue::object();
    doomed["id"] = "doomed";
    doomed["title"] = "Doomed";
    by_hand["tasks"].push_back(doomed);
    w.write("plan.small.yml", emit_document(by_hand));
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), setup).ok());
    PlanRequest req = plan_req();
    req.from = input("- title: From the list\n  status: in_progress\n- id: task-3\n  title: Third, renamed\n");
    req.add = {"Added"};
    req.retitle = {std::make_pair(std::string("task-1"), std::string("Renamed"))};
    req.steps = {"task-1:Step"};
    req.acceptance = {"task-1:Criterion"};
    req.done = {"task-3"};
    req.pending = {"task-1"};
    req.blocked = {"task-5"};
    req.in_progress = {"task-1"};
    req.cancel = {"task-5"};
    req.depends = {"task-3:task-1,task-4"};
    req.undepend = {"task-3:task-4"};
    req.remove = {"doomed"};
    req.force = true;
    Result<PlanResult> r = plan_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_GE(r->entries.size(), 14u);
    for (const YamlValue& e : r->entries) {
        const std::string notes = e.contains("notes") ? e["notes"].get<std::string>() : "";
        EXPECT_TRUE(is_bookkeeping_entry(e["task_id"].get<std::string>(), e["evidence"].get<std::string>(), notes))
            << e.dump();
    }
    PlanRequest reset = plan_req();
    reset.reset = reset.yes = true;
    r = plan_command(w.fs(), w.ws(), reset);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    for (const YamlValue& e : r->entries) EXPECT_TRUE(is_bookkeeping_entry(e["task_id"].get<std::string>(), "", ""));
}

// ============================================================ checkpoint

}  // namespace
}  // namespace small
