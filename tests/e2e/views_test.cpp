// `small plan show [ID]` and `small progress list`: read-only views, text and JSON;
// `small graph` and `small board`, their focus flags (issue 39) and a 1,000-task workspace.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
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

namespace {

using namespace small_e2e;

// Issue 39: --open, --task/--depth and --limit on `board` and `graph`, and
// `graph -o`. task-1 completed, task-2 in progress, task-3 waits on task-2.
class ViewFocusTest : public ViewsTest {
protected:
    void SetUp() override {
        ViewsTest::SetUp();
        const RunResult done = run({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "reviewed"});
        ASSERT_EQ(done.exit_code, 0) << done;
    }
    std::vector<std::string> ids(const std::vector<std::string>& args) {
        const RunResult r = run(args);
        EXPECT_EQ(r.exit_code, 0) << r;
        std::vector<std::string> out;
        const json doc = json::parse(r.out);
        if (doc.contains("columns")) {
            for (const json& column : doc["columns"]) {
                for (const json& card : column["tasks"]) out.push_back(card["id"]);
            }
        } else {
            for (const json& t : doc["tasks"]) out.push_back(t["id"]);
        }
        std::sort(out.begin(), out.end());
        return out;
    }
};

using Ids = std::vector<std::string>;

TEST_F(ViewFocusTest, OpenDepthAndLimitChooseTheSameTasksOnBoardAndGraph) {
    for (const std::string command : {"board", "graph"}) {
        EXPECT_EQ(ids({command, "--json"}), (Ids{"task-1", "task-2", "task-3"})) << command;
        EXPECT_EQ(ids({command, "--open", "--json"}), (Ids{"task-2", "task-3"})) << command;  // task-1 waits on nothing
        EXPECT_EQ(ids({command, "--task", "task-3", "--depth", "0", "--json"}), Ids{"task-3"}) << command;
        EXPECT_EQ(ids({command, "--task", "task-2", "--json"}), (Ids{"task-2", "task-3"})) << command;  // depth 1
        EXPECT_EQ(ids({command, "--limit", "1", "--json"}), Ids{"task-2"}) << command;  // open first, plan order
        const json doc = json::parse(run({command, "--limit", "1", "--json"}).out);
        EXPECT_EQ(doc["tasks_in_plan"], 3);
        EXPECT_EQ(doc["tasks_shown"], 1);
        EXPECT_EQ(doc["left_out"]["count"], 2);
        EXPECT_EQ(doc["note"], "2 not shown (1 completed, 1 pending): --limit 0 shows all");
    }
}

TEST_F(ViewFocusTest, WhatALimitLeavesOutIsSaid) {
    RunResult r = run({"board", "--limit", "1", "--width", "200"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "\u2026 1 more pending not shown (--limit 0 shows all)")) << r;
    EXPECT_TRUE(contains(r.out, "\u2026 1 more completed not shown")) << r;
    EXPECT_TRUE(contains(r.out, "2 not shown (1 completed, 1 pending): --limit 0 shows all")) << r;
    r = run({"graph", "--limit", "1"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "label=\"2 not shown (1 completed, 1 pending): --limit 0 shows all\\l\"")) << r;
    EXPECT_TRUE(contains(r.err, "note: 2 not shown")) << r;
    r = run({"graph", "--open", "--format", "mermaid"});
    EXPECT_TRUE(contains(r.out, "%% 2 of 3 tasks: the open ones and what they wait on")) << r;
    EXPECT_EQ(r.err, "") << r;  // a filter asked for is not a cut: nothing on stderr
}

TEST_F(ViewFocusTest, BadFocusFlagsSayWhatToDo) {
    RunResult r = run({"graph", "--depth", "2"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "--depth counts hops around a task: add --task ID")) << r;
    r = run({"board", "--task", "task-33"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "task-33 is not in the plan")) << r;
    EXPECT_TRUE(contains(r.err, "Did you mean task-3?")) << r;
    EXPECT_EQ(run({"graph", "--limit", "-1"}).exit_code, 2);
    EXPECT_EQ(run({"graph", "--json", "-o", "plan.json"}).exit_code, 2);
}

TEST_F(ViewFocusTest, GraphWritesAFileAtomicallyAsReportDoes) {
    const RunResult printed = run({"graph", "--open"});
    RunResult r = run({"graph", "--open", "-o", "plan.dot"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "wrote " + (root() / "plan.dot").string())) << r;
    EXPECT_EQ(read_file(root() / "plan.dot"), printed.out);
    // Written beside and renamed over: the old file is replaced, never truncated in place.
    struct stat old_stat {};
    ASSERT_EQ(::stat((root() / "plan.dot").c_str(), &old_stat), 0);
    r = run({"graph", "-o", "plan.dot"});
    ASSERT_EQ(r.exit_code, 0) << r;
    struct stat new_stat {};
    ASSERT_EQ(::stat((root() / "plan.dot").c_str(), &new_stat), 0);
    EXPECT_NE(old_stat.st_ino, new_stat.st_ino);
    EXPECT_TRUE(contains(read_file(root() / "plan.dot"), "Review the layout"));
    for (const fs::directory_entry& e : fs::directory_iterator(root())) {
        EXPECT_FALSE(contains(e.path().filename().string(), "tmp")) << e.path();  // no temporary left
    }
    r = run({"graph", "-o", ".small/plan.dot"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_FALSE(fs::exists(root() / ".small" / "plan.dot"));
    r = run({"graph", "-o", "no-such-folder/plan.dot"});
    EXPECT_NE(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, "its folder does not exist")) << r;
}

// A 1,000-task workspace as bench's gen_workspace.py makes it: a chain, all
// completed but the last, `entries` work entries of one run spread over them.
void write_large_workspace(const fs::path& root, std::size_t tasks, std::size_t entries) {
    const std::string rid(64, 'b');
    const fs::path small = root / ".small";
    write_file(small / "intent.small.yml", "small_version: \"1.0.0\"\nowner: \"human\"\nintent: \"Benchmark workspace\"\n"
                                           "scope:\n  include:\n    - \"src/**\"\n  exclude: []\nsuccess_criteria:\n  - \"Tests pass\"\n");
    write_file(small / "constraints.small.yml", "small_version: \"1.0.0\"\nowner: \"human\"\nconstraints:\n"
                                                "  - id: \"no-secrets\"\n    rule: \"No secrets in artifacts\"\n    severity: \"error\"\n");
    std::string plan = "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n";
    for (std::size_t i = 1; i <= tasks; ++i) {
        const std::string id = "task-" + std::to_string(i);
        plan += "  - id: \"" + id + "\"\n    title: \"Task number " + std::to_string(i) + "\"\n    status: \"" +
                (i < tasks ? "completed" : "pending") + "\"\n";
        if (i > 1) plan += "    depends_on: [\"task-" + std::to_string(i - 1) + "\"]\n";
    }
    write_file(small / "plan.small.yml", plan);
    std::string log = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";
    for (std::size_t j = 0; j < entries; ++j) {
        const std::size_t t = j % (tasks - 1) + 1;
        char when[128];
        std::snprintf(when, sizeof when, "2026-01-01T%02zu:%02zu:%02zu.%09zuZ", j / 3600, j / 60 % 60, j % 60, j);
        log += std::string("  - timestamp: \"") + when + "\"\n    task_id: \"task-" + std::to_string(t) +
               "\"\n    status: \"completed\"\n    evidence: \"Completed step " + std::to_string(j) + " of task-" +
               std::to_string(t) + "; tests passed\"\n    replayId: \"" + rid + "\"\n";
    }
    write_file(small / "progress.small.yml", log);
    write_file(small / "handoff.small.yml", "small_version: \"1.0.0\"\nowner: \"agent\"\nsummary: \"Run in progress.\"\n"
                                            "resume:\n  current_task_id: \"task-" + std::to_string(tasks) +
                                                "\"\n  next_steps:\n    - \"Continue\"\nlinks: []\nreplayId:\n  value: \"" + rid +
                                                "\"\n  source: \"auto\"\n");
    write_file(small / "workspace.small.yml", "small_version: \"1.0.0\"\nowner: \"agent\"\nkind: \"repo-root\"\n"
                                              "created_at: \"2026-01-01T00:00:00Z\"\nupdated_at: \"2026-01-01T00:00:00Z\"\n"
                                              "run:\n  replay_id: \"" + rid + "\"\n");
}

class LargeViewsTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        tmp_ = new TempDir();
        write_large_workspace(tmp_->path(), 1000, 2500);
    }
    static void TearDownTestSuite() {
        delete tmp_;
        tmp_ = nullptr;
    }
    static RunResult run(const std::vector<std::string>& args) { return run_in(tmp_->path(), args); }
    static bool has_graphviz() {
        const RunResult r = run({"graph", "--format", "svg", "--task", "task-1", "--depth", "0"});
        if (r.exit_code != 0 && std::getenv("CI")) ADD_FAILURE() << "CI installs libgvc6: " << r;
        return r.exit_code == 0;
    }
    static double svg_width_px(const std::string& svg) {
        const std::size_t at = svg.find("<svg width=\"");
        return at == std::string::npos ? 1e9 : std::stod(svg.substr(at + 12)) * 4 / 3;  // Graphviz writes points
    }
    static TempDir* tmp_;
};
TempDir* LargeViewsTest::tmp_ = nullptr;

TEST_F(LargeViewsTest, TheBoardFoldsTheSettledAndSaysSo) {
    const RunResult r = run({"board", "--width", "160"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_LT(r.out.size(), 10000u) << r.out.size();  // 288 KB before issue 39
    EXPECT_TRUE(contains(r.out, "completed (999)")) << r;
    EXPECT_TRUE(contains(r.out, "\u2026 994 more completed not shown (--limit 0 shows all)")) << r;
    EXPECT_TRUE(contains(r.out, "task-1000 [ready]")) << r;
    const RunResult all = run({"board", "--width", "160", "--limit", "0"});
    std::size_t cards = 0;
    for (std::size_t at = all.out.find("Task number "); at != std::string::npos; at = all.out.find("Task number ", at + 1)) ++cards;
    EXPECT_EQ(cards, 1000u);
    EXPECT_FALSE(contains(all.out, "not shown"));
}

TEST_F(LargeViewsTest, TheGraphsSvgFitsABrowserWholeAndOpen) {
    if (!has_graphviz()) GTEST_SKIP() << "no Graphviz";
    const RunResult open = run({"graph", "--format", "svg", "--open"});
    ASSERT_EQ(open.exit_code, 0) << open.err;
    EXPECT_LE(svg_width_px(open.out), 4000);
    EXPECT_TRUE(contains(open.out, "Task number 999")) << open.out.substr(0, 2000);  // what task-1000 waits on
    EXPECT_FALSE(contains(open.out, "Task number 998")) << "a settled task nothing open waits on";
    const RunResult whole = run({"graph", "--format", "svg"});
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    EXPECT_LE(svg_width_px(whole.out), 4000);  // ~190,000 px before issue 39
    EXPECT_TRUE(contains(whole.out, ">Task number 1<")) << "every task drawn";
}

TEST_F(LargeViewsTest, TheReportIsOneFileUnder2MBThatOpensOnTheOpenWork) {
    const RunResult r = run({"report", "--html", "-o", "report.html", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const json doc = json::parse(r.out);
    EXPECT_LE(doc["bytes"].get<std::size_t>(), 2000000u);
    const std::string html = read_file(tmp_->path() / "report.html");
    EXPECT_TRUE(contains(html, "data-more=\"994\"")) << "the completed column folded to a count";
    std::size_t cards = 0;
    for (std::size_t at = html.find("<article class=\"card\""); at != std::string::npos; at = html.find("<article class=\"card\"", at + 1)) ++cards;
    EXPECT_EQ(cards, 6u);  // task-1000 and the newest five completed
    const std::string graph = html.substr(html.find("<section id=\"graph\""));
    EXPECT_TRUE(contains(graph, "Open work")) << graph.substr(0, 500);
    if (has_graphviz()) {
        std::size_t nodes = 0;
        const std::string drawing = graph.substr(0, graph.find("</section>"));
        for (std::size_t at = drawing.find("class=\"node\""); at != std::string::npos; at = drawing.find("class=\"node\"", at + 1)) ++nodes;
        EXPECT_EQ(nodes, 2u);  // task-1000 and task-999, not 400 completed ones
    }
}

}  // namespace
