#include "small/check/links.hpp"

#include <gtest/gtest.h>

#include <string>

namespace small {
namespace {

constexpr bool kProgress = true;   // loopback hosts allowed
constexpr bool kElsewhere = false;  // every http:// URL is insecure

void expect_flagged(std::string_view text, bool allow_loopback, std::string_view url) {
    auto found = find_insecure_link(text, allow_loopback);
    ASSERT_TRUE(found.has_value()) << "not flagged: " << text;
    EXPECT_EQ(*found, url) << text;
}

void expect_clean(std::string_view text, bool allow_loopback) {
    auto found = find_insecure_link(text, allow_loopback);
    EXPECT_FALSE(found.has_value()) << text << " -> " << found.value_or("");
}

// ---- reference cases (protocol §11.1 items 33-37) ----

TEST(InsecureLink, LoopbackAllowedInProgress) {
    for (const char* text : {"checked http://localhost:3001/api", "http://localhost/test",
                             "curl http://127.0.0.1:8080/health", "http://0.0.0.0:3000",
                             "http://[::1]:3000/api"}) {
        expect_clean(text, kProgress);
    }
}

TEST(InsecureLink, RemoteHostsFlaggedInProgress) {
    expect_flagged("see http://example.com", kProgress, "http://example.com");
    expect_flagged("GET http://api.example.com/v1 ok", kProgress, "http://api.example.com/v1");
}

TEST(InsecureLink, LoopbackFlaggedOutsideProgress) {
    expect_flagged("served at http://localhost:3001", kElsewhere, "http://localhost:3001");
    expect_flagged("http://insecure.example.com", kElsewhere, "http://insecure.example.com");
}

TEST(InsecureLink, BareSchemeInProseIsIgnored) {
    expect_clean("insecure link http:// in docs; tested http://localhost:8080/x", kProgress);
    expect_clean("http://", kElsewhere);
    expect_clean("http:// is deprecated", kElsewhere);
    expect_clean("the http:/// form", kElsewhere);
    expect_clean("quoted \"http://\" scheme", kElsewhere);
}

// ---- improvements over the reference (§10.6 item 43) ----

TEST(InsecureLink, LoopbackIsNotAPrefixTest) {
    expect_flagged("http://localhost.evil.example/x", kProgress, "http://localhost.evil.example/x");
    expect_flagged("http://127.0.0.1.attacker.example", kProgress,
                   "http://127.0.0.1.attacker.example");
    expect_flagged("http://localhostevil.example", kProgress, "http://localhostevil.example");
    expect_flagged("http://0.0.0.0.nip.io:80", kProgress, "http://0.0.0.0.nip.io:80");
    expect_flagged("http://[::1].evil.example", kProgress, "http://[::1].evil.example");
}

TEST(InsecureLink, UserinfoCannotDisguiseTheHost) {
    expect_flagged("http://localhost@evil.example/", kProgress, "http://localhost@evil.example/");
    expect_clean("http://user:pw@localhost:8080/", kProgress);
}

TEST(InsecureLink, SchemeMatchIsCaseInsensitive) {
    expect_flagged("HTTP://EXAMPLE.COM/a", kElsewhere, "HTTP://EXAMPLE.COM/a");
    expect_flagged("Http://example.com", kProgress, "Http://example.com");
    expect_clean("HTTP://LOCALHOST:8080", kProgress);
}

TEST(InsecureLink, LoopbackHostEndsAtPortPathQueryOrFragment) {
    expect_clean("http://localhost?x=1", kProgress);
    expect_clean("http://localhost#top", kProgress);
    expect_clean("http://127.0.0.1", kProgress);
    expect_clean("http://[::1]", kProgress);
}

// ---- URL extent ----

TEST(InsecureLink, UrlEndsAtTerminators) {
    expect_flagged("a http://x.example/p b", kElsewhere, "http://x.example/p");
    expect_flagged("\"http://x.example/p\"", kElsewhere, "http://x.example/p");
    expect_flagged("'http://x.example/p'", kElsewhere, "http://x.example/p");
    expect_flagged("<http://x.example/p>", kElsewhere, "http://x.example/p");
    expect_flagged("[docs](http://x.example/p)", kElsewhere, "http://x.example/p");
    expect_flagged("[http://x.example/p]", kElsewhere, "http://x.example/p");
    expect_flagged("line1\nhttp://x.example/p\r\nline2", kElsewhere, "http://x.example/p");
    expect_flagged("tab\thttp://x.example/p\tz", kElsewhere, "http://x.example/p");
    expect_flagged("see http://x.example/p.", kElsewhere, "http://x.example/p");
}

TEST(InsecureLink, BracketedHostKeepsItsBrackets) {
    expect_flagged("http://[2001:db8::1]:80/x", kProgress, "http://[2001:db8::1]:80/x");
    expect_clean("(see http://[::1]:3000/api).", kProgress);
}

TEST(InsecureLink, ReturnsFirstOffendingUrl) {
    expect_flagged("http://localhost:1 then http://a.example then http://b.example", kProgress,
                   "http://a.example");
    expect_flagged("http://a.example then http://b.example", kElsewhere, "http://a.example");
}

TEST(InsecureLink, HttpsAndPlainTextAreClean) {
    expect_clean("https://example.com/secure", kElsewhere);
    expect_clean("no links here", kElsewhere);
    expect_clean("", kElsewhere);
    expect_clean("httpx://example.com", kElsewhere);
}

}  // namespace
}  // namespace small
