// The --status value of `small progress add` (ops/progress_add): any of the
// five statuses, trimmed and case-insensitive; anything else is a Usage
// error that names them, after a blank --task.
#include "small/ops/session/progress_add.hpp"

#include <gtest/gtest.h>

#include <string>

namespace small {
namespace {

TEST(ProgressAddStatus, AnyOfTheFiveTrimmedAndCaseInsensitive) {
    EXPECT_EQ(parse_progress_status("task-1", "pending").value(), TaskStatus::Pending);
    EXPECT_EQ(parse_progress_status("task-1", " In_Progress\t").value(), TaskStatus::InProgress);
    EXPECT_EQ(parse_progress_status("task-1", "CANCELLED").value(), TaskStatus::Cancelled);
}

TEST(ProgressAddStatus, AnythingElseIsUsageNamingTheFive) {
    for (const char* status : {"done", "in progress", ""}) {
        const Result<TaskStatus> r = parse_progress_status("task-1", status);
        ASSERT_FALSE(r.ok()) << status;
        EXPECT_EQ(r.error().kind, Error::Kind::Usage) << status;
        EXPECT_EQ(r.error().message, "invalid status \"" + std::string(status) +
                                         "\" (must be pending, in_progress, completed, blocked, or cancelled)");
    }
}

TEST(ProgressAddStatus, ABlankTaskIsReportedFirst) {
    const Result<TaskStatus> r = parse_progress_status(" ", "done");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Usage);
    EXPECT_EQ(r.error().message, "task_id is required (--task must not be blank)");
}

}  // namespace
}  // namespace small
