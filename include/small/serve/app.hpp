// `small serve`'s answers, without sockets: each request is checked
// (serve/request_guard), then routed: the page and its script and style
// (serve/page), GET /state (serve/board_state), POST /action (serve/actions,
// 403 unless the server was started with --write). The event stream
// (/events) is the server's (serve/http_server); this only checks it.
#pragma once

#include "small/base/filesystem.hpp"
#include "small/model/workspace.hpp"
#include "small/serve/board_state.hpp"
#include "small/serve/request_guard.hpp"

namespace small::serve {

struct AppConfig {
    WorkspacePaths ws;
    WorkspaceScope scope = WorkspaceScope::Root;  // the writes' (--workspace)
    GuardConfig guard;
    bool write = false;
    std::string actor;  // who the page's actions are recorded as (--as)
    StateOptions state;
};

// The Content-Security-Policy of every answer: nothing but this server's
// own script, style and state; no inline script; no HTML from strings.
inline constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'";

class App {
public:
    App(const FileSystem& fs, AppConfig config);
    const AppConfig& config() const { return config_; }

    // Every route but the event stream, checks included.
    HttpResponse handle(const HttpRequest& request) const;

    // The checks alone (the event stream runs them before it starts), and
    // a refusal's answer.
    GuardVerdict check(const HttpRequest& request) const { return check_request(config_.guard, request); }
    HttpResponse refusal(const GuardVerdict& verdict) const;

    // The headers every answer carries (CSP, no sniffing, no caching, no framing).
    static void add_security_headers(HttpResponse& response);
    // The cookie that keeps the token after the first load.
    std::string token_cookie() const;

private:
    HttpResponse route(const HttpRequest& request) const;
    HttpResponse state() const;
    HttpResponse action(const HttpRequest& request) const;
    const FileSystem& fs_;
    AppConfig config_;
};

}  // namespace small::serve
