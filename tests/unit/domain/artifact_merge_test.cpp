// The pure three-way merges behind `small merge`: progress union with ties,
// duplicates and skewed clocks, plan merge by task id, the whole-file rule.
#include "small/domain/artifact_merge.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <tuple>

#include "small/doc/yaml.hpp"

namespace small {
namespace {

const std::string kHead = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";

std::string entry(const std::string& ts, const std::string& task, const std::string& notes = "x") {
    return "  - timestamp: \"" + ts + "\"\n    task_id: \"" + task + "\"\n    status: \"completed\"\n    evidence: \"" +
           notes + "\"\n";
}

std::string crlf(const std::string& text) {
    std::string out;
    for (char c : text) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
    return out;
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
    EXPECT_FALSE(merge_progress_texts(o, kHead + entry(kT1, "task-1", "edited"), o, "p"));  // rewrote an entry
    EXPECT_FALSE(merge_progress_texts(o, o, kHead + entry(kT1, "task-1", "edited"), "p"));  // either side
    // An item appended at the wrong indent, and a nested item that would
    // extend the ancestor's last entry: neither is a new entry.
    EXPECT_FALSE(merge_progress_texts(o, o + "- timestamp: \"" + kT2 + "\"\n  task_id: \"task-1\"\n", o, "p"));
    EXPECT_FALSE(merge_progress_texts(o, o + "    extra:\n      - 1\n", o + entry(kT2, "task-1"), "p"));
    const std::string no_evidence =
        "  - timestamp: \"" + kT2 + "\"\n    task_id: \"task-1\"\n    status: \"completed\"\n";
    Result<MergeOutcome> m = merge_progress_texts(o, o + no_evidence, o, "p");
    ASSERT_FALSE(m);  // re-validated: a completed entry needs evidence
    EXPECT_NE(m.error().message.find("invalid"), std::string::npos) << m.error().message;
}

TEST(ProgressMerge, AnEntryMissingOnOneSideIsKeptNeverLost) {
    const std::string o = kHead + entry(kT1, "task-1") + entry(kT2, "task-1", "appended");
    // A revert of the commit that appended the second entry (OTHER lacks it),
    // or a CURRENT that dropped it: the append-only log keeps it.
    for (const auto& [a, b] : {std::pair{o + entry(kT3, "task-1", "a"), kHead + entry(kT1, "task-1")},
                               {kHead + entry(kT1, "task-1"), o + entry(kT3, "task-1", "a")}}) {
        Result<MergeOutcome> m = merge_progress_texts(o, a, b, "p");
        ASSERT_TRUE(m) << m.error().describe();
        EXPECT_EQ(m->text, o + entry(kT3, "task-1", "a"));
        ASSERT_FALSE(m->notes.empty());
        EXPECT_NE(m->notes[0].find("1 entries of the common ancestor were missing on one side"), std::string::npos)
            << m->notes[0];
    }
}

TEST(ProgressMerge, AMergeAfterAnInterleavingMergeStillMerges) {
    // main (m1, m2) merged branch a (a1): the log interleaves by time. a then
    // adds a2 and merges main back; its ancestor is a's commit with a1.
    const std::string base = kHead + entry("2025-01-01T00:00:00.000000000Z", "task-1", "base");
    const std::string a1 = entry(kT2, "task-1", "a1"), a2 = entry("2025-01-01T00:00:04.000000000Z", "task-1", "a2");
    const std::string m1 = entry(kT1, "task-1", "m1"), m2 = entry(kT3, "task-1", "m2");
    const std::string o = base + a1, a = base + a1 + a2, main = base + m1 + a1 + m2;
    Result<MergeOutcome> ab = merge_progress_texts(o, a, main, "p");
    ASSERT_TRUE(ab) << ab.error().describe();
    EXPECT_EQ(ab->text, base + m1 + a1 + m2 + a2);
    EXPECT_EQ(ab->added_entries, 3u);
    Result<MergeOutcome> ba = merge_progress_texts(o, main, a, "p");
    ASSERT_TRUE(ba) << ba.error().describe();
    EXPECT_EQ(ba->text, ab->text);  // whichever side merges
}

TEST(ProgressMerge, ACherryPickOfALaterCommitBringsTheEarlierEntriesToo) {
    // Branch c appended c1 then c2; cherry-picking c2 onto a: ancestor = c1's commit.
    const std::string base = kHead + entry(kT1, "task-1", "base");
    const std::string c1 = entry(kT2, "task-1", "c1"), c2 = entry("2025-01-01T00:00:04.000000000Z", "task-1", "c2");
    const std::string a1 = entry(kT3, "task-1", "a1");
    Result<MergeOutcome> m = merge_progress_texts(base + c1, base + a1, base + c1 + c2, "p");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->text, base + c1 + a1 + c2);
}

TEST(ProgressMerge, CrlfLogsMergeOnTheSlowPathWithExactPositions) {
    const std::string o = crlf(kHead + entry(kT1, "task-1"));
    Result<MergeOutcome> m = merge_progress_texts(o, o + crlf(entry(kT3, "task-1", "a")), o + crlf(entry(kT2, "task-1", "b")), "p");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->text, o + crlf(entry(kT2, "task-1", "b") + entry(kT3, "task-1", "a")));
    Result<MergeOutcome> bad = merge_progress_texts(o, o + crlf(entry("yesterday", "task-1")), o, "p");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("p (current):8:5"), std::string::npos) << bad.error().message;
}


TEST(ProgressMerge, AnEntryMovedByAnEarlierMergeIsNotAChangeAndNotDoubled) {
    // a and main logged at the same nanosecond; merging a into main moved a's
    // entry by 1 ns. a logs more and is merged again: its base still holds
    // the original, main holds the moved copy.
    const std::string base = kHead + entry(kT1, "task-1", "base");
    const std::string x = entry(kT2, "task-1", "x"), moved_x = entry("2025-01-01T00:00:02.000000001Z", "task-1", "x");
    const std::string m = entry(kT2, "task-1", "m"), z = entry(kT3, "task-1", "z");
    Result<MergeOutcome> first = merge_progress_texts(base, base + m, base + x, "p");
    ASSERT_TRUE(first) << first.error().describe();
    ASSERT_EQ(first->text, base + m + moved_x);
    for (const auto& [cur, oth] : {std::pair{first->text, base + x + z}, {base + x + z, first->text}}) {
        Result<MergeOutcome> again = merge_progress_texts(base + x, cur, oth, "p");
        ASSERT_TRUE(again) << again.error().describe();
        EXPECT_EQ(again->text, base + m + moved_x + z);
    }
}

TEST(ProgressMerge, AMoveNeverReachesAnEntryTheAncestorHad) {
    const std::string e1 = entry(kT1, "task-1", "e1");
    const std::string x = entry("2025-01-01T00:00:03.000000001Z", "task-1", "x");
    const std::string p = entry(kT3, "task-1", "p"), q = entry(kT3, "task-1", "q");
    Result<MergeOutcome> m = merge_progress_texts(kHead + e1 + x, kHead + e1 + p + x, kHead + e1 + q + x, "p");
    ASSERT_TRUE(m) << m.error().describe();
    // x keeps its timestamp; q, tied with p, goes after it.
    EXPECT_EQ(m->text, kHead + e1 + p + x + entry("2025-01-01T00:00:03.000000002Z", "task-1", "q"));
}

TEST(ProgressMerge, AChangeHiddenInABlockScalarIsRefusedNotDropped) {
    const std::string o =
        kHead + entry(kT1, "task-1") + "  - timestamp: \"" + kT2 +
        "\"\n    task_id: \"task-1\"\n    status: \"completed\"\n    evidence: \"e\"\n    notes: |\n      line one\n";
    const std::string a = o + "      # line two, inside the block scalar\n" + entry(kT3, "task-1", "a");
    Result<MergeOutcome> m = merge_progress_texts(o, a, o + entry(kT3, "task-1", "b"), "p");
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("CURRENT changed this entry"), std::string::npos) << m.error().message;
}

TEST(ProgressMerge, TheSlowPathKeepsTheSharedBytesAndLineBreaks) {
    const std::string head = "# the project's log\n" + kHead;
    const std::string base = entry(kT1, "task-1", "base");
    const std::string a1 = entry(kT2, "task-1", "a1"), a2 = entry("2025-01-01T00:00:04.000000000Z", "task-1", "a2");
    const std::string m1 = entry("2025-01-01T00:00:01.500000000Z", "task-1", "m1"), m2 = entry(kT3, "task-1", "m2");
    Result<MergeOutcome> m =
        merge_progress_texts(crlf(head + base + a1), crlf(head + base + a1 + a2), crlf(head + base + m1 + a1 + m2), "p");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->text, crlf(head + base + m1 + a1 + m2 + a2));
}

// Issue 24, defect 1: D8's bump gives entries 1 ns apart (the newest entry
// was ahead of the clock). Two different entries equal but for such
// timestamps are two entries: neither may stand for the other.
TEST(ProgressMerge, EntriesLessThanAMicrosecondApartStayTwo) {
    const std::string o = kHead + entry("2025-01-01T00:00:00.000000000Z", "task-1", "base");
    const std::string x1 = entry("2025-01-01T00:00:00.000000001Z", "task-1", "x");
    const std::string x2 = entry("2025-01-01T00:00:00.000000002Z", "task-1", "x");
    const std::string y1 = entry("2025-01-01T00:00:00.000000001Z", "task-1", "y");
    // a logged x; main logged y, then x again (bumped to 002).
    for (const auto& [a, b] : {std::pair{o + x1, o + y1 + x2}, {o + y1 + x2, o + x1}}) {
        Result<MergeOutcome> m = merge_progress_texts(o, a, b, "p");
        ASSERT_TRUE(m) << m.error().describe();
        EXPECT_EQ(m->text, o + x1 + entry("2025-01-01T00:00:00.000000002Z", "task-1", "y") +
                               entry("2025-01-01T00:00:00.000000003Z", "task-1", "x"));
        EXPECT_EQ(m->added_entries, 3u);
    }
    // Each side logged x once, 1 ns apart: both stay.
    for (const auto& [a, b] : {std::pair{o + x1, o + x2}, {o + x2, o + x1}}) {
        Result<MergeOutcome> m = merge_progress_texts(o, a, b, "p");
        ASSERT_TRUE(m) << m.error().describe();
        EXPECT_EQ(m->text, o + x1 + x2);
        EXPECT_EQ(m->added_entries, 2u);
    }
}

// Issue 24, defect 1: a side that moved an entry of the ancestor (by 1 ns,
// forwards or backwards) rewrites history: refused, naming both places.
TEST(ProgressMerge, AnAncestorEntryMovedByANanosecondIsRefused) {
    const std::string d = entry(kT1, "task-1", "d"), e = entry(kT2, "task-1", "e"), z = entry(kT3, "task-1", "z");
    const std::string o = kHead + d + e;
    for (const std::string& moved_to : {std::string("2025-01-01T00:00:02.000000001Z"),
                                        std::string("2025-01-01T00:00:01.999999999Z"),
                                        std::string("2025-01-01T00:00:02.000001000Z")}) {
        const std::string moved = kHead + d + entry(moved_to, "task-1", "e");
        for (bool current_moved : {true, false}) {
            Result<MergeOutcome> m = current_moved ? merge_progress_texts(o, moved, o + z, "p")
                                                   : merge_progress_texts(o, o + z, moved, "p");
            ASSERT_FALSE(m) << moved_to << "\n" << m->text;
            const std::string side = current_moved ? "CURRENT" : "OTHER";
            EXPECT_NE(m.error().message.find("p (ancestor):8:5: " + side + " moved this entry of the common ancestor to " +
                                             moved_to),
                      std::string::npos)
                << m.error().message;
            EXPECT_NE(m.error().message.find(std::string("at p (") + (current_moved ? "current" : "other") + "):8:5"),
                      std::string::npos)
                << m.error().message;
        }
    }
    // Moved on a 104-entry log (the fast path's prefix is long): still refused.
    std::string long_o = kHead;
    for (int i = 0; i < 104; ++i) {
        long_o += entry("2025-01-01T00:00:00." + std::string(i < 10 ? "00" : i < 100 ? "0" : "") + std::to_string(i) +
                            "000000Z",
                        "task-1", "n" + std::to_string(i));
    }
    const std::string last_moved = long_o.substr(0, long_o.rfind("  - ")) +
                                   entry("2025-01-01T00:00:00.103000001Z", "task-1", "n103");
    EXPECT_FALSE(merge_progress_texts(long_o, last_moved, long_o + z, "p"));
    EXPECT_FALSE(merge_progress_texts(long_o, long_o + z, last_moved, "p"));
}

const std::string kPlanHead = "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n";

std::string task(const std::string& id, const std::string& title, const std::string& status = "pending") {
    return "  - id: \"" + id + "\"\n    title: \"" + title + "\"\n    status: \"" + status + "\"\n";
}

TEST(PlanMerge, NewTasksFollowTheAncestorsByIdWhicheverSideMerges) {
    const std::string o = kPlanHead + task("task-1", "one");
    const std::string a = o + task("task-10", "ten") + task("task-2", "two");
    const std::string b = o + task("task-3", "three");
    Result<MergeOutcome> m = merge_plan_texts(o, a, b, "plan");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->text, o + task("task-2", "two") + task("task-3", "three") + task("task-10", "ten"));
    Result<MergeOutcome> swapped = merge_plan_texts(o, b, a, "plan");
    ASSERT_TRUE(swapped) << swapped.error().describe();
    EXPECT_EQ(swapped->text, m->text);
}

TEST(PlanMerge, KeyOrderIsNotAChange) {
    const std::string o = kPlanHead + task("task-1", "one");
    const std::string reordered = "  - title: \"two\"\n    id: \"task-2\"\n    status: \"pending\"\n";
    // The same task added on both sides, keys in another order: one task, no conflict, and each
    // direction keeps CURRENT's bytes (D20): the same plan as data either way.
    Result<MergeOutcome> m = merge_plan_texts(o, o + task("task-2", "two"), o + reordered, "plan");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_TRUE(m->conflicts.empty());
    EXPECT_EQ(m->text, o + task("task-2", "two"));
    Result<MergeOutcome> swapped = merge_plan_texts(o, o + reordered, o + task("task-2", "two"), "plan");
    ASSERT_TRUE(swapped) << swapped.error().describe();
    EXPECT_EQ(swapped->text, o + reordered);
    // One side only reordered a task's keys, the other changed its status: the change wins.
    const std::string b = kPlanHead + "  - status: \"completed\"\n    id: \"task-1\"\n    title: \"one\"\n";
    const std::string a = kPlanHead + "  - title: \"one\"\n    id: \"task-1\"\n    status: \"pending\"\n";
    Result<MergeOutcome> r = merge_plan_texts(o, a, b, "plan");
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_TRUE(r->conflicts.empty());
    EXPECT_NE(r->text.find("status: \"completed\""), std::string::npos) << r->text;
}

TEST(PlanMerge, EqualValuesWrittenDifferentlyMergeCleanlyKeepingCurrentsBytes) {
    const std::string o = kPlanHead + task("task-1", "one");
    const std::string a = o.substr(0, o.size()) + "    meta: {x: 1, y: 2}\n";
    const std::string b = o.substr(0, o.size()) + "    meta: {y: 2, x: 1}\n";
    Result<MergeOutcome> ab = merge_plan_texts(o, a, b, "plan");
    Result<MergeOutcome> ba = merge_plan_texts(o, b, a, "plan");
    ASSERT_TRUE(ab) << ab.error().describe();
    ASSERT_TRUE(ba) << ba.error().describe();
    EXPECT_TRUE(ab->conflicts.empty());
    EXPECT_EQ(ab->text, a);
    EXPECT_EQ(ba->text, b);
}

// D20: the other side's changes land on CURRENT's bytes; its comments,
// quoting and layout survive the merge.
TEST(PlanMerge, CurrentsCommentsAndFormattingSurviveTheMerge) {
    const std::string o = kPlanHead + task("task-1", "one") + task("task-2", "two");
    const std::string a = "# our plan, annotated\n" + kPlanHead +
                          "  # the first one\n  - id: task-1\n    title: 'one'\n    status: pending  # soon\n" +
                          task("task-2", "two");
    const std::string b = kPlanHead + task("task-1", "one", "completed") + task("task-2", "two") +
                          task("task-3", "three");
    Result<MergeOutcome> m = merge_plan_texts(o, a, b, "plan");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_TRUE(m->conflicts.empty());
    EXPECT_TRUE(m->notes.empty()) << m->notes.front();
    EXPECT_EQ(m->text, "# our plan, annotated\n" + kPlanHead +
                           "  # the first one\n  - id: task-1\n    title: 'one'\n    status: completed  # soon\n" +
                           task("task-2", "two") + task("task-3", "three"));
}

// D20 item 3: a task only OTHER added keeps OTHER's lines and comments;
// CURRENT's own comments stay. With CRLF on CURRENT, OTHER's lines follow it.
TEST(PlanMerge, TasksOtherAddedKeepOthersCommentsAndQuoting) {
    const std::string o = kPlanHead + task("task-1", "one");
    const std::string a = "# ours\n" + kPlanHead + "  - id: task-1  # first\n    title: \"one\"\n    status: \"pending\"\n";
    const std::string theirs = "  # added on the other branch\n  - id: task-2\n    title: 'Two, with a comma'  # why\n"
                               "    status: pending\n    depends_on: [task-1]\n";
    const std::string b = o + theirs;
    Result<MergeOutcome> m = merge_plan_texts(o, a, b, "plan");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_TRUE(m->notes.empty()) << m->notes.front();
    EXPECT_EQ(m->text, a + theirs);
    std::string a_crlf = a, expected = a + theirs;
    for (std::string* t : {&a_crlf, &expected}) {
        for (std::size_t at = t->find('\n'); at != std::string::npos; at = t->find('\n', at + 2)) t->insert(at, "\r");
    }
    Result<MergeOutcome> crlf = merge_plan_texts(o, a_crlf, b, "plan");
    ASSERT_TRUE(crlf) << crlf.error().describe();
    EXPECT_EQ(crlf->text, expected);
    // Indented otherwise than CURRENT's tasks: written in CURRENT's shape.
    const std::string deeper = kPlanHead + "    - id: \"task-1\"\n      title: \"one\"\n      status: \"pending\"\n" +
                               "    - id: task-2\n      title: two  # lost\n";
    Result<MergeOutcome> shaped = merge_plan_texts(o, a, deeper, "plan");
    ASSERT_TRUE(shaped) << shaped.error().describe();
    EXPECT_EQ(shaped->text.find("# lost"), std::string::npos) << shaped->text;
    EXPECT_NE(shaped->text.find("  - id: task-2\n    title: \"two\"\n"), std::string::npos) << shaped->text;
}

// D20 item 3, the rest: comment lines OTHER added to tasks both sides have
// are carried, each above the field it stood above in OTHER (found by its
// key: the merge may change the value) or at the task's end; comments CURRENT
// removed (the ancestor had them) stay removed; none is doubled.
TEST(PlanMerge, CommentLinesOtherAddedToSharedTasksAreCarried) {
    const std::string o = kPlanHead + "  # old note\n" + task("task-1", "one") + task("task-2", "two");
    const std::string a = kPlanHead + "  - id: \"task-1\"  # mine\n    title: \"one\"\n    status: \"blocked\"\n" +
                          task("task-2", "two");
    const std::string b = kPlanHead + "  # old note\n  # their note on task-1\n" +
                          "  - id: \"task-1\"\n    # why it is done\n    title: \"one\"\n    status: \"completed\"\n" +
                          "    # end of task-1\n" + task("task-2", "two");
    Result<MergeOutcome> m = merge_plan_texts(o, a, b, "plan");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_TRUE(m->conflicts.empty());
    EXPECT_TRUE(m->notes.empty()) << m->notes.front();
    EXPECT_EQ(m->text, kPlanHead + "  # their note on task-1\n  - id: \"task-1\"  # mine\n    # why it is done\n"
                                   "    title: \"one\"\n    status: \"completed\"\n    # end of task-1\n" +
                           task("task-2", "two"));
    // Merging the other way round gives the same plan, and a second merge adds nothing twice.
    Result<MergeOutcome> again = merge_plan_texts(o, m->text, b, "plan");
    ASSERT_TRUE(again) << again.error().describe();
    EXPECT_EQ(again->text, m->text);
    // A comment above a field the merge dropped cannot be placed: the note says so.
    const std::string o2 = kPlanHead + task("task-1", "one") + "    steps: [\"x\"]\n";
    const std::string a2 = kPlanHead + task("task-1", "one");
    const std::string b2 = kPlanHead + task("task-1", "one") + "    # about the steps\n    steps: [\"x\"]\n";
    Result<MergeOutcome> lost = merge_plan_texts(o2, a2, b2, "plan");
    ASSERT_TRUE(lost) << lost.error().describe();
    EXPECT_EQ(lost->text, a2);
    ASSERT_EQ(lost->notes.size(), 1u);
    EXPECT_NE(lost->notes[0].find("1 comment line(s) OTHER added were not carried"), std::string::npos) << lost->notes[0];
}

// Random plans: OTHER adds comment lines at random places inside or above
// shared tasks and completes some, CURRENT changes other tasks' statuses and
// adds its own comments. Every comment of either side is in the result once,
// and the result is the merged plan as data, merged either way round.
// Found by a second read: a comment OTHER only re-indented or moved is not
// doubled, one CURRENT deleted does not come back (also not through a task
// only OTHER added), a block scalar's `#` line is not a comment, comments
// for one place keep OTHER's order, and one added at the end of a file
// without a final line break starts its own line.
TEST(PlanMerge, CommentsOtherOnlyMovedOrCurrentDeletedAreNotCarried) {
    const std::string t1 = task("task-1", "one"), t2 = task("task-2", "two");
    const std::string o = kPlanHead + t1 + "    # phase 2\n" + t2;
    // Re-indented by OTHER: kept once, where CURRENT has it.
    Result<MergeOutcome> moved = merge_plan_texts(o, o, kPlanHead + t1 + "  # phase 2\n" + t2, "plan");
    ASSERT_TRUE(moved);
    EXPECT_EQ(moved->text, o);
    // Deleted by CURRENT, kept by OTHER (which adds task-3 after a trailing comment): stays deleted.
    const std::string o3 = kPlanHead + t1 + t2 + "  # later\n";
    Result<MergeOutcome> deleted =
        merge_plan_texts(o3, kPlanHead + t1 + t2, o3 + task("task-3", "three"), "plan");
    ASSERT_TRUE(deleted);
    EXPECT_EQ(deleted->text, kPlanHead + t1 + t2 + task("task-3", "three"));
    // A block scalar's line that starts with '#' is text, not a comment.
    const std::string block = kPlanHead + task("task-1", "one", "completed") + "    notes: |\n      # not a comment\n";
    Result<MergeOutcome> scalar = merge_plan_texts(kPlanHead + t1, kPlanHead + t1, block, "plan");
    ASSERT_TRUE(scalar) << scalar.error().describe();
    EXPECT_TRUE(scalar->notes.empty()) << scalar->notes.front();
    Result<Document> back = parse_yaml(scalar->text, "plan");
    ASSERT_TRUE(back);
    EXPECT_EQ(back->root().find("tasks").item(0).find("notes").as_string(), "# not a comment\n");
    EXPECT_EQ(scalar->text.find("# not a comment"), scalar->text.rfind("# not a comment")) << scalar->text;
    // Two comments for one place (task-9's end, above task-10) keep OTHER's order.
    const std::string o9 = kPlanHead + task("task-9", "nine") + task("task-10", "ten");
    const std::string b9 = kPlanHead + task("task-9", "nine") + "    # last words on nine\n  # ten starts here\n" +
                           task("task-10", "ten");
    Result<MergeOutcome> order = merge_plan_texts(o9, o9, b9, "plan");
    ASSERT_TRUE(order);
    EXPECT_EQ(order->text, b9);
    // No final line break on CURRENT: the comment is a line of its own.
    std::string a_open = kPlanHead + t1;
    a_open.pop_back();
    Result<MergeOutcome> open = merge_plan_texts(kPlanHead + t1, a_open, kPlanHead + t1 + "    # the end\n", "plan");
    ASSERT_TRUE(open);
    EXPECT_EQ(open->text, kPlanHead + t1 + "    # the end\n");
}

TEST(PlanMerge, RandomCommentsFromBothSidesAreEachKeptOnce) {
    std::mt19937 rng(11);
    for (int round = 0; round < 300; ++round) {
        const int n = 2 + static_cast<int>(rng() % 5);
        const auto plan = [&](const std::vector<std::string>& statuses, const std::map<std::pair<int, int>, std::string>& notes) {
            std::string t = kPlanHead;
            for (int i = 0; i < n; ++i) {
                const std::string fields[] = {"  - id: \"task-" + std::to_string(i + 1) + "\"\n",
                                              "    title: \"T" + std::to_string(i + 1) + "\"\n",
                                              "    status: \"" + statuses[i] + "\"\n"};
                for (int f = 0; f < 3; ++f) {
                    if (const auto it = notes.find({i, f}); it != notes.end()) t += (f ? "    " : "  ") + it->second + "\n";
                    t += fields[f];
                }
                if (const auto it = notes.find({i, 3}); it != notes.end()) t += "    " + it->second + "\n";
            }
            return t;
        };
        std::vector<std::string> so(n, "pending"), sa = so, sb = so;
        std::map<std::pair<int, int>, std::string> ours, theirs;
        for (int i = 0; i < n; ++i) {
            if (rng() % 2) sa[i] = "blocked";
            else if (rng() % 2) sb[i] = "completed";
            if (rng() % 2) ours[{i, static_cast<int>(rng() % 4)}] = "# ours " + std::to_string(i);
            if (rng() % 2) theirs[{i, static_cast<int>(rng() % 4)}] = "# theirs " + std::to_string(i);
        }
        const std::string o = plan(so, {}), a = plan(sa, ours), b = plan(sb, theirs);
        for (const auto& [current, other, mine, its] : {std::tuple(a, b, &ours, &theirs), std::tuple(b, a, &theirs, &ours)}) {
            Result<MergeOutcome> m = merge_plan_texts(o, current, other, "plan");
            ASSERT_TRUE(m) << m.error().describe();
            ASSERT_TRUE(m->conflicts.empty());
            EXPECT_TRUE(m->notes.empty()) << m->notes.front() << "\n" << current << "---\n" << other;
            for (const auto* side : {mine, its}) {
                for (const auto& [where, note] : *side) {
                    const std::size_t at = m->text.find(note + "\n");
                    EXPECT_NE(at, std::string::npos) << note << "\n" << m->text;
                    EXPECT_EQ(m->text.find(note + "\n", at + 1), std::string::npos) << note << " twice\n" << m->text;
                }
            }
            Result<Document> back = parse_yaml(m->text, "plan");
            ASSERT_TRUE(back) << m->text;
            for (int i = 0; i < n; ++i) {
                const std::string want = sa[i] != "pending" ? sa[i] : sb[i];
                EXPECT_EQ(back->root().find("tasks").item(i).find("status").as_string(), want) << m->text;
            }
        }
    }
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
