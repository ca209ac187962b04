// D21: a task id both sides added is renamed on OTHER's side with its
// entries, recorded in the merged log, and a later merge of a version from
// before the rename maps it the same way.
#include "small/domain/artifact_merge.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "small/doc/yaml.hpp"
#include "small/doc/yaml_writer.hpp"

namespace small {
namespace {

const std::string kPlanHead = "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n";
const std::string kLogHead = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";

std::string task(const std::string& id, const std::string& title, const std::string& deps = "") {
    return "  - id: \"" + id + "\"\n    title: \"" + title + "\"\n    status: \"pending\"\n" +
           (deps.empty() ? "" : "    depends_on: [" + deps + "]\n");
}

std::string entry(int second, const std::string& task_id, const std::string& evidence) {
    const std::string s = (second < 10 ? "0" : "") + std::to_string(second);
    return "  - timestamp: \"2025-01-01T00:00:" + s + ".000000000Z\"\n    task_id: " + task_id +
           "\n    status: \"in_progress\"\n    evidence: \"" + evidence + "\"\n";
}

// One version of the pair.
struct Pair {
    std::string plan, log;
};

// Both files merged the way git runs the driver: each file's rule, with the
// sides of the pair.
struct Merged {
    MergeOutcome plan, log;
    std::string log_error;  // the log could not be merged
};

Merged merge(const Pair& o, const Pair& a, const Pair& b) {
    WorkspaceMergeSides sides;
    sides.plan[0] = o.plan, sides.plan[1] = a.plan, sides.plan[2] = b.plan;
    sides.progress[0] = o.log, sides.progress[1] = a.log, sides.progress[2] = b.log;
    Merged m;
    Result<MergeOutcome> plan = merge_with_renames(MergeKind::Plan, o.plan, a.plan, b.plan, "plan.small.yml", sides);
    Result<MergeOutcome> log =
        merge_with_renames(MergeKind::Progress, o.log, a.log, b.log, "progress.small.yml", sides);
    EXPECT_TRUE(plan) << plan.error().describe();
    if (plan) m.plan = *plan;
    if (log) m.log = *log;
    else m.log_error = log.error().describe();
    return m;
}

// task_id of each entry, in order, and the ids of the plan's tasks with their titles.
YamlValue value_of(const std::string& text) {
    Result<Document> doc = parse_yaml(text, "text");
    EXPECT_TRUE(doc);
    return doc ? to_yaml_value(doc->root()) : YamlValue::object();
}
std::vector<std::string> entry_tasks(const std::string& log) {
    std::vector<std::string> out;
    const YamlValue v = value_of(log);
    for (const YamlValue& e : v["entries"])
        out.push_back(e["task_id"].get<std::string>() + " " + e["evidence"].get<std::string>());
    return out;
}
std::vector<std::string> plan_tasks(const std::string& plan) {
    std::vector<std::string> out;
    const YamlValue v = value_of(plan);
    for (const YamlValue& t : v["tasks"]) {
        std::string line = t["id"].get<std::string>() + " " + t["title"].get<std::string>();
        if (t.contains("depends_on")) line += " <- " + t["depends_on"][0].get<std::string>();
        out.push_back(line);
    }
    std::sort(out.begin(), out.end());  // by id, as text: the order of tasks differs between the sides
    return out;
}

const std::string kRenameEvidence = "Renamed task task-3 to task-5 via small merge";

// The base has task-1 and task-2; main adds task-3 "Parser", the branch
// adds task-3 "Docs" and task-4 "Docs tests" (after its task-3).
struct Scenario {
    Pair base{kPlanHead + task("task-1", "one") + task("task-2", "two"), kLogHead + entry(1, "task-1", "base")};
    Pair main{base.plan + task("task-3", "Parser"), base.log + entry(2, "task-3", "main adds")};
    Pair branch{base.plan + task("task-3", "Docs") + task("task-4", "Docs tests", "task-3"),
                base.log + entry(3, "\"task-3\"", "branch adds") + entry(4, "'task-4'", "branch adds 4") +
                    entry(5, "task-3", "branch works")};
};

TEST(MergeRenames, NoteRoundTrip) {
    const TaskRename r{"task-3", "task-5", "Write \"the\" docs"};
    EXPECT_EQ(rename_note(r), "small merge: renamed task-3 -> task-5 (title \"Write \\\"the\\\" docs\")");
    EXPECT_EQ(parse_rename_note(rename_note(r)), r);
    EXPECT_FALSE(parse_rename_note("small plan --add"));
    EXPECT_FALSE(parse_rename_note("small merge: renamed task-3 -> task-3 (title \"x\")"));
    EXPECT_FALSE(parse_rename_note("small merge: renamed task-3 -> task 5"));
    EXPECT_EQ(describe_rename(r), "task-3 -> task-5 (\"Write \\\"the\\\" docs\")");
}

TEST(MergeRenames, WithoutACollisionNothingIsRenamed) {
    const Scenario s;
    WorkspaceMergeSides sides;
    for (int i = 0; i < 3; ++i) sides.plan[i] = s.base.plan, sides.progress[i] = s.base.log;
    sides.plan[1] = s.main.plan;
    Result<std::optional<TaskRenames>> r = task_renames(sides);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_FALSE(*r);
}

TEST(MergeRenames, OthersTaskTakesTheNextFreeIdWithItsEntriesAndTheRenameIsRecorded) {
    const Scenario s;
    const Merged m = merge(s.base, s.main, s.branch);
    ASSERT_TRUE(m.plan.conflicts.empty()) << m.plan.conflicts[0].message;
    ASSERT_TRUE(m.log_error.empty() && m.log.conflicts.empty()) << m.log_error;
    EXPECT_EQ(plan_tasks(m.plan.text), (std::vector<std::string>{"task-1 one", "task-2 two", "task-3 Parser",
                                                                 "task-4 Docs tests <- task-5", "task-5 Docs"}));
    EXPECT_NE(m.plan.text.find("  - id: \"task-5\"\n    title: \"Docs\""), std::string::npos) << m.plan.text;
    EXPECT_EQ(entry_tasks(m.log.text),
              (std::vector<std::string>{"task-1 base", "task-3 main adds", "task-5 branch adds", "task-4 branch adds 4",
                                        "task-5 branch works", "task-5 " + kRenameEvidence}));
    // The record: bookkeeping, machine-readable, 1 ns after the last entry; quoting kept.
    EXPECT_NE(m.log.text.find("task_id: \"task-5\"\n    status: \"in_progress\"\n    evidence: \"branch adds\""),
              std::string::npos)
        << m.log.text;
    EXPECT_NE(m.log.text.find("timestamp: \"2025-01-01T00:00:05.000000001Z\""), std::string::npos) << m.log.text;
    const std::vector<RecordedRename> recorded = recorded_renames(m.log.text);
    ASSERT_EQ(recorded.size(), 1u);
    EXPECT_EQ(recorded[0].rename, (TaskRename{"task-3", "task-5", "Docs"}));
    EXPECT_EQ(m.log.renamed, std::vector<std::string>{"task-3 -> task-5 (\"Docs\")"});
    // The ancestor's bytes are kept (the entries after them in small's style), the plan's CURRENT's.
    EXPECT_EQ(m.log.text.substr(0, s.base.log.size()), s.base.log);
    EXPECT_EQ(m.plan.text.substr(0, s.main.plan.size()), s.main.plan);
}

TEST(MergeRenames, WithoutTheSiblingFilesTheCollisionStaysAConflict) {
    const Scenario s;
    Result<MergeOutcome> plan =
        merge_with_renames(MergeKind::Plan, s.base.plan, s.main.plan, s.branch.plan, "plan", std::nullopt);
    ASSERT_TRUE(plan);
    ASSERT_EQ(plan->conflicts.size(), 1u);
    EXPECT_NE(plan->conflicts[0].message.find("task id task-3 was added on both sides"), std::string::npos);
}

TEST(MergeRenames, ALogThatChangedOnOneSideOnlyCannotRecordItSoItStaysAConflict) {
    const Scenario s;
    Pair branch = s.branch;
    branch.log = s.base.log;  // git would take main's log without the driver
    const Merged m = merge(s.base, s.main, branch);
    ASSERT_EQ(m.plan.conflicts.size(), 1u);
    EXPECT_TRUE(std::any_of(m.plan.notes.begin(), m.plan.notes.end(),
                            [](const std::string& n) { return n.find("not renamed") != std::string::npos; }));
}

TEST(MergeRenames, LaterMergesInBothDirectionsMapTheSameWay) {
    const Scenario s;
    const Merged m1 = merge(s.base, s.main, s.branch);
    const Pair main1{m1.plan.text, m1.log.text};
    // The branch keeps working on its task-3 (and main on its own).
    Pair branch2{s.branch.plan, s.branch.log + entry(20, "task-3", "branch later")};
    Pair main2{main1.plan, main1.log + entry(21, "task-3", "main later")};

    // The branch merges main: its own history (ancestor and CURRENT) is mapped.
    const Merged m2 = merge(s.branch, branch2, main2);
    ASSERT_TRUE(m2.plan.conflicts.empty()) << m2.plan.conflicts[0].message;
    ASSERT_TRUE(m2.log_error.empty() && m2.log.conflicts.empty()) << m2.log_error;
    EXPECT_EQ(plan_tasks(m2.plan.text), plan_tasks(main1.plan));
    const std::vector<std::string> want{"task-1 base",          "task-3 main adds",    "task-5 branch adds",
                                        "task-4 branch adds 4", "task-5 branch works", "task-5 " + kRenameEvidence,
                                        "task-5 branch later",  "task-3 main later"};
    EXPECT_EQ(entry_tasks(m2.log.text), want);
    EXPECT_TRUE(m2.log.renamed.empty());
    const Pair branch3{m2.plan.text, m2.log.text};

    // Main merges the branch's merge: nothing left to rename, nothing twice.
    const Merged m3 = merge(main1, main2, branch3);
    ASSERT_TRUE(m3.plan.conflicts.empty());
    EXPECT_EQ(entry_tasks(m3.log.text), want);
    EXPECT_EQ(plan_tasks(m3.plan.text), plan_tasks(main1.plan));

    // Main merges the branch before the branch merged main (base: the branch's first commit).
    const Merged m4 = merge(s.branch, main2, branch2);
    ASSERT_TRUE(m4.plan.conflicts.empty()) << m4.plan.conflicts[0].message;
    ASSERT_TRUE(m4.log_error.empty() && m4.log.conflicts.empty()) << m4.log_error;
    EXPECT_EQ(entry_tasks(m4.log.text), want);
    EXPECT_EQ(plan_tasks(m4.plan.text), plan_tasks(main1.plan));

    // And merging the old branch again changes nothing.
    const Merged m5 = merge(s.branch, m4.plan.text.empty() ? main2 : Pair{m4.plan.text, m4.log.text}, branch2);
    EXPECT_EQ(entry_tasks(m5.log.text), want);
}

TEST(MergeRenames, AVersionFromTheMainLineIsNotMapped) {
    // A branch from main before the merge has main's own task-3 (Parser):
    // the recorded rename is not about it.
    const Scenario s;
    const Merged m1 = merge(s.base, s.main, s.branch);
    const Pair side{s.main.plan, s.main.log + entry(30, "task-3", "side works on the parser")};
    const Merged m = merge(s.main, side, Pair{m1.plan.text, m1.log.text});
    ASSERT_TRUE(m.plan.conflicts.empty()) << m.plan.conflicts[0].message;
    ASSERT_TRUE(m.log_error.empty() && m.log.conflicts.empty()) << m.log_error;
    const std::vector<std::string> tasks = entry_tasks(m.log.text);
    EXPECT_EQ(tasks.back(), "task-3 side works on the parser");
    EXPECT_EQ(plan_tasks(m.plan.text), plan_tasks(m1.plan.text));
}

TEST(MergeRenames, ARenamedIdTakenOnTheOldSideIsNotGuessed) {
    const Scenario s;
    const Merged m1 = merge(s.base, s.main, s.branch);
    // The branch added a task-5 of its own before it saw the rename.
    Pair branch2{s.branch.plan + task("task-5", "Other"), s.branch.log + entry(20, "task-5", "own five")};
    const Merged m = merge(s.branch, branch2, Pair{m1.plan.text, m1.log.text});
    EXPECT_FALSE(m.plan.conflicts.empty());
}

TEST(MergeRenames, SeveralCollisionsTakeIdsInIdOrder) {
    const std::string base = kPlanHead + task("task-1", "one");
    const std::string log = kLogHead + entry(1, "task-1", "base");
    const Pair a{base + task("task-2", "A2") + task("task-10", "A10"), log + entry(2, "task-2", "a")};
    const Pair b{base + task("task-2", "B2") + task("task-10", "B10"), log + entry(3, "task-10", "b")};
    const Merged m = merge(Pair{base, log}, a, b);
    ASSERT_TRUE(m.plan.conflicts.empty());
    EXPECT_EQ(plan_tasks(m.plan.text),
              (std::vector<std::string>{"task-1 one", "task-10 A10", "task-11 B2", "task-12 B10", "task-2 A2"}));
    EXPECT_EQ(entry_tasks(m.log.text).at(2), "task-12 b");
}

}  // namespace
}  // namespace small
