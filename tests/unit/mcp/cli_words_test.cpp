// mcp/cli_words: the library's CLI wording in MCP's, on the messages the
// library really writes (claims, plan, checkpoint, init, check).
#include "small/mcp/cli_words.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "small/base/command_table.hpp"

namespace small {
namespace {

using mcp::in_mcp_words;

// No CLI flag and no `small <command>` phrase is left.
void expect_mcp_words(const std::string& text) {
    EXPECT_FALSE(std::regex_search(text, std::regex(R"((^|[\s(`'"])--[a-z])"))) << text;
    for (const CommandInfo& c : kCommandTable) {
        EXPECT_EQ(text.find("small " + std::string(c.name) + " "), std::string::npos) << text;
        EXPECT_FALSE(text.ends_with("small " + std::string(c.name))) << text;
        EXPECT_EQ(text.find("small " + std::string(c.name) + "`"), std::string::npos) << text;
    }
}

TEST(McpCliWords, ACommandWithoutArgumentsIsItsTool) {
    const std::string out =
        in_mcp_words("task task-9 is not in the plan; `small ready` lists the tasks to take", "claim");
    EXPECT_EQ(out, "task task-9 is not in the plan; the ready tool lists the tasks to take");
    EXPECT_EQ(in_mcp_words("nothing is ready for a: every open task is claimed (`small claims`, `small status`)", "claim"),
              "nothing is ready for a: every open task is claimed (the claims tool, the status tool)");
    EXPECT_EQ(in_mcp_words("Read `small status --brief` first", "resume"), "Read the resume tool first");
    EXPECT_EQ(in_mcp_words("run `small check --strict`", "handoff"), "run the check tool") << "check is always strict";
}

TEST(McpCliWords, ACommandWithFlagsIsACallWithArguments) {
    EXPECT_EQ(in_mcp_words("X. To add a task: small plan --add \"<title>\"", "checkpoint"),
              "X. To add a task: plan {\"add\":\"<title>\"}");
    EXPECT_EQ(in_mcp_words("Set the status again: small checkpoint --task task-3 --status completed", "checkpoint"),
              "Set the status again: checkpoint {\"task\":\"task-3\",\"status\":\"completed\"}");
    EXPECT_EQ(in_mcp_words("ask b to `small release task-3`, or --force", "claim"),
              "ask b to `release {\"task\":\"task-3\"}`, or `force: true`");
    EXPECT_EQ(in_mcp_words("Cancel it instead: small plan --cancel task-4", "plan"),
              "Cancel it instead: plan {\"task\":\"task-4\",\"status\":\"cancelled\"}");
    EXPECT_EQ(in_mcp_words("complete the dependencies first (small plan --done ID, repeatable), or add --force to "
                           "record the completion anyway",
                           "plan"),
              "complete the dependencies first (plan {\"task\":\"ID\",\"status\":\"completed\"}, repeatable), or add "
              "`force: true` to record the completion anyway");
    EXPECT_EQ(in_mcp_words("use `small plan --depends task-2:task-1,task-0`", "plan"),
              "use `plan {\"task\":\"task-2\",\"depends_on\":[\"task-1\",\"task-0\"]}`");
    EXPECT_EQ(in_mcp_words("see small plan show task-2.", "status"), "see show {\"task\":\"task-2\"}.");
    EXPECT_EQ(in_mcp_words("pass `small init --no-agents --agents-mode=append`", "init"),
              "pass `init {\"no_agents\":true,\"agents_mode\":\"append\"}`");
}

TEST(McpCliWords, ALoneFlagIsTheToolsArgument) {
    EXPECT_EQ(in_mcp_words("task_id is required (--task must not be blank)", "progress_add"),
              "task_id is required (`task` must not be blank)");
    EXPECT_EQ(in_mcp_words("--ttl must be a duration such as 90s", "claim"), "`ttl` must be a duration such as 90s");
    EXPECT_EQ(in_mcp_words("task a completed with dependencies b not completed (--force; the entry records it)", "plan"),
              "task a completed with dependencies b not completed (`force: true`; the entry records it)");
    // A flag in the clause of a command is that command's ("… refuses it unless --force"), if its tool has it.
    EXPECT_EQ(in_mcp_words("the lease is live; small claim refuses it unless --force", "check"),
              "the lease is live; the claim tool refuses it unless `force: true`");
    EXPECT_EQ(in_mcp_words("set it back (small plan --pending ID); small checkpoint refuses this unless --force", "check"),
              "set it back (plan {\"task\":\"ID\",\"status\":\"pending\"})")
        << "the checkpoint tool has no force";
}

TEST(McpCliWords, WhatNoToolOffersIsDroppedWithItsClause) {
    // The claim held by another, as checkpoint refuses it: its tool has no force, release's is not its.
    const std::string held = in_mcp_words(
        "task-2 is claimed by b until 10:00; nothing written. Take another task (`small ready`), ask b to "
        "`small release task-2`, or --force; if you are b, pass --agent b or set SMALL_AGENT=b",
        "checkpoint");
    EXPECT_EQ(held, "task-2 is claimed by b until 10:00; nothing written. Take another task (the ready tool), ask b to "
                    "`release {\"task\":\"task-2\"}`");
    expect_mcp_words(held);
    const std::string init = in_mcp_words(
        "/w/.small already exists. To start a new run on the same intent use `small reset`; to start over from "
        "templates use `small init --force` (the old artifacts are copied to .small-runs/, the progress log is kept)",
        "init");
    EXPECT_EQ(init, "/w/.small already exists");
    EXPECT_EQ(in_mcp_words("bad line (run 'small progress migrate' to repair)", "status"), "bad line");
    EXPECT_EQ(in_mcp_words("no workspace; create a workspace with `small init`, or pass --dir", "check"),
              "no workspace; create a workspace with the init tool");
    EXPECT_EQ(in_mcp_words("task-2 has a claim; only its holder releases it, or --force", "release"),
              "task-2 has a claim; only its holder releases it");
    EXPECT_EQ(in_mcp_words("write one of the five statuses (small plan --done/--pending ID does)", "check"),
              "write one of the five statuses");
    // A message that is nothing but a CLI line is kept rather than lost.
    EXPECT_EQ(in_mcp_words("small fix --runtime-layout", "check"), "small fix --runtime-layout");
}

TEST(McpCliWords, GitAndProseAreLeftAlone) {
    for (const char* text : {"this clone is shallow: fetch the history (git fetch --unshallow), or fix the id",
                             "a file larger than 256 MiB, the most small reads from one file",
                             "it is a symbolic link, and small does not follow one here",
                             "the next small command that writes will complete it", "---", "a -- b"}) {
        EXPECT_EQ(in_mcp_words(text, "check"), text);
    }
}

// The table names each tool once at least, and a flag at most once per command.
TEST(McpCliWords, TheTableIsConsistent) {
    std::set<std::string_view> tools;
    for (const mcp::CommandWord& c : mcp::command_words()) {
        tools.insert(c.tool);
        const std::string_view first = c.command.substr(0, c.command.find(' '));
        EXPECT_NE(find_command(first), nullptr) << c.command << " is a command of the CLI";
        std::set<std::string_view> flags;
        for (const mcp::FlagWord& f : c.flags) EXPECT_TRUE(flags.insert(f.flag).second) << c.command << " " << f.flag;
    }
    for (const CommandInfo& c : kCommandTable) {
        for (const McpTool& t : c.mcp) EXPECT_TRUE(tools.count(t.name)) << t.name << " has no CLI words";
    }
}

}  // namespace
}  // namespace small
