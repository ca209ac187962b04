// The plan outline status and emit read (store/plan_cache load_plan_outline):
// cached under .small-cache/ by the plan file's version stamp, parsed again
// when the plan changes or the cache is unreadable. Real disk (the stamp is
// the file's inode, size and times).
#include <gtest/gtest.h>

#include <filesystem>

#include "small/base/filesystem.hpp"
#include "small/model/layout.hpp"
#include "small/store/plan_cache.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using namespace small::testing;

// Ids and dependencies with the characters the cache escapes, a task with no
// id and one whose id is not a string.
const char* kAwkwardPlan = R"(tasks:
  - {id: "a b", title: A, status: " Completed ", priority: "P 2"}
  - {id: "back\\slash", title: B, depends_on: ["a b"], dependencies: ["a b", "new\nline"]}
  - {title: no id}
  - {id: 7, title: number, status: blocked}
  - {id: "", title: empty, depends_on: [""]}
)";

std::vector<PlanTaskOutline> outline_of(const TempWorkspace& t) {
    const RealFileSystem fs;
    auto r = load_plan_outline(fs, t.ws());
    EXPECT_TRUE(r) << (r ? "" : r.error().describe());
    EXPECT_TRUE(r && *r);
    return r && *r ? **r : std::vector<PlanTaskOutline>{};
}

std::string cache_file(const TempWorkspace& t) { return t.path(std::string(".small-cache/") + kPlanCacheName); }

std::string cache_stamp(const TempWorkspace& t) {
    const std::string cache = read_text(cache_file(t));
    return cache.substr(0, cache.find('\n'));
}

// Replaces the outline section's body, keeping the stamp of the plan it was read from.
void plant_outline(const TempWorkspace& t, const std::string& body) {
    write_stamped_cache(real_fs, t.ws(), kPlanOutlineName, cache_stamp(t), body);
}

TEST(PlanOutline, ReadsEveryTaskInPlanOrder) {
    TempWorkspace t;
    write_text(t.path(".small/plan.small.yml"), kAwkwardPlan);
    const std::vector<PlanTaskOutline> want = {
        {"a b", TaskStatus::Completed, {}, "A", "P 2"},
        {"back\\slash", TaskStatus::Pending, {"a b", "new\nline"}, "B", ""},
        {"", TaskStatus::Pending, {}, "no id", ""},
        {"", TaskStatus::Blocked, {}, "number", ""},
        {"", TaskStatus::Pending, {""}, "empty", ""},
    };
    EXPECT_EQ(outline_of(t), want);
}

TEST(PlanOutline, SecondReadComesFromTheCacheAndEqualsTheParse) {
    TempWorkspace t;
    write_text(t.path(".small/plan.small.yml"), kAwkwardPlan);
    const std::vector<PlanTaskOutline> parsed = outline_of(t);
    ASSERT_TRUE(std::filesystem::exists(cache_file(t)));
    EXPECT_EQ(outline_of(t), parsed);  // decoded from the cache: the escapes round-trip

    // Proof that the cache is what is read: a planted body with the same stamp wins.
    // Its fields: status, id, title, priority (as written), dependencies.
    plant_outline(t, "in_progress planted Planted\\stitle P1 dep\n");
    EXPECT_EQ(outline_of(t),
              (std::vector<PlanTaskOutline>{{"planted", TaskStatus::InProgress, {"dep"}, "Planted title", "P1"}}));
}

TEST(PlanOutline, AnEditedPlanIsParsedAgain) {
    TempWorkspace t;
    write_text(t.path(".small/plan.small.yml"), "tasks:\n  - {id: one, title: One}\n");
    EXPECT_EQ(outline_of(t).front().id, "one");
    // Same size, so only the stamp's inode or times can tell the versions apart.
    std::filesystem::remove(t.path(".small/plan.small.yml"));
    write_text(t.path(".small/plan.small.yml"), "tasks:\n  - {id: two, title: One}\n");
    EXPECT_EQ(outline_of(t).front().id, "two");
}

TEST(PlanOutline, AnUnreadableCacheIsIgnored) {
    TempWorkspace t;
    write_text(t.path(".small/plan.small.yml"), kAwkwardPlan);
    const std::vector<PlanTaskOutline> parsed = outline_of(t);
    for (const std::string& body : {std::string("pending bad\\escape\n"), std::string("no-newline"),
                                    std::string("onlystatus\n"), std::string("status id-without-title\n"),
                                    std::string(" id title-without-status\n")}) {
        plant_outline(t, body);
        EXPECT_EQ(outline_of(t), parsed) << body;
    }
    // Sections whose lengths do not fit the file (a torn cache) are ignored whole.
    const std::string stamp = cache_stamp(t);
    for (const std::string& sections : {std::string("plan.outline 999\npending a A\n"),
                                        std::string("plan.outline x\n"), std::string("plan.outline\n"),
                                        std::string("plan.outline 3")}) {
        write_text(cache_file(t), stamp + "\n" + sections);
        EXPECT_EQ(outline_of(t), parsed) << sections;
    }
}

TEST(PlanOutline, AbsentPlanIsNulloptAndBrokenPlanIsItsPositionedError) {
    TempWorkspace t;
    const RealFileSystem fs;
    auto absent = load_plan_outline(fs, t.ws());
    ASSERT_TRUE(absent);
    EXPECT_FALSE(*absent);

    write_text(t.path(".small/plan.small.yml"), "tasks: [\n");
    auto broken = load_plan_outline(fs, t.ws());
    ASSERT_FALSE(broken);
    EXPECT_GT(broken.error().line, 0);
    EXPECT_FALSE(std::filesystem::exists(cache_file(t)));
}

TEST(PlanOutline, AFilesystemWithoutStampsWritesNoCache) {
    MemoryFileSystem mem;
    WorkspacePaths ws;
    ws.root = "/nowhere-on-disk";
    ws.small_dir = "/nowhere-on-disk/.small";
    mem.add_file("/nowhere-on-disk/.small/plan.small.yml", "tasks:\n  - {id: x, title: X, status: blocked}\n");
    auto r = load_plan_outline(mem, ws);
    ASSERT_TRUE(r && *r);
    EXPECT_EQ(**r, (std::vector<PlanTaskOutline>{{"x", TaskStatus::Blocked, {}, "X", ""}}));
    EXPECT_FALSE(std::filesystem::exists("/nowhere-on-disk"));
}


// The plan's caches share kPlanCacheName: a write of one section keeps the
// others of the same plan bytes and drops those of other bytes.
TEST(PlanCacheFile, ASectionWriteKeepsSectionsOfTheSameStampOnly) {
    TempWorkspace t;
    const RealFileSystem fs;
    write_stamped_caches(real_fs, t.ws(), "stamp-1", {{kPlanValidName, ""}, {kPlanTasksName, "pending a\n"}});
    write_stamped_cache(real_fs, t.ws(), kPlanSpansName, "stamp-1", "a 10 9\n");
    EXPECT_EQ(read_stamped_cache(fs, t.ws(), kPlanValidName, "stamp-1"), "");
    EXPECT_EQ(read_stamped_cache(fs, t.ws(), kPlanTasksName, "stamp-1"), "pending a\n");
    EXPECT_EQ(read_stamped_cache(fs, t.ws(), kPlanSpansName, "stamp-1"), "a 10 9\n");
    EXPECT_FALSE(read_stamped_cache(fs, t.ws(), kPlanOutlineName, "stamp-1"));

    write_stamped_cache(real_fs, t.ws(), kPlanTasksName, "stamp-1", "completed a\n");  // replaced in place
    EXPECT_EQ(read_stamped_cache(fs, t.ws(), kPlanTasksName, "stamp-1"), "completed a\n");
    EXPECT_EQ(read_stamped_cache(fs, t.ws(), kPlanSpansName, "stamp-1"), "a 10 9\n");

    write_stamped_cache(real_fs, t.ws(), kPlanValidName, "stamp-2", "");  // other plan bytes
    EXPECT_EQ(read_stamped_cache(fs, t.ws(), kPlanValidName, "stamp-2"), "");
    EXPECT_FALSE(read_stamped_cache(fs, t.ws(), kPlanTasksName, "stamp-2"));
    EXPECT_FALSE(read_stamped_cache(fs, t.ws(), kPlanTasksName, "stamp-1"));
    EXPECT_FALSE(std::filesystem::exists(t.path(std::string(".small-cache/") + kPlanTasksName)))
        << "sections live in one file";
}

}  // namespace
}  // namespace small

namespace small {
namespace {

using namespace small::testing;

TaskChecklist checklist_of(const TempWorkspace& t, std::string_view id) {
    Result<TaskChecklist> r = load_task_checklist(real_fs, t.ws(), id);
    EXPECT_TRUE(r) << (r ? "" : r.error().describe());
    return r ? *r : TaskChecklist{};
}

// The primer's current task shows its steps and acceptance (issue 37) without
// parsing a large plan on every call: a cached section, stamped like the outline.
TEST(PlanChecklists, ATasksStepsAndAcceptanceRoundTripThroughTheCache) {
    TempWorkspace t;
    write_text(t.path(".small/plan.small.yml"),
               "tasks:\n"
               "  - {id: \"a b\", title: A, steps: [\"one two\", \"back\\\\slash\", \"new\\nline\", 7], acceptance: [\"\"]}\n"
               "  - {id: c, title: C, acceptance: [done, \"really done\"]}\n"
               "  - {id: c, title: second c, steps: [ignored]}\n"
               "  - {title: no id, steps: [x]}\n");
    const TaskChecklist parsed = checklist_of(t, "a b");
    EXPECT_EQ(parsed.steps, (std::vector<std::string>{"one two", "back\\slash", "new\nline"}));
    EXPECT_EQ(parsed.acceptance, std::vector<std::string>{""});
    ASSERT_TRUE(std::filesystem::exists(cache_file(t)));
    EXPECT_NE(read_text(cache_file(t)).find(kPlanChecklistsName), std::string::npos);
    const TaskChecklist cached = checklist_of(t, "a b");
    EXPECT_EQ(cached.steps, parsed.steps);
    EXPECT_EQ(cached.acceptance, parsed.acceptance);
    EXPECT_EQ(checklist_of(t, "c").acceptance, (std::vector<std::string>{"done", "really done"}));
    EXPECT_TRUE(checklist_of(t, "c").steps.empty()) << "the first task of an id, as a scan finds it";
    EXPECT_TRUE(checklist_of(t, "missing").steps.empty());

    // Proof that the cache is what is read: a planted section with the same stamp wins.
    write_stamped_cache(real_fs, t.ws(), kPlanChecklistsName, cache_stamp(t), "c 1 planted\\sstep crit\n");
    EXPECT_EQ(checklist_of(t, "c").steps, std::vector<std::string>{"planted step"});
    // A malformed one is ignored: the plan is parsed again.
    for (const char* body : {"c 9 too-few\n", "c x y\n", "c\n", "c 1 bad\\escape\n", "c 0"}) {
        write_stamped_cache(real_fs, t.ws(), kPlanChecklistsName, cache_stamp(t), body);
        EXPECT_EQ(checklist_of(t, "c").acceptance, (std::vector<std::string>{"done", "really done"})) << body;
    }
    // A hand edit is seen at once.
    std::filesystem::remove(t.path(".small/plan.small.yml"));
    write_text(t.path(".small/plan.small.yml"), "tasks:\n  - {id: c, title: C, steps: [edited]}\n");
    EXPECT_EQ(checklist_of(t, "c").steps, std::vector<std::string>{"edited"});
}

}  // namespace
}  // namespace small
