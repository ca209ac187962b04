// plan, checkpoint, handoff, start and reset in the library
// (plan_command.hpp, handoff_command.hpp) on real workspaces made by
// init_workspace in temporary directories; build_handoff's state machine on
// inputs built by hand.
#include "small/ops/plan.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "small/ops/handoff.hpp"
#include "small/ops/init.hpp"
#include "small/store/plan_cache.hpp"
#include "small/model/plan_model.hpp"
#include "small/ops/progress_add.hpp"
#include "small/store/progress_log.hpp"
#include "small/model/replay_id.hpp"
#include "small/store/run_store.hpp"
#include "small/base/text.hpp"
#include "small/check/schema.hpp"
#include "small/check/verdict.hpp"
#include "small/store/workspace_change.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/doc/yaml.hpp"
#include "small/ops/start.hpp"
#include "small/ops/reset.hpp"
#include "small/ops/checkpoint.hpp"
#include "small/model/templates.hpp"
#include "small/store/local_work.hpp"
#include "small/store/log_facts_cache.hpp"
#include "small/domain/plan_status_edit.hpp"

namespace small {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

const RealFileSystem real_fs;

constexpr const char* kOtherRun = "abcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcd";

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// A workspace made by `small init --no-agents` in a fresh temporary directory.
class InitWorkspace {
public:
    explicit InitWorkspace(std::optional<std::string> intent = std::nullopt) {
        std::string pattern = "/tmp/small-plancmd-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        dir_ = fs::canonical(pattern).string();
        InitRequest req;
        req.dir = dir_;
        req.cwd = dir_;
        req.no_agents = true;
        req.intent = std::move(intent);
        Result<InitResult> r = init_workspace(real_fs, req);
        if (!r) throw std::runtime_error("init failed: " + r.error().describe());
        init_ = std::move(*r);
        ws_.root = init_.root;
        ws_.small_dir = init_.small_dir;
        ws_.display_prefix = init_.root + "/";
        ws_.from_dir_flag = true;
    }
    ~InitWorkspace() {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    InitWorkspace(const InitWorkspace&) = delete;
    InitWorkspace& operator=(const InitWorkspace&) = delete;

    const WorkspacePaths& ws() const { return ws_; }
    const std::string& run_id() const { return init_.replay_id; }
    std::string file(const std::string& name) const { return ws_.path_of(name); }
    std::string read(const std::string& name) const { return read_text(file(name)); }
    std::string plan_bytes() const { return read("plan.small.yml"); }
    std::string log_bytes() const { return read("progress.small.yml"); }
    std::string root_path(const std::string& rel) const { return ws_.root + "/" + rel; }

private:
    std::string dir_;
    InitResult init_;
    WorkspacePaths ws_;
};

YamlValue load_value(const std::string& path) {
    Result<Document> doc = load_yaml_file(real_fs, path, path);
    if (!doc) throw std::runtime_error(doc.error().describe());
    return to_yaml_value(doc->root());
}

YamlValue plan_of(const InitWorkspace& w) { return load_value(w.file("plan.small.yml")); }
YamlValue log_entries(const InitWorkspace& w) { return load_value(w.file("progress.small.yml"))["entries"]; }
std::string pinned_run(const InitWorkspace& w) {
    return load_value(w.file("workspace.small.yml"))["run"]["replay_id"].get<std::string>();
}

// `small check --strict` passes.
void expect_strict_ok(const InitWorkspace& w) {
    Result<SchemaSet> schemas = SchemaSet::embedded();
    ASSERT_TRUE(schemas.ok());
    VerdictOptions options;
    options.strict = true;
    const Verdict v = run_check(VerdictInput{real_fs, w.ws(), *schemas}, options);
    std::string why;
    for (const Finding& f : v.blocking) why += f.location_text() + " [" + f.rule + "]\n";
    for (const Finding& f : v.all_findings()) why += f.location_text() + " [" + f.rule + "]\n";
    EXPECT_EQ(v.outcome, VerdictOutcome::Ok) << why;
}

PlanRequest plan_req() {
    PlanRequest r;
    r.lock_wait = milliseconds(2000);
    return r;
}

CheckpointRequest checkpoint_req(const std::string& task, const std::string& status) {
    CheckpointRequest r;
    r.task = task;
    r.status = status;
    r.evidence = "unit tests pass";
    r.lock_wait = milliseconds(2000);
    return r;
}

HandoffRequest handoff_req() {
    HandoffRequest r;
    r.lock_wait = milliseconds(2000);
    return r;
}

ResetRequest reset_req() {
    ResetRequest r;
    r.lock_wait = milliseconds(2000);
    return r;
}

// Every file of .small/ as bytes.
std::map<std::string, std::string> snapshot(const InitWorkspace& w) {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::directory_iterator(w.ws().small_dir)) out[e.path().filename()] = read_text(e.path());
    return out;
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

// ============================================================ plan

TEST(PlanCommand, AddAfterInitReusesThePinnedRunAndStampsTheEntry) {
    InitWorkspace w;
    const std::string metadata_before = w.read("workspace.small.yml");
    PlanRequest req = plan_req();
    req.add = {"  Design widget  "};
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_FALSE(r->pinned_run);
    EXPECT_EQ(r->replay_id, w.run_id());
    EXPECT_TRUE(r->changed);
    EXPECT_FALSE(r->created);
    EXPECT_EQ(r->added_task_id, "task-2");
    ASSERT_EQ(r->messages.size(), 1u);
    EXPECT_EQ(r->messages[0], "Added task task-2: Design widget");
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
    EXPECT_EQ(plan["tasks"][1]["title"], "Design widget");
    EXPECT_EQ(plan["tasks"][1]["status"], "pending");
    expect_strict_ok(w);
}

// The plan written by small is not validated again (.small-cache/plan.valid),
// but a hand edit afterwards changes the file's stamp and is validated.
TEST(PlanCommand, AHandEditedInvalidPlanIsRefusedEvenAfterAValidWrite) {
    InitWorkspace w;
    PlanRequest add = plan_req();
    add.add = {"First"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), add).ok());
    ASSERT_TRUE(fs::exists(w.root_path(".small-cache/plan.cache")));
    YamlValue plan = plan_of(w);
    plan["tasks"][0].erase("title");  // schema: every task needs a title
    write_text(w.file("plan.small.yml"), emit_document(plan));
    const auto before = snapshot(w);
    add.add = {"Second"};
    Result<PlanResult> r = plan_command(real_fs, w.ws(), add);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_NE(r.error().describe().find("plan.small.yml"), std::string::npos) << r.error().describe();
    EXPECT_EQ(snapshot(w), before);
}

TEST(PlanCommand, BlankAddIsUsageAndWritesNothing) {
    InitWorkspace w;
    const auto before = snapshot(w);
    PlanRequest req = plan_req();
    req.add = {"   \t "};
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Usage);
    EXPECT_EQ(snapshot(w), before);
}

TEST(PlanCommand, DependsWithoutColonOrWithABlankSideIsUsage) {
    InitWorkspace w;
    const auto before = snapshot(w);
    for (const char* bad : {"task-1", "task-1 task-2", ":task-1", "task-1:", " : "}) {
        PlanRequest req = plan_req();
        req.depends = {bad};
        Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().kind, Error::Kind::Usage) << bad << ": " << r.error().message;
    }
    EXPECT_EQ(snapshot(w), before);
}

TEST(PlanCommand, UnknownTaskIsInvalidAndPlanAndProgressAreUnchanged) {
    InitWorkspace w;
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
        Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().kind, Error::Kind::Invalid) << r.error().message;
        EXPECT_TRUE(contains(r.error().message, "task-99")) << r.error().message;
        EXPECT_EQ(w.plan_bytes(), plan_before);
        EXPECT_EQ(w.log_bytes(), log_before);
    }
}

TEST(PlanCommand, EveryFlagThatNamesATaskSuggestsTheClosestIds) {
    InitWorkspace w;
    PlanRequest add = plan_req();
    add.add = {"Second"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), add).ok());
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
        Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
        EXPECT_TRUE(contains(r.error().message, "Did you mean task-2?")) << r.error().message;
        EXPECT_EQ(w.plan_bytes(), plan_before);
        EXPECT_EQ(w.log_bytes(), log_before);
    }
}

TEST(PlanCommand, CancelSettlesATaskAndLogsIt) {
    InitWorkspace w;
    PlanRequest req = plan_req();
    req.cancel = {"task-1"};
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(task_status(plan_of(w)["tasks"][0]), "cancelled");
    ASSERT_EQ(r->entries.size(), 1u);
    EXPECT_EQ(r->entries[0]["status"], "cancelled");
    EXPECT_EQ(r->entries[0]["task_id"], "task-1");
    expect_strict_ok(w);
}

TEST(PlanCommand, TitleRenamesTheTemplateTaskAndKeepsItsStatus) {
    InitWorkspace w;
    PlanRequest req = plan_req();
    req.retitle = {std::make_pair(std::string(" task-1 "), std::string("  Review the layout "))};
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    const YamlValue task = plan_of(w)["tasks"][0];
    EXPECT_EQ(task["title"], "Review the layout");
    EXPECT_EQ(task_status(task), "pending");
    ASSERT_EQ(r->entries.size(), 1u);
    EXPECT_EQ(r->entries[0]["notes"], "Review the layout");
    EXPECT_EQ(r->messages, (std::vector<std::string>{"Retitled task task-1: Review the layout"}));

    req.retitle = {std::make_pair(std::string("task-1"), std::string("   "))};
    const std::string before = w.plan_bytes();
    Result<PlanResult> blank = plan_command(real_fs, w.ws(), req);
    ASSERT_FALSE(blank.ok());
    EXPECT_EQ(blank.error().kind, Error::Kind::Usage);
    EXPECT_EQ(w.plan_bytes(), before);
}

TEST(PlanCommand, RemoveDeletesATaskNoEntryOfTheRunNames) {
    InitWorkspace w;  // init's entry is meta/init: nothing names task-1
    PlanRequest req = plan_req();
    req.remove = {"task-1"};
    const auto before = snapshot(w);
    Result<PlanResult> only = plan_command(real_fs, w.ws(), req);  // a plan keeps one task (schema)
    ASSERT_FALSE(only.ok());
    EXPECT_TRUE(contains(only.error().message, "only task")) << only.error().message;
    EXPECT_EQ(snapshot(w), before);

    req.add = {"The real first task"};
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
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
    InitWorkspace w;
    PlanRequest add = plan_req();
    add.add = {"Logged by plan --add"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), add).ok());  // an entry of this run names task-2
    add.add = {"Depends on task-1"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), add).ok());
    PlanRequest dep = plan_req();
    dep.depends = {"task-3:task-1"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), dep).ok());
    const auto before = snapshot(w);

    PlanRequest req = plan_req();
    req.remove = {"task-2"};
    Result<PlanResult> logged = plan_command(real_fs, w.ws(), req);
    ASSERT_FALSE(logged.ok());
    EXPECT_EQ(logged.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(logged.error().message, "1 progress entry of the current run")) << logged.error().message;
    EXPECT_TRUE(contains(logged.error().message, "small plan --cancel task-2")) << logged.error().message;
    req.remove = {"task-1"};
    Result<PlanResult> depended = plan_command(real_fs, w.ws(), req);
    ASSERT_FALSE(depended.ok());
    EXPECT_TRUE(contains(depended.error().message, "task task-3 depends on it")) << depended.error().message;
    EXPECT_EQ(snapshot(w), before);

    // Entries of another run do not count: task-1 is named by this run's
    // checkpoint, and after a reset (template plan, new run) it can go.
    ASSERT_TRUE(checkpoint_command(real_fs, w.ws(), checkpoint_req("task-1", "completed")).ok());
    ASSERT_TRUE(reset_command(real_fs, w.ws(), reset_req()).ok());
    req.remove = {"task-1"};
    req.add = {"The new run's task"};  // the plan keeps one task
    Result<PlanResult> later = plan_command(real_fs, w.ws(), req);
    EXPECT_TRUE(later.ok()) << later.error().describe();
}

TEST(PlanCommand, DependencyCycleIsInvalidAndNothingIsWritten) {
    InitWorkspace w;
    PlanRequest add = plan_req();
    add.add = {"Second"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), add).ok());
    PlanRequest dep = plan_req();
    dep.depends = {"task-2:task-1"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), dep).ok());
    const auto before = snapshot(w);
    PlanRequest cycle = plan_req();
    cycle.depends = {"task-1:task-2"};
    Result<PlanResult> r = plan_command(real_fs, w.ws(), cycle);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(r.error().message, "task-1 -> task-2 -> task-1")) << r.error().message;
    EXPECT_EQ(snapshot(w), before);
}

TEST(PlanCommand, ResetWithoutYesIsUsage) {
    InitWorkspace w;
    PlanRequest add = plan_req();
    add.add = {"Second"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), add).ok());
    const auto before = snapshot(w);
    PlanRequest req = plan_req();
    req.reset = true;
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Usage);
    EXPECT_EQ(snapshot(w), before);
}

TEST(PlanCommand, ResetWritesTheTemplateAndAMetaPlanResetEntry) {
    InitWorkspace w;
    // A plan edited by hand (a `plan --add` would leave entries of this run
    // for a task the reset removes: strict S2 would then fail by design).
    write_text(w.file("plan.small.yml"), "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n"
                                         "  - id: \"task-1\"\n    title: \"Edited by hand\"\n    extra: 1\n");
    ASSERT_NE(w.plan_bytes(), emit_document(plan_template()));

    PlanRequest req = plan_req();
    req.reset = true;
    req.yes = true;
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
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
    InitWorkspace w;
    write_text(w.file("plan.small.yml"),
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
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
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
    InitWorkspace w;
    const auto before = snapshot(w);
    const auto mtime = fs::last_write_time(w.file("plan.small.yml"));
    Result<PlanResult> r = plan_command(real_fs, w.ws(), plan_req());
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
    InitWorkspace w;
    PlanRequest req = plan_req();
    req.add = {"Second"};
    req.in_progress = {"task-1"};
    req.depends = {"task-2:task-1"};
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(r->entries.size(), 3u);
    EXPECT_EQ(r->entries[0]["task_id"], "task-2");
    EXPECT_EQ(r->entries[1]["task_id"], "task-1");
    EXPECT_EQ(r->entries[1]["status"], "in_progress");
    EXPECT_EQ(r->entries[2]["task_id"], "task-2");
    for (const YamlValue& e : r->entries) EXPECT_EQ(e["replayId"], w.run_id());
    const YamlValue plan = plan_of(w);
    EXPECT_EQ(task_status(plan["tasks"][0]), "in_progress");
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
    InitWorkspace w;
    PlanRequest req = plan_req();
    req.add = {"Parse", "Evaluate", "Report"};  // task-2, task-3, task-4
    req.depends = {"task-4:task-2,task-3", "task-3:task-2"};
    req.steps = {"task-2:Write the lexer", "task-2: Write the parser ", "task-3:Fold constants"};
    req.acceptance = {"task-2:Parses every example"};
    req.done = {"task-1"};
    req.in_progress = {"task-2"};
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->added_task_ids, (std::vector<std::string>{"task-2", "task-3", "task-4"}));
    EXPECT_EQ(r->added_task_id, "task-4");
    EXPECT_TRUE(r->warnings.empty());
    const YamlValue plan = plan_of(w);
    const YamlValue& t2 = plan["tasks"][*find_task(plan, "task-2")];
    EXPECT_EQ(strings_of(t2["steps"]), (std::vector<std::string>{"Write the lexer", "Write the parser"}));
    EXPECT_EQ(strings_of(t2["acceptance"]), std::vector<std::string>{"Parses every example"});
    EXPECT_EQ(task_status(t2), "in_progress");
    EXPECT_EQ(task_dependencies(plan["tasks"][*find_task(plan, "task-4")]),
              (std::vector<std::string>{"task-2", "task-3"}));
    EXPECT_EQ(task_status(plan["tasks"][0]), "completed");
    // 3 adds, 2 step entries (one per task), 1 acceptance, done, in-progress, 2 depends.
    ASSERT_EQ(r->entries.size(), 10u);
    EXPECT_EQ(log_entries(w).size(), 11u);
    EXPECT_FALSE(fs::exists(w.root_path(kChangeJournalName)));
    expect_strict_ok(w);
}

TEST(PlanCommand, StepAndAcceptanceWithoutIdOrTextAreUsage) {
    InitWorkspace w;
    const auto before = snapshot(w);
    for (const char* bad : {"task-1", "task-1:", ":text", "  :  "}) {
        PlanRequest steps = plan_req();
        steps.steps = {bad};
        PlanRequest acceptance = plan_req();
        acceptance.acceptance = {bad};
        for (const PlanRequest& req : {steps, acceptance}) {
            Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
            ASSERT_FALSE(r.ok()) << bad;
            EXPECT_EQ(r.error().kind, Error::Kind::Usage) << bad;
        }
    }
    PlanRequest blank_dep = plan_req();
    blank_dep.depends = {"task-1:task-2,,task-3"};
    Result<PlanResult> r = plan_command(real_fs, w.ws(), blank_dep);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Usage) << r.error().message;
    EXPECT_EQ(snapshot(w), before);
}

// Issue 18: `--add X --depends task-4:...` that fails named the rolled-back
// task-4 in "did you mean".
TEST(PlanCommand, ErrorsNeverNameATaskTheFailedCallWouldHaveAdded) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};  // task-2, task-3
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    const auto before = snapshot(w);

    PlanRequest req = plan_req();
    req.add = {"Fourth"};  // task-4, rolled back
    req.depends = {"task-4:task-2,task-5"};
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.error().message, "task-5")) << r.error().message;
    EXPECT_FALSE(contains(r.error().message, "task-4")) << r.error().message;
    EXPECT_EQ(snapshot(w), before);

    PlanRequest typo = plan_req();
    typo.add = {"Fourth"};
    typo.done = {"tsak-4"};
    r = plan_command(real_fs, w.ws(), typo);
    ASSERT_FALSE(r.ok());
    EXPECT_FALSE(contains(r.error().message, "task-4")) << r.error().message;
    EXPECT_EQ(snapshot(w), before);

    // With the ids right, the same call succeeds.
    req.depends = {"task-4:task-2,task-3"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), req).ok());
    EXPECT_EQ(task_dependencies(plan_of(w)["tasks"][3]), (std::vector<std::string>{"task-2", "task-3"}));
}

TEST(PlanCommand, UndependRemovesDependenciesAndDropsAnEmptyList) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};
    setup.depends = {"task-3:task-1,task-2"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());

    PlanRequest one = plan_req();
    one.undepend = {"task-3:task-1"};
    Result<PlanResult> r = plan_command(real_fs, w.ws(), one);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(task_dependencies(plan_of(w)["tasks"][2]), std::vector<std::string>{"task-2"});
    ASSERT_EQ(r->entries.size(), 1u);
    EXPECT_EQ(r->entries[0]["task_id"], "task-3");

    const auto before = snapshot(w);
    PlanRequest absent = plan_req();
    absent.undepend = {"task-3:task-1"};
    r = plan_command(real_fs, w.ws(), absent);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(r.error().message, "does not depend on task-1")) << r.error().message;
    EXPECT_TRUE(contains(r.error().message, "task-2")) << r.error().message;  // what it does depend on
    EXPECT_EQ(snapshot(w), before);

    PlanRequest last = plan_req();
    last.undepend = {"task-3:task-2"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), last).ok());
    EXPECT_FALSE(plan_of(w)["tasks"][2].contains("depends_on"));
    expect_strict_ok(w);
}

// D18: a task is completed only after its dependencies, judged on the plan as
// the whole call leaves it.
TEST(PlanCommand, DoneWithUnmetDependenciesIsRefusedNamingThemAndWritesNothing) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};
    setup.depends = {"task-3:task-1,task-2"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    const auto before = snapshot(w);
    PlanRequest req = plan_req();
    req.done = {"task-3", "task-1"};  // task-2 stays pending
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(r.error().message, "task-3 (unmet: task-2)")) << r.error().message;
    EXPECT_TRUE(contains(r.error().hint, "--force")) << r.error().hint;
    EXPECT_EQ(snapshot(w), before);

    req.done = {"task-3", "task-2", "task-1"};  // the order of the flags does not matter
    r = plan_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(r->warnings.empty());
    expect_strict_ok(w);
}

TEST(PlanCommand, ForceCompletesAndTheEntryRecordsTheUnmetDependencies) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second"};
    setup.depends = {"task-2:task-1"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    PlanRequest req = plan_req();
    req.done = {"task-2"};
    req.force = true;
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(r->entries.size(), 1u);
    const std::string notes = r->entries[0]["notes"].get<std::string>();
    EXPECT_EQ(notes, "small plan --done; forced: dependencies task-1 not completed");
    ASSERT_EQ(r->warnings.size(), 1u);
    EXPECT_TRUE(contains(r->warnings[0], "task-1")) << r->warnings[0];
    EXPECT_TRUE(is_bookkeeping_entry("task-2", r->entries[0]["evidence"].get<std::string>(), notes));
    EXPECT_EQ(task_status(plan_of(w)["tasks"][1]), "completed");
}

TEST(PlanCommand, StartingATaskWithUnmetDependenciesWritesAndWarns) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second"};
    setup.depends = {"task-2:task-1"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    PlanRequest req = plan_req();
    req.in_progress = {"task-2"};
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(r->warnings.size(), 1u);
    EXPECT_TRUE(contains(r->warnings[0], "task-2 is in_progress but its dependencies task-1")) << r->warnings[0];
    EXPECT_EQ(task_status(plan_of(w)["tasks"][1]), "in_progress");
}

TEST(PlanFrom, YamlListAppendsNewTasksAndUpdatesExistingOnesFieldByField) {
    InitWorkspace w;
    YamlValue plan = plan_of(w);
    plan["tasks"][0]["estimate"] = "2h";  // an unknown field the merge keeps
    plan["tasks"][0]["notes_for_me"] = "drop this";
    write_text(w.file("plan.small.yml"), emit_document(plan));
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
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
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
    r = plan_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_FALSE(r->changed);
    EXPECT_EQ(snapshot(w), before);
}

TEST(PlanFrom, JsonListAndAWholePlanMappingAreAccepted) {
    InitWorkspace w;
    PlanRequest req = plan_req();
    req.from = input(R"([{"title": "Parse"}, {"id": "task-1", "status": "completed"}])", "tasks.json");
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(task_status(plan_of(w)["tasks"][0]), "completed");
    EXPECT_EQ(plan_of(w)["tasks"][1]["title"], "Parse");

    req.from = input("small_version: \"1.0.0\"\nowner: agent\ntasks:\n  - title: Third\n");
    r = plan_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->added_task_id, "task-3");
    expect_strict_ok(w);
}

// Every mistake is found before anything is written, at its line and column.
TEST(PlanFrom, ErrorsNameTheInputsLineAndColumnAndWriteNothing) {
    InitWorkspace w;
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
        Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
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
    InitWorkspace w;
    const auto before = snapshot(w);
    PlanRequest req = plan_req();
    req.from = input("- title: Second\n  status: completed\n  depends_on: [task-1]\n");
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.error().message, "task-2 (unmet: task-1)")) << r.error().message;
    EXPECT_EQ(snapshot(w), before);

    req.done = {"task-1"};  // flags apply after the list: the result is what is judged
    r = plan_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(r->warnings.empty());
    expect_strict_ok(w);
}

TEST(PlanFrom, FlagsApplyAfterTheListAndSeeItsTasks) {
    InitWorkspace w;
    PlanRequest req = plan_req();
    req.from = input("- id: parse\n  title: Parse\n");
    req.steps = {"parse:Tokenise"};
    req.depends = {"parse:task-1"};
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    const YamlValue plan = plan_of(w);
    EXPECT_EQ(strings_of(plan["tasks"][1]["steps"]), std::vector<std::string>{"Tokenise"});
    EXPECT_EQ(task_dependencies(plan["tasks"][1]), std::vector<std::string>{"task-1"});
}

// Plan edits are bookkeeping: they never make a task "started" (D18).
TEST(PlanCommand, EveryKindOfPlanEditEntryIsBookkeeping) {
    InitWorkspace w;
    // A task written by hand (no entry names it), so --remove may take it.
    YamlValue by_hand = plan_of(w);
    YamlValue doomed = YamlValue::object();
    doomed["id"] = "doomed";
    doomed["title"] = "Doomed";
    by_hand["tasks"].push_back(doomed);
    write_text(w.file("plan.small.yml"), emit_document(by_hand));
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
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
    Result<PlanResult> r = plan_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_GE(r->entries.size(), 14u);
    for (const YamlValue& e : r->entries) {
        const std::string notes = e.contains("notes") ? e["notes"].get<std::string>() : "";
        EXPECT_TRUE(is_bookkeeping_entry(e["task_id"].get<std::string>(), e["evidence"].get<std::string>(), notes))
            << e.dump();
    }
    PlanRequest reset = plan_req();
    reset.reset = reset.yes = true;
    r = plan_command(real_fs, w.ws(), reset);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    for (const YamlValue& e : r->entries) EXPECT_TRUE(is_bookkeeping_entry(e["task_id"].get<std::string>(), "", ""));
}

// ============================================================ checkpoint

TEST(Checkpoint, SetsTheStatusAndAppendsOneEntryInOneChange) {
    InitWorkspace w;
    Result<CheckpointResult> r = checkpoint_command(real_fs, w.ws(), checkpoint_req("task-1", " Completed "));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->previous_status, "pending");
    EXPECT_EQ(r->replay_id, w.run_id());
    EXPECT_FALSE(r->pinned_run);
    EXPECT_EQ(r->entry.begin().key(), "timestamp");
    EXPECT_EQ(r->entry["timestamp"], r->timestamp);
    EXPECT_EQ(r->entry["task_id"], "task-1");
    EXPECT_EQ(r->entry["status"], "completed");
    EXPECT_EQ(r->entry["evidence"], "unit tests pass");
    EXPECT_EQ(r->entry["replayId"], w.run_id());

    EXPECT_EQ(task_status(plan_of(w)["tasks"][0]), "completed");
    const YamlValue entries = log_entries(w);
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[1], r->entry);
    EXPECT_FALSE(fs::exists(w.root_path(kChangeJournalName)));
    expect_strict_ok(w);
}

// An existing status scalar is replaced in place: the rest of the plan,
// comments included, keeps its bytes.
TEST(Checkpoint, ReplacesAnExistingStatusInPlaceKeepingComments) {
    InitWorkspace w;
    const std::string plan = "small_version: \"1.0.0\"\nowner: \"agent\"\n# why this plan\ntasks:\n"
                             "  - id: \"task-1\"\n    title: \"Initial task\"  # keep me\n    status: pending\n"
                             "  - id: task-2\n    title: Second\n    status: 'pending'   # and me\n";
    write_text(w.file("plan.small.yml"), plan);
    Result<CheckpointResult> r = checkpoint_command(real_fs, w.ws(), checkpoint_req("task-2", "completed"));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->previous_status, "pending");
    std::string expected = plan;
    expected.replace(expected.find("'pending'"), 9, "\"completed\"");
    EXPECT_EQ(w.plan_bytes(), expected);
    expect_strict_ok(w);
}

TEST(Checkpoint, BlockedWithoutEvidenceGetsTheDefaultEvidence) {
    InitWorkspace w;
    CheckpointRequest req = checkpoint_req("task-1", "blocked");
    req.evidence.reset();
    Result<CheckpointResult> r = checkpoint_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->entry["evidence"], std::string(kDefaultCheckpointEvidence));
    EXPECT_EQ(task_status(plan_of(w)["tasks"][0]), "blocked");
}

TEST(Checkpoint, CancelledAndInProgressSetThePlanToo) {
    for (const char* status : {"cancelled", "in_progress", " Cancelled "}) {
        InitWorkspace w;
        Result<CheckpointResult> r = checkpoint_command(real_fs, w.ws(), checkpoint_req("task-1", status));
        ASSERT_TRUE(r.ok()) << status << ": " << r.error().describe();
        const std::string want = lower_ascii(trim(status));
        EXPECT_EQ(r->entry["status"], want);
        EXPECT_EQ(task_status(plan_of(w)["tasks"][0]), want);
    }
}

TEST(Checkpoint, StatusOutsideTheCheckpointStatusesIsUsage) {
    InitWorkspace w;
    const auto before = snapshot(w);
    for (const char* status : {"pending", "done", "canceled", ""}) {
        Result<CheckpointResult> r = checkpoint_command(real_fs, w.ws(), checkpoint_req("task-1", status));
        ASSERT_FALSE(r.ok()) << status;
        EXPECT_EQ(r.error().kind, Error::Kind::Usage) << status;
    }
    EXPECT_EQ(snapshot(w), before);
}

TEST(Checkpoint, UnknownTaskIsInvalidAndChangesNothing) {
    InitWorkspace w;
    const auto before = snapshot(w);
    Result<CheckpointResult> r = checkpoint_command(real_fs, w.ws(), checkpoint_req("task-7", "completed"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_EQ(snapshot(w), before);
}

TEST(Checkpoint, AtBeforeTheLastEntryIsInvalidAndFilesAreUnchanged) {
    InitWorkspace w;
    const std::string plan_before = w.plan_bytes();
    const std::string log_before = w.log_bytes();
    CheckpointRequest req = checkpoint_req("task-1", "completed");
    req.at = "2001-01-01T00:00:00.000000001Z";
    Result<CheckpointResult> r = checkpoint_command(real_fs, w.ws(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid) << r.error().message;
    EXPECT_TRUE(contains(r.error().message, "after")) << r.error().message;
    EXPECT_EQ(w.plan_bytes(), plan_before);
    EXPECT_EQ(w.log_bytes(), log_before);
    EXPECT_FALSE(fs::exists(w.root_path(kChangeJournalName)));
}

TEST(Checkpoint, AtAfterTheLastEntryIsUsedExactly) {
    InitWorkspace w;
    CheckpointRequest req = checkpoint_req("task-1", "completed");
    req.at = "2099-01-01T00:00:00.5Z";
    Result<CheckpointResult> r = checkpoint_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->timestamp, "2099-01-01T00:00:00.500000000Z");
}

// ============================================================ handoff

// Appends an entry stamped with `run_id` straight to the log (as an earlier
// run would have left it).
void append_entry(const InitWorkspace& w, const std::string& task, const std::string& status,
                  const std::string& run_id) {
    Result<WorkspaceLock> lock = WorkspaceLock::acquire(w.ws(), milliseconds(2000));
    ASSERT_TRUE(lock.ok());
    YamlValue e = YamlValue::object();
    e["task_id"] = task;
    e["status"] = status;
    e["evidence"] = "worked on it";
    if (!run_id.empty()) e["replayId"] = run_id;
    ASSERT_TRUE(append_progress_entry(w.ws(), e, std::nullopt).ok());
}

TEST(Handoff, UnsettledTasksAreNamedNotRefused) {
    InitWorkspace w;
    append_entry(w, "task-1", "in_progress", kOtherRun);  // another run touched task-1
    append_entry(w, "task-1", "in_progress", "");          // and an entry without a run id
    Result<HandoffResult> quiet = handoff_command(real_fs, w.ws(), handoff_req());
    ASSERT_TRUE(quiet.ok()) << quiet.error().describe();
    EXPECT_TRUE(quiet->unsettled.empty());  // entries of other runs do not count

    ProgressAddRequest add;
    add.task = "task-1";
    add.status = "in_progress";
    add.evidence = "started";
    add.lock_wait = milliseconds(2000);
    Result<ProgressAddResult> added = progress_add(real_fs, w.ws(), add);
    ASSERT_TRUE(added.ok()) << added.error().describe();
    ASSERT_EQ(added->entry["replayId"], w.run_id());

    // D13: written anyway, naming the task (current task, first next step).
    Result<HandoffResult> r = handoff_command(real_fs, w.ws(), handoff_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(r->unsettled.size(), 1u);
    EXPECT_EQ(r->unsettled[0].id, "task-1");
    EXPECT_EQ(r->unsettled[0].plan_status, "pending");
    EXPECT_EQ(r->unsettled[0].last_status, "in_progress");
    const YamlValue written = load_value(w.file("handoff.small.yml"));
    EXPECT_EQ(written["resume"]["current_task_id"], "task-1");
    EXPECT_EQ(written["resume"]["next_steps"][0],
              "Resume task-1: Initial task (plan: pending, last recorded: in_progress)");

    // --require-settled keeps the reference's refusal, writing nothing.
    const std::string handoff_before = w.read("handoff.small.yml");
    HandoffRequest strict = handoff_req();
    strict.require_settled = true;
    Result<HandoffResult> refused = handoff_command(real_fs, w.ws(), strict);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(refused.error().message, "--require-settled")) << refused.error().message;
    EXPECT_TRUE(contains(refused.error().message, "task-1: Initial task (plan: pending, last recorded: in_progress)"))
        << refused.error().message;
    EXPECT_EQ(w.read("handoff.small.yml"), handoff_before);

    ASSERT_TRUE(checkpoint_command(real_fs, w.ws(), checkpoint_req("task-1", "completed")).ok());
    Result<HandoffResult> settled = handoff_command(real_fs, w.ws(), strict);
    ASSERT_TRUE(settled.ok()) << settled.error().describe();
    EXPECT_TRUE(settled->unsettled.empty());
}

TEST(Handoff, ManualReplayIdIsLowerCasedAndPinned) {
    InitWorkspace w;
    HandoffRequest req = handoff_req();
    req.replay_id = " " + upper(kOtherRun) + " ";
    Result<HandoffResult> r = handoff_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->replay_id, kOtherRun);
    EXPECT_EQ(r->source, "manual");
    EXPECT_TRUE(r->pinned_run);
    EXPECT_EQ(pinned_run(w), kOtherRun);
    const YamlValue written = load_value(w.file("handoff.small.yml"));
    EXPECT_EQ(written["replayId"]["value"], kOtherRun);
    EXPECT_EQ(written["replayId"]["source"], "manual");
    EXPECT_EQ(written, r->handoff);
    EXPECT_EQ(w.read("handoff.small.yml"), r->text);

    // The next automatic handoff keeps the manual id and its source.
    Result<HandoffResult> again = handoff_command(real_fs, w.ws(), handoff_req());
    ASSERT_TRUE(again.ok()) << again.error().describe();
    EXPECT_EQ(again->replay_id, kOtherRun);
    EXPECT_EQ(again->source, "manual");
    EXPECT_FALSE(again->pinned_run);
}

TEST(Handoff, MalformedManualReplayIdIsUsageAndWritesNothing) {
    InitWorkspace w;
    const auto before = snapshot(w);
    for (const std::string& bad : {std::string("abc"), std::string(63, 'a'), std::string(64, 'z'), std::string()}) {
        HandoffRequest req = handoff_req();
        req.replay_id = bad;
        Result<HandoffResult> r = handoff_command(real_fs, w.ws(), req);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().kind, Error::Kind::Usage) << bad;
    }
    EXPECT_EQ(snapshot(w), before);
}

TEST(Handoff, SummaryIsHonouredAndBlankMeansComputed) {
    InitWorkspace w;
    HandoffRequest req = handoff_req();
    req.summary = "Custom summary for the next agent.";
    Result<HandoffResult> r = handoff_command(real_fs, w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(load_value(w.file("handoff.small.yml"))["summary"], "Custom summary for the next agent.");
    EXPECT_EQ(r->replay_id, w.run_id());
    EXPECT_EQ(r->source, "auto");
    EXPECT_FALSE(r->pinned_run);

    req.summary = "   ";
    Result<HandoffResult> computed = handoff_command(real_fs, w.ws(), req);
    ASSERT_TRUE(computed.ok()) << computed.error().describe();
    EXPECT_EQ(computed->handoff["summary"], "Run in progress. Next task: task-1.");
    EXPECT_EQ(computed->handoff["resume"]["current_task_id"], "task-1");
    expect_strict_ok(w);
}

TEST(Handoff, LinksAndRunBlockOfTheOldHandoffAreKept) {
    InitWorkspace w;
    YamlValue old = load_value(w.file("handoff.small.yml"));
    YamlValue link = YamlValue::object();
    link["url"] = "https://example.com/pull/1";
    link["description"] = "the pull request";
    old["links"] = YamlValue::array({link});
    YamlValue run = YamlValue::object();
    run["created_at"] = "2025-01-01T00:00:00.000000000Z";
    run["transition_reason"] = "archive";
    run["previous_run_ref"] = "runs/1";
    old["run"] = run;
    write_text(w.file("handoff.small.yml"), emit_document(old));

    Result<HandoffResult> r = handoff_command(real_fs, w.ws(), handoff_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    const YamlValue written = load_value(w.file("handoff.small.yml"));
    EXPECT_EQ(written["links"], YamlValue::array({link}));
    EXPECT_EQ(written["run"], run);
}

// ============================================================ reset / start

TEST(Reset, StartsANewRunAndSnapshotsTheOldOne) {
    InitWorkspace w;
    PlanRequest add = plan_req();
    add.add = {"Work of the first run"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), add).ok());
    ASSERT_TRUE(checkpoint_command(real_fs, w.ws(), checkpoint_req("task-2", "completed")).ok());
    const std::string old_plan = w.plan_bytes();
    const std::string old_handoff = w.read("handoff.small.yml");
    const std::string old_intent = w.read("intent.small.yml");
    const std::string log_before = w.log_bytes();

    Result<ResetResult> r = reset_command(real_fs, w.ws(), reset_req());
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

    const YamlValue handoff = load_value(w.file("handoff.small.yml"));
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
    InitWorkspace w;
    Result<ResetResult> first = reset_command(real_fs, w.ws(), reset_req());
    ASSERT_TRUE(first.ok()) << first.error().describe();
    Result<ResetResult> second = reset_command(real_fs, w.ws(), reset_req());
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
    InitWorkspace w(std::string("Build a widget factory"));
    const std::string intent = w.read("intent.small.yml");
    ASSERT_TRUE(contains(intent, "Build a widget factory"));
    Result<ResetResult> r = reset_command(real_fs, w.ws(), reset_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(w.read("intent.small.yml"), intent);
    EXPECT_EQ(std::count(r->reset_files.begin(), r->reset_files.end(), "intent.small.yml"), 0);
    EXPECT_NE(r->replay_id, w.run_id());
    // The intent is part of the snapshot of the old run all the same.
    EXPECT_EQ(read_text(w.root_path(".small-runs/" + w.run_id() + "/intent.small.yml")), intent);
}

// workspace.small.yml without its run block (a workspace from before D3).
void unpin_run(const InitWorkspace& w) {
    YamlValue meta = load_value(w.file("workspace.small.yml"));
    meta.erase("run");
    write_text(w.file("workspace.small.yml"), emit_document(meta));
}

StartRequest start_req() {
    StartRequest r;
    r.lock_wait = milliseconds(2000);
    return r;
}

TEST(Handoff, WithoutAPinnedRunPinsTheManifestId) {
    InitWorkspace w;
    unpin_run(w);
    Result<HandoffResult> r = handoff_command(real_fs, w.ws(), handoff_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(r->pinned_run);
    EXPECT_EQ(r->replay_id, w.run_id()) << "the manifest is unchanged since init";
    EXPECT_EQ(r->source, "auto");
    EXPECT_EQ(pinned_run(w), w.run_id());
    EXPECT_EQ(load_value(w.file("workspace.small.yml"))["kind"], "repo-root");
}

TEST(Start, WithoutAPinnedRunTakesTheOldHandoffsId) {
    InitWorkspace w;
    unpin_run(w);
    YamlValue handoff = load_value(w.file("handoff.small.yml"));
    handoff["replayId"]["value"] = upper(kOtherRun);
    handoff["replayId"]["source"] = "manual";
    write_text(w.file("handoff.small.yml"), emit_document(handoff));
    Result<StartResult> r = start_command(real_fs, w.ws(), start_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_FALSE(r->self_heal);
    EXPECT_EQ(r->handoff.replay_id, kOtherRun);
    EXPECT_EQ(r->handoff.source, "manual");
    EXPECT_TRUE(r->handoff.pinned_run);
    EXPECT_EQ(pinned_run(w), kOtherRun);
    EXPECT_EQ(r->handoff.handoff["run"]["transition_reason"], "manual");
}

TEST(Start, WithNoRunIdAnywhereSelfHealsAndRecordsIt) {
    InitWorkspace w;
    unpin_run(w);
    fs::remove(w.file("handoff.small.yml"));
    Result<StartResult> r = start_command(real_fs, w.ws(), start_req());
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
    InitWorkspace w;
    fs::remove(w.file("constraints.small.yml"));
    Result<StartResult> r = start_command(real_fs, w.ws(), start_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->created, std::vector<std::string>{"constraints.small.yml"});
    EXPECT_EQ(w.read("constraints.small.yml"), emit_document(constraints_template()));
    EXPECT_EQ(r->handoff.replay_id, w.run_id());
}

TEST(Start, FreshInitKeepsThePinnedRunWithReasonManual) {
    InitWorkspace w;
    const std::string metadata_before = w.read("workspace.small.yml");
    Result<StartResult> r = start_command(real_fs, w.ws(), start_req());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_FALSE(r->self_heal);
    EXPECT_FALSE(r->entry);
    EXPECT_TRUE(r->created.empty());
    EXPECT_EQ(r->handoff.replay_id, w.run_id());
    EXPECT_FALSE(r->handoff.pinned_run);
    EXPECT_EQ(r->handoff.handoff["run"]["transition_reason"], "manual");
    EXPECT_FALSE(r->handoff.handoff["run"].contains("previous_replay_id"));
    EXPECT_EQ(w.read("workspace.small.yml"), metadata_before);
    EXPECT_EQ(load_value(w.file("handoff.small.yml"))["replayId"]["value"], w.run_id());
    EXPECT_EQ(log_entries(w).size(), 1u);
    expect_strict_ok(w);
}


TEST(Start, CreatingDotSmallAddsTheGitignoreLinesAsInitDoes) {
    std::string pattern = "/tmp/small-start-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    const std::string root = fs::canonical(pattern).string();
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
    fs::remove_all(root);
}

// ============================================================ run store (D15)

TEST(RunStore, SnapshotReusesIdenticalBytesAndNeverOverwritesOthers) {
    InitWorkspace w;
    Result<std::string> first = snapshot_run(real_fs, w.ws(), w.run_id());
    ASSERT_TRUE(first.ok()) << first.error().describe();
    EXPECT_EQ(*first, w.root_path(".small-runs/" + w.run_id()));
    EXPECT_EQ(read_text(*first + "/intent.small.yml"), w.read("intent.small.yml"));
    EXPECT_EQ(read_text(*first + "/handoff.small.yml"), w.read("handoff.small.yml"));
    Result<std::string> again = snapshot_run(real_fs, w.ws(), w.run_id());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *first);  // same bytes: reused

    PlanRequest add = plan_req();
    add.add = {"Changed since"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), add).ok());
    Result<std::string> second = snapshot_run(real_fs, w.ws(), w.run_id());
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(*second, *first + ".2");  // other bytes: a new folder, the old one kept
    EXPECT_TRUE(contains(read_text(*second + "/plan.small.yml"), "Changed since"));
    EXPECT_FALSE(contains(read_text(*first + "/plan.small.yml"), "Changed since"));
    EXPECT_FALSE(fs::exists(w.root_path(".small-runs/." + w.run_id() + ".partial")));
}

TEST(RunStore, SnapshotRefusesAKeyThatIsNotAReplayId) {
    InitWorkspace w;
    for (const std::string& bad : {std::string("../../etc"), std::string("abc"), std::string(64, 'g')}) {
        Result<std::string> r = snapshot_run(real_fs, w.ws(), bad);
        EXPECT_FALSE(r.ok()) << bad;
    }
    EXPECT_FALSE(fs::exists(w.root_path(".small-runs")));
}

TEST(RunStore, InitForceCopiesTheReplacedArtifactsFirst) {
    InitWorkspace w("An intent a human accepted");
    const std::string intent = w.read("intent.small.yml");
    const std::string log = w.read("progress.small.yml");
    InitRequest req;
    req.dir = w.ws().root;
    req.cwd = w.ws().root;
    req.no_agents = true;
    req.force = true;
    Result<InitResult> r = init_workspace(real_fs, req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_FALSE(r->snapshot_dir.empty());
    EXPECT_EQ(r->snapshot_dir, w.root_path(".small-runs/" + w.run_id()));
    EXPECT_EQ(read_text(r->snapshot_dir + "/intent.small.yml"), intent);  // D15: nothing replaced is lost
    EXPECT_FALSE(contains(w.read("intent.small.yml"), "An intent a human accepted"));
    EXPECT_EQ(w.read("progress.small.yml").substr(0, log.size()), log);  // D7: the log is kept
}

TEST(PlanIndex, TaskIdsAndStatusesWithBackslashesNewlinesAndSpacesSurviveTheCache) {
    InitWorkspace w;
    std::string plan = w.plan_bytes();
    const std::string odd = "  - id: \"a\\\\b\\nc d\"\n    title: \"odd\"\n    status: \"in progress\"\n";
    plan += odd;
    std::ofstream(w.file("plan.small.yml"), std::ios::trunc) << plan;
    for (int pass = 0; pass < 2; ++pass) {  // a cold read, then the cache
        Result<PlanIndex> index = load_plan_index(real_fs, w.ws());
        ASSERT_TRUE(index.ok()) << index.error().describe();
        ASSERT_EQ(index->tasks.size(), 2u) << pass;
        const PlanTaskInfo* t = index->find("a\\b\nc d");
        ASSERT_NE(t, nullptr) << pass;
        EXPECT_EQ(t->status, "in progress");  // a status the schema rejects is still kept as it is
        EXPECT_TRUE(read_stamped_cache(real_fs, w.ws(), kPlanTasksName, *file_version(w.file("plan.small.yml"))));
    }
}

TEST(Text, ClosestMatchesKeepsOnlyTheNearest) {
    const std::vector<std::string> ids = {"task-1", "task-2", "task-3", "task-20", "meta/x"};
    EXPECT_EQ(closest_matches("task-22", ids), (std::vector<std::string>{"task-2", "task-20"}));
    EXPECT_EQ(closest_matches("tsak-3", ids), (std::vector<std::string>{"task-3"}));
    EXPECT_EQ(closest_matches("task-1", ids), (std::vector<std::string>{"task-2", "task-3"}));  // never itself
    EXPECT_TRUE(closest_matches("something-else", ids).empty());
    EXPECT_EQ(edit_distance("stauts", "status"), 2u);
    EXPECT_EQ(edit_distance("", "abc"), 3u);
}


// ============================================================ resume facts and local work (D18)

namespace resume_facts {

Result<ProgressAddResult> add_entry(const InitWorkspace& w, const std::string& task, const std::string& status,
                                    const std::string& evidence) {
    ProgressAddRequest add;
    add.task = task;
    add.status = status;
    add.evidence = evidence;
    return progress_add(real_fs, w.ws(), add);
}

// An append advances the cached per-task facts (no full read of the log on
// the next status): the cache is valid for the log as it now is and says
// what a full read says.
// The cached facts equal a full read of the log as it now is.
void expect_facts_match_the_log(const InitWorkspace& w) {
    Result<LogFacts> cached = cached_log_facts(real_fs, w.ws(), w.run_id());
    ASSERT_TRUE(cached.ok());
    Result<Document> doc = load_yaml_file(real_fs, w.file("progress.small.yml"), "progress.small.yml");
    ASSERT_TRUE(doc.ok());
    const LogFacts full = log_facts(doc->root(), w.run_id());
    EXPECT_EQ(cached->entries, full.entries);
    EXPECT_EQ(cached->work_entries, full.work_entries);
    EXPECT_EQ(cached->newest_work, full.newest_work);
    ASSERT_EQ(cached->tasks.size(), full.tasks.size());
    for (const auto& [id, f] : full.tasks) {
        const TaskWork& c = cached->tasks.at(id);
        EXPECT_EQ(c.last_status, f.last_status) << id;
        EXPECT_EQ(c.last_seq, f.last_seq) << id;
        EXPECT_EQ(c.blocked_reason, f.blocked_reason) << id;
    }
}

TEST(ResumeFacts, AnAppendAdvancesTheCachedFactsToWhatAFullReadGives) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    ASSERT_TRUE(cached_log_facts(real_fs, w.ws(), w.run_id()).ok());  // the cache exists from here on
    ASSERT_TRUE(add_entry(w, "task-2", "in_progress", "begun").ok());
    ASSERT_TRUE(add_entry(w, "task-1", "blocked", "need a decision").ok());
    ASSERT_TRUE(add_entry(w, "meta/note", "completed", "bookkeeping").ok());

    const std::optional<std::string> stamp = real_fs.version_stamp(w.file("progress.small.yml"));
    ASSERT_TRUE(stamp);
    EXPECT_TRUE(read_stamped_cache(real_fs, w.ws(), kProgressFactsName, *stamp)) << "advanced, not dropped";
    expect_facts_match_the_log(w);
    Result<LogFacts> cached = cached_log_facts(real_fs, w.ws(), w.run_id());
    ASSERT_TRUE(cached.ok());
    EXPECT_EQ(cached->tasks.at("task-1").blocked_reason, "need a decision");
}

// The facts cache body stored for the log as it now is ("" when none).
std::string facts_cache(const InitWorkspace& w) {
    const std::optional<std::string> stamp = real_fs.version_stamp(w.file("progress.small.yml"));
    if (!stamp) return "";
    return read_stamped_cache(real_fs, w.ws(), kProgressFactsName, *stamp).value_or("");
}

// An append adds only the changed tasks' lines after a "+" line (no
// re-encoding of the rest); the part grows until a full encode compacts it,
// and the cache says what a full read says all along, reasons with spaces,
// backslashes and line breaks included.
TEST(ResumeFacts, AppendsAddTaskLinesAndACompactionKeepsTheCacheSmall) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    ASSERT_TRUE(cached_log_facts(real_fs, w.ws(), w.run_id()).ok());
    const std::string first = facts_cache(w);
    const std::size_t full_lines = std::count(first.begin(), first.end(), '\n');
    ASSERT_TRUE(add_entry(w, "task-1", "blocked", "needs a\\decision\nfrom ops").ok());
    std::string body = facts_cache(w);
    EXPECT_NE(body.find("\n+\n"), std::string::npos) << body;
    EXPECT_EQ(static_cast<std::size_t>(std::count(body.begin(), body.end(), '\n')), full_lines + 2) << body;
    expect_facts_match_the_log(w);
    std::size_t most_lines = 0;
    bool compacted = false;
    for (int i = 0; i < 80; ++i) {
        const std::string task = "task-" + std::to_string(1 + i % 3);
        ASSERT_TRUE(add_entry(w, task, i % 4 == 0 ? "blocked" : "in_progress", "step " + std::to_string(i)).ok());
        body = facts_cache(w);
        ASSERT_FALSE(body.empty()) << "advanced, not dropped, at " << i;
        most_lines = std::max<std::size_t>(most_lines, std::count(body.begin(), body.end(), '\n'));
        compacted |= body.find("\n+\n") == std::string::npos;
        if (i % 20 == 0) expect_facts_match_the_log(w);
    }
    EXPECT_TRUE(compacted);
    EXPECT_LE(most_lines, full_lines + 66) << "the appended part is compacted";
    expect_facts_match_the_log(w);
}

// A corrupt appended part makes the whole cache worthless: it is neither
// read nor advanced, and the next read parses the log (then caches it).
TEST(ResumeFacts, ACorruptOrStaleCacheIsIgnored) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    ASSERT_TRUE(add_entry(w, "task-1", "in_progress", "begun").ok());
    ASSERT_TRUE(cached_log_facts(real_fs, w.ws(), w.run_id()).ok());
    ASSERT_TRUE(add_entry(w, "task-2", "in_progress", "begun").ok());
    const std::string good = facts_cache(w);
    ASSERT_NE(good.find("\n+\n"), std::string::npos);
    const std::string stamp = *real_fs.version_stamp(w.file("progress.small.yml"));
    for (const std::string& bad : {good + "task-2 completed\n", good + "task-2 completed x y\n", good + "+\n",
                                  good + "task-2 completed 9 unterminated", good + "task-2 done 9 bad\\escape\n"}) {
        SCOPED_TRACE(bad);
        write_stamped_cache(w.ws(), kProgressFactsName, stamp, bad);
        expect_facts_match_the_log(w);
        const std::string again = facts_cache(w);
        EXPECT_FALSE(again.empty()) << "read again and cached";
        EXPECT_EQ(again.find("\n+\n"), std::string::npos) << "cached whole";
    }
    write_stamped_cache(w.ws(), kProgressFactsName, stamp, good + "task-2 blocked nine x\n");
    ASSERT_TRUE(add_entry(w, "task-1", "completed", "done").ok());
    EXPECT_EQ(facts_cache(w), "") << "a corrupt cache is not advanced";  // readers then parse the log
    expect_facts_match_the_log(w);
    // Stale: the log changed by hand (no append went through the tool).
    std::ofstream(w.file("progress.small.yml"), std::ios::app)
        << "  - timestamp: \"2099-01-01T00:00:00.000000001Z\"\n    task_id: \"task-2\"\n    status: \"blocked\"\n"
        << "    evidence: \"by hand\"\n    replayId: \"" << w.run_id() << "\"\n";
    expect_facts_match_the_log(w);
    EXPECT_EQ(cached_log_facts(real_fs, w.ws(), w.run_id())->tasks.at("task-2").blocked_reason, "by hand");
}

// local.work is rewritten only when a task's first work entry adds its pair;
// a torn file reads as nothing recorded and is written whole again.
TEST(LocalWork, OnlyANewPairRewritesTheRecordAndATornOneIsReplaced) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    ASSERT_TRUE(add_entry(w, "task-1", "in_progress", "begun").ok());
    const std::string path = w.root_path(".small-cache/local.work");
    struct stat before {};
    ASSERT_EQ(::stat(path.c_str(), &before), 0);
    ASSERT_TRUE(add_entry(w, "task-1", "completed", "done").ok());
    struct stat after {};
    ASSERT_EQ(::stat(path.c_str(), &after), 0);
    EXPECT_EQ(before.st_ino, after.st_ino) << "nothing new: not rewritten";
    ASSERT_TRUE(add_entry(w, "task-2", "in_progress", "begun").ok());
    EXPECT_EQ(local_work(real_fs, w.ws(), w.run_id()), (std::set<std::string, std::less<>>{"task-1", "task-2"}));
    std::ofstream(path, std::ios::trunc) << w.run_id() << " task-1\n" << w.run_id() << " torn";
    EXPECT_TRUE(local_work(real_fs, w.ws(), w.run_id()).empty()) << "torn: nothing recorded";
    ASSERT_TRUE(add_entry(w, "task-1", "completed", "again").ok());
    EXPECT_EQ(local_work(real_fs, w.ws(), w.run_id()), (std::set<std::string, std::less<>>{"task-1", "task-2"}))
        << "rebuilt from the run's log";
}

// A checkout's first record of a run counts the run's earlier work as its
// own (an upgrade mid-run, a cleared cache), so nothing it started before is
// taken for another branch's; plan edits and meta/ entries are not work.
TEST(LocalWork, TheFirstRecordOfARunCountsTheRunsEarlierWork) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    ASSERT_TRUE(add_entry(w, "task-1", "in_progress", "begun").ok());
    EXPECT_EQ(local_work(real_fs, w.ws(), w.run_id()), (std::set<std::string, std::less<>>{"task-1"}));
    fs::remove(w.root_path(".small-cache/local.work"));
    ASSERT_TRUE(add_entry(w, "task-2", "in_progress", "begun").ok());
    ASSERT_TRUE(add_entry(w, "meta/note", "completed", "not work").ok());
    EXPECT_EQ(local_work(real_fs, w.ws(), w.run_id()), (std::set<std::string, std::less<>>{"task-1", "task-2"}));
    EXPECT_TRUE(local_work(real_fs, w.ws(), std::string(64, 'a')).empty()) << "another run";
}

}  // namespace resume_facts

// ============================================================ checkpoint's in-place status edit

namespace status_edit {

Document parsed_plan(const InitWorkspace& w) {
    Result<Document> doc = load_yaml_file(real_fs, w.file("plan.small.yml"), "plan.small.yml");
    EXPECT_TRUE(doc.ok());
    return std::move(doc).value();
}

// What the parse-based edit writes for the plan as it now is.
std::string parsed_edit(const InitWorkspace& w, const std::string& id, const std::string& status) {
    const Document doc = parsed_plan(w);
    return plan_text_with_status(doc, find_task_node(doc, id), status);
}

std::optional<std::string> plan_cache_body(const InitWorkspace& w, const char* name) {
    const std::optional<std::string> stamp = real_fs.version_stamp(w.file("plan.small.yml"));
    return stamp ? read_stamped_cache(real_fs, w.ws(), name, *stamp) : std::nullopt;
}

// The outline the cache gives is the one a parse gives.
void expect_outline_follows(const InitWorkspace& w) {
    ASSERT_TRUE(plan_cache_body(w, kPlanOutlineName)) << "moved on with the edit";
    Result<std::optional<std::vector<PlanTaskOutline>>> cached = load_plan_outline(real_fs, w.ws());
    ASSERT_TRUE(cached.ok() && *cached);
    const std::vector<PlanTaskOutline> parsed = outline_plan(parsed_plan(w).root());
    ASSERT_EQ((*cached)->size(), parsed.size());
    for (std::size_t i = 0; i < parsed.size(); ++i) {
        EXPECT_EQ((**cached)[i].id, parsed[i].id);
        EXPECT_EQ((**cached)[i].status, parsed[i].status) << parsed[i].id;
        EXPECT_EQ((**cached)[i].depends_on, parsed[i].depends_on);
        EXPECT_EQ((**cached)[i].title, parsed[i].title);
    }
}

// After one checkpoint has parsed the plan, the next ones edit it from the
// caches; every edit writes the bytes the parse-based edit writes (plain,
// single-quoted and commented statuses kept in their place), and the
// outline and spans caches follow each one.
TEST(CheckpointEdit, EditsFromTheCachesWriteWhatAParseWrites) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    std::string plan = w.plan_bytes();
    const std::string title = "title: \"Initial task\"\n";
    ASSERT_NE(plan.find(title), std::string::npos) << plan;
    plan.replace(plan.find(title), title.size(), title + "    status: \"in_progress\"\n");
    for (std::string_view form : {"status: pending", "status: 'pending'  # not yet"}) {
        const std::size_t at = plan.rfind("status: \"pending\"");
        ASSERT_NE(at, std::string::npos) << plan;
        plan.replace(at, std::string("status: \"pending\"").size(), form);
    }
    write_text(w.file("plan.small.yml"), plan);
    ASSERT_TRUE(load_plan_outline(real_fs, w.ws()).ok());
    const std::vector<std::pair<std::string, std::string>> steps = {
        {"task-3", "blocked"}, {"task-2", "in_progress"}, {"task-3", "cancelled"},
        {"task-1", "completed"}, {"task-2", "blocked"}, {"task-3", "in_progress"}};
    for (const auto& [id, status] : steps) {
        SCOPED_TRACE(id + " " + status);
        const std::string expected = parsed_edit(w, id, status);
        Result<PlanStatusEdit> edit = plan_status_edit(real_fs, w.ws(), id, status);
        ASSERT_TRUE(edit.ok()) << edit.error().describe();
        EXPECT_EQ(edit->text, expected);
        Result<CheckpointResult> r = checkpoint_command(real_fs, w.ws(), checkpoint_req(id, status));
        ASSERT_TRUE(r.ok()) << r.error().describe();
        EXPECT_EQ(w.plan_bytes(), expected);
        EXPECT_TRUE(plan_cache_body(w, kPlanSpansName)) << "the spans follow the edit";
        expect_outline_follows(w);
    }
    EXPECT_NE(w.plan_bytes().find("# not yet"), std::string::npos);
}

// A spans cache that does not fit the plan (malformed, out of range, or
// pointing at bytes that are not the task's status) is ignored: the edit
// is the parse-based one.
TEST(CheckpointEdit, ASpansCacheThatDoesNotFitIsIgnored) {
    InitWorkspace w;
    PlanRequest setup = plan_req();
    setup.add = {"Second"};
    ASSERT_TRUE(plan_command(real_fs, w.ws(), setup).ok());
    ASSERT_TRUE(checkpoint_command(real_fs, w.ws(), checkpoint_req("task-2", "blocked")).ok());
    const std::string stamp = *real_fs.version_stamp(w.file("plan.small.yml"));
    const std::string good = *plan_cache_body(w, kPlanSpansName);
    const std::string expected = parsed_edit(w, "task-2", "in_progress");
    const std::size_t size = w.plan_bytes().size();
    for (const std::string& bad : {std::string("task-2 12\n"), std::string("task-2 x 9\n"),
                                   "task-2 " + std::to_string(size) + " 9\n", std::string("task-2 0 5\n"),
                                   good + "unterminated"}) {
        SCOPED_TRACE(bad);
        write_stamped_cache(w.ws(), kPlanSpansName, stamp, bad);
        Result<PlanStatusEdit> edit = plan_status_edit(real_fs, w.ws(), "task-2", "in_progress");
        ASSERT_TRUE(edit.ok()) << edit.error().describe();
        EXPECT_EQ(edit->text, expected);
        EXPECT_EQ(edit->previous_status, "blocked");
    }
    Result<PlanStatusEdit> unknown = plan_status_edit(real_fs, w.ws(), "task-9", "blocked");
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("task task-9 is not in"), std::string::npos) << unknown.error().message;
}

// The dependency gate's cut of the outline: the task's line and its
// dependencies' lines, in plan order, as the whole outline has them; a
// malformed cache is ignored.
TEST(PlanOutline, TheOutlineNearATaskIsItsLineAndItsDependencies) {
    InitWorkspace w;
    write_text(w.file("plan.small.yml"),
               "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n"
               "  - id: \"task-1\"\n    title: \"One\"\n    status: \"completed\"\n"
               "  - id: \"task 2\"\n    title: \"Two words\"\n    status: \"blocked\"\n"
               "  - id: \"task-3\"\n    title: \"Three\"\n"
               "  - id: \"task-4\"\n    title: \"Four\"\n    depends_on: [\"task-1\", \"task 2\", \"task-9\"]\n");
    Result<std::optional<std::vector<PlanTaskOutline>>> all = load_plan_outline(real_fs, w.ws());
    ASSERT_TRUE(all.ok() && *all);
    ASSERT_TRUE(plan_cache_body(w, kPlanOutlineName));
    const auto ids = [](const std::vector<PlanTaskOutline>& tasks) {
        std::vector<std::string> out;
        for (const PlanTaskOutline& t : tasks) out.push_back(t.id + "=" + t.status);
        return out;
    };
    for (int pass = 0; pass < 2; ++pass) {
        SCOPED_TRACE(pass);
        Result<std::optional<std::vector<PlanTaskOutline>>> near = load_plan_outline_near(real_fs, w.ws(), "task-4");
        ASSERT_TRUE(near.ok() && *near);
        if (pass == 0) {
            EXPECT_EQ(ids(**near), (std::vector<std::string>{"task-1=completed", "task 2=blocked", "task-4=pending"}));
            EXPECT_EQ((**near)[2].depends_on, (std::vector<std::string>{"task-1", "task 2", "task-9"}));
            Result<std::optional<std::vector<PlanTaskOutline>>> alone = load_plan_outline_near(real_fs, w.ws(), "task-3");
            ASSERT_TRUE(alone.ok() && *alone);
            EXPECT_EQ(ids(**alone), (std::vector<std::string>{"task-3=pending"}));
            const std::string stamp = *real_fs.version_stamp(w.file("plan.small.yml"));
            write_stamped_cache(w.ws(), kPlanOutlineName, stamp, *plan_cache_body(w, kPlanOutlineName) + "torn");
        } else {
            EXPECT_EQ(ids(**near), ids(**all)) << "a torn cache: the plan is parsed, the whole outline returned";
        }
    }
}

}  // namespace status_edit

}  // namespace
}  // namespace small
