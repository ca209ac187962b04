// The pure three-way merges behind `small merge`: progress union with ties,
// duplicates and skewed clocks, plan merge by task id, the whole-file rule.
#include "small/store/artifact_merge.hpp"

#include <gtest/gtest.h>

#include <string>

namespace small {
namespace {

const std::string kHead = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";

std::string entry(const std::string& ts, const std::string& task, const std::string& notes = "x") {
    return "  - timestamp: \"" + ts + "\"\n    task_id: \"" + task + "\"\n    status: \"completed\"\n    evidence: \"" +
           notes + "\"\n";
}

const std::string kT1 = "2025-01-01T00:00:01.000000000Z";
const std::string kT2 = "2025-01-01T00:00:02.000000000Z";
const std::string kT3 = "2025-01-01T00:00:03.000000000Z";

TEST(ProgressMerge, KeepsAncestorBytesAndUnionsNewEntriesInOrder) {
    // The ancestor's formatting (a comment, an offset timestamp) survives byte for byte.
    const std::string o = kHead + "  # first\n" + entry("2025-01-01T01:00:00.5+01:00", "task-1");
    const std::string a = o + entry(kT3, "task-1", "a");
    const std::string b = o + entry(kT2, "task-1", "b");
    Result<MergeOutcome> m = merge_progress_texts(o, a, b, "p");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->text, o + entry(kT2, "task-1", "b") + entry(kT3, "task-1", "a"));
    EXPECT_EQ(m->added_entries, 2u);
    Result<MergeOutcome> swapped = merge_progress_texts(o, b, a, "p");
    ASSERT_TRUE(swapped);
    EXPECT_EQ(swapped->text, m->text);  // whichever side merges
}

TEST(ProgressMerge, DuplicatesOnBothSidesAppearOnce) {
    const std::string o = kHead + entry(kT1, "task-1");
    const std::string same = entry(kT2, "task-1", "both");
    Result<MergeOutcome> m = merge_progress_texts(o, o + same, o + same + entry(kT3, "task-1", "b"), "p");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->text, o + same + entry(kT3, "task-1", "b"));
    EXPECT_EQ(m->duplicate_entries, 1u);
}

TEST(ProgressMerge, EqualTimestampsBecomeStrictlyIncreasingByOneNanosecond) {
    const std::string o = kHead + entry(kT1, "task-1");
    Result<MergeOutcome> m = merge_progress_texts(o, o + entry(kT2, "task-1", "a"), o + entry(kT2, "task-1", "b"), "p");
    ASSERT_TRUE(m) << m.error().describe();
    // Tie broken by canonical JSON: "a" < "b"; b moves 1 ns later.
    EXPECT_EQ(m->text, o + entry(kT2, "task-1", "a") + entry("2025-01-01T00:00:02.000000001Z", "task-1", "b"));
    EXPECT_EQ(m->bumped_timestamps, 1u);
    EXPECT_EQ(m->notes.size(), 1u);
}

TEST(ProgressMerge, ClockSkewedEntryMovesPastTheAncestorsLastOne) {
    const std::string o = kHead + entry(kT2, "task-1");
    // OTHER's clock was behind: its new entry is older than the ancestor's last.
    const std::string b = o + entry(kT1, "task-1", "late");
    Result<MergeOutcome> m = merge_progress_texts(o, o, b, "p");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->text, o + entry("2025-01-01T00:00:02.000000001Z", "task-1", "late"));
}

TEST(ProgressMerge, EveryFieldIsKeptAndAFieldTheSchemaForbidsIsRefused) {
    const std::string o = kHead + entry(kT1, "task-1");
    const std::string full = entry(kT2, "task-1", "a") + "    commit: \"abc1234\"\n    notes: \"line\\nbreak\"\n";
    Result<MergeOutcome> m = merge_progress_texts(o, o + full, o, "p");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->text, o + full);
    // Progress entries are closed (the schema allows no extra field): never merged in.
    Result<MergeOutcome> bad = merge_progress_texts(o, o + entry(kT2, "task-1") + "    x_custom: 1\n", o, "p");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("x_custom"), std::string::npos);
}

TEST(ProgressMerge, BothSidesCreatedTheLogFromNothing) {
    Result<MergeOutcome> m =
        merge_progress_texts("", kHead + entry(kT2, "task-1", "a"), kHead + entry(kT1, "task-1", "b"), "p");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->text, kHead + entry(kT1, "task-1", "b") + entry(kT2, "task-1", "a"));
}

TEST(ProgressMerge, InvalidSidesAreErrorsNotMerges) {
    const std::string o = kHead + entry(kT1, "task-1");
    EXPECT_FALSE(merge_progress_texts(o, o + "  - [unclosed\n", o, "p"));             // does not parse
    EXPECT_FALSE(merge_progress_texts(o, o + entry("yesterday", "task-1"), o, "p"));  // bad timestamp
    EXPECT_FALSE(merge_progress_texts(o, kHead + entry(kT2, "task-1"), o, "p"));      // rewrote history
    EXPECT_FALSE(merge_progress_texts(o, kHead + "  []\n", o, "p"));                  // dropped entries
    const std::string no_evidence =
        "  - timestamp: \"" + kT2 + "\"\n    task_id: \"task-1\"\n    status: \"completed\"\n";
    Result<MergeOutcome> m = merge_progress_texts(o, o + no_evidence, o, "p");
    ASSERT_FALSE(m);  // re-validated: a completed entry needs evidence
    EXPECT_NE(m.error().message.find("invalid"), std::string::npos) << m.error().message;
}

const std::string kPlanHead = "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n";

std::string task(const std::string& id, const std::string& title, const std::string& status = "pending") {
    return "  - id: \"" + id + "\"\n    title: \"" + title + "\"\n    status: \"" + status + "\"\n";
}

TEST(PlanMerge, TasksFromBothSidesInAncestorThenCurrentThenOtherOrder) {
    const std::string o = kPlanHead + task("task-1", "one");
    Result<MergeOutcome> m = merge_plan_texts(o, o + task("task-2", "two"), o + task("task-3", "three"), "plan");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->text, o + task("task-2", "two") + task("task-3", "three"));
}

TEST(PlanMerge, StatusesCombineByRankAndOtherFieldsOneSided) {
    const std::string o = kPlanHead + task("task-1", "one") + task("task-2", "two", "in_progress");
    const std::string a = kPlanHead + task("task-1", "one", "blocked") + task("task-2", "renamed", "in_progress");
    const std::string b = kPlanHead + task("task-1", "one", "completed") + task("task-2", "two", "cancelled");
    Result<MergeOutcome> m = merge_plan_texts(o, a, b, "plan");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->text, kPlanHead + task("task-1", "one", "completed") + task("task-2", "renamed", "cancelled"));
}

TEST(PlanMerge, SameNewIdWithDifferentContentIsAConflictNamingTheId) {
    const std::string o = kPlanHead + task("task-1", "one");
    Result<MergeOutcome> m = merge_plan_texts(o, o + task("task-2", "mine"), o + task("task-2", "theirs"), "plan");
    ASSERT_TRUE(m) << m.error().describe();
    ASSERT_EQ(m->conflicts.size(), 1u);
    EXPECT_EQ(m->conflicts[0].id, "task-2");
    EXPECT_NE(m->conflicts[0].message.find("\"mine\""), std::string::npos);
    EXPECT_NE(m->conflicts[0].hint.find("small plan --add"), std::string::npos);
    EXPECT_TRUE(m->text.empty());
    // The same task added identically on both sides is not a conflict.
    Result<MergeOutcome> same = merge_plan_texts(o, o + task("task-2", "x"), o + task("task-2", "x"), "plan");
    ASSERT_TRUE(same);
    EXPECT_TRUE(same->conflicts.empty());
}

TEST(PlanMerge, DifferentTitlesForOneTaskConflictAndUnknownFieldsAreKept) {
    const std::string o = kPlanHead + task("task-1", "one");
    Result<MergeOutcome> m =
        merge_plan_texts(o, kPlanHead + task("task-1", "a"), kPlanHead + task("task-1", "b"), "plan");
    ASSERT_TRUE(m);
    ASSERT_EQ(m->conflicts.size(), 1u);
    EXPECT_EQ(m->conflicts[0].field, "title");
    const std::string b = kPlanHead + task("task-1", "one") + "    x_extra: \"kept\"\n";
    Result<MergeOutcome> k = merge_plan_texts(o, o, b, "plan");
    ASSERT_TRUE(k) << k.error().describe();
    EXPECT_NE(k->text.find("x_extra: \"kept\""), std::string::npos);
}

TEST(PlanMerge, RemovedOnOneSideChangedOnTheOtherConflicts) {
    const std::string o = kPlanHead + task("task-1", "one") + task("task-2", "two");
    Result<MergeOutcome> m =
        merge_plan_texts(o, kPlanHead + task("task-1", "one"),
                         kPlanHead + task("task-1", "one") + task("task-2", "two", "completed"), "plan");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->conflicts.size(), 1u);
    EXPECT_FALSE(merge_plan_texts(o, "tasks: [", o, "plan"));
}

TEST(WholeMerge, OneSidedChangesMergeBothSidedConflictHandoffKeepsCurrent) {
    EXPECT_EQ(merge_whole_texts("o", "a", "o", false, "f").text, "a");
    EXPECT_EQ(merge_whole_texts("o", "o", "b", false, "f").text, "b");
    EXPECT_EQ(merge_whole_texts("o", "s", "s", false, "f").text, "s");
    EXPECT_EQ(merge_whole_texts("o", "a", "b", false, "f").conflicts.size(), 1u);
    const MergeOutcome h = merge_whole_texts("o", "a", "b", true, "f");
    EXPECT_TRUE(h.conflicts.empty());
    EXPECT_EQ(h.text, "a");
    EXPECT_EQ(merge_kind_for(".small/progress.small.yml"), MergeKind::Progress);
    EXPECT_EQ(merge_kind_for(".small/intent.small.yml"), MergeKind::Whole);
}

}  // namespace
}  // namespace small
