// `small checkpoint` (ops/checkpoint) and its in-place status edit from the plan caches
// (domain/plan_status_edit).
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

TEST(Checkpoint, SetsTheStatusAndAppendsOneEntryInOneChange) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const Result<TaskStatus> status = parse_checkpoint_status("task-1", " Completed ");  // trimmed, case-insensitive
    ASSERT_TRUE(status.ok());
    Result<CheckpointResult> r = checkpoint_command(w.fs(), w.ws(), checkpoint_req("task-1", *status));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->previous_status.word(), "pending");
    EXPECT_EQ(r->replay_id, w.run_id());
    EXPECT_FALSE(r->pinned_run);
    EXPECT_EQ(r->entry.begin().key(), "timestamp");
    EXPECT_EQ(r->entry["timestamp"], r->timestamp);
    EXPECT_EQ(r->entry["task_id"], "task-1");
    EXPECT_EQ(r->entry["status"], "completed");
    EXPECT_EQ(r->entry["evidence"], "unit tests pass");
    EXPECT_EQ(r->entry["replayId"], w.run_id());

    EXPECT_EQ(task_status(plan_of(w)["tasks"][0]).word(), "completed");
    const YamlValue entries = log_entries(w);
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[1], r->entry);
    EXPECT_FALSE(fs::exists(w.root_path(kChangeJournalName)));
    expect_strict_ok(w);
}

// An existing status scalar is replaced in place: the rest of the plan,
// comments included, keeps its bytes.
TEST(Checkpoint, ReplacesAnExistingStatusInPlaceKeepingComments) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const std::string plan = "small_version: \"1.0.0\"\nowner: \"agent\"\n# why this plan\ntasks:\n"
                             "  - id: \"task-1\"\n    title: \"Initial task\"  # keep me\n    status: pending\n"
                             "  - id: task-2\n    title: Second\n    status: 'pending'   # and me\n";
    w.write("plan.small.yml", plan);
    Result<CheckpointResult> r = checkpoint_command(w.fs(), w.ws(), checkpoint_req("task-2", TaskStatus::Completed));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->previous_status.word(), "pending");
    std::string expected = plan;
    expected.replace(expected.find("'pending'"), 9, "'completed'");  // quoted as it was (D20)
    EXPECT_EQ(w.plan_bytes(), expected);
    expect_strict_ok(w);
}

TEST(Checkpoint, BlockedWithoutEvidenceGetsTheDefaultEvidence) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    CheckpointRequest req = checkpoint_req("task-1", TaskStatus::Blocked);
    req.evidence.reset();
    Result<CheckpointResult> r = checkpoint_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->entry["evidence"], std::string(kDefaultCheckpointEvidence));
    EXPECT_EQ(task_status(plan_of(w)["tasks"][0]).word(), "blocked");
}

TEST(Checkpoint, CancelledAndInProgressSetThePlanToo) {
    for (const char* status : {"cancelled", "in_progress", " Cancelled "}) {
        InitWorkspace w(std::nullopt, Disk::Memory);
        const Result<TaskStatus> parsed = parse_checkpoint_status("task-1", status);
        ASSERT_TRUE(parsed.ok()) << status;
        Result<CheckpointResult> r = checkpoint_command(w.fs(), w.ws(), checkpoint_req("task-1", *parsed));
        ASSERT_TRUE(r.ok()) << status << ": " << r.error().describe();
        const std::string want = lower_ascii(trim(status));
        EXPECT_EQ(r->entry["status"], want);
        EXPECT_EQ(task_status(plan_of(w)["tasks"][0]).word(), want);
    }
}

TEST(Checkpoint, StatusOutsideTheCheckpointStatusesIsUsage) {
    for (const char* status : {"pending", "done", "canceled", ""}) {
        const Result<TaskStatus> r = parse_checkpoint_status("task-1", status);
        ASSERT_FALSE(r.ok()) << status;
        EXPECT_EQ(r.error().kind, Error::Kind::Usage) << status;
        EXPECT_EQ(r.error().message, "invalid status \"" + std::string(status) +
                                         "\" (must be completed, blocked, cancelled or in_progress)");
    }
    const Result<TaskStatus> blank_task = parse_checkpoint_status(" ", "done");  // the task is checked first
    ASSERT_FALSE(blank_task.ok());
    EXPECT_EQ(blank_task.error().message, "--task must not be blank");
    InitWorkspace w(std::nullopt, Disk::Memory);
    const auto before = snapshot(w);
    Result<CheckpointResult> r = checkpoint_command(w.fs(), w.ws(), checkpoint_req("task-1", TaskStatus::Pending));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Usage);
    EXPECT_EQ(snapshot(w), before);
}

TEST(Checkpoint, UnknownTaskIsInvalidAndChangesNothing) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const auto before = snapshot(w);
    Result<CheckpointResult> r = checkpoint_command(w.fs(), w.ws(), checkpoint_req("task-7", TaskStatus::Completed));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_EQ(snapshot(w), before);
}

TEST(Checkpoint, AtBeforeTheLastEntryIsInvalidAndFilesAreUnchanged) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    const std::string plan_before = w.plan_bytes();
    const std::string log_before = w.log_bytes();
    CheckpointRequest req = checkpoint_req("task-1", TaskStatus::Completed);
    req.at = "2001-01-01T00:00:00.000000001Z";
    Result<CheckpointResult> r = checkpoint_command(w.fs(), w.ws(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid) << r.error().message;
    EXPECT_TRUE(contains(r.error().message, "after")) << r.error().message;
    EXPECT_EQ(w.plan_bytes(), plan_before);
    EXPECT_EQ(w.log_bytes(), log_before);
    EXPECT_FALSE(fs::exists(w.root_path(kChangeJournalName)));
}

TEST(Checkpoint, AtAfterTheLastEntryIsUsedExactly) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    CheckpointRequest req = checkpoint_req("task-1", TaskStatus::Completed);
    req.at = "2099-01-01T00:00:00.5Z";
    Result<CheckpointResult> r = checkpoint_command(w.fs(), w.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->timestamp, "2099-01-01T00:00:00.500000000Z");
}

// ============================================================ handoff

// Appends an entry stamped with `run_id` straight to the log (as an earlier
// run would have left it).

// ============================================================ checkpoint's in-place status edit

namespace status_edit {

Document parsed_plan(const InitWorkspace& w) {
    Result<Document> doc = load_yaml_file(w.fs(), w.file("plan.small.yml"), "plan.small.yml");
    EXPECT_TRUE(doc.ok());
    return std::move(doc).value();
}

// What the parse-based edit writes for the plan as it now is.
std::string parsed_edit(const InitWorkspace& w, const std::string& id, TaskStatus status) {
    const Document doc = parsed_plan(w);
    return plan_text_with_status(doc, find_task_node(doc, id), status);
}

std::optional<std::string> plan_cache_body(const InitWorkspace& w, const char* name) {
    const std::optional<std::string> stamp = w.fs().version_stamp(w.file("plan.small.yml"));
    return stamp ? read_stamped_cache(w.fs(), w.ws(), name, *stamp) : std::nullopt;
}

// The outline the cache gives is the one a parse gives.
void expect_outline_follows(const InitWorkspace& w) {
    ASSERT_TRUE(plan_cache_body(w, kPlanOutlineName)) << "moved on with the edit";
    Result<std::optional<std::vector<PlanTaskOutline>>> cached = load_plan_outline(w.fs(), w.ws());
    ASSERT_TRUE(cached.ok() && *cached);
    const std::vector<PlanTaskOutline> parsed = outline_plan(parsed_plan(w).root());
    ASSERT_EQ((*cached)->size(), parsed.size());
    for (std::size_t i = 0; i < parsed.size(); ++i) {
        EXPECT_EQ((**cached)[i].id, parsed[i].id);
        EXPECT_EQ((**cached)[i].status.word(), parsed[i].status.word()) << parsed[i].id;
        EXPECT_EQ((**cached)[i].depends_on, parsed[i].depends_on);
        EXPECT_EQ((**cached)[i].title, parsed[i].title);
    }
}

// After one checkpoint has parsed the plan, the next ones edit it from the
// caches; every edit writes the bytes the parse-based edit writes (plain,
// single-quoted and commented statuses kept in their place), and the
// outline and spans caches follow each one.
TEST(CheckpointEdit, EditsFromTheCachesWriteWhatAParseWrites) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest setup = plan_req();
    setup.add = {"Second", "Third"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), setup).ok());
    std::string plan = w.plan_bytes();
    const std::string title = "title: \"Initial task\"\n";
    ASSERT_NE(plan.find(title), std::string::npos) << plan;
    plan.replace(plan.find(title), title.size(), title + "    status: \"in_progress\"\n");
    for (std::string_view form : {"status: pending", "status: 'pending'  # not yet"}) {
        const std::size_t at = plan.rfind("status: \"pending\"");
        ASSERT_NE(at, std::string::npos) << plan;
        plan.replace(at, std::string("status: \"pending\"").size(), form);
    }
    w.write("plan.small.yml", plan);
    ASSERT_TRUE(load_plan_outline(w.fs(), w.ws()).ok());
    const std::vector<std::pair<std::string, TaskStatus>> steps = {
        {"task-3", TaskStatus::Blocked},   {"task-2", TaskStatus::InProgress}, {"task-3", TaskStatus::Cancelled},
        {"task-1", TaskStatus::Completed}, {"task-2", TaskStatus::Blocked},    {"task-3", TaskStatus::InProgress}};
    for (const auto& [id, status] : steps) {
        SCOPED_TRACE(id + " " + std::string(status_name(status)));
        const std::string expected = parsed_edit(w, id, status);
        Result<PlanStatusEdit> edit = plan_status_edit(w.fs(), w.ws(), id, status);
        ASSERT_TRUE(edit.ok()) << edit.error().describe();
        EXPECT_EQ(edit->text, expected);
        Result<CheckpointResult> r = checkpoint_command(w.fs(), w.ws(), checkpoint_req(id, status));
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
    InitWorkspace w(std::nullopt, Disk::Memory);
    PlanRequest setup = plan_req();
    setup.add = {"Second"};
    ASSERT_TRUE(plan_command(w.fs(), w.ws(), setup).ok());
    ASSERT_TRUE(checkpoint_command(w.fs(), w.ws(), checkpoint_req("task-2", TaskStatus::Blocked)).ok());
    const std::string stamp = *w.fs().version_stamp(w.file("plan.small.yml"));
    const std::string good = *plan_cache_body(w, kPlanSpansName);
    const std::string expected = parsed_edit(w, "task-2", TaskStatus::InProgress);
    const std::size_t size = w.plan_bytes().size();
    for (const std::string& bad : {std::string("task-2 12\n"), std::string("task-2 x 9\n"),
                                   "task-2 " + std::to_string(size) + " 9\n", std::string("task-2 0 5\n"),
                                   good + "unterminated"}) {
        SCOPED_TRACE(bad);
        write_stamped_cache(w.fs(), w.ws(), kPlanSpansName, stamp, bad);
        Result<PlanStatusEdit> edit = plan_status_edit(w.fs(), w.ws(), "task-2", TaskStatus::InProgress);
        ASSERT_TRUE(edit.ok()) << edit.error().describe();
        EXPECT_EQ(edit->text, expected);
        EXPECT_EQ(edit->previous_status.word(), "blocked");
    }
    Result<PlanStatusEdit> unknown = plan_status_edit(w.fs(), w.ws(), "task-9", TaskStatus::Blocked);
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("task task-9 is not in"), std::string::npos) << unknown.error().message;
}

// The dependency gate's cut of the outline: the task's line and its
// dependencies' lines, in plan order, as the whole outline has them; a
// malformed cache is ignored.
TEST(PlanOutline, TheOutlineNearATaskIsItsLineAndItsDependencies) {
    InitWorkspace w(std::nullopt, Disk::Memory);
    w.write("plan.small.yml",
               "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n"
               "  - id: \"task-1\"\n    title: \"One\"\n    status: \"completed\"\n"
               "  - id: \"task 2\"\n    title: \"Two words\"\n    status: \"blocked\"\n"
               "  - id: \"task-3\"\n    title: \"Three\"\n"
               "  - id: \"task-4\"\n    title: \"Four\"\n    depends_on: [\"task-1\", \"task 2\", \"task-9\"]\n");
    Result<std::optional<std::vector<PlanTaskOutline>>> all = load_plan_outline(w.fs(), w.ws());
    ASSERT_TRUE(all.ok() && *all);
    ASSERT_TRUE(plan_cache_body(w, kPlanOutlineName));
    const auto ids = [](const std::vector<PlanTaskOutline>& tasks) {
        std::vector<std::string> out;
        for (const PlanTaskOutline& t : tasks) out.push_back(t.id + "=" + t.status.word());
        return out;
    };
    for (int pass = 0; pass < 2; ++pass) {
        SCOPED_TRACE(pass);
        Result<std::optional<std::vector<PlanTaskOutline>>> near = load_plan_outline_near(w.fs(), w.ws(), "task-4");
        ASSERT_TRUE(near.ok() && *near);
        if (pass == 0) {
            EXPECT_EQ(ids(**near), (std::vector<std::string>{"task-1=completed", "task 2=blocked", "task-4=pending"}));
            EXPECT_EQ((**near)[2].depends_on, (std::vector<std::string>{"task-1", "task 2", "task-9"}));
            Result<std::optional<std::vector<PlanTaskOutline>>> alone = load_plan_outline_near(w.fs(), w.ws(), "task-3");
            ASSERT_TRUE(alone.ok() && *alone);
            EXPECT_EQ(ids(**alone), (std::vector<std::string>{"task-3=pending"}));
            const std::string stamp = *w.fs().version_stamp(w.file("plan.small.yml"));
            write_stamped_cache(w.fs(), w.ws(), kPlanOutlineName, stamp, *plan_cache_body(w, kPlanOutlineName) + "torn");
        } else {
            EXPECT_EQ(ids(**near), ids(**all)) << "a torn cache: the plan is parsed, the whole outline returned";
        }
    }
}

}  // namespace status_edit

}  // namespace
}  // namespace small
