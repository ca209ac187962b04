// Who may talk to `small serve` (docs/serve.md, "Security"): every request
// carries the server's random token (the URL's `token=` on the first load,
// then the cookie that load set, or an X-Small-Token header); its Host is
// the address the server listens on (127.0.0.1:PORT or localhost:PORT), so
// a page of another site cannot reach it through DNS rebinding; a POST and
// the event stream come from the server's own origin (no cross-site request
// forgery). Pure: no sockets, so each rule is tested alone.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace small::serve {

// A request as the server hands it over: the header names as sent.
struct HttpRequest {
    std::string method;  // "GET", "POST", ...
    std::string path;    // without the query
    std::vector<std::pair<std::string, std::string>> headers;
    std::map<std::string, std::string> query;
    std::string body;

    // The first header named `name` (any case); "" when absent.
    std::string header(std::string_view name) const;
    bool has_header(std::string_view name) const;
};

struct HttpResponse {
    int status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  // besides the security headers every answer gets
};

struct GuardConfig {
    std::string token;                       // hex, at least 32 digits (128 bits)
    std::vector<std::string> allowed_hosts;  // "127.0.0.1:8123", "localhost:8123"
    int port = 0;
};

// The Host values a server bound to `bind` on `port` accepts: the loopback
// names, and `bind` itself when it is another address.
std::vector<std::string> allowed_hosts_for(const std::string& bind, int port);

// The cookie that carries the token after the first load (per port: two
// servers on one machine do not share it).
std::string token_cookie_name(int port);

struct GuardVerdict {
    bool allowed = false;
    int status = 200;         // 400, 401 or 403 when refused
    std::string reason;       // why, for the answer's body
    bool set_cookie = false;  // the token came in the URL: answer with the cookie
};

// The checks in order: Host, token, then Origin for a POST or /events.
GuardVerdict check_request(const GuardConfig& config, const HttpRequest& request);

// `a` == `b` in time that does not depend on where they differ.
bool same_secret(std::string_view a, std::string_view b);

// 32 hex digits (128 bits) from the system's random source.
std::string new_token();

}  // namespace small::serve
