// `small serve`'s routes: see app.hpp.
#include "small/serve/app.hpp"

#include <nlohmann/json.hpp>

#include "small/serve/actions.hpp"
#include "small/serve/page.hpp"

namespace small::serve {

namespace {

HttpResponse json_answer(int status, const nlohmann::json& doc) {
    return {status, "application/json; charset=utf-8", doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), {}};
}

HttpResponse error_answer(int status, const std::string& message) {
    return json_answer(status, {{"error", message}});
}

int status_of(const Error& e) {
    switch (e.kind) {
        case Error::Kind::Usage: return 400;
        case Error::Kind::Invalid: return 422;
        case Error::Kind::Busy: return 409;
        default: return 500;
    }
}

}  // namespace

App::App(const FileSystem& fs, AppConfig config) : fs_(fs), config_(std::move(config)) {}

void App::add_security_headers(HttpResponse& response) {
    response.headers.emplace_back("Content-Security-Policy", kContentSecurityPolicy);
    response.headers.emplace_back("X-Content-Type-Options", "nosniff");
    response.headers.emplace_back("Referrer-Policy", "no-referrer");
    response.headers.emplace_back("Cache-Control", "no-store");
    response.headers.emplace_back("X-Frame-Options", "DENY");
    response.headers.emplace_back("Cross-Origin-Resource-Policy", "same-origin");
}

std::string App::token_cookie() const {
    return token_cookie_name(config_.guard.port) + "=" + config_.guard.token + "; Path=/; HttpOnly; SameSite=Strict";
}

HttpResponse App::refusal(const GuardVerdict& verdict) const {
    HttpResponse r{verdict.status, "text/plain; charset=utf-8", verdict.reason + "\n", {}};
    add_security_headers(r);
    return r;
}

HttpResponse App::handle(const HttpRequest& request) const {
    const GuardVerdict verdict = check(request);
    if (!verdict.allowed) return refusal(verdict);
    HttpResponse r;
    if (verdict.set_cookie && request.method == "GET" && request.path == "/") {
        // The token leaves the address bar (and the history) once the cookie holds it.
        r = HttpResponse{303, "text/plain; charset=utf-8", "", {{"Location", "/"}}};
    } else {
        r = route(request);
    }
    if (verdict.set_cookie) r.headers.emplace_back("Set-Cookie", token_cookie());
    add_security_headers(r);
    return r;
}

HttpResponse App::route(const HttpRequest& request) const {
    const std::string& path = request.path;
    if (request.method == "GET") {
        if (path == "/") return {200, "text/html; charset=utf-8", std::string(page_html()), {}};
        if (path == "/app.js") return {200, "text/javascript; charset=utf-8", std::string(page_script()), {}};
        if (path == "/app.css") return {200, "text/css; charset=utf-8", std::string(page_style()), {}};
        if (path == "/state") return state();
    }
    if (path == "/action") {
        if (request.method != "POST") return error_answer(405, "POST an action");
        return action(request);
    }
    return error_answer(404, "no such page: " + path);
}

HttpResponse App::state() const {
    StateOptions options = config_.state;
    options.write = config_.write;
    Result<nlohmann::json> doc = board_state(fs_, config_.ws, options);
    if (!doc) return error_answer(status_of(doc.error()), doc.error().message);
    return json_answer(200, *doc);
}

HttpResponse App::action(const HttpRequest& request) const {
    if (!config_.write) return error_answer(403, "read-only: start small serve with --write to change the workspace");
    if (request.header("Content-Type").rfind("application/json", 0) != 0) {
        return error_answer(415, "an action is JSON (Content-Type: application/json)");
    }
    Result<PageAction> parsed = parse_page_action(request.body);
    if (!parsed) return error_answer(400, parsed.error().message);
    Result<nlohmann::json> done = run_page_action(fs_, config_.ws, config_.scope, *parsed, config_.actor);
    if (!done) return error_answer(status_of(done.error()), done.error().message);
    return json_answer(200, *done);
}

}  // namespace small::serve
