// `small lsp` as a real process over pipes: a session that opens a broken
// plan and fixes it unsaved, hostile frames, and the exit codes LSP gives.
// The engine's details are unit tested in tests/unit/lsp/.
#include "support/run_binary.hpp"

namespace small_e2e {
namespace {

std::string framed(const json& message) {
    const std::string body = message.dump();
    return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string request(int id, const std::string& method, const json& params = json::object()) {
    return framed({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
}

std::string notification(const std::string& method, const json& params) {
    return framed({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
}

// Every framed message of stdout (a frame that does not read fails the test).
std::vector<json> messages(const RunResult& r) {
    std::vector<json> out;
    std::size_t at = 0;
    while (at < r.out.size()) {
        const std::size_t blank = r.out.find("\r\n\r\n", at);
        EXPECT_NE(blank, std::string::npos) << "a header block without its blank line";
        if (blank == std::string::npos) break;
        const std::string header = r.out.substr(at, blank - at);
        EXPECT_EQ(header.rfind("Content-Length: ", 0), 0u) << header;
        const std::size_t length = std::stoul(header.substr(16));
        const json j = json::parse(r.out.substr(blank + 4, length), nullptr, false);
        EXPECT_FALSE(j.is_discarded());
        out.push_back(j);
        at = blank + 4 + length;
    }
    return out;
}

RunResult lsp(const fs::path& cwd, const std::string& input) {
    RunOptions opts;
    opts.cwd = cwd;
    opts.stdin_text = input;
    return run_small({"lsp"}, opts);
}

const std::string kInitialize = request(1, "initialize", {{"processId", nullptr}, {"capabilities", json::object()}}) +
                                notification("initialized", json::object());

std::vector<json> diagnostics_for(const std::vector<json>& out, const std::string& uri) {
    std::vector<json> found;
    for (const json& m : out) {
        if (m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri) {
            found.push_back(m["params"]["diagnostics"]);
        }
    }
    return found;
}

TEST(Lsp, UnsavedBrokenPlanGetsDiagnosticsAndTheFixClearsThem) {
    TempDir dir;
    ASSERT_EQ(run_in(dir.path(), {"init", "--no-agents"}).exit_code, 0);
    ASSERT_EQ(run_in(dir.path(), {"plan", "--add", "Write the widget"}).exit_code, 0);
    ASSERT_EQ(run_in(dir.path(), {"handoff"}).exit_code, 0);
    const fs::path plan = fs::canonical(dir.path()) / ".small/plan.small.yml";
    const std::string uri = "file://" + plan.string();
    const std::string good = read_file(plan);
    std::string broken = good;
    const std::size_t at = broken.rfind("\"pending\"");
    ASSERT_NE(at, std::string::npos) << good;
    broken.replace(at, 9, "\"pendng\"");
    const RunResult r = lsp(
        dir.path(),
        kInitialize +
            notification("textDocument/didOpen",
                         {{"textDocument", {{"uri", uri}, {"languageId", "yaml"}, {"version", 1}, {"text", broken}}}}) +
            request(2, "textDocument/codeAction",
                    {{"textDocument", {{"uri", uri}}},
                     {"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 99}, {"character", 0}}}}},
                     {"context", {{"diagnostics", json::array()}}}}) +
            notification("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}},
                                                    {"contentChanges", json::array({{{"text", good}}})}}) +
            request(3, "shutdown") + framed({{"jsonrpc", "2.0"}, {"method", "exit"}}));
    EXPECT_EQ(r.exit_code, 0) << r;
    const std::vector<json> out = messages(r);
    ASSERT_GE(out.size(), 4u) << r;
    EXPECT_EQ(out[0]["result"]["capabilities"]["hoverProvider"], true);
    const std::vector<json> published = diagnostics_for(out, uri);
    ASSERT_EQ(published.size(), 2u) << r;
    ASSERT_EQ(published[0].size(), 1u) << published[0];
    EXPECT_EQ(published[0][0]["code"], "INV-P8");
    EXPECT_TRUE(published[1].empty()) << "the fix clears them: " << published[1];
    // The disk was never written: the verdict read the unsaved text.
    EXPECT_EQ(read_file(plan), good);
    bool fixed = false;
    for (const json& m : out) {
        if (m.value("id", 0) != 2) continue;
        ASSERT_EQ(m["result"].size(), 1u) << m;
        EXPECT_EQ(m["result"][0]["edit"]["changes"][uri][0]["newText"], "pending");
        fixed = true;
    }
    EXPECT_TRUE(fixed) << r;
}

TEST(Lsp, HostileFramesGetErrorsAndTheServerGoesOn) {
    TempDir dir;
    ASSERT_EQ(run_in(dir.path(), {"init", "--no-agents"}).exit_code, 0);
    const RunResult r =
        lsp(dir.path(), "Content-Length: 7\r\n\r\n{broken" + std::string("Content-Type: text\r\n\r\n") +
                            request(2, "textDocument/hover") + kInitialize + request(3, "no/such/method") +
                            framed(json::array({1, 2})) + request(4, "shutdown") +
                            framed({{"jsonrpc", "2.0"}, {"method", "exit"}}) + request(5, "shutdown"));
    EXPECT_FALSE(r.signaled) << r;
    EXPECT_EQ(r.exit_code, 0) << r;
    const std::vector<json> out = messages(r);
    ASSERT_EQ(out.size(), 7u) << r;
    EXPECT_EQ(out[0]["error"]["code"], -32700);  // not JSON
    EXPECT_EQ(out[1]["error"]["code"], -32700);  // no Content-Length
    EXPECT_EQ(out[2]["error"]["code"], -32002);  // before initialize
    EXPECT_EQ(out[3]["id"], 1);
    EXPECT_EQ(out[4]["error"]["code"], -32601);  // unknown method
    EXPECT_EQ(out[5]["error"]["code"], -32600);  // a batch
    EXPECT_TRUE(out[6]["result"].is_null());     // shutdown; nothing after exit is read
}

TEST(Lsp, AnOversizedFrameIsRefusedWithoutBeingRead) {
    TempDir dir;
    ASSERT_EQ(run_in(dir.path(), {"init", "--no-agents"}).exit_code, 0);
    const RunResult r = lsp(dir.path(), kInitialize + "Content-Length: 99999999999\r\n\r\n{\"jsonrpc\"");
    EXPECT_FALSE(r.signaled) << r;
    EXPECT_EQ(r.exit_code, 1) << r;  // no shutdown before the end of input
    const std::vector<json> out = messages(r);
    ASSERT_EQ(out.size(), 2u) << r;
    EXPECT_EQ(out[1]["error"]["code"], -32700);
    EXPECT_TRUE(contains(out[1]["error"]["message"].get<std::string>(), "longer than")) << out[1];
}

TEST(Lsp, EndOfInputWithoutShutdownExitsOne) {
    TempDir dir;
    ASSERT_EQ(run_in(dir.path(), {"init", "--no-agents"}).exit_code, 0);
    const RunResult r = lsp(dir.path(), kInitialize + request(2, "textDocument/hover", {{"bad", true}}) + "Content-Len");
    EXPECT_EQ(r.exit_code, 1) << r;
    const std::vector<json> out = messages(r);
    ASSERT_EQ(out.size(), 2u) << r;
    EXPECT_EQ(out[1]["error"]["code"], -32602) << out[1];
    EXPECT_TRUE(contains(r.err, "input ended inside a message")) << r;
}

}  // namespace
}  // namespace small_e2e
