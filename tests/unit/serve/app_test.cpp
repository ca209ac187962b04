// small serve's routes without sockets: refusals, the first load's cookie,
// the page's headers, the state, read-only and --write actions.
#include <gtest/gtest.h>

#include "support/fixtures.hpp"
#include "small/serve/app.hpp"
#include "small/serve/page.hpp"

namespace small::serve {
namespace {

using namespace small::testing;

const std::string kToken = "00112233445566778899aabbccddeeff";

AppConfig config_of(const InitWorkspace& w, bool write) {
    AppConfig c;
    c.ws = w.ws();
    c.write = write;
    c.state.sides = false;
    c.guard = {kToken, allowed_hosts_for("127.0.0.1", 8123), 8123};
    return c;
}

HttpRequest request(std::string method, std::string path) {
    HttpRequest r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.headers = {{"Host", "localhost:8123"}, {"X-Small-Token", kToken}};
    if (r.method == "POST") {
        r.headers.emplace_back("Origin", "http://localhost:8123");
        r.headers.emplace_back("Content-Type", "application/json");
    }
    return r;
}

std::string header(const HttpResponse& r, const std::string& name) {
    for (const auto& [k, v] : r.headers) {
        if (k == name) return v;
    }
    return {};
}

TEST(ServeApp, TheFirstLoadSetsTheCookieAndDropsTheTokenFromTheUrl) {
    InitWorkspace w;
    const App app(w.fs(), config_of(w, false));
    HttpRequest first;
    first.method = "GET";
    first.path = "/";
    first.headers = {{"Host", "127.0.0.1:8123"}};
    first.query["token"] = kToken;
    const HttpResponse r = app.handle(first);
    EXPECT_EQ(r.status, 303);
    EXPECT_EQ(header(r, "Location"), "/");
    EXPECT_EQ(header(r, "Set-Cookie"), "small_token_8123=" + kToken + "; Path=/; HttpOnly; SameSite=Strict");
}

TEST(ServeApp, EveryAnswerCarriesTheStrictPolicy) {
    InitWorkspace w;
    const App app(w.fs(), config_of(w, false));
    for (const char* path : {"/", "/app.js", "/app.css", "/state", "/nothing"}) {
        const HttpResponse r = app.handle(request("GET", path));
        EXPECT_EQ(header(r, "Content-Security-Policy"), kContentSecurityPolicy) << path;
        EXPECT_EQ(header(r, "X-Content-Type-Options"), "nosniff") << path;
    }
    EXPECT_EQ(app.handle(request("GET", "/")).body, page_html());
    EXPECT_EQ(app.handle(request("GET", "/nothing")).status, 404);
    HttpRequest refused = request("GET", "/state");
    refused.headers[1].second = "wrong";
    EXPECT_EQ(app.handle(refused).status, 401);
    EXPECT_FALSE(header(app.handle(refused), "Content-Security-Policy").empty());
}

TEST(ServeApp, TheStateIsJson) {
    InitWorkspace w;
    const App app(w.fs(), config_of(w, true));
    const HttpResponse r = app.handle(request("GET", "/state"));
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.content_type, "application/json; charset=utf-8");
    const nlohmann::json doc = nlohmann::json::parse(r.body);
    EXPECT_TRUE(doc["write"].get<bool>());
    EXPECT_EQ(doc["workspace"], w.ws().root);
}

TEST(ServeApp, ActionsAreRefusedReadOnly) {
    InitWorkspace w;
    const App app(w.fs(), config_of(w, false));
    HttpRequest add = request("POST", "/action");
    add.body = R"({"action":"add","text":"From the page"})";
    EXPECT_EQ(app.handle(add).status, 403);
    EXPECT_EQ(w.plan_bytes().find("From the page"), std::string::npos);
}

TEST(ServeApp, ActionsRunWithWrite) {
    InitWorkspace w;
    const App app(w.fs(), config_of(w, true));
    HttpRequest add = request("POST", "/action");
    add.body = R"({"action":"add","text":"From the page"})";
    const HttpResponse r = app.handle(add);
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_NE(w.plan_bytes().find("From the page"), std::string::npos);
    HttpRequest bad = add;
    bad.body = R"({"action":"unblock","task":"task-404"})";
    EXPECT_EQ(app.handle(bad).status, 422);
    HttpRequest form = add;
    form.headers.back().second = "application/x-www-form-urlencoded";
    EXPECT_EQ(app.handle(form).status, 415);
    HttpRequest foreign = add;
    foreign.headers[2].second = "http://evil.example";
    EXPECT_EQ(app.handle(foreign).status, 403);
    EXPECT_EQ(app.handle(request("GET", "/action")).status, 405);
}

TEST(ServePage, TheScriptBuildsNoHtmlFromStrings) {
    const std::string_view script = page_script();
    EXPECT_EQ(script.find("innerHTML"), std::string_view::npos);
    EXPECT_EQ(script.find("outerHTML"), std::string_view::npos);
    EXPECT_EQ(script.find("insertAdjacentHTML"), std::string_view::npos);
    EXPECT_EQ(script.find("document.write"), std::string_view::npos);
    EXPECT_EQ(script.find("eval("), std::string_view::npos);
    EXPECT_NE(script.find("textContent"), std::string_view::npos);
    EXPECT_NE(page_html().find("<script src=\"/app.js\""), std::string_view::npos);
    EXPECT_EQ(page_html().find("http"), std::string_view::npos);  // no external resource
    EXPECT_EQ(page_style().find("url("), std::string_view::npos);
}

}  // namespace
}  // namespace small::serve
