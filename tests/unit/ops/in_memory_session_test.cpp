// A whole session on the in-memory FileSystem: init, plan, checkpoint and
// handoff write through the door's fake, and the strict verdict of the
// result holds. No folder is made on the real disk.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "support/fixtures.hpp"
#include "small/ops/session/checkpoint.hpp"
#include "small/ops/session/handoff.hpp"
#include "small/ops/session/init.hpp"
#include "small/ops/session/plan.hpp"

namespace small {
namespace {

constexpr const char* kRoot = "/in-memory-workspace";

bool on_real_disk(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

class InMemorySession : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_FALSE(on_real_disk(kRoot));
        fs_.add_directory(kRoot);
        InitRequest req;
        req.dir = kRoot;
        req.cwd = kRoot;
        req.no_agents = true;
        Result<InitResult> init = init_command(fs_, req);
        ASSERT_TRUE(init) << init.error().describe();
        ws_ = locate_workspace(fs_, std::string(kRoot), kRoot);
    }

    Verdict strict_verdict() {
        Result<SchemaSet> schemas = SchemaSet::embedded();
        EXPECT_TRUE(schemas.ok());
        VerdictOptions options;
        options.strict = true;
        return run_check(VerdictInput{fs_, ws_, *schemas}, options);
    }

    std::string text(const std::string& name) {
        Result<std::string> r = fs_.read_file(ws_.path_of(name));
        return r ? *r : "";
    }

    MemoryFileSystem fs_;
    WorkspacePaths ws_;
};

TEST_F(InMemorySession, InitPlanCheckpointHandoffNeedNoFolder) {
    EXPECT_FALSE(text("plan.small.yml").empty());
    PlanRequest add;
    add.add = {"Write the parser"};
    Result<PlanResult> planned = plan_command(fs_, ws_, add);
    ASSERT_TRUE(planned) << planned.error().describe();
    const std::string task = planned->added_task_id;
    ASSERT_FALSE(task.empty());

    CheckpointRequest done;
    done.task = task;
    done.status = TaskStatus::Completed;
    done.evidence = "parser tests pass";
    Result<CheckpointResult> checked = checkpoint_command(fs_, ws_, done);
    ASSERT_TRUE(checked) << checked.error().describe();
    EXPECT_TRUE(testing::contains(text("progress.small.yml"), "parser tests pass"));
    EXPECT_TRUE(testing::contains(text("plan.small.yml"), "status: \"completed\""));

    Result<HandoffResult> handed = handoff_command(fs_, ws_, HandoffRequest{});
    ASSERT_TRUE(handed) << handed.error().describe();
    EXPECT_TRUE(testing::contains(text("handoff.small.yml"), "replayId:"));

    const Verdict v = strict_verdict();
    std::string why;
    for (const Finding& f : v.all_findings()) why += f.location_text() + " [" + f.rule + "]\n";
    EXPECT_EQ(v.outcome, VerdictOutcome::Ok) << why;
    EXPECT_FALSE(on_real_disk(kRoot)) << "nothing reached the real disk";
}

TEST_F(InMemorySession, AppendsStayAppendsInTheFake) {
    const std::string log = ws_.path_of("progress.small.yml");
    PlanRequest add;
    add.add = {"One", "Two"};
    ASSERT_TRUE(plan_command(fs_, ws_, add));
    const std::optional<FileInfo> before = fs_.stat(log);
    const std::string bytes_before = text("progress.small.yml");
    CheckpointRequest step;
    step.task = "task-2";
    step.status = TaskStatus::InProgress;
    ASSERT_TRUE(checkpoint_command(fs_, ws_, step));
    const std::optional<FileInfo> after = fs_.stat(log);
    ASSERT_TRUE(before && after);
    EXPECT_EQ(after->identity, before->identity) << "the log was appended to, not replaced";
    EXPECT_EQ(text("progress.small.yml").substr(0, bytes_before.size()), bytes_before) << "earlier bytes kept";
}

TEST_F(InMemorySession, AReadOnlyPlanIsRefusedAsOnDisk) {
    const std::string plan_before = text("plan.small.yml");
    const std::string log_before = text("progress.small.yml");
    fs_.set_read_only(ws_.path_of("plan.small.yml"));
    PlanRequest add;
    add.add = {"Refused"};
    Result<PlanResult> refused = plan_command(fs_, ws_, add);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().kind, Error::Kind::System);
    EXPECT_EQ(text("plan.small.yml"), plan_before);
    EXPECT_EQ(text("progress.small.yml"), log_before) << "nothing of the change was written";
}

}  // namespace
}  // namespace small
