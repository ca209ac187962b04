// Issue 41, point 4: what you see is there. A workspace seeded with escape
// sequences (a terminal title, a colour), a bell, carriage returns, line
// breaks inside values and GitHub workflow commands ("::error::"); every
// command's text output shows them as visible escapes: no raw control
// character reaches the terminal and no line starts with "::".
#include "support/run_binary.hpp"

namespace small_e2e {
namespace {

const std::string kHostile = "x\x1b]0;PWNED\a\nFAKE-ROW\r\n::error::fake\x1b[31m red \xc2\x9b\xe2\x80\xae";

// The first problem in `text`: a raw control character (tabs and line
// breaks aside) or a line that starts (after blanks) with "::".
std::string first_problem(const std::string& text) {
    std::size_t line_start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == '\n') {
            std::string line = text.substr(line_start, i - line_start);
            const std::size_t first = line.find_first_not_of(" \t");
            if (first != std::string::npos && line.compare(first, 2, "::") == 0) return "a line starts with '::': " + line;
            if (line.rfind("FAKE-ROW", 0) == 0) return "a value's line break made a row: " + line;
            line_start = i + 1;
            continue;
        }
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 && c != '\t') || c == 0x7F) return "raw control character " + std::to_string(c) + " near: " + text.substr(i > 40 ? i - 40 : 0, 80);
        if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
            static_cast<unsigned char>(text[i + 1]) < 0xA0) {
            return "raw C1 control near: " + text.substr(i > 40 ? i - 40 : 0, 80);
        }
    }
    return "";
}

class OutputEscapes : public ::testing::Test {
protected:
    void SetUp() override {
        ok({"init", "--no-agents", "--intent", "Show what is there"});
        ok({"plan", "--add=" + kHostile, "--step=task-1: " + kHostile});
        ok({"plan", "--title", "task-1", kHostile});
        ok({"progress", "add", "--task", "task-2", "--status", "in_progress", "--evidence=" + kHostile,
            "--notes=" + kHostile});
        ok({"checkpoint", "--task", "task-1", "--status", "blocked", "--evidence=" + kHostile, "--notes=" + kHostile});
        ok({"handoff", "--summary=" + kHostile, "--next=" + kHostile});
        // A status no rule knows (INV-P8 quotes it) and a line of its own in a plan value.
        std::string plan = read_file(tmp_.path() / ".small/plan.small.yml");
        const std::string status = "status: \"in_progress\"";  // task-2's, set by progress add
        const std::size_t at = plan.rfind(status);
        ASSERT_NE(at, std::string::npos) << plan;
        plan.replace(at, status.size(), "status: \"pend\\e[2J\\ning\\n::error file=x::forged\"");
        std::ofstream(tmp_.path() / ".small/plan.small.yml", std::ios::trunc | std::ios::binary) << plan;
    }
    RunResult small(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::optional<std::string>>>& env = {}) {
        return run_in(tmp_.path(), args, env);
    }
    void ok(const std::vector<std::string>& args) {
        const RunResult r = small(args);
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    TempDir tmp_;
};

TEST_F(OutputEscapes, NoCommandPrintsARawControlCharacterOrAWorkflowCommand) {
    const std::vector<std::vector<std::string>> commands = {
        {"status"}, {"status", "--brief"}, {"plan", "show"}, {"plan", "show", "task-1"}, {"board"}, {"ready"},
        {"claims"}, {"claim", "task-2", "--agent=" + kHostile}, {"claims"}, {"claim", "task-9"},
        {"lint"}, {"lint", "--strict"}, {"check"}, {"check", "--strict"}, {"verify", "--strict"}, {"validate"},
        {"check", "--strict", "--ci"}, {"progress", "list"}, {"graph"}, {"graph", "--format", "mermaid"},
        {"doctor"}, {"handoff"}, {"drift"}, {"plan", "--done", "task-7"}, {"progress", "add", "--task=" + kHostile,
        "--status", "pending"}, {"replay-id"}, {"status", "--all"}};
    for (const auto& args : commands) {
        std::string shown;
        for (const auto& a : args) shown += " " + a.substr(0, 20);
        const RunResult r = small(args);
        EXPECT_EQ(first_problem(r.out), "") << "small" << shown << " (stdout)";
        EXPECT_EQ(first_problem(r.err), "") << "small" << shown << " (stderr)";
    }
    // The report is a file for a browser: it holds no raw control character either.
    ok({"report", "--html", "-o", "r.html"});
    EXPECT_EQ(first_problem(read_file(tmp_.path() / "r.html")), "");
}

TEST_F(OutputEscapes, TheEscapesAreVisible) {
    const RunResult show = small({"plan", "show"});
    EXPECT_TRUE(contains(show.out, "\\e]0;PWNED\\x07\\nFAKE-ROW\\r\\n::error::fake")) << show;
    const RunResult lint = small({"lint"});
    EXPECT_TRUE(contains(lint.out + lint.err, "pend\\e[2J\\ning\\n::error file=x::forged")) << lint;
}

TEST_F(OutputEscapes, McpTextIsEscapedToo) {
    RunOptions opts;
    opts.cwd = tmp_.path();
    opts.stdin_text = mcp_session({{{"name", "status"}, {"arguments", json::object()}},
                                   {{"name", "check"}, {"arguments", json::object()}},
                                   {{"name", "resume"}, {"arguments", json::object()}}});
    const RunResult r = run_small({"mcp"}, opts);
    std::size_t start = 0;
    for (std::size_t nl; (nl = r.out.find('\n', start)) != std::string::npos; start = nl + 1) {
        const json reply = json::parse(r.out.substr(start, nl - start), nullptr, false);
        if (!reply.contains("result") || !reply["result"].contains("content")) continue;
        for (const json& c : reply["result"]["content"]) {
            EXPECT_EQ(first_problem(c.value("text", "")), "") << c.dump();
        }
    }
}

}  // namespace
}  // namespace small_e2e
