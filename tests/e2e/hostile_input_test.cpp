// Artifacts and draft sources that are not regular files: a FIFO used to
// block forever (accept holding the workspace lock), /dev/zero to read until
// memory ran out. Each run here has a timeout; a hang fails the test.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "run_helper.hpp"

namespace {

using namespace small_e2e;

RunResult run_bounded(const fs::path& cwd, const std::vector<std::string>& args) {
    RunOptions opts;
    opts.cwd = cwd;
    opts.timeout = std::chrono::milliseconds(10'000);
    return run_small(args, opts);
}

class HostileInputTest : public ::testing::Test {
protected:
    TempDir tmp_;
    fs::path ws() const { return tmp_.path(); }
    void SetUp() override { ASSERT_EQ(run_in(ws(), {"init", "--no-agents"}).exit_code, 0); }
};

TEST_F(HostileInputTest, ADraftFromAFifoOrACharacterDeviceIsRefusedAtOnce) {
    ASSERT_EQ(::mkfifo((ws() / "pipe").c_str(), 0600), 0);
    RunResult r = run_bounded(ws(), {"draft", "intent", "--from", "pipe"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "FIFO")) << r;
    r = run_bounded(ws(), {"draft", "intent", "--from", "/dev/zero"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "not a regular file")) << r;
    EXPECT_FALSE(fs::exists(ws() / ".small-cache" / "drafts" / "intent.small.yml"));
}

TEST_F(HostileInputTest, AnArtifactThatIsAFifoIsReportedNotWaitedFor) {
    const fs::path intent = ws() / ".small" / "intent.small.yml";
    fs::remove(intent);
    ASSERT_EQ(::mkfifo(intent.c_str(), 0600), 0);
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"validate"}, {"check", "--strict"}, {"replay-id"}}) {
        const RunResult r = run_bounded(ws(), args);
        EXPECT_NE(r.exit_code, 0) << r;
        EXPECT_TRUE(contains(r.err, "intent.small.yml")) << r;
    }
}

}  // namespace
