// The request checks of `small serve`: see request_guard.hpp.
#include "small/serve/request_guard.hpp"

#include <algorithm>
#include <cctype>
#include <random>

namespace small::serve {

namespace {

bool same_name(std::string_view a, std::string_view b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y)); });
}

std::string trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return std::string(s);
}

// The value of cookie `name` in a Cookie header ("" when absent).
std::string cookie_value(std::string_view header, std::string_view name) {
    while (!header.empty()) {
        const std::size_t end = header.find(';');
        const std::string pair = trim(header.substr(0, end));
        const std::size_t eq = pair.find('=');
        if (eq != std::string::npos && pair.substr(0, eq) == name) return pair.substr(eq + 1);
        if (end == std::string_view::npos) break;
        header.remove_prefix(end + 1);
    }
    return {};
}

GuardVerdict refuse(int status, std::string reason) { return {false, status, std::move(reason), false}; }

// A POST and the event stream must come from this server's own page: the
// Origin, when the browser sends one, names one of our hosts; a browser's
// Sec-Fetch-Site, when sent, says same-origin. A POST without Origin is refused.
GuardVerdict check_origin(const GuardConfig& config, const HttpRequest& request) {
    const bool post = request.method == "POST";
    if (request.has_header("Origin")) {
        const std::string origin = request.header("Origin");
        const bool ours = std::any_of(config.allowed_hosts.begin(), config.allowed_hosts.end(),
                                      [&](const std::string& host) { return origin == "http://" + host; });
        if (!ours) return refuse(403, "refused: the request comes from another origin (" + origin + ")");
    } else if (post) {
        return refuse(403, "refused: a POST must carry the page's Origin");
    }
    if (request.has_header("Sec-Fetch-Site")) {
        const std::string site = request.header("Sec-Fetch-Site");
        if (site != "same-origin" && site != "none") return refuse(403, "refused: a cross-site request (" + site + ")");
    }
    return {true, 200, "", false};
}

}  // namespace

std::string HttpRequest::header(std::string_view name) const {
    for (const auto& [key, value] : headers) {
        if (same_name(key, name)) return value;
    }
    return {};
}

bool HttpRequest::has_header(std::string_view name) const {
    return std::any_of(headers.begin(), headers.end(), [&](const auto& h) { return same_name(h.first, name); });
}

std::vector<std::string> allowed_hosts_for(const std::string& bind, int port) {
    std::string p(1, ':');  // appended, not `":" + ...`: g++ 12's -Wrestrict misfires on that
    p += std::to_string(port);
    std::vector<std::string> hosts = {"127.0.0.1" + p, "localhost" + p};
    if (bind != "127.0.0.1" && bind != "localhost" && !bind.empty()) {
        std::string host = bind;
        if (bind.find(':') != std::string::npos) host.insert(0, 1, '[').push_back(']');  // IPv6
        hosts.push_back(host + p);
    }
    return hosts;
}

std::string token_cookie_name(int port) { return "small_token_" + std::to_string(port); }

bool same_secret(std::string_view a, std::string_view b) {
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
    return diff == 0;
}

std::string new_token() {
    std::random_device random;  // getrandom(2) on Linux
    static constexpr char kHex[] = "0123456789abcdef";
    std::string token;
    for (int i = 0; i < 4; ++i) {
        std::uint32_t word = random();
        for (int j = 0; j < 8; ++j, word >>= 4) token += kHex[word & 0xF];
    }
    return token;
}

GuardVerdict check_request(const GuardConfig& config, const HttpRequest& request) {
    const std::string host = request.header("Host");
    if (std::find(config.allowed_hosts.begin(), config.allowed_hosts.end(), host) == config.allowed_hosts.end()) {
        return refuse(403, "refused: Host must be one of this server's addresses, not \"" + host + "\"");
    }
    bool from_url = false;
    std::string given = request.header("X-Small-Token");
    if (given.empty()) given = cookie_value(request.header("Cookie"), token_cookie_name(config.port));
    if (const auto q = request.query.find("token"); q != request.query.end()) {
        given = q->second;
        from_url = true;
    }
    if (config.token.size() < 32 || !same_secret(given, config.token)) {
        return refuse(401, "refused: open the URL small serve printed (it carries the token)");
    }
    if (request.method == "POST" || request.path == "/events") {
        GuardVerdict origin = check_origin(config, request);
        if (!origin.allowed) return origin;
    }
    return {true, 200, "", from_url};
}

}  // namespace small::serve
