// `small mcp` as a real process over pipes: a session, hostile input, the
// end of input and a client that goes away. The protocol details are unit
// tested in tests/unit/mcp_server_test.cpp.
#include <regex>

#include "support/run_binary.hpp"

namespace small_e2e {
namespace {

std::string rpc(int id, const std::string& method, const json& params = json::object()) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump() + "\n";
}

const std::string kInitialize =
    rpc(1, "initialize", {{"protocolVersion", "2025-06-18"},
                          {"capabilities", json::object()},
                          {"clientInfo", {{"name", "e2e"}, {"version", "1"}}}}) +
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

// Every stdout line as JSON (a line that is not JSON fails the test).
std::vector<json> replies(const RunResult& r) {
    std::vector<json> out;
    std::size_t start = 0;
    for (std::size_t nl; (nl = r.out.find('\n', start)) != std::string::npos; start = nl + 1) {
        const json j = json::parse(r.out.substr(start, nl - start), nullptr, false);
        EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.out.substr(start, nl - start);
        out.push_back(j);
    }
    EXPECT_EQ(start, r.out.size()) << "stdout ends with a newline";
    return out;
}

RunResult mcp(const fs::path& cwd, const std::string& input, std::vector<std::string> args = {"mcp"}) {
    RunOptions opts;
    opts.cwd = cwd;
    opts.stdin_text = input;
    return run_small(args, opts);
}

TEST(Mcp, SessionOverPipesWritesTheWorkspace) {
    TempDir dir;
    ASSERT_EQ(run_in(dir.path(), {"init", "--no-agents"}).exit_code, 0);
    const RunResult r =
        mcp(dir.path(), kInitialize + rpc(2, "tools/list") +
                            rpc(3, "tools/call", {{"name", "plan"}, {"arguments", {{"add", "Write the widget"}}}}) +
                            "{broken\n" +
                            rpc(4, "tools/call", {{"name", "progress_add"},
                                                  {"arguments", {{"task", "task-2"}, {"status", "in_progress"}}}}) +
                            rpc(5, "resources/read", {{"uri", "small://plan"}}));
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_FALSE(r.signaled) << r;
    const std::vector<json> out = replies(r);
    ASSERT_EQ(out.size(), 6u) << r;
    EXPECT_EQ(out[0]["result"]["protocolVersion"], "2025-06-18");
    EXPECT_EQ(out[1]["result"]["tools"].size(), 13u);
    EXPECT_EQ(out[2]["result"]["structuredContent"]["added_task_id"], "task-2") << out[2];
    EXPECT_EQ(out[3]["error"]["code"], -32700);
    EXPECT_EQ(out[4]["result"]["isError"], false) << out[4];
    const std::string added = out[4]["result"]["content"][0]["text"];
    EXPECT_EQ(added.rfind("progress added: task-2 in_progress ", 0), 0u) << added;
    EXPECT_LE(added.size(), 200u);
    EXPECT_TRUE(contains(out[5]["result"]["contents"][0]["text"].get<std::string>(), "Write the widget"));
    EXPECT_TRUE(contains(read_file(dir.path() / ".small/plan.small.yml"), "Write the widget"));
    EXPECT_TRUE(contains(read_file(dir.path() / ".small/progress.small.yml"), "task-2"));
    // The CLI sees what the server wrote.
    EXPECT_EQ(run_in(dir.path(), {"check"}).exit_code, 0);
}

// Over pipes as an agent sends it: a wrong argument is a tool error the
// agent reads (not a JSON-RPC error), the corrected call adds the task with
// its dependency, steps and criteria in one change, and the log says the MCP
// plan tool made it, never a CLI flag.
TEST(Mcp, ArgumentMistakesAreToolErrorsAndPlanEditsSayTheTool) {
    TempDir dir;
    ASSERT_EQ(run_in(dir.path(), {"init", "--no-agents"}).exit_code, 0);
    const json wrong = {{"add", "Benchmarks"}, {"depends_on", "task-1"}};
    const json right = {{"add", "Benchmarks"},
                        {"depends_on", json::array({"task-1"})},
                        {"steps", json::array({"Pick the cases"})},
                        {"acceptance", json::array({"Numbers in docs/"})}};
    const RunResult r = mcp(dir.path(), kInitialize + rpc(2, "tools/call", {{"name", "plan"}, {"arguments", wrong}}) +
                                            rpc(3, "tools/call", {{"name", "plan"}, {"arguments", right}}) +
                                            rpc(4, "tools/call", {{"name", "show"}, {"arguments", {{"task", "task-2"}}}}) +
                                            rpc(5, "tools/call", {{"name", "checkpoint"},
                                                                  {"arguments", {{"task", "task-2"}, {"status", "completed"}}}}));
    EXPECT_EQ(r.exit_code, 0) << r;
    const std::vector<json> out = replies(r);
    ASSERT_EQ(out.size(), 5u) << r;
    ASSERT_TRUE(out[1].contains("result")) << "not -32602: " << out[1];
    EXPECT_EQ(out[1]["result"]["isError"], true);
    const std::string fix = out[1]["result"]["content"][0]["text"];
    EXPECT_TRUE(contains(fix, "argument 'depends_on' must be an array of strings")) << fix;
    EXPECT_TRUE(contains(fix, R"(write ["task-1"])")) << fix;
    EXPECT_EQ(out[2]["result"]["isError"], false) << out[2];
    EXPECT_EQ(out[2]["result"]["structuredContent"]["added_task_id"], "task-2");
    const json& task = out[3]["result"]["structuredContent"]["tasks"][0];
    EXPECT_EQ(task["depends_on"], json::array({"task-1"})) << out[3];
    EXPECT_EQ(task["steps"], json::array({"Pick the cases"}));
    EXPECT_EQ(task["acceptance"], json::array({"Numbers in docs/"}));
    // D18's refusal names the call that fixes it, in the tool's words.
    EXPECT_EQ(out[4]["result"]["isError"], true);
    const std::string unmet = out[4]["result"]["content"][0]["text"];
    EXPECT_TRUE(contains(unmet, R"(checkpoint {"task":"task-1","status":"completed"})")) << unmet;
    EXPECT_FALSE(contains(unmet, "--")) << unmet;
    const std::string log = read_file(dir.path() / ".small/progress.small.yml");
    EXPECT_TRUE(contains(log, "Added task task-2 via the MCP plan tool")) << log;
    EXPECT_FALSE(contains(log, "via small plan")) << log;
    // Bookkeeping, not work: the board shows no evidence for the task.
    const RunResult board = run_in(dir.path(), {"board", "--json"});
    EXPECT_EQ(board.exit_code, 0) << board;
    bool seen = false;
    const json cards = json::parse(board.out);
    for (const json& column : cards["columns"]) {
        for (const json& card : column["tasks"]) {
            if (card["id"] != "task-2") continue;
            seen = true;
            EXPECT_TRUE(card["evidence"].is_null()) << card;
        }
    }
    EXPECT_TRUE(seen) << board.out;
    EXPECT_EQ(run_in(dir.path(), {"check", "--strict"}).exit_code, 0);
}

// `small mcp` kept running, spoken to one line at a time (a client's
// session), so that the CLI can write between two calls.
class LiveServer {
public:
    explicit LiveServer(const RunOptions& opts) {
        const fs::path cwd = opts.cwd;
        const ExecArgs exec_args({"mcp"}, opts);
        int in[2], out[2];
        if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(in[0], STDIN_FILENO);
            ::dup2(out[1], STDOUT_FILENO);
            if (::chdir(cwd.c_str()) != 0) ::_exit(126);
            exec_args.exec();
            ::_exit(127);
        }
        ::close(in[0]);
        ::close(out[1]);
        to_ = in[1];
        from_ = out[0];
    }
    ~LiveServer() {
        ::close(to_);
        ::close(from_);
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
    }
    LiveServer(const LiveServer&) = delete;
    LiveServer& operator=(const LiveServer&) = delete;

    // Sends `lines` (requests and notifications) and returns the answer to
    // the last request (one line, no newline); every request is answered.
    std::string send(const std::string& lines) {
        for (std::size_t done = 0; done < lines.size();) {
            const ssize_t n = ::write(to_, lines.data() + done, lines.size() - done);
            if (n <= 0) return "";
            done += static_cast<std::size_t>(n);
        }
        const std::size_t requests = count(lines, "\"id\"");
        std::string answer;
        for (std::size_t i = 0; i < requests; ++i) answer = take_line();
        return answer;
    }
    // The answer to tools/call `tool` with no arguments.
    std::string call(const std::string& tool) { return send(rpc(9, "tools/call", {{"name", tool}})); }

private:
    static std::size_t count(const std::string& text, const std::string& what) {
        std::size_t n = 0;
        for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
        return n;
    }
    std::string take_line() {
        while (pending_.find('\n') == std::string::npos) {
            pollfd p{from_, POLLIN, 0};
            if (::poll(&p, 1, 30'000) <= 0) return "";
            char buf[65536];
            const ssize_t n = ::read(from_, buf, sizeof buf);
            if (n <= 0) return "";
            pending_.append(buf, static_cast<std::size_t>(n));
        }
        const std::size_t nl = pending_.find('\n');
        std::string line = pending_.substr(0, nl);
        pending_.erase(0, nl + 1);
        return line;
    }

    pid_t pid_ = -1;
    int to_ = -1, from_ = -1;
    std::string pending_;
};

// Issue 39: a server kept running answers resume, ready and check from
// memory while nothing changed, yet a write the CLI makes beside it is in
// the very next answer, which is byte for byte what a server started
// afterwards says.
TEST(Mcp, ALongLivedServerSeesTheWritesOfTheCliBesideIt) {
    TempDir dir;
    ASSERT_EQ(run_in(dir.path(), {"init", "--no-agents", "--intent", "Ship the widget"}).exit_code, 0);
    RunOptions as_alice;  // the server's agent, named: bob's claims are not hers
    as_alice.cwd = dir.path();
    as_alice.env = {{"SMALL_AGENT", "alice"}};
    LiveServer server(as_alice);
    ASSERT_TRUE(contains(server.send(kInitialize), "protocolVersion"));
    const auto fresh = [&](const std::string& tool) {
        RunOptions once = as_alice;
        once.stdin_text = kInitialize + rpc(9, "tools/call", {{"name", tool}});
        const std::vector<json> out = replies(run_small({"mcp"}, once));
        return out.size() == 2 ? out[1].dump() : std::string();
    };
    const std::vector<std::vector<std::string>> writes = {
        {"plan", "--add", "Outside task"},
        {"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "done outside"},
        {"claim", "task-2", "--agent", "bob"},
        {"handoff"},
    };
    for (const std::vector<std::string>& write : writes) {
        for (const char* tool : {"resume", "ready", "check"}) {
            EXPECT_EQ(json::parse(server.call(tool)).dump(), json::parse(server.call(tool)).dump()) << tool;
        }
        ASSERT_EQ(run_in(dir.path(), write).exit_code, 0) << write[0];
        for (const char* tool : {"resume", "ready", "check"}) {
            const std::string now = server.call(tool);
            EXPECT_EQ(json::parse(now).dump(), fresh(tool)) << tool << " after small " << write[0];
        }
    }
    EXPECT_TRUE(contains(server.call("resume"), "bob holds task-2")) << "the claim made outside";
    EXPECT_FALSE(contains(server.call("ready"), "Outside task")) << "task-2 is bob's now";
    write_file(dir.path() / ".small/notes.txt", "stray");
    EXPECT_TRUE(contains(server.call("check"), "S4")) << "a file added to .small/ is seen at once";
    fs::remove(dir.path() / ".small/notes.txt");
    EXPECT_EQ(json::parse(server.call("check"))["result"]["isError"], false);
}

TEST(Mcp, DirFlagNamesTheWorkspace) {
    TempDir dir, elsewhere;
    ASSERT_EQ(run_in(dir.path(), {"init", "--no-agents"}).exit_code, 0);
    const RunResult r = mcp(elsewhere.path(), kInitialize + rpc(2, "tools/call", {{"name", "status"}}),
                            {"mcp", "--dir", dir.str()});
    EXPECT_EQ(r.exit_code, 0) << r;
    const std::vector<json> out = replies(r);
    ASSERT_EQ(out.size(), 2u) << r;
    EXPECT_EQ(out[1]["result"]["isError"], false) << out[1];
    EXPECT_EQ(out[1]["result"]["structuredContent"]["small_dir_exists"], true);
    EXPECT_EQ(mcp(dir.path(), "", {"mcp", "--workspace", "nowhere"}).exit_code, 2);
}

TEST(Mcp, NoWorkspaceGivesToolErrorsNotADeadServer) {
    TempDir dir;
    const RunResult r = mcp(dir.path(), kInitialize + rpc(2, "tools/call", {{"name", "check"}}) + rpc(3, "ping"));
    EXPECT_EQ(r.exit_code, 0) << r;
    const std::vector<json> out = replies(r);
    ASSERT_EQ(out.size(), 3u) << r;
    EXPECT_EQ(out[1]["result"]["isError"], true);
    EXPECT_EQ(out[2]["id"], 3);
}

// Outside a workspace status reports it and init makes one; the CLI then
// works on what the server wrote.
TEST(Mcp, InitToolMakesTheWorkspaceThatStatusSaidWasMissing) {
    TempDir dir;
    const RunResult r =
        mcp(dir.path(), kInitialize + rpc(2, "tools/call", {{"name", "status"}}) +
                            rpc(3, "tools/call", {{"name", "init"}, {"arguments", {{"intent", "Ship the widget"}}}}) +
                            rpc(4, "tools/call", {{"name", "resume"}}));
    EXPECT_EQ(r.exit_code, 0) << r;
    const std::vector<json> out = replies(r);
    ASSERT_EQ(out.size(), 4u) << r;
    EXPECT_EQ(out[1]["result"]["isError"], false) << out[1];
    EXPECT_EQ(out[1]["result"]["structuredContent"]["small_dir_exists"], false) << out[1];
    EXPECT_EQ(out[2]["result"]["isError"], false) << out[2];
    EXPECT_TRUE(contains(out[2]["result"]["content"][0]["text"].get<std::string>(), "Initialized SMALL")) << out[2];
    EXPECT_TRUE(fs::exists(dir.path() / "AGENTS.md"));
    EXPECT_TRUE(contains(out[3]["result"]["content"][0]["text"].get<std::string>(), "Ship the widget")) << out[3];
    EXPECT_EQ(run_in(dir.path(), {"validate"}).exit_code, 0);
}

TEST(Mcp, EndOfInputMidRequestExitsZero) {
    TempDir dir;
    const RunResult r = mcp(dir.path(), kInitialize + R"({"jsonrpc":"2.0","id":2,"method":"tools/li)");
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(replies(r).size(), 1u) << r;
    EXPECT_TRUE(contains(r.err, "ended inside a message")) << r;
}

TEST(Mcp, OversizedLineIsAnsweredAndSkipped) {
    TempDir dir;
    const fs::path input = dir.path() / "input";
    {
        std::ofstream f(input, std::ios::binary);
        f << kInitialize << "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"pad\":\"";
        const std::string block(1 << 20, 'x');
        for (int i = 0; i < 6; ++i) f << block;  // 6 MiB: over the 4 MiB cap
        f << "\"}}\n" << rpc(3, "ping");
    }
    RunOptions opts;
    opts.cwd = dir.path();
    opts.stdin_file = input.string();
    opts.memory_limit = rlim_t{512} << 20;
    const RunResult r = run_small({"mcp"}, opts);
    EXPECT_EQ(r.exit_code, 0) << r;
    const std::vector<json> out = replies(r);
    ASSERT_EQ(out.size(), 3u) << r;
    EXPECT_EQ(out[1]["error"]["code"], -32700);
    EXPECT_TRUE(out[1]["id"].is_null());
    EXPECT_EQ(out[2]["id"], 3);
}

// The client reads a little and closes its end: the server's next write fails
// with EPIPE and it exits 0, not by SIGPIPE (exit 141).
TEST(Mcp, ClientThatGoesAwayEndsTheServerCleanly) {
    TempDir dir;
    const fs::path input = dir.path() / "input";
    {
        std::ofstream f(input, std::ios::binary);
        f << kInitialize;
        for (int i = 0; i < 20000; ++i) f << rpc(i + 2, "tools/list");
    }
    RunOptions opts;
    opts.cwd = dir.path();
    opts.program = "/bin/bash";
    const std::string script = "'" + std::string(SMALL_BINARY) + "' mcp < '" + input.string() +
                               "' 2>/dev/null | head -c 100 >/dev/null; echo \"rc=${PIPESTATUS[0]}\"";
    const RunResult r = run_small({"-c", script}, opts);
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.out, "rc=0\n") << r;
}

// The MCP configurations the README gives for Claude Code, Cursor and Codex:
// each names a command and its arguments, and that command line must start a
// server that answers a client.
std::vector<std::vector<std::string>> readme_server_commands() {
    const std::string readme = read_file(fs::path(SMALL_SOURCE_DIR) / "README.md");
    const std::size_t section = readme.find("## Use with your agent");
    EXPECT_NE(section, std::string::npos);
    const std::string text = readme.substr(section, readme.find("\n## ", section + 1) - section);
    std::vector<std::vector<std::string>> out;
    const std::regex json_block(R"(```json\n([\s\S]*?)```)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), json_block); it != std::sregex_iterator(); ++it) {
        const json config = json::parse((*it)[1].str());
        for (const auto& [name, server] : config.at("mcpServers").items()) {
            std::vector<std::string> argv = {server.at("command").get<std::string>()};
            for (const auto& a : server.at("args")) argv.push_back(a.get<std::string>());
            out.push_back(argv);
        }
    }
    const std::regex toml_block(R"re(```toml\n\[mcp_servers\.small\]\ncommand = "([^"]+)"\nargs = \[([^\]]*)\])re");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), toml_block); it != std::sregex_iterator(); ++it) {
        std::vector<std::string> argv = {(*it)[1].str()};
        for (const json& a : json::parse("[" + (*it)[2].str() + "]")) argv.push_back(a.get<std::string>());
        out.push_back(argv);
    }
    return out;
}

TEST(Mcp, TheReadmeConfigurationsStartAServer) {
    const std::vector<std::vector<std::string>> commands = readme_server_commands();
    ASSERT_EQ(commands.size(), 2u) << "the JSON (Claude Code, Cursor) and TOML (Codex) snippets";
    TempDir dir;
    ASSERT_EQ(run_in(dir.path(), {"init", "--no-agents"}).exit_code, 0);
    for (const std::vector<std::string>& argv : commands) {
        ASSERT_EQ(argv.front(), "small");  // on PATH after install; here the binary under test
        const RunResult r = mcp(dir.path(), kInitialize + rpc(2, "tools/call", {{"name", "resume"}}),
                                std::vector<std::string>(argv.begin() + 1, argv.end()));
        EXPECT_EQ(r.exit_code, 0) << r;
        const std::vector<json> out = replies(r);
        ASSERT_EQ(out.size(), 2u) << r;
        EXPECT_EQ(out[0]["result"]["serverInfo"]["name"], "small") << out[0];
        EXPECT_TRUE(contains(out[1]["result"]["content"][0]["text"].get<std::string>(), "In a shell: small"))
            << out[1];
    }
}

}  // namespace
}  // namespace small_e2e
