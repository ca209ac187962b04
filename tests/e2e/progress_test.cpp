// End-to-end tests of `small progress add` and `small progress migrate`
// (authoring.md §6, DECISIONS D4, D7, D8, D9): the real binary on a
// workspace in a fresh temporary directory.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.hpp"
#include "support/artifact_texts.hpp"

namespace {

using namespace small_e2e;
using small::test_fixtures::kRunId;
using small::test_fixtures::kIntent;
using small::test_fixtures::kConstraints;
using small::test_fixtures::kPlan;

// A comment and an odd key order that an append must keep byte for byte.
const std::string kProgress = [] {
    std::string text = small::test_fixtures::kProgress;
    return text.insert(text.find("entries:"), "# hand-written note: keep me\n");
}();

using small::test_fixtures::kHandoff;

const std::string kWorkspaceMeta = small::test_fixtures::minimal_workspace_meta(true);

const std::regex kCanonical(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$)");

class ProgressTest : public ::testing::Test {
protected:
    TempDir tmp_;
    fs::path ws() const { return tmp_.path() / "ws"; }
    fs::path progress() const { return ws() / ".small" / "progress.small.yml"; }

    void SetUp() override {
        const fs::path s = ws() / ".small";
        write_file(s / "intent.small.yml", kIntent);
        write_file(s / "constraints.small.yml", kConstraints);
        write_file(s / "plan.small.yml", kPlan);
        write_file(s / "progress.small.yml", kProgress);
        write_file(s / "handoff.small.yml", kHandoff);
        write_file(s / "workspace.small.yml", kWorkspaceMeta);
    }
    RunResult run(const std::vector<std::string>& args,
                  std::vector<std::pair<std::string, std::optional<std::string>>> env = {}) {
        return run_in(ws(), args, std::move(env));
    }
};

TEST_F(ProgressTest, AddAppendsWithoutTouchingExistingBytes) {
    const RunResult r = run({"progress", "add", "--task", "task-1", "--status", "completed", "--evidence", "Done",
                             "--test", "make test", "--notes", "n"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "progress added: task-1 completed ")) << r;
    // One status per task (issue 37): the plan says completed too, as checkpoint would set it.
    EXPECT_TRUE(contains(r.out, "(the plan's status too)")) << r;
    EXPECT_FALSE(contains(r.err, "Warning")) << r;
    EXPECT_TRUE(contains(read_file(ws() / ".small" / "plan.small.yml"), "status: \"completed\"")) << r;
    const std::string after = read_file(progress());
    ASSERT_EQ(after.substr(0, kProgress.size()), kProgress) << after;  // D7: append-only in the byte sense
    const std::string added = after.substr(kProgress.size());
    EXPECT_TRUE(contains(added, "task_id: \"task-1\"")) << added;
    EXPECT_TRUE(contains(added, "test: \"make test\"")) << added;
    EXPECT_TRUE(contains(added, std::string("replayId: \"") + kRunId + "\"")) << added;  // D8
    const RunResult lint = run({"lint", "--strict"});
    EXPECT_EQ(lint.exit_code, 0) << lint;
}

TEST_F(ProgressTest, AddJsonReportsTheStoredEntry) {
    const RunResult r = run({"progress", "add", "--task", "task-1", "--status", "in_progress", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const json doc = json::parse(r.out);
    EXPECT_EQ(doc["ok"], true);
    EXPECT_EQ(doc["entry"]["task_id"], "task-1");
    EXPECT_EQ(doc["entry"]["status"], "in_progress");
    EXPECT_EQ(doc["entry"]["evidence"], "Recorded progress via small progress add");  // D9 default
    EXPECT_EQ(doc["entry"]["replayId"], kRunId);
    EXPECT_TRUE(std::regex_match(doc["entry"]["timestamp"].get<std::string>(), kCanonical)) << doc.dump();
    EXPECT_EQ(doc["task_exists_in_plan"], true);
    EXPECT_EQ(doc["workspace"], fs::canonical(ws()).string());
}

TEST_F(ProgressTest, AddRefusesATaskNotInThePlanAndSuggestsTheClosest) {
    // D14: a typo never reaches the append-only log.
    RunResult r = run({"progress", "add", "--task", "task-9", "--status", "completed"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "task task-9 is not in")) << r;
    EXPECT_TRUE(contains(r.err, "Did you mean task-1?")) << r;
    EXPECT_TRUE(contains(r.err, "small plan --add")) << r;
    EXPECT_EQ(read_file(progress()), kProgress);
    r = run({"progress", "add", "--task", "task-8", "--status", "completed", "--json"});
    EXPECT_EQ(r.exit_code, 1) << r;
    const json doc = json::parse(r.out);
    EXPECT_EQ(doc["ok"], false);
    EXPECT_EQ(doc["error"]["kind"], "invalid");
    EXPECT_TRUE(contains(doc["error"]["message"].get<std::string>(), "task-1")) << doc.dump();
    EXPECT_EQ(read_file(progress()), kProgress);
    // meta/ ids are bookkeeping: always allowed, never warned about.
    r = run({"progress", "add", "--task", "meta/note", "--status", "completed"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_FALSE(contains(r.err, "Warning")) << r;
}

TEST_F(ProgressTest, AddReportsThePlanStatusInJson) {
    RunResult r = run({"progress", "add", "--task", "task-1", "--status", "blocked", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    json doc = json::parse(r.out);
    EXPECT_EQ(doc["plan_status"], "blocked");  // the plan's status after the write: one status per task
    EXPECT_EQ(doc["plan_updated"], true);
    EXPECT_TRUE(doc["warnings"].empty()) << doc.dump();
    r = run({"progress", "add", "--task", "task-1", "--status", "blocked", "--json"});
    doc = json::parse(r.out);
    EXPECT_EQ(doc["plan_updated"], false) << "the plan already says blocked";
    EXPECT_EQ(doc["plan_status"], "blocked");
    r = run({"progress", "add", "--task", "task-1", "--status", "in_progress", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    doc = json::parse(r.out);
    EXPECT_TRUE(doc["warnings"].empty()) << doc.dump();
}

TEST_F(ProgressTest, AHandEditedPlanIsReadAgainDespiteTheTaskCache) {
    ASSERT_EQ(run({"progress", "add", "--task", "task-1", "--status", "in_progress"}).exit_code, 0);
    ASSERT_TRUE(fs::exists(ws() / ".small-cache" / "plan.cache"));
    // A hand edit renames the task: the cached ids must not be trusted.
    std::string plan = read_file(ws() / ".small" / "plan.small.yml");
    plan.replace(plan.find("\"task-1\""), 8, "\"task-5\"");
    write_file(ws() / ".small" / "plan.small.yml", plan);
    RunResult r = run({"progress", "add", "--task", "task-1", "--status", "in_progress"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "Did you mean task-5?")) << r;
    r = run({"progress", "add", "--task", "task-5", "--status", "in_progress"});
    EXPECT_EQ(r.exit_code, 0) << r;
}

TEST_F(ProgressTest, BadFlagValuesAreUsageErrorsAndWriteNothing) {
    const std::vector<std::vector<std::string>> cases = {
        {"progress", "add", "--task", "task-1", "--status", "finished"},
        {"progress", "add", "--status", "completed"},
        {"progress", "add", "--task", "task-1"},
        {"progress", "add", "--task", "  ", "--status", "completed"},
        {"progress", "add", "--task", "task-1", "--status", "completed", "--at", "2099-01-01T00:00:00.5Z", "--after",
         "2099-01-01T00:00:00.5Z"},
        {"progress", "add", "--task", "task-1", "--status", "completed", "--at", "2099-01-01T00:00:00Z"},
        {"progress", "add", "--task", "task-1", "--status", "completed", "--after", "yesterday"},
        {"progress", "add", "--task", "task-1", "--status", "completed", "--commit", "NOT-HEX"},
        {"progress", "add", "--task", "task-1", "--status", "completed", "--bogus"},
    };
    for (const auto& args : cases) {
        const RunResult r = run(args);
        EXPECT_EQ(r.exit_code, 2) << r;
        EXPECT_EQ(read_file(progress()), kProgress) << r;
        std::vector<std::string> with_json = args;
        with_json.push_back("--json");
        const RunResult j = run(with_json);
        EXPECT_EQ(j.exit_code, 2) << j;
        const auto doc = json::parse(j.out, nullptr, false);
        ASSERT_FALSE(doc.is_discarded()) << j;
        EXPECT_EQ(doc["ok"], false) << j;
    }
}

TEST_F(ProgressTest, AtMustBeAfterTheLastEntry) {
    RunResult r = run({"progress", "add", "--task", "task-1", "--status", "completed", "--at", "2020-01-01T00:00:00.5Z"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "after")) << r;
    EXPECT_EQ(read_file(progress()), kProgress);
    r = run({"progress", "add", "--task", "task-1", "--status", "completed", "--at", "2099-01-01T02:00:00.5+02:00"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(read_file(progress()), "timestamp: \"2099-01-01T00:00:00.500000000Z\"")) << r;
}

TEST_F(ProgressTest, AfterUsesTheLaterOfItsValueAndTheLastEntryPlusOneNanosecond) {
    RunResult r = run({"progress", "add", "--task", "task-1", "--status", "completed", "--after",
                       "2020-01-01T00:00:00.5Z", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(json::parse(r.out)["entry"]["timestamp"], "2025-06-01T10:00:00.100000001Z");
    r = run({"progress", "add", "--task", "task-1", "--status", "completed", "--after", "2099-01-01T00:00:00.000000001Z",
             "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(json::parse(r.out)["entry"]["timestamp"], "2099-01-01T00:00:00.000000002Z");
    // The clock is behind the last entry now: the next one is bumped by 1 ns (D8).
    r = run({"progress", "add", "--task", "task-1", "--status", "completed", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(json::parse(r.out)["entry"]["timestamp"], "2099-01-01T00:00:00.000000003Z");
}

TEST_F(ProgressTest, RefusesSecretsInAnAppendOnlyLog) {
    const RunResult r = run({"progress", "add", "--task", "task-1", "--status", "completed", "--evidence",
                             "used AKIAIOSFODNN7EXAMPLE to deploy"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "potential secret detected")) << r;
    EXPECT_EQ(read_file(progress()), kProgress);
}

TEST_F(ProgressTest, MissingSmallDirectoryIsExit2) {
    const fs::path empty = tmp_.path() / "empty";
    fs::create_directories(empty);
    RunResult r = run_in(empty, {"progress", "add", "--task", "t", "--status", "completed", "--dir", empty.string()});
    EXPECT_EQ(r.exit_code, 2) << r;
    r = run_in(empty, {"progress", "add", "--task", "t", "--status", "completed", "--dir", empty.string(), "--json"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_EQ(json::parse(r.out)["error"]["kind"], "system") << r;
}

TEST_F(ProgressTest, CreatesAMissingLog) {
    fs::remove(progress());
    const RunResult r = run({"progress", "add", "--task", "task-1", "--status", "completed", "--evidence", "x"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const RunResult lint = run({"lint"});
    EXPECT_EQ(lint.exit_code, 0) << lint << read_file(progress());
}

TEST_F(ProgressTest, BusyLockIsExit3) {
    const fs::path cache = ws() / ".small-cache";
    fs::create_directories(cache);
    const int fd = ::open((cache / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX), 0);
    const std::vector<std::pair<std::string, std::optional<std::string>>> env = {{"SMALL_LOCK_TIMEOUT_MS", "100"}};
    RunResult r = run({"progress", "add", "--task", "task-1", "--status", "completed"}, env);
    EXPECT_EQ(r.exit_code, 3) << r;
    EXPECT_TRUE(contains(r.err, "workspace is locked by pid")) << r;
    r = run({"progress", "migrate", "--json"}, env);
    EXPECT_EQ(r.exit_code, 3) << r;
    EXPECT_EQ(json::parse(r.out)["error"]["kind"], "busy") << r;
    ::close(fd);
    EXPECT_EQ(read_file(progress()), kProgress);
    r = run({"progress", "add", "--task", "task-1", "--status", "completed"}, env);
    EXPECT_EQ(r.exit_code, 0) << r;
}

TEST_F(ProgressTest, GroupAlonePrintsHelp) {
    const RunResult r = run({"progress"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "add")) << r;
    EXPECT_TRUE(contains(r.out, "migrate")) << r;
}

const std::string kLegacyProgress = R"(small_version: "1.0.0"
owner: "agent"
# legacy log
entries:
  - timestamp: 2025-01-01T00:00:00Z   # unquoted (a string, D2)
    task_id: "meta/init"
    status: "completed"
    evidence: "init"
  - {timestamp: '2025-01-01T00:00:00Z', task_id: "meta/a", status: "completed", evidence: "a"}
  - timestamp: "2025-01-01T02:00:00+02:00"
    task_id: "meta/b"
    status: "completed"
    evidence: "b"
)";

TEST_F(ProgressTest, MigrateRewritesOnlyTheTimestamps) {
    write_file(progress(), kLegacyProgress);
    RunResult r = run({"progress", "migrate", "--dry-run"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(read_file(progress()), kLegacyProgress);
    r = run({"progress", "migrate"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Rewrote 3 progress timestamp(s)")) << r;
    // D20: quoting as written (a plain time is quoted: YAML 1.1 readers would take it for a timestamp).
    const std::string expected = R"(small_version: "1.0.0"
owner: "agent"
# legacy log
entries:
  - timestamp: "2025-01-01T00:00:00.000000000Z"   # unquoted (a string, D2)
    task_id: "meta/init"
    status: "completed"
    evidence: "init"
  - {timestamp: '2025-01-01T00:00:00.000000001Z', task_id: "meta/a", status: "completed", evidence: "a"}
  - timestamp: "2025-01-01T00:00:00.000000002Z"
    task_id: "meta/b"
    status: "completed"
    evidence: "b"
)";
    EXPECT_EQ(read_file(progress()), expected);
    r = run({"progress", "migrate", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(json::parse(r.out)["changed"], 0);
    EXPECT_EQ(run({"lint"}).exit_code, 0);
    // Appends work on the migrated log.
    r = run({"progress", "add", "--task", "task-1", "--status", "completed"});
    EXPECT_EQ(r.exit_code, 0) << r;
}

// D20 item 4: a timestamp the in-place edit cannot reach (a folded scalar)
// makes the file be written whole, and the warning names the file and line.
TEST_F(ProgressTest, MigrateSaysWhereItCouldNotKeepTheFormatting) {
    write_file(progress(), "small_version: \"1.0.0\"\nowner: \"agent\"\n# kept?\nentries:\n"
                           "  - timestamp: \"2025-01-01T00:00:00.000000000Z\"\n    task_id: \"meta/init\"\n"
                           "    status: \"completed\"\n    evidence: \"init\"\n"
                           "  - timestamp: >-\n      2025-01-01T00:00:00Z\n    task_id: \"meta/a\"\n"
                           "    status: \"completed\"\n    evidence: \"a\"\n");
    const RunResult r = run({"progress", "migrate"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, "Warning: .small/progress.small.yml:9: rewritten in house style, its comments and "
                                "formatting not kept (the timestamp is not a one-line scalar)")) << r;
    EXPECT_TRUE(contains(read_file(progress()), "timestamp: \"2025-01-01T00:00:00.000000001Z\"")) << read_file(progress());
    EXPECT_EQ(run({"lint"}).exit_code, 0);
}

// Issue 39: a log longer than the 8 MB small reads whole is planned and
// rewritten in windows of whole entries, to the bytes the whole read wrote:
// only the timestamps change, quoted as they were; comments, block scalars
// and CRLF line breaks stay.
TEST_F(ProgressTest, MigrateRewritesALongLogInWindows) {
    for (const bool crlf : {false, true}) {
        std::string before = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";
        std::string after = before;
        for (int i = 0; i < 80000; ++i) {
            const auto two = [](int n) { return std::string(n < 10 ? "0" : "") + std::to_string(n); };
            const std::string t = "2025-01-01T" + two(i / 3600) + ":" + two(i / 60 % 60) + ":" + two(i % 60);
            const bool plain = i % 3 == 0;
            const std::string old_ts = plain ? t + "Z" : "\"" + t + "Z\"";
            const std::string new_ts = "\"" + t + ".000000000Z\"";
            const std::string rest = "    task_id: \"task-1\"\n    status: \"in_progress\"\n" +
                                     std::string(i % 4 == 0 ? "    notes: |\n      - timestamp: kept\n      as written\n" : "") +
                                     (i % 5 == 0 ? "  # between entries\n" : "") + "    evidence: \"step " + std::to_string(i) + "\"\n";
            before += "  - timestamp: " + old_ts + "\n" + rest;
            after += "  - timestamp: " + new_ts + "\n" + rest;
        }
        ASSERT_GT(before.size(), std::size_t{9} << 20);
        if (crlf) {
            for (std::string* text : {&before, &after}) *text = std::regex_replace(*text, std::regex("\n"), "\r\n");
        }
        write_file(progress(), before);
        RunResult r = run({"progress", "migrate", "--dry-run", "--json"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(json::parse(r.out)["changed"], 80000);
        EXPECT_EQ(read_file(progress()), before);
        r = run({"progress", "migrate", "--json"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(json::parse(r.out)["written"], true);
        EXPECT_TRUE(read_file(progress()) == after) << "crlf " << crlf;
        EXPECT_EQ(json::parse(run({"progress", "migrate", "--json"}).out)["changed"], 0);
    }
}

// A malformed entry in the middle of a long log: the error names the file,
// line and column, and nothing is written.
TEST_F(ProgressTest, MigrateOfALongLogWithABrokenEntryWritesNothing) {
    std::string log = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";
    for (int i = 0; i < 90000; ++i) {
        if (i == 45000) log += "  - timestamp: [broken\n    task_id: \"x\"\n";
        log += "  - timestamp: \"2025-01-01T10:00:00Z\"\n    task_id: \"task-1\"\n    evidence: \"" +
               std::string(60, 'x') + "\"\n";
    }
    ASSERT_GT(log.size(), std::size_t{8} << 20);
    write_file(progress(), log);
    const RunResult r = run({"progress", "migrate"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, ".small/progress.small.yml:135006:3: YAML syntax error")) << r.err;
    EXPECT_TRUE(read_file(progress()) == log);
}

TEST_F(ProgressTest, MigrateRefusesAnUnparseableTimestampAndWritesNothing) {
    const std::string bad = kProgress + "  - timestamp: \"not-a-time\"\n    task_id: \"meta/x\"\n    evidence: \"x\"\n";
    write_file(progress(), bad);
    RunResult r = run({"progress", "migrate"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "progress entry 1 timestamp \"not-a-time\" is not parseable")) << r;
    EXPECT_EQ(read_file(progress()), bad);
    const std::string missing = kProgress + "  - task_id: \"meta/x\"\n    evidence: \"x\"\n";
    write_file(progress(), missing);
    r = run({"progress", "migrate"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "progress entry 1 timestamp is required")) << r;
    EXPECT_EQ(read_file(progress()), missing);
}

}  // namespace
