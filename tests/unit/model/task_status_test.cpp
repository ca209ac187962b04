// Task statuses (task_status.hpp): the words, exact parsing, the done and
// settled rules, and a written status that keeps a word of its own.
#include "small/model/task_status.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace small {
namespace {

using Words = std::vector<std::string>;

TEST(TaskStatusNames, AreTheProtocolWordsInMessageOrder) {
    EXPECT_EQ(status_names(kTaskStatuses), (Words{"pending", "in_progress", "completed", "blocked", "cancelled"}));
}

TEST(TaskStatusParse, RoundTripsEveryStatus) {
    for (const TaskStatus s : kTaskStatuses) EXPECT_EQ(parse_task_status(status_name(s)), s) << status_name(s);
}

TEST(TaskStatusParse, TakesExactWordsOnly) {
    for (const char* word : {"", "Completed", "COMPLETED", " completed", "completed ", "in-progress", "done"}) {
        EXPECT_EQ(parse_task_status(word), std::nullopt) << '"' << word << '"';
    }
}

TEST(TaskStatusRules, DoneIsCompletedOrCancelled) {
    Words done;
    for (const TaskStatus s : kTaskStatuses) {
        if (is_done(s)) done.emplace_back(status_name(s));
    }
    EXPECT_EQ(done, (Words{"completed", "cancelled"}));
}

TEST(TaskStatusRules, SettledIsCompletedBlockedOrCancelled) {
    Words settled;
    for (const TaskStatus s : kTaskStatuses) {
        if (is_settled(s)) settled.emplace_back(status_name(s));
    }
    EXPECT_EQ(settled, (Words{"completed", "blocked", "cancelled"}));
}

TEST(WrittenStatus, KnowsTheStatusItsWordNames) {
    const WrittenStatus blocked(std::string("blocked"));
    EXPECT_EQ(blocked.known(), TaskStatus::Blocked);
    EXPECT_TRUE(blocked.is(TaskStatus::Blocked));
    EXPECT_FALSE(blocked.is(TaskStatus::Pending));
    EXPECT_TRUE(is_settled(blocked));
    EXPECT_FALSE(is_done(blocked));
    EXPECT_TRUE(blocked == WrittenStatus(TaskStatus::Blocked));
}

TEST(WrittenStatus, KeepsAWordOfItsOwn) {
    const WrittenStatus review(std::string("review"));
    EXPECT_EQ(review.word(), "review");
    EXPECT_EQ(review.known(), std::nullopt);
    for (const TaskStatus s : kTaskStatuses) EXPECT_FALSE(review.is(s)) << status_name(s);
    EXPECT_FALSE(is_done(review));
    EXPECT_FALSE(is_settled(review));
    EXPECT_FALSE(review == WrittenStatus(std::string("Review")));
}

TEST(WrittenStatus, EmptyMeansNothingWritten) {
    const WrittenStatus none;
    EXPECT_TRUE(none.empty());
    EXPECT_EQ(none.word(), "");
    EXPECT_EQ(none.known(), std::nullopt);
    EXPECT_FALSE(WrittenStatus(TaskStatus::Pending).empty());
    EXPECT_EQ(WrittenStatus(TaskStatus::InProgress).word(), "in_progress");
}

}  // namespace
}  // namespace small
