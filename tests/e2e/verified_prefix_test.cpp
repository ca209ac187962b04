// The verdicts' verified-prefix cache (.small-cache/progress.verified) end to
// end: the real binary gives the same verdict with the cache as with
// --no-cache after appends, same-size edits with the mtime restored, a
// corrupt cache and an unwritable one.
#include <sys/stat.h>
#include <utime.h>

#include <fstream>
#include <string>
#include <vector>

#include "run_helper.hpp"

namespace small_e2e {
namespace {

class VerifiedPrefixE2E : public ::testing::Test {
protected:
    void SetUp() override {
        ok({"init", "--no-agents", "--intent", "Cache the verified log"});
        ok({"plan", "--add", "Second task"});
        ok({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "first done"});
        ok({"progress", "add", "--task", "task-2", "--status", "in_progress", "--evidence", "started"});
    }
    fs::path root() const { return tmp_.path(); }
    fs::path log() const { return root() / ".small/progress.small.yml"; }
    fs::path cache() const { return root() / ".small-cache/progress.verified"; }

    RunResult small(const std::vector<std::string>& args) { return run_in(root(), args); }
    void ok(const std::vector<std::string>& args) {
        const RunResult r = small(args);
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    // The verdict with the cache equals the one without; returns it.
    RunResult same_as_without_cache(std::vector<std::string> args) {
        const RunResult warm = small(args);
        args.push_back("--no-cache");
        const RunResult cold = small(args);
        EXPECT_EQ(warm.exit_code, cold.exit_code) << warm << cold;
        EXPECT_EQ(warm.out, cold.out);
        EXPECT_EQ(warm.err, cold.err);
        return warm;
    }
    void append(const std::string& text) {
        std::ofstream(log(), std::ios::app) << text;
    }

    TempDir tmp_;
};

TEST_F(VerifiedPrefixE2E, ACleanVerdictKeepsThePrefixAndAnAppendedDefectIsStillFound) {
    ok({"check", "--strict"});
    ASSERT_TRUE(fs::exists(cache()));
    EXPECT_TRUE(contains(read_file(cache()), "small verified-prefix 1"));
    append("  - timestamp: \"2099-06-01T10:20:00Z\"\n    task_id: \"task-2\"\n    status: \"completed\"\n"
           "    evidence: \"no fraction\"\n");
    for (const char* verdict : {"check", "verify", "lint", "validate"}) {
        const RunResult r = same_as_without_cache({verdict, "--strict"});
        if (std::string(verdict) != "validate") {
            EXPECT_EQ(r.exit_code, 1) << r;
            EXPECT_TRUE(contains(r.out + r.err, "[INV-R5]")) << r;
        }
    }
}

TEST_F(VerifiedPrefixE2E, AnAppendByTheToolIsCheckedAndTheCacheMovesOn) {
    ok({"check", "--strict"});
    const std::string before = read_file(cache());
    ok({"progress", "add", "--task", "task-2", "--status", "completed", "--evidence", "done"});
    const RunResult r = same_as_without_cache({"check", "--strict"});
    EXPECT_EQ(r.exit_code, 0) << r;
    ok({"check", "--strict"});
    EXPECT_NE(read_file(cache()), before);
}

TEST_F(VerifiedPrefixE2E, ASameSizeEditWithTheMtimeRestoredIsSeen) {
    ok({"check", "--strict"});
    struct stat st {};
    ASSERT_EQ(::stat(log().c_str(), &st), 0);
    std::string text = read_file(log());
    const std::size_t at = text.find("first done");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 10, "ghp_AAAAAA");  // same size; still no secret (too short) but different bytes
    const std::size_t ts = text.rfind("timestamp: \"20");
    ASSERT_NE(ts, std::string::npos);
    --text[ts + 15];  // the newest entry a year earlier: out of order (INV-R6)
    std::ofstream(log(), std::ios::trunc | std::ios::binary) << text;
    const struct utimbuf times {st.st_atime, st.st_mtime};
    ASSERT_EQ(::utime(log().c_str(), &times), 0);
    const RunResult r = same_as_without_cache({"check", "--strict"});
    EXPECT_EQ(r.exit_code, 1) << r;
}

TEST_F(VerifiedPrefixE2E, ACorruptCacheIsIgnoredAndReplaced) {
    ok({"check", "--strict"});
    std::ofstream(cache(), std::ios::trunc) << "small verified-prefix 1 garbage\nP 1 2\n";
    const RunResult r = same_as_without_cache({"check", "--strict"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(read_file(cache()), "\nP "));
}

TEST_F(VerifiedPrefixE2E, AnUnwritableCacheOnlyCostsSpeed) {
    fs::remove_all(root() / ".small-cache");
    std::ofstream(root() / ".small-cache") << "not a folder\n";
    const RunResult r = same_as_without_cache({"check", "--strict"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(fs::is_regular_file(root() / ".small-cache"));
}

TEST_F(VerifiedPrefixE2E, NoCacheLeavesTheCacheAsItIs) {
    ok({"check", "--strict"});
    const std::string before = read_file(cache());
    ok({"progress", "add", "--task", "task-2", "--status", "completed", "--evidence", "done"});
    ok({"check", "--strict", "--no-cache"});
    EXPECT_EQ(read_file(cache()), before);
}

}  // namespace
}  // namespace small_e2e
