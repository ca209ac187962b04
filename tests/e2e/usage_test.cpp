// End-to-end tests of usage errors (D4: exit 2): they name what was wrong at
// the level where it was given, suggest the closest valid name there, and
// point at that command's help, in text and in the --json envelope (D16).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_binary.hpp"

namespace {

using namespace small_e2e;

// A usage error in text mode: exit 2, nothing on stdout, `fragments` and
// the help pointer of `command` on stderr.
void expect_usage_error(const std::vector<std::string>& args, const std::vector<std::string>& fragments,
                        const std::string& command) {
    TempDir dir;
    const RunResult r = run_in(dir.path(), args);
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(r.out.empty()) << r;
    for (const std::string& f : fragments) EXPECT_TRUE(contains(r.err, f)) << "missing: " << f << "\n" << r;
    EXPECT_TRUE(contains(r.err, "Run '" + command + " --help' for usage.")) << r;
}

TEST(UsageE2E, UnknownFlagIsNamedWithTheClosestFlagOfThatCommand) {
    expect_usage_error({"progress", "add", "--tsk", "x", "--status", "pending"},
                       {"unknown flag --tsk for \"small progress add\"; did you mean --task?"}, "small progress add");
    expect_usage_error({"verify", "--stirct"}, {"unknown flag --stirct for \"small verify\"; did you mean --strict?"},
                       "small verify");
    expect_usage_error({"lint", "--bogus-flag"}, {"unknown flag --bogus-flag for \"small lint\"\n"}, "small lint");
    expect_usage_error({"reset", "-x"}, {"unknown flag -x for \"small reset\""}, "small reset");
}

TEST(UsageE2E, GlobalFlagsAreKnownAtEveryLevel) {
    TempDir dir;
    const RunResult r = run_in(dir.path(), {"agents", "print", "--quiet", "--no-color", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r;
}

TEST(UsageE2E, UnknownSubcommandSuggestsTheClosestAtThatLevel) {
    expect_usage_error({"progress", "ad"}, {"unknown command \"ad\" for \"small progress\"", "Did you mean this?\n\tadd"},
                       "small progress");
    expect_usage_error({"agents", "chek"}, {"unknown command \"chek\" for \"small agents\"", "Did you mean this?\n\tcheck"},
                       "small agents");
}

TEST(UsageE2E, UnknownTopLevelCommandKeepsTheReferenceWording) {
    expect_usage_error({"valdate"}, {"unknown command \"valdate\" for \"small\"", "Did you mean this?\n\tvalidate"},
                       "small");
}

TEST(UsageE2E, OneValueFlagGivenTwiceIsSaidPlainly) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"progress", "add", "--task", "a", "--task", "b", "--status", "pending"},
          std::vector<std::string>{"progress", "add", "--task=a", "--status", "pending", "--task=b"}}) {
        expect_usage_error(args, {"--task was given twice; it takes one value"}, "small progress add");
    }
}

TEST(UsageE2E, MissingValueAndStrayArgumentNameTheCommand) {
    expect_usage_error({"validate", "--dir"}, {"--dir needs a value"}, "small validate");
    expect_usage_error({"validate", "extra"}, {"unexpected argument \"extra\" for \"small validate\""},
                       "small validate");
    // CLI11's own errors also point at the command's help.
    expect_usage_error({"progress", "add", "--status", "pending"}, {"--task is required"}, "small progress add");
}

TEST(UsageE2E, ValidCommandLinesStillPass) {
    TempDir dir;
    ASSERT_EQ(run_in(dir.path(), {"init", "--quiet"}).exit_code, 0);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"plan", "--title=task-1", "Renamed"},  // a two-value flag, first value attached
          std::vector<std::string>{"plan", "--title", "task-1", "--in-progress"},  // a value that looks like a flag
          std::vector<std::string>{"progress", "add", "--task=task-1", "--status", "completed", "--json"},
          std::vector<std::string>{"--quiet", "reset", "-y"}}) {
        const RunResult r = run_in(dir.path(), args);
        EXPECT_EQ(r.exit_code, 0) << r;
    }
}

TEST(UsageE2E, JsonUsageErrorIsOneEnvelope) {
    TempDir dir;
    const RunResult r = run_in(dir.path(), {"progress", "add", "--json", "--tsk", "x"});
    EXPECT_EQ(r.exit_code, 2) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["command"], "progress add") << r;
    EXPECT_EQ((*doc)["ok"], false) << r;
    EXPECT_EQ((*doc)["exit_code"], 2) << r;
    EXPECT_EQ((*doc)["error"]["kind"], "usage") << r;
    const std::string message = (*doc)["error"]["message"];
    EXPECT_TRUE(contains(message, "did you mean --task?")) << r;
    EXPECT_TRUE(contains(message, "small progress add --help")) << r;
    EXPECT_TRUE(r.err.empty()) << r;
}

TEST(UsageE2E, HelpForASubcommandStillWorks) {
    TempDir dir;
    const RunResult r = run_in(dir.path(), {"help", "progress", "add"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "--task")) << r;
    const RunResult flag = run_in(dir.path(), {"progress", "add", "--tsk", "--help"});
    EXPECT_EQ(flag.exit_code, 0) << flag;
    EXPECT_TRUE(contains(flag.out, "--task")) << flag;
}

}  // namespace
