// small serve's request checks: the token, the Host, the Origin.
#include <gtest/gtest.h>

#include "small/serve/request_guard.hpp"

namespace small::serve {
namespace {


const std::string kToken = "0123456789abcdef0123456789abcdef";

GuardConfig config() { return {kToken, allowed_hosts_for("127.0.0.1", 8123), 8123}; }

HttpRequest get(std::string path, std::string host = "127.0.0.1:8123") {
    HttpRequest r;
    r.method = "GET";
    r.path = std::move(path);
    r.headers = {{"Host", std::move(host)}};
    return r;
}

TEST(RequestGuard, TheTokenInTheUrlIsAcceptedAndSetsTheCookie) {
    HttpRequest r = get("/");
    r.query["token"] = kToken;
    const GuardVerdict v = check_request(config(), r);
    EXPECT_TRUE(v.allowed);
    EXPECT_TRUE(v.set_cookie);
}

TEST(RequestGuard, TheCookieOrTheHeaderCarriesTheTokenAfterwards) {
    HttpRequest r = get("/state");
    r.headers.emplace_back("Cookie", "other=1; small_token_8123=" + kToken + "; x=2");
    EXPECT_TRUE(check_request(config(), r).allowed);
    EXPECT_FALSE(check_request(config(), r).set_cookie);
    HttpRequest h = get("/state");
    h.headers.emplace_back("x-small-token", kToken);
    EXPECT_TRUE(check_request(config(), h).allowed);
}

TEST(RequestGuard, NoTokenOrAWrongOneIsRefused) {
    EXPECT_EQ(check_request(config(), get("/state")).status, 401);
    HttpRequest wrong = get("/state");
    wrong.query["token"] = "0123456789abcdef0123456789abcdee";
    EXPECT_FALSE(check_request(config(), wrong).allowed);
    HttpRequest other_port = get("/state");
    other_port.headers.emplace_back("Cookie", "small_token_9000=" + kToken);
    EXPECT_FALSE(check_request(config(), other_port).allowed);
    HttpRequest prefix = get("/state");
    prefix.query["token"] = kToken.substr(0, 16);
    EXPECT_FALSE(check_request(config(), prefix).allowed);
}

TEST(RequestGuard, AServerWithoutAStrongTokenRefusesEverything) {
    GuardConfig weak = config();
    weak.token = "";
    HttpRequest r = get("/state");
    r.query["token"] = "";
    EXPECT_FALSE(check_request(weak, r).allowed);
}

TEST(RequestGuard, AForeignHostIsRefusedEvenWithTheToken) {
    for (const std::string host : {"evil.example:8123", "127.0.0.1:9999", "127.0.0.1", "", "localhost.evil:8123"}) {
        HttpRequest r = get("/state", host);
        r.query["token"] = kToken;
        const GuardVerdict v = check_request(config(), r);
        EXPECT_FALSE(v.allowed) << host;
        EXPECT_EQ(v.status, 403) << host;
    }
    HttpRequest local = get("/state", "localhost:8123");
    local.query["token"] = kToken;
    EXPECT_TRUE(check_request(config(), local).allowed);
}

TEST(RequestGuard, APostNeedsThePagesOrigin) {
    HttpRequest post = get("/action");
    post.method = "POST";
    post.query["token"] = kToken;
    EXPECT_FALSE(check_request(config(), post).allowed);  // no Origin
    post.headers.emplace_back("Origin", "http://evil.example");
    EXPECT_EQ(check_request(config(), post).status, 403);
    post.headers.back().second = "http://127.0.0.1:8123";
    EXPECT_TRUE(check_request(config(), post).allowed);
    post.headers.emplace_back("Sec-Fetch-Site", "cross-site");
    EXPECT_FALSE(check_request(config(), post).allowed);
}

TEST(RequestGuard, TheEventStreamRefusesAForeignOriginButNotAMissingOne) {
    HttpRequest events = get("/events");
    events.query["token"] = kToken;
    EXPECT_TRUE(check_request(config(), events).allowed);  // a same-origin GET carries no Origin
    events.headers.emplace_back("Origin", "http://localhost:8124");
    EXPECT_FALSE(check_request(config(), events).allowed);
}

TEST(RequestGuard, AnotherBindAddressIsAcceptedAsHost) {
    const std::vector<std::string> hosts = allowed_hosts_for("192.0.2.7", 80);
    EXPECT_EQ(hosts, (std::vector<std::string>{"127.0.0.1:80", "localhost:80", "192.0.2.7:80"}));
    EXPECT_EQ(allowed_hosts_for("::1", 80).back(), "[::1]:80");
}

TEST(RequestGuard, TokensAre128BitsOfHexAndDiffer) {
    const std::string a = new_token(), b = new_token();
    EXPECT_EQ(a.size(), 32u);
    EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_NE(a, b);
    EXPECT_TRUE(same_secret(a, a));
    EXPECT_FALSE(same_secret(a, b));
    EXPECT_FALSE(same_secret(a, a + "0"));
}

}  // namespace
}  // namespace small::serve
