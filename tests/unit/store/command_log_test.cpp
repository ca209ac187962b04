// The command logs of `small apply` (store/command_log.hpp): the summary
// rules of the reference (authoring.md §8), unique names, and that no
// replay id or symbolic link can move a log out of `.small-cache/`.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "small/model/replay_id.hpp"
#include "small/store/command_log.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

namespace fs = std::filesystem;
using testing::TempWorkspace;

const std::string kId(64, 'a');

Instant at(std::int64_t s, std::uint32_t ns) { return Instant{s, ns}; }

TEST(CommandSummary, CollapsesWhitespaceAndCutsAt200Bytes) {
    EXPECT_EQ(command_summary("  make\t\ttest \n  -j2  "), "make test -j2");
    const std::string long_cmd = "echo " + std::string(220, 'x');
    const std::string s = command_summary(long_cmd);
    EXPECT_EQ(s.size(), 200u);
    EXPECT_EQ(s.substr(197), "...");
    EXPECT_EQ(command_summary(std::string(200, 'y')).size(), 200u) << "exactly 200 bytes is not cut";
}

TEST(CommandSummary, NeverSplitsACharacter) {
    std::string cmd;
    for (int i = 0; i < 120; ++i) cmd += "\xc3\xa9";  // é, 2 bytes each
    const std::string s = command_summary(cmd);
    EXPECT_LE(s.size(), 200u);
    EXPECT_EQ(s.substr(s.size() - 3), "...");
    EXPECT_EQ((s.size() - 3) % 2, 0u);
}

TEST(CommandLogStamp, IsTheInstantWithoutSeparators) {
    EXPECT_EQ(command_log_stamp(at(1748772000, 100000000)), "20250601T100000.100000000Z");
}

TEST(CreateCommandLog, WritesTheExactCommandUnderTheReplayId) {
    TempWorkspace w;
    const std::string cmd = "printf 'a\\n'\nmake  test";
    Result<CommandLog> log = create_command_log(RealFileSystem(), w.ws(), kId, cmd, at(1748772000, 5));
    ASSERT_TRUE(log) << log.error().message;
    EXPECT_EQ(log->command_ref, ".small-cache/logs/" + kId + "/commands/20250601T100000.000000005Z.txt");
    EXPECT_EQ(log->output_ref, ".small-cache/logs/" + kId + "/commands/20250601T100000.000000005Z.output.txt");
    EXPECT_EQ(testing::read_text(w.path(log->command_ref)), cmd);
    EXPECT_EQ(log->sha256, sha256_hex(cmd));
    EXPECT_EQ(log->summary, "printf 'a\\n' make test");
    ASSERT_TRUE(write_command_output(testing::real_fs, w.ws(), *log, "out\n"));
    EXPECT_EQ(testing::read_text(w.path(log->output_ref)), "out\n");
}

TEST(CreateCommandLog, TwoRunsAtTheSameInstantGetTwoLogs) {
    TempWorkspace w;
    Result<CommandLog> a = create_command_log(RealFileSystem(), w.ws(), kId, "one", at(1748772000, 0));
    Result<CommandLog> b = create_command_log(RealFileSystem(), w.ws(), kId, "two", at(1748772000, 0));
    ASSERT_TRUE(a && b);
    EXPECT_NE(a->command_ref, b->command_ref);
    EXPECT_EQ(testing::read_text(w.path(a->command_ref)), "one");
    EXPECT_EQ(testing::read_text(w.path(b->command_ref)), "two");
}

TEST(CreateCommandLog, RefusesAnIdThatIsNotAReplayId) {
    TempWorkspace w;
    const std::vector<std::string> hostile = {"../../escape", "", "ABC", std::string(64, 'A'),
                                              std::string(63, 'a') + "/", "/etc/" + std::string(59, 'a')};
    for (const std::string& bad : hostile) {
        Result<CommandLog> log = create_command_log(RealFileSystem(), w.ws(), bad, "true", at(1, 0));
        EXPECT_FALSE(log) << bad;
    }
    EXPECT_FALSE(fs::exists(w.path(".small-cache/logs")));
}

TEST(CreateCommandLog, RefusesASymlinkedFolder) {
    TempWorkspace w;
    TempWorkspace outside;
    fs::create_directories(w.path(".small-cache"));
    fs::create_directory_symlink(outside.path(""), w.path(".small-cache/logs"));
    Result<CommandLog> log = create_command_log(RealFileSystem(), w.ws(), kId, "true", at(1, 0));
    EXPECT_FALSE(log);
    EXPECT_FALSE(fs::exists(outside.path(kId)));
}

TEST(AddCommandFields, PutsThemInSchemaOrderAndCanWithholdTheText) {
    CommandLog log;
    log.summary = "make";
    log.sha256 = "h";
    log.command_ref = "r";
    YamlValue e = YamlValue::object();
    e["task_id"] = "task-1";
    e["status"] = "completed";
    e["evidence"] = "ok";
    e["notes"] = "n";
    add_command_fields(e, log);
    std::vector<std::string> keys;
    for (const auto& [k, v] : e.items()) keys.push_back(k);
    EXPECT_EQ(keys, (std::vector<std::string>{"task_id", "status", "evidence", "command", "command_summary",
                                              "command_sha256", "command_ref", "notes"}));
    log.summary.clear();
    YamlValue f = YamlValue::object();
    f["evidence"] = "ok";
    add_command_fields(f, log);
    EXPECT_FALSE(f.contains("command"));
    EXPECT_FALSE(f.contains("command_summary"));
    EXPECT_EQ(f["command_sha256"], "h");
}

}  // namespace
}  // namespace small
