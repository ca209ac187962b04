// The LSP engine driven in memory: framing, the lifecycle and its errors,
// diagnostics of the real verdict on unsaved text, hover, definition,
// completion and quick fixes on a workspace in a MemoryFileSystem.
#include "small/lsp/server.hpp"

#include <gtest/gtest.h>

#include "small/ops/session/checkpoint.hpp"
#include "small/ops/session/claim.hpp"
#include "support/fixtures.hpp"

namespace small::lsp {
namespace {

using nlohmann::json;
using namespace small::testing;

std::string request(int id, const std::string& method, const json& params = json::object()) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

std::string notification(const std::string& method, const json& params) {
    return json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}.dump();
}

json parsed(const std::string& body) { return json::parse(body); }

// Frames fed in pieces of `step` bytes: the bodies and the problems, in order.
struct Fed {
    std::vector<std::string> bodies, problems;
};
Fed feed_all(const std::string& bytes, std::size_t step, std::size_t cap = kMaxFrameBytes) {
    FrameReader reader(cap);
    Fed fed;
    for (std::size_t at = 0; at < bytes.size(); at += step) {
        reader.feed(std::string_view(bytes).substr(at, step),
                    [&](std::string_view body) { return fed.bodies.emplace_back(body), true; },
                    [&](const std::string& problem) { return fed.problems.push_back(problem), true; });
    }
    return fed;
}

TEST(LspFraming, FramesAreCutWhateverThePiecesTheyArriveIn) {
    const std::string stream = frame("{\"a\":1}") + "content-length:  3\r\nContent-Type: x\r\n\r\n[1]" + frame("é");
    for (const std::size_t step : {1u, 2u, 7u, 4096u}) {
        const Fed fed = feed_all(stream, step);
        EXPECT_EQ(fed.bodies, (std::vector<std::string>{"{\"a\":1}", "[1]", "é"})) << step;
        EXPECT_TRUE(fed.problems.empty()) << step;
    }
}

TEST(LspFraming, BrokenHeadersAndOversizedBodiesAreSkippedAndReadingGoesOn) {
    const std::string stream = std::string("Content-Type: x\r\n\r\n") +          // no length
                               "Content-Length: 12x\r\n\r\n" +               // not a number
                               "Content-Length: 20\r\n\r\n" + std::string(20, 'z') +  // over the cap of 10
                               "junk" + frame("{}") +                       // junk before a header
                               std::string(kMaxHeaderBytes + 10, 'h') + frame("[]");
    const Fed fed = feed_all(stream, 5, 10);
    EXPECT_EQ(fed.bodies, (std::vector<std::string>{"{}", "[]"}));  // found again after the long header
    ASSERT_EQ(fed.problems.size(), 6u);
    EXPECT_NE(fed.problems[0].find("without Content-Length"), std::string::npos);
    EXPECT_NE(fed.problems[1].find("not a number"), std::string::npos);
    EXPECT_NE(fed.problems[2].find("longer than 10"), std::string::npos);
    EXPECT_NE(fed.problems[3].find("no header"), std::string::npos);
    EXPECT_NE(fed.problems[4].find("header block longer"), std::string::npos);
}

TEST(LspFraming, ServeAnswersUntilExitAndSaysTheExitCode) {
    auto w = memory_workspace();
    Server server(w->fs(), {w->ws(), WorkspaceScope::Root, "test"});
    std::string input = frame(request(1, "initialize")) + frame(request(2, "shutdown")) +
                        frame(notification("exit", json::object())) + frame(request(3, "shutdown"));
    std::string written, logged;
    const Transport io{[&](char* buffer, std::size_t size) -> long {
                           const std::size_t n = std::min(size, input.size());
                           input.copy(buffer, n);
                           input.erase(0, n);
                           return static_cast<long>(n);
                       },
                       [&](std::string_view bytes) { return written.append(bytes), true; },
                       [&](std::string_view line) { logged.append(line); }};
    EXPECT_EQ(serve(server, io), 0);
    EXPECT_EQ(written.find("\"id\":3"), std::string::npos) << written;  // nothing read after exit
    EXPECT_NE(written.find("\"id\":2"), std::string::npos) << written;
}

class LspServer : public ::testing::Test {
protected:
    void SetUp() override {
        w_ = memory_workspace();
        ASSERT_TRUE(checkpoint_command(w_->fs(), w_->ws(), checkpoint_req("task-1", TaskStatus::InProgress)));
        WorkspacePaths ws = w_->ws();
        ws.display_prefix.clear();
        server_ = std::make_unique<Server>(w_->fs(), ServerOptions{ws, WorkspaceScope::Root, "test"});
        const std::vector<std::string> out = server_->handle(request(1, "initialize", {{"capabilities", json::object()}}));
        ASSERT_EQ(out.size(), 1u);
        plan_uri_ = uri_of_path(w_->file("plan.small.yml"));
    }

    // The publishDiagnostics of `uri` among `out` (the last one), or null.
    static json diagnostics_in(const std::vector<std::string>& out, const std::string& uri) {
        json found;
        for (const std::string& body : out) {
            const json m = parsed(body);
            if (m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri) {
                found = m["params"]["diagnostics"];
            }
        }
        return found;
    }

    std::vector<std::string> open_plan(const std::string& text) {
        return server_->handle(notification(
            "textDocument/didOpen",
            {{"textDocument", {{"uri", plan_uri_}, {"languageId", "yaml"}, {"version", 1}, {"text", text}}}}));
    }

    json ask(const std::string& method, const json& params) {
        const std::vector<std::string> out = server_->handle(request(7, method, params));
        EXPECT_EQ(out.size(), 1u);
        return parsed(out.at(0));
    }

    json at(const std::string& uri, std::size_t line, std::size_t character) {
        return {{"textDocument", {{"uri", uri}}}, {"position", {{"line", line}, {"character", character}}}};
    }

    std::unique_ptr<InitWorkspace> w_;
    std::unique_ptr<Server> server_;
    std::string plan_uri_;
};

const std::string kTwoTasks =
    "small_version: \"1.0.0\"\n"
    "owner: \"agent\"\n"
    "tasks:\n"
    "  - id: \"task-1\"\n"
    "    title: \"Initial task\"\n"
    "    status: \"in_progress\"\n"
    "  - id: \"task-2\"\n"
    "    title: \"Second\"\n"
    "    status: \"pendng\"\n"
    "    depends_on: [\"task-1\"]\n";

TEST_F(LspServer, RequestsBeforeInitializeAndUnknownMethodsGetErrors) {
    auto w = memory_workspace();
    Server fresh(w->fs(), {w->ws(), WorkspaceScope::Root, "test"});
    EXPECT_EQ(parsed(fresh.handle(request(1, "textDocument/hover")).at(0))["error"]["code"], kServerNotInitialized);
    EXPECT_TRUE(fresh.handle(notification("textDocument/didOpen", json::object())).empty());
    EXPECT_EQ(parsed(server_->handle(request(2, "no/such")).at(0))["error"]["code"], kMethodNotFound);
    EXPECT_TRUE(server_->handle(notification("no/such", json::object())).empty());
    EXPECT_EQ(parsed(server_->handle("{").at(0))["error"]["code"], kParseError);
    EXPECT_EQ(parsed(server_->handle(std::string(100, '[')).at(0))["error"]["code"], kParseError);
    EXPECT_EQ(parsed(server_->handle("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}").at(0))["error"]["code"],
              kInvalidRequest);
    EXPECT_EQ(parsed(server_->handle(request(3, "textDocument/hover", {{"textDocument", 1}})).at(0))["error"]["code"],
              kInvalidParams);
    EXPECT_EQ(parsed(server_->handle(request(4, "initialize")).at(0))["error"]["code"], kInvalidRequest);
    EXPECT_TRUE(server_->handle("{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":null}").empty());
    EXPECT_TRUE(parsed(server_->handle(request(5, "shutdown")).at(0))["result"].is_null());
    EXPECT_EQ(parsed(server_->handle(request(6, "textDocument/hover")).at(0))["error"]["code"], kInvalidRequest);
    server_->handle(notification("exit", json::object()));
    EXPECT_TRUE(server_->exited());
    EXPECT_EQ(server_->exit_code(), 0);
}

TEST_F(LspServer, UnsavedTextIsCheckedAndTheFixClearsTheDiagnostics) {
    const std::string on_disk = w_->plan_bytes();
    const std::vector<std::string> opened = open_plan(kTwoTasks);
    const json diagnostics = diagnostics_in(opened, plan_uri_);
    ASSERT_EQ(diagnostics.size(), 1u) << diagnostics;
    EXPECT_EQ(diagnostics[0]["code"], "INV-P8");
    EXPECT_EQ(diagnostics[0]["range"]["start"], (json{{"line", 8}, {"character", 12}}));
    EXPECT_EQ(w_->plan_bytes(), on_disk);  // nothing saved, nothing written

    const json actions = ask("textDocument/codeAction",
                             {{"textDocument", {{"uri", plan_uri_}}},
                              {"range", {{"start", {{"line", 8}, {"character", 0}}}, {"end", {{"line", 8}, {"character", 0}}}}},
                              {"context", {{"diagnostics", json::array()}}}})["result"];
    ASSERT_EQ(actions.size(), 1u) << actions;
    EXPECT_EQ(actions[0]["kind"], "quickfix");
    const json edit = actions[0]["edit"]["changes"][plan_uri_][0];
    EXPECT_EQ(edit["newText"], "pending");
    EXPECT_EQ(edit["range"]["start"], (json{{"line", 8}, {"character", 13}}));

    std::string fixed = kTwoTasks;
    fixed.replace(fixed.find("pendng"), 6, "pending");
    const std::vector<std::string> changed = server_->handle(notification(
        "textDocument/didChange",
        {{"textDocument", {{"uri", plan_uri_}, {"version", 2}}}, {"contentChanges", json::array({{{"text", fixed}}})}}));
    EXPECT_EQ(diagnostics_in(changed, plan_uri_), json::array());
    EXPECT_FALSE(server_->published().count(w_->file("plan.small.yml")));
}

TEST_F(LspServer, IncrementalChangesAndCloseFollowTheBuffer) {
    open_plan(kTwoTasks);
    // "pendng" -> "pending" by a range edit at line 8, characters 13..19.
    const std::vector<std::string> changed = server_->handle(notification(
        "textDocument/didChange",
        {{"textDocument", {{"uri", plan_uri_}, {"version", 2}}},
         {"contentChanges",
          json::array({{{"range", {{"start", {{"line", 8}, {"character", 13}}}, {"end", {{"line", 8}, {"character", 19}}}}},
                        {"text", "pending"}}})}}));
    EXPECT_EQ(diagnostics_in(changed, plan_uri_), json::array());
    open_plan(kTwoTasks + "  - {}\n");
    EXPECT_FALSE(server_->published().empty());
    const std::vector<std::string> closed =
        server_->handle(notification("textDocument/didClose", {{"textDocument", {{"uri", plan_uri_}}}}));
    EXPECT_EQ(diagnostics_in(closed, plan_uri_), json::array());  // the disk's plan is clean
}

TEST_F(LspServer, ABrokenOtherFileIsPublishedToo) {
    w_->write("handoff.small.yml", "small_version: [\n");
    const std::vector<std::string> opened = open_plan(w_->plan_bytes());
    const json handoff = diagnostics_in(opened, uri_of_path(w_->file("handoff.small.yml")));
    ASSERT_FALSE(handoff.empty()) << opened.size();
    EXPECT_EQ(handoff[0]["severity"], 1);
}

TEST_F(LspServer, HoverDefinitionAndCompletionKnowTheTasks) {
    open_plan(kTwoTasks);
    // Hover on the dependency "task-1" (line 9) names its title, status and evidence.
    const json hover = ask("textDocument/hover", at(plan_uri_, 9, 20))["result"];
    const std::string text = hover["contents"]["value"];
    EXPECT_NE(text.find("task-1: Initial task"), std::string::npos) << text;
    EXPECT_NE(text.find("status: in_progress"), std::string::npos) << text;
    EXPECT_NE(text.find("unit tests pass"), std::string::npos) << text;
    EXPECT_TRUE(ask("textDocument/hover", at(plan_uri_, 4, 14))["result"].is_null());  // a title

    const json definition = ask("textDocument/definition", at(plan_uri_, 9, 20))["result"];
    EXPECT_EQ(definition["uri"], plan_uri_);
    EXPECT_EQ(definition["range"]["start"], (json{{"line", 3}, {"character", 8}}));
    EXPECT_EQ(definition["range"]["end"], (json{{"line", 3}, {"character", 16}}));

    // From the log: a task_id value goes to the plan too.
    const std::string log_uri = uri_of_path(w_->file("progress.small.yml"));
    const std::string log = w_->log_bytes();
    const LineIndex lines(log);
    const Position task_line = lines.position_of(log.rfind("task_id: \"task-1\"") + 11);
    EXPECT_EQ(ask("textDocument/definition", at(log_uri, task_line.line, task_line.character))["result"]["uri"],
              plan_uri_);

    const json ids = ask("textDocument/completion", at(plan_uri_, 9, 19))["result"];
    ASSERT_EQ(ids.size(), 2u) << ids;
    EXPECT_EQ(ids[0]["label"], "task-1");
    EXPECT_EQ(ids[0]["textEdit"]["range"]["start"], (json{{"line", 9}, {"character", 18}}));
    const json statuses = ask("textDocument/completion", at(plan_uri_, 8, 15))["result"];
    ASSERT_EQ(statuses.size(), 5u) << statuses;
    EXPECT_EQ(statuses[0]["label"], "pending");
    EXPECT_TRUE(ask("textDocument/completion", at(plan_uri_, 4, 14))["result"].empty());
    // Nothing outside the workspace's .small/ is read, whatever the client names.
    const FileWrite notes{w_->ws().root, w_->root_path("notes.yml"), w_->ws().root, 0644, Durability::None, false, false};
    ASSERT_TRUE(w_->fs().replace_file(notes, "depends_on: [\"task-1\"]\n"));
    EXPECT_TRUE(ask("textDocument/hover", at(uri_of_path(w_->root_path("notes.yml")), 0, 16))["result"].is_null());
}

TEST_F(LspServer, HoverNamesTheHolderOfALiveClaim) {
    ClaimOptions alice;
    alice.agent = "alice";
    ASSERT_TRUE(claim_command(w_->fs(), w_->ws(), "task-1", 600, alice));
    open_plan(kTwoTasks);
    const std::string text = ask("textDocument/hover", at(plan_uri_, 3, 12))["result"]["contents"]["value"];
    EXPECT_NE(text.find("holder: alice (until "), std::string::npos) << text;
}

TEST(LspWatch, AClientThatWatchesFilesIsAskedToWatchTheSmallFiles) {
    auto w = memory_workspace();
    Server watching(w->fs(), {w->ws(), WorkspaceScope::Root, "test"});
    watching.handle(request(1, "initialize",
                            {{"capabilities", {{"workspace", {{"didChangeWatchedFiles", {{"dynamicRegistration", true}}}}}}}}));
    const std::vector<std::string> out = watching.handle(notification("initialized", json::object()));
    ASSERT_EQ(out.size(), 1u);
    const json asked = parsed(out[0]);
    EXPECT_EQ(asked["method"], "client/registerCapability");
    EXPECT_EQ(asked["params"]["registrations"][0]["registerOptions"]["watchers"][0]["globPattern"], "**/.small/*.yml");
    // The client's answer is not answered; a change it reports publishes again.
    EXPECT_TRUE(watching.handle("{\"jsonrpc\":\"2.0\",\"id\":\"small-register-1\",\"result\":null}").empty());
    w->write("handoff.small.yml", "small_version: [\n");
    const std::vector<std::string> changed = watching.handle(notification("workspace/didChangeWatchedFiles", {{"changes", json::array()}}));
    ASSERT_FALSE(changed.empty());
    EXPECT_NE(changed[0].find("handoff.small.yml"), std::string::npos) << changed[0];

    Server plain(w->fs(), {w->ws(), WorkspaceScope::Root, "test"});
    plain.handle(request(1, "initialize", {{"capabilities", json::object()}}));
    EXPECT_TRUE(plain.handle(notification("initialized", json::object())).empty());
}

}  // namespace
}  // namespace small::lsp
