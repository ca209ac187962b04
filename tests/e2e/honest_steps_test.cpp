// The agent is never told something false (issue 37), end to end: a blank
// it was given is never recorded as data; when only a human can move the run
// every reader says stop (primer, status, handoff, MCP resume); the primer of
// the README's tour shows the current task's steps and acceptance within
// its byte budget, work and not bookkeeping, and each reason once.
#include <map>

#include "support/run_binary.hpp"

namespace small_e2e {
namespace {

class HonestSteps : public ::testing::Test {
protected:
    void SetUp() override { ok({"init", "--no-agents", "--intent", "Add a --version flag to the greeter CLI"}); }
    RunResult small(const std::vector<std::string>& args) { return run_in(dir_.path(), args); }
    void ok(const std::vector<std::string>& args) {
        const RunResult r = small(args);
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    std::map<std::string, std::string> snapshot() const {
        std::map<std::string, std::string> files;
        for (const auto& e : fs::directory_iterator(dir_.path() / ".small")) files[e.path().filename()] = read_file(e.path());
        return files;
    }
    TempDir dir_;
};

TEST_F(HonestSteps, APlaceholderIsNeverRecordedAsData) {
    ok({"plan", "--add", "Print the version"});
    ok({"plan", "--add", "Ship it", "--depends", "task-3:task-2"});
    const auto before = snapshot();
    const std::vector<std::vector<std::string>> copied = {
        {"checkpoint", "--task", "task-2", "--status", "completed", "--evidence", "<what proves it is done>"},
        {"checkpoint", "--task", "task-2", "--status", "in_progress", "--evidence", "<what unblocked it>"},
        {"progress", "add", "--task", "task-2", "--status", "in_progress", "--notes", " <notes> "},
        {"plan", "--add", "<title>"},
        {"plan", "--add", "<first task>"},
        {"plan", "--title", "task-2", "<its title>"},
        {"plan", "--step", "task-2:<text>"},
        {"plan", "--acceptance", "task-2:<what proves it is done>"},
        {"handoff", "--summary", "<summary>"},
        {"handoff", "--next", "<next step>"},
        {"start", "--summary", "<summary>"},
        // --force adds its own note to the caller's: the blank is refused as given.
        {"checkpoint", "--task", "task-3", "--status", "completed", "--force", "--evidence", "shipped", "--notes", "<notes>"},
    };
    for (const std::vector<std::string>& args : copied) {
        const RunResult r = small(args);
        EXPECT_EQ(r.exit_code, 2) << r;
        EXPECT_TRUE(contains(r.err, "is the placeholder")) << r;
        EXPECT_EQ(snapshot(), before) << "nothing written: " << r;
    }
    RunOptions piped;
    piped.cwd = dir_.path();
    piped.stdin_text = "- {id: task-9, title: \"<title>\"}\n";
    const RunResult from = run_small({"plan", "--from", "-"}, piped);
    EXPECT_EQ(from.exit_code, 1) << from;
    EXPECT_TRUE(contains(from.err, "tasks[0].title is the placeholder \"<title>\"")) << from;
    EXPECT_EQ(snapshot(), before);

    TempDir other;
    const RunResult init = run_in(other.path(), {"init", "--no-agents", "--intent", "<what this run is for>"});
    EXPECT_EQ(init.exit_code, 2) << init;
    EXPECT_FALSE(fs::exists(other.path() / ".small")) << init;
    // Real values that look alike are data.
    ok({"checkpoint", "--task", "task-2", "--status", "in_progress", "--evidence", "<br/> renders; see <https://x.y>"});
}

TEST_F(HonestSteps, WhenOnlyAHumanCanMoveTheRunEveryReaderSaysStop) {
    ok({"plan", "--add", "Provision redis"});
    ok({"plan", "--cancel", "task-1"});
    ok({"checkpoint", "--task", "task-2", "--status", "blocked", "--evidence", "ops to provision redis"});
    const std::string stop = "stop: task-2 waits on a human (ops to provision redis); write the handoff and end the session";

    RunResult brief = small({"status", "--brief"});
    EXPECT_TRUE(contains(brief.out, "\nRun next: " + stop + "\n")) << brief;
    json j = json::parse(small({"status", "--brief", "--json"}).out);
    EXPECT_TRUE(j["next_action"]["tool"].is_null()) << j.dump();
    EXPECT_EQ(j["stop"], "task-2 waits on a human (ops to provision redis)");
    EXPECT_EQ(j["next_command"], stop);
    j = json::parse(small({"status", "--json"}).out);
    EXPECT_EQ(j["stop"], stop) << j.dump();
    EXPECT_FALSE(j.contains("next_task")) << j.dump();

    const RunResult handoff = small({"handoff"});
    ASSERT_EQ(handoff.exit_code, 0) << handoff;
    EXPECT_TRUE(contains(handoff.out, "summary: \"Run waits on a human: task-2: Provision redis.\"")) << handoff;
    EXPECT_TRUE(contains(handoff.out, "(a human unblocks it: small plan --pending task-2)")) << handoff;
    EXPECT_FALSE(contains(handoff.out, "Unblock ")) << handoff;
    brief = small({"status", "--brief"});
    EXPECT_TRUE(contains(brief.out, "Run next: stop: task-2 waits on a human (ops to provision redis); the handoff "
                                    "is up to date: end the session\n"))
        << brief;
    std::size_t shown = 0;  // the reason, once
    for (std::size_t at = brief.out.find("ops to provision"); at != std::string::npos;
         at = brief.out.find("ops to provision", at + 1)) {
        ++shown;
    }
    EXPECT_EQ(shown, 1u) << brief;

    RunOptions o;
    o.cwd = dir_.path();
    o.stdin_text = json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                        {"params", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()},
                                    {"clientInfo", {{"name", "e2e"}, {"version", "1"}}}}}}.dump() +
                   "\n" + json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"},
                               {"params", {{"name", "resume"}, {"arguments", json::object()}}}}.dump() + "\n";
    const RunResult mcp = run_small({"mcp"}, o);
    const std::string last = mcp.out.substr(mcp.out.rfind("{\"id\":2"));
    const json resume = json::parse(last.substr(0, last.find('\n')));
    EXPECT_TRUE(resume["result"]["structuredContent"]["next_call"].is_null()) << resume.dump();
    EXPECT_EQ(resume["result"]["structuredContent"]["stop"], "task-2 waits on a human (ops to provision redis)");

    ok({"plan", "--pending", "task-2"});  // the human's action
    EXPECT_TRUE(contains(small({"status", "--brief"}).out, "Run next: small checkpoint --task task-2 --status in_progress\n"));
}

// However long the reason, the primer's last line keeps its instruction
// (the property test's find): the reason is cut, never "end the session".
TEST_F(HonestSteps, AStopLineIsNeverCutBeforeItsInstruction) {
    ok({"plan", "--cancel", "task-1"});
    ok({"plan", "--add", "A", "--add", "B"});
    ok({"checkpoint", "--task", "task-2", "--status", "blocked", "--evidence", std::string(300, 'x')});
    ok({"checkpoint", "--task", "task-3", "--status", "blocked", "--evidence", "short"});
    for (int round = 0; round < 2; ++round) {
        const RunResult brief = small({"status", "--brief"});
        const std::string last = brief.out.substr(brief.out.rfind("Run next: "));
        EXPECT_TRUE(last.ends_with(round == 0 ? "; write the handoff and end the session\n"
                                              : "; the handoff is up to date: end the session\n"))
            << brief;
        EXPECT_LE(last.size(), 161u) << last;
        ok({"handoff"});
    }
}

// The README's tour, with steps and acceptance on the task being worked on.
TEST_F(HonestSteps, TheTourPrimerShowsTheWorkWithinItsBudget) {
    ok({"plan", "--title", "task-1", "Parse the --version flag"});
    ok({"plan", "--add", "Print the version", "--step", "task-2:Print the version from the build's VERSION",
        "--step", "task-2:Wire it into main", "--acceptance", "task-2:greeter --version prints 1.2.3",
        "--acceptance", "task-2:ctest -R version passes"});
    ok({"checkpoint", "--task", "task-1", "--status", "in_progress", "--evidence", "Started on flag parsing"});
    ok({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "--version parsed", "--test",
        "ctest -R version"});
    ok({"progress", "add", "--task", "task-2", "--status", "in_progress", "--evidence", "Printing wired up; tests to write"});
    const RunResult handoff = small({"handoff", "--summary", "Flag parsed; printing half done"});
    ASSERT_EQ(handoff.exit_code, 0) << handoff;
    EXPECT_EQ(handoff.err, "") << "a mid-task handoff is silent on stderr";
    EXPECT_FALSE(handoff.out.ends_with("\n\n")) << "no trailing blank line";

    const RunResult brief = small({"status", "--brief"});
    EXPECT_LE(brief.out.size(), 1536u) << brief;
    EXPECT_TRUE(contains(brief.out, "Current: task-2 Print the version [in_progress]\n"
                                    "  - step: Print the version from the build's VERSION\n"
                                    "  - step: Wire it into main\n"
                                    "  - done when: greeter --version prints 1.2.3\n"
                                    "  - done when: ctest -R version passes\n"))
        << brief;
    EXPECT_FALSE(contains(brief.out, " via small ")) << "bookkeeping is not work: " << brief;
    EXPECT_FALSE(contains(brief.out, "Recorded checkpoint")) << brief;
    EXPECT_FALSE(contains(brief.out, "last recorded")) << "one status per task: " << brief;

    const RunResult show = small({"plan", "show", "task-2"});
    EXPECT_TRUE(contains(show.out, "steps:\n  - Print the version from the build's VERSION\n  - Wire it into main\n"
                                   "acceptance:\n  - greeter --version prints 1.2.3\n"))
        << show;
    // One status per task: progress add set the plan's too.
    EXPECT_TRUE(contains(small({"plan", "show", "task-2"}).out, "status: in_progress")) << show;
}

}  // namespace
}  // namespace small_e2e
