// The plan's tasks, the newest evidence, hover text and completion places.
#include "small/lsp/task_facts.hpp"

#include <gtest/gtest.h>

namespace small::lsp {
namespace {

const char* const kPlan =
    "small_version: \"1.0.0\"\n"
    "owner: \"agent\"\n"
    "tasks:\n"
    "  - id: \"task-1\"\n"
    "    title: \"Parse the flags\"\n"
    "    status: \"completed\"\n"
    "  - id: task-2\n"
    "    title: \"Print\\u001b[31m\"\n"
    "    depends_on:\n"
    "      - \"task-1\"\n"
    "      - \n";

TEST(LspTaskFacts, ThePlanIsIndexedWithWhereEachIdIs) {
    Result<TaskIndex> index = index_plan(kPlan);
    ASSERT_TRUE(index) << index.error().describe();
    ASSERT_EQ(index->tasks.size(), 2u);
    const TaskFacts* two = index->find("task-2");
    ASSERT_NE(two, nullptr);
    EXPECT_EQ(two->status, "pending");
    EXPECT_EQ(two->depends_on, std::vector<std::string>{"task-1"});
    EXPECT_EQ(two->id_line, 7u);
    EXPECT_EQ(two->id_column, 9u);
    EXPECT_EQ(index->find("task-9"), nullptr);
    EXPECT_FALSE(index_plan("tasks: [\n"));
}

TEST(LspTaskFacts, HoverMakesEveryValueVisible) {
    const TaskIndex index = *index_plan(kPlan);
    const NewestEntry newest{"2026-01-01T00:00:00Z", "in_progress", "tests pass"};
    const std::string text = hover_text(*index.find("task-2"), "alice (until 14:05)", &newest);
    EXPECT_NE(text.find("task-2: Print\\e[31m"), std::string::npos) << text;  // no raw escape reaches the editor
    EXPECT_NE(text.find("holder: alice (until 14:05)"), std::string::npos) << text;
    EXPECT_NE(text.find("depends on: task-1"), std::string::npos) << text;
    EXPECT_NE(text.find("last evidence (2026-01-01T00:00:00Z, in_progress): tests pass"), std::string::npos) << text;
    const std::string none = hover_text(*index.find("task-1"), "", nullptr);
    EXPECT_NE(none.find("holder: nobody"), std::string::npos) << none;
    EXPECT_NE(none.find("last evidence: none"), std::string::npos) << none;
}

TEST(LspTaskFacts, TheNewestEvidenceOfEachTaskIsKept) {
    MemoryFileSystem fs;
    fs.add_file("/w/.small/progress.small.yml",
                "entries:\n"
                "  - task_id: \"task-1\"\n    status: \"in_progress\"\n    evidence: \"started\"\n"
                "  - task_id: \"task-1\"\n    status: \"completed\"\n    evidence: \"tests pass\"\n"
                "  - task_id: \"task-2\"\n    status: \"pending\"\n");
    Result<std::map<std::string, NewestEntry>> newest = newest_entries(fs, "/w/.small/progress.small.yml");
    ASSERT_TRUE(newest) << newest.error().describe();
    ASSERT_EQ(newest->size(), 1u);
    EXPECT_EQ(newest->at("task-1").evidence, "tests pass");
    EXPECT_FALSE(newest_entries(fs, "/w/.small/missing.yml"));
}

TEST(LspTaskFacts, CompletionKnowsWhereIdsAndStatusesGo) {
    const LineIndex plan(kPlan);
    EXPECT_EQ(completion_place(plan, {5, 16}).kind, CompletionKind::Status);
    EXPECT_EQ(completion_place(plan, {9, 13}).kind, CompletionKind::TaskId);  // a depends_on item
    EXPECT_EQ(completion_place(plan, {10, 8}).kind, CompletionKind::TaskId);  // a new, empty item
    EXPECT_EQ(completion_place(plan, {10, 8}).begin, 8u);
    EXPECT_EQ(completion_place(plan, {4, 12}).kind, CompletionKind::None);  // a title
    const LineIndex log("entries:\n  - task_id: \"ta\"\n    status: \n");
    const CompletionPlace id = completion_place(log, {1, 16});
    EXPECT_EQ(id.kind, CompletionKind::TaskId);
    EXPECT_EQ(id.begin, 14u);  // the typed "ta", after the quote
    EXPECT_EQ(completion_place(log, {2, 12}).kind, CompletionKind::Status);
    const LineIndex flow("    depends_on: [\"task-1\", ta\n");
    EXPECT_EQ(completion_place(flow, {0, 30}).kind, CompletionKind::TaskId);
}

}  // namespace
}  // namespace small::lsp
