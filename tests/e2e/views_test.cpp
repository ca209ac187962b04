// `small plan show [ID]` and `small progress list`: read-only views, text and JSON.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <sstream>
#include <thread>

#include "support/run_binary.hpp"

namespace {

using namespace small_e2e;

// init, a retitled task-1, task-2 and task-3 (depends on task-2), task-2 started.
class ViewsTest : public ::testing::Test {
protected:
    TempDir tmp_;
    fs::path root() const { return tmp_.path(); }
    RunResult run(const std::vector<std::string>& args) { return run_in(root(), args); }

    void SetUp() override {
        seed_three_tasks(
            root(), {"checkpoint", "--task", "task-2", "--status", "in_progress", "--evidence", "started parsing"});
    }
};

TEST_F(ViewsTest, PlanShowListsTasksAndTheNextOne) {
    const std::string before = read_file(root() / ".small" / "plan.small.yml");
    RunResult r = run({"plan", "show"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "task-1  pending      Review the layout\n")) << r;
    EXPECT_TRUE(contains(r.out, "task-3  pending      Print it  (depends on task-2)\n")) << r;
    EXPECT_TRUE(contains(r.out, "Next task: task-2\n")) << r;
    r = run({"plan", "show", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const json doc = json::parse(r.out);
    EXPECT_EQ(doc["command"], "plan show");
    ASSERT_EQ(doc["tasks"].size(), 3u);
    EXPECT_EQ(doc["tasks"][1]["status"], "in_progress");
    EXPECT_EQ(doc["tasks"][2]["depends_on"], json::array({"task-2"}));
    EXPECT_EQ(doc["next_task"], "task-2");
    EXPECT_EQ(read_file(root() / ".small" / "plan.small.yml"), before);  // read-only
}

TEST_F(ViewsTest, PlanShowTaskHasDependenciesDependentsAndTheRunsEntries) {
    RunResult r = run({"plan", "show", "task-3"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "task-3: Print it\nstatus: pending\ndepends on: task-2 (in_progress)\n")) << r;
    r = run({"plan", "show", "task-2", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const json doc = json::parse(r.out);
    EXPECT_EQ(doc["tasks"][0]["id"], "task-2");
    EXPECT_EQ(doc["dependents"], json::array({"task-3"}));
    ASSERT_EQ(doc["entries"].size(), 2u) << doc.dump(2);  // checkpoint, then plan --add: newest first
    EXPECT_EQ(doc["entries"][0]["evidence"], "started parsing");
    EXPECT_EQ(doc["entries"][1]["status"], "pending");
    r = run({"plan", "show", "task-2", "--limit", "1", "--json"});
    EXPECT_EQ(json::parse(r.out)["entries"].size(), 1u);
    EXPECT_EQ(json::parse(r.out)["more_entries"], true);
}

TEST_F(ViewsTest, PlanShowOfAnUnknownTaskSuggestsTheClosest) {
    RunResult r = run({"plan", "show", "task-22"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "Did you mean task-2?")) << r;
    EXPECT_FALSE(contains(r.err, "nothing written")) << r;
}

TEST_F(ViewsTest, ProgressListIsNewestFirstAndFilters) {
    RunResult r = run({"progress", "list", "--limit", "2"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const std::size_t first = r.out.find("started parsing");
    const std::size_t second = r.out.find("Added dependency task-2 to task-3");
    ASSERT_NE(first, std::string::npos) << r;
    EXPECT_LT(first, second) << r;
    EXPECT_TRUE(contains(r.out, "more: raise --limit")) << r;
    r = run({"progress", "list", "--task", "task-3", "--status", "pending", "--limit", "0", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    json doc = json::parse(r.out);
    ASSERT_EQ(doc["entries"].size(), 2u) << doc.dump(2);
    for (const json& e : doc["entries"]) EXPECT_EQ(e["task_id"], "task-3");
    EXPECT_EQ(doc["more"], false);
    r = run({"progress", "list", "--since", "2999-01-01T00:00:00Z", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(json::parse(r.out)["entries"].empty());
    r = run({"progress", "list", "--since", "yesterday"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "--since")) << r;
}

TEST(ViewsNoWorkspace, BothViewsSayToRunInit) {
    TempDir tmp;
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"plan", "show"}, {"progress", "list"}}) {
        const RunResult r = run_in(tmp.path(), args);
        EXPECT_EQ(r.exit_code, 2) << r;
        EXPECT_TRUE(contains(r.err, "small init")) << r;
    }
}

}  // namespace

namespace {

using namespace small_e2e;

// `small graph` and `small board` on the three-task workspace (task-3 waits
// on task-2, which is started), and the board on a real terminal in tmux.
class GraphBoardTest : public ViewsTest {
protected:
    // tmux on a socket of this screen's own: a server that was just killed may
    // still hold the previous one while it exits.
    int screens_ = 0;
    RunResult tmux(const std::vector<std::string>& args) {
        RunOptions o;
        o.cwd = root();
        o.program = "/usr/bin/tmux";
        o.env = {{"TERM", "xterm-256color"}};
        std::vector<std::string> full = {"-S", (root() / ("tmux" + std::to_string(screens_) + ".sock")).string()};
        full.insert(full.end(), args.begin(), args.end());
        return run_small(full, o);
    }

    // Runs `command` in a detached tmux window `width` columns wide and
    // returns the screen (with its colour escapes when `escapes`) once
    // `marker` shows on it; "" when it never does within 10 seconds.
    std::string screen_of(const std::string& command, int width, const std::string& marker, bool escapes) {
        ++screens_;
        const RunResult started = tmux({"new-session", "-d", "-x", std::to_string(width), "-y", "60", "-c",
                                        root().string(), "sh", "-c", command + "; sleep 60"});
        EXPECT_EQ(started.exit_code, 0) << started;
        std::string screen;
        for (int i = 0; i < 200 && !contains(screen, marker); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            screen = tmux(escapes ? std::vector<std::string>{"capture-pane", "-p", "-e"}
                                  : std::vector<std::string>{"capture-pane", "-p"}).out;
        }
        tmux({"kill-server"});
        return contains(screen, marker) ? screen : "";
    }
};

TEST_F(GraphBoardTest, GraphFormats) {
    const RunResult dot = run({"graph"});
    ASSERT_EQ(dot.exit_code, 0) << dot;
    EXPECT_TRUE(contains(dot.out, "digraph plan {")) << dot;
    EXPECT_TRUE(contains(dot.out, "\"task-2\" -> \"task-3\" [color=\"#dc2626\"")) << dot;  // the critical path
    const RunResult mermaid = run({"graph", "--format", "mermaid"});
    ASSERT_EQ(mermaid.exit_code, 0) << mermaid;
    EXPECT_TRUE(mermaid.out.starts_with("flowchart LR\n")) << mermaid;
    const RunResult svg = run({"graph", "--format", "svg"});
    if (svg.exit_code != 0 && !std::getenv("CI")) GTEST_SKIP() << "no Graphviz here: " << svg;
    ASSERT_EQ(svg.exit_code, 0) << svg;
    EXPECT_TRUE(contains(svg.out, "<svg")) << svg;
    EXPECT_TRUE(contains(svg.out, "Parse the flag")) << svg;
    const RunResult bad = run({"graph", "--format", "png"});
    EXPECT_EQ(bad.exit_code, 2) << bad;
}

TEST_F(GraphBoardTest, GraphDrawsACycleThatLintRefuses) {
    const fs::path plan = root() / ".small" / "plan.small.yml";
    std::string text = read_file(plan);
    text += "  - id: \"task-9\"\n    title: \"Loop\"\n    depends_on: [\"task-9\"]\n";
    write_file(plan, text);
    EXPECT_EQ(run({"lint"}).exit_code, 1);
    const RunResult r = run({"graph", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["cycles"], nlohmann::json::array({nlohmann::json::array({"task-9"})})) << r;
}

TEST_F(GraphBoardTest, BoardTextAndJson) {
    const RunResult r = run({"board", "--width", "100"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(r.out.starts_with("pending (2)")) << r;
    EXPECT_TRUE(contains(r.out, "in_progress (1)")) << r;
    EXPECT_TRUE(contains(r.out, "waits on task-2")) << r;
    EXPECT_TRUE(contains(r.out, "started parsing")) << r;
    EXPECT_FALSE(has_escape(r.out)) << r;  // not a terminal
    const RunResult j = run({"board", "--json"});
    ASSERT_EQ(j.exit_code, 0) << j;
    const nlohmann::json doc = nlohmann::json::parse(j.out);
    EXPECT_EQ(doc["columns"][1]["tasks"][0]["evidence"]["text"], "started parsing") << j;
    EXPECT_EQ(run({"board", "--width", "5"}).exit_code, 2);
}

// The board on a real terminal: tmux runs it in a window of a known width and
// the test reads the screen back.
TEST_F(GraphBoardTest, BoardOnATerminalFitsTheWindowInColour) {
    if (!fs::exists("/usr/bin/tmux")) {
        if (std::getenv("CI")) FAIL() << "tmux is missing (scripts/setup.sh installs it with the tests)";
        GTEST_SKIP() << "tmux not installed";
    }
    const std::string small = SMALL_BINARY;
    const std::string wide = screen_of(small + " board", 120, "tasks, ", true);
    ASSERT_FALSE(wide.empty()) << "the board never showed";
    EXPECT_TRUE(contains(wide, "\033[1mpending (2)")) << wide;  // colour on a terminal
    EXPECT_TRUE(contains(wide, "\u2502")) << wide;              // columns side by side
    const std::string plain = screen_of("NO_COLOR=1 " + small + " board", 120, "tasks, ", true);
    ASSERT_FALSE(plain.empty());
    EXPECT_FALSE(has_escape(plain)) << plain;
    const std::string narrow = screen_of(small + " board", 44, "tasks, ", false);
    ASSERT_FALSE(narrow.empty());
    EXPECT_FALSE(contains(narrow, "\u2502")) << narrow;  // stacked: no room for three columns
    std::istringstream lines(narrow);
    for (std::string line; std::getline(lines, line);) {
        std::size_t chars = 0;
        for (const char c : line) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        EXPECT_LE(chars, 44u) << line;
    }
    EXPECT_TRUE(contains(narrow, "in_progress (1)")) << narrow;
}

}  // namespace
