// `small serve` over cpp-httplib, loaded with dlopen: see http_server.hpp.
//
// Debian ships cpp-httplib as a shared library (its header declares, the
// library defines) linked to OpenSSL, zlib and brotli. Linking it would load
// all of them in every command; so this file, the one that includes its
// header, calls the few functions it needs through pointers that dlsym finds,
// as base/git.cpp does for libgit2. The header is included with the macros
// the library was built with (its pkg-config Cflags), so the classes have
// the library's layout. A function no pointer reaches would be a link error.
#define CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#include <httplib.h>

#include <dlfcn.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "small/serve/file_watch.hpp"
#include "small/base/git.hpp"
#include "small/base/text.hpp"
#include "small/model/layout.hpp"
#include "small/serve/http_server.hpp"

#include "small/store/claim_store.hpp"

namespace small::serve {

namespace {

using Handler = httplib::Server::Handler;
using Routing = httplib::Server::HandlerWithResponse;
using Provider = httplib::ContentProviderWithoutLength;
using Releaser = httplib::ContentProviderResourceReleaser;

// The library's functions this file calls, as plain functions of `this`.
struct HttplibApi {
    void* handle = nullptr;
    void (*construct)(httplib::Server*) = nullptr;
    void (*destroy)(httplib::Server*) = nullptr;
    httplib::Server& (*pre_routing)(httplib::Server*, Routing) = nullptr;
    httplib::Server& (*post)(httplib::Server*, const std::string&, Handler) = nullptr;
    httplib::Server& (*payload_max)(httplib::Server*, std::size_t) = nullptr;
    httplib::Server& (*socket_options)(httplib::Server*, httplib::SocketOptions) = nullptr;
    bool (*bind_to_port)(httplib::Server*, const std::string&, int, int) = nullptr;
    int (*bind_to_any_port)(httplib::Server*, const std::string&, int) = nullptr;
    bool (*listen_after_bind)(httplib::Server*) = nullptr;
    void (*stop)(httplib::Server*) = nullptr;
    void (*chunked)(httplib::Response*, const std::string&, Provider, Releaser) = nullptr;
};

template <typename F>
bool find(void* handle, const char* name, F& out) {
    out = reinterpret_cast<F>(::dlsym(handle, name));
    return out != nullptr;
}

Result<HttplibApi> load_httplib() {
    HttplibApi api;
    for (const char* name : {"libcpp-httplib.so.0.11", "libcpp-httplib.so"}) {
        if ((api.handle = ::dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    }
    if (!api.handle) {
        return Error::system("small serve needs cpp-httplib 0.11 (Debian: apt-get install libcpp-httplib0.11)");
    }
    const bool all =
        find(api.handle, "_ZN7httplib6ServerC1Ev", api.construct) && find(api.handle, "_ZN7httplib6ServerD1Ev", api.destroy) &&
        find(api.handle, "_ZN7httplib6Server23set_pre_routing_handlerESt8functionIFNS0_15HandlerResponseERKNS_7RequestERNS_8ResponseEEE", api.pre_routing) &&
        find(api.handle, "_ZN7httplib6Server4PostERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt8functionIFvRKNS_7RequestERNS_8ResponseEEE", api.post) &&
        find(api.handle, "_ZN7httplib6Server22set_payload_max_lengthEm", api.payload_max) &&
        find(api.handle, "_ZN7httplib6Server18set_socket_optionsESt8functionIFviEE", api.socket_options) &&
        find(api.handle, "_ZN7httplib6Server12bind_to_portERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEii", api.bind_to_port) &&
        find(api.handle, "_ZN7httplib6Server16bind_to_any_portERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEi", api.bind_to_any_port) &&
        find(api.handle, "_ZN7httplib6Server17listen_after_bindEv", api.listen_after_bind) &&
        find(api.handle, "_ZN7httplib6Server4stopEv", api.stop) &&
        find(api.handle, "_ZN7httplib8Response28set_chunked_content_providerERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt8functionIFbmRNS_8DataSinkEEES9_IFvbEE", api.chunked);
    if (!all) return Error::system("small serve: this cpp-httplib lacks a function it needs (built for 0.11)");
    return api;
}

constexpr std::size_t kMaxStreams = 4;           // the pool's other threads stay free for requests
constexpr std::size_t kMaxBody = 64 * 1024;      // an action is a few hundred bytes
constexpr auto kKeepAlive = std::chrono::seconds(15);

HttpRequest request_of(const httplib::Request& r) {
    HttpRequest out{r.method, r.path, {}, {}, r.body};
    for (const auto& [k, v] : r.headers) out.headers.emplace_back(k, v);
    for (const auto& [k, v] : r.params) out.query.emplace(k, v);
    return out;
}

void answer(const HttpResponse& from, httplib::Response& to) {
    to.status = from.status;
    for (const auto& [k, v] : from.headers) to.headers.emplace(k, v);
    to.headers.emplace("Content-Type", from.content_type);
    to.body = from.body;
}

}  // namespace

struct HttpServer::Impl {
    HttplibApi api;
    alignas(httplib::Server) unsigned char storage[sizeof(httplib::Server)];
    httplib::Server* server = nullptr;
    int port = 0;
    std::function<void(const std::string&)> log;

    std::mutex mutex;
    std::condition_variable changed;
    std::uint64_t version = 0;
    bool stopping = false;
    std::size_t streams = 0;
    std::optional<FileWatch> watch;

    ~Impl() {
        if (server) api.destroy(server);
        // The library stays loaded: threads it started may still unwind through it.
    }
    void note(const std::string& line) const {
        if (log) log(visible(line));  // a request's path is anyone's text, percent-decoded: never raw on a terminal
    }
    void stream(httplib::Response& res);
    void watch_loop(const FileSystem& fs, const WorkspacePaths& ws);
};

void HttpServer::Impl::stream(httplib::Response& res) {
    {
        std::lock_guard lock(mutex);
        if (streams >= kMaxStreams) {
            answer(HttpResponse{503, "text/plain; charset=utf-8", "too many open pages\n", {}}, res);
            return;
        }
        ++streams;
    }
    HttpResponse head{200, "text/event-stream", "", {}};
    App::add_security_headers(head);
    for (const auto& [k, v] : head.headers) res.headers.emplace(k, v);
    auto seen = std::make_shared<std::uint64_t>(0);
    api.chunked(&res, "text/event-stream",
        [this, seen](std::size_t offset, httplib::DataSink& sink) {
            std::unique_lock lock(mutex);
            if (offset == 0) {
                *seen = version;
                lock.unlock();
                const std::string hello = "retry: 1000\n: small serve\n\n";
                return sink.write(hello.data(), hello.size());
            }
            changed.wait_for(lock, kKeepAlive, [&] { return stopping || version != *seen; });
            if (stopping) return false;
            std::string message = ": keep-alive\n\n";
            if (version != *seen) {
                *seen = version;
                message = "event: change\ndata: " + std::to_string(version) + "\n\n";
            }
            lock.unlock();
            return sink.write(message.data(), message.size());
        },
        [this](bool) {
            std::lock_guard lock(mutex);
            --streams;
        });
}

void HttpServer::Impl::watch_loop(const FileSystem& fs, const WorkspacePaths& ws) {
    for (;;) {
        for (const std::string& folder : watched_folders(fs, ws)) watch->add(folder);
        // The repository's own folder: only what moves a side (not the index a reader refreshes).
        if (const std::optional<GitDirs> dirs = find_git_dirs(fs, ws.root)) {
            watch->add(dirs->common_dir, {"packed-refs", "worktrees", "HEAD", "small"});  // small: the claims folder, once made
        }
        const bool change = watch->wait(std::chrono::hours(1), std::chrono::milliseconds(60));
        std::lock_guard lock(mutex);
        if (stopping) return;
        if (change) {
            ++version;
            changed.notify_all();
            note("change " + std::to_string(version));
        }
    }
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() = default;

int HttpServer::port() const { return impl_->port; }

Result<std::unique_ptr<HttpServer>> HttpServer::bind(const ListenOptions& options) {
    Result<HttplibApi> api = load_httplib();
    if (!api) return api.error();
    Result<FileWatch> watch = FileWatch::create();
    if (!watch) return watch.error();
    auto impl = std::make_unique<Impl>();
    impl->api = *api;
    impl->log = options.log;
    impl->watch.emplace(std::move(*watch));
    impl->api.construct(reinterpret_cast<httplib::Server*>(impl->storage));
    impl->server = reinterpret_cast<httplib::Server*>(impl->storage);
    impl->api.payload_max(impl->server, kMaxBody);
    // SO_REUSEADDR only: the library's default adds SO_REUSEPORT, which lets a second
    // server (any process of this user) share the port and take half the requests.
    impl->api.socket_options(impl->server, [](int sock) {
        const int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    if (options.port == 0) {
        impl->port = impl->api.bind_to_any_port(impl->server, options.bind, 0);
    } else if (impl->api.bind_to_port(impl->server, options.bind, options.port, 0)) {
        impl->port = options.port;
    }
    if (impl->port <= 0) {
        return Error::system("cannot listen on " + options.bind + ":" + std::to_string(options.port) +
                             " (in use, or not an address of this machine): choose another with --port or --bind");
    }
    return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

// Every request but a POST to /action (answered once its body is read): the checks, then the
// event stream or app's answer.
static httplib::Server::HandlerResponse route(HttpServer::Impl& s, const App& app, const httplib::Request& req,
                                              httplib::Response& res) {
    const HttpRequest request = request_of(req);
    s.note(request.method + " " + request.path);
    if (const GuardVerdict verdict = app.check(request); !verdict.allowed) {
        answer(app.refusal(verdict), res);
        return httplib::Server::HandlerResponse::Handled;
    }
    if (request.method == "POST" && request.path == "/action") return httplib::Server::HandlerResponse::Unhandled;
    if (request.method == "GET" && request.path == "/events") {
        s.stream(res);
    } else if (request.method == "GET" || request.method == "POST") {
        answer(app.handle(request), res);
    } else {
        answer(HttpResponse{405, "text/plain; charset=utf-8", "GET or POST\n", {}}, res);
    }
    return httplib::Server::HandlerResponse::Handled;
}

Status HttpServer::run(const FileSystem& fs, const App& app) {
    Impl& s = *impl_;
    s.api.pre_routing(s.server, [&s, &app](const httplib::Request& req, httplib::Response& res) {
        // No exception may cross into the library (it runs on another copy of the C++ runtime).
        try {
            return route(s, app, req, res);
        } catch (const std::exception& e) {
            answer(HttpResponse{500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + "\n", {}}, res);
            return httplib::Server::HandlerResponse::Handled;
        }
    });
    s.api.post(s.server, "/action", [&app](const httplib::Request& req, httplib::Response& res) {
        try {
            answer(app.handle(request_of(req)), res);
        } catch (const std::exception& e) {
            answer(HttpResponse{500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + "\n", {}}, res);
        }
    });
    std::thread watcher([&] { s.watch_loop(fs, app.config().ws); });
    const bool ok = s.api.listen_after_bind(s.server);
    {
        std::lock_guard lock(s.mutex);
        s.stopping = true;
        s.changed.notify_all();
    }
    s.watch->wake();
    watcher.join();
    if (!ok) return Error::system("the server stopped: it could not accept connections");
    return ok_status();
}

void HttpServer::stop() {
    {
        std::lock_guard lock(impl_->mutex);
        impl_->stopping = true;
        impl_->changed.notify_all();
    }
    impl_->api.stop(impl_->server);
}

std::vector<std::string> watched_folders(const FileSystem& fs, const WorkspacePaths& ws) {
    std::vector<std::string> folders = {ws.small_dir};
    const std::optional<GitDirs> dirs = find_git_dirs(fs, ws.root);
    if (!dirs) return folders;
    const ClaimStore claims = locate_claim_store(fs, ws);
    folders.push_back(claims.dir);
    const std::string& common = dirs->common_dir;
    for (const char* below : {"/refs/heads", "/worktrees"}) folders.push_back(common + below);
    for (const GitWorkTreeHead& tree : read_work_tree_heads(fs, common)) {
        const std::string root = claims.workspace.empty() ? tree.root : tree.root + "/" + claims.workspace;
        if (root != ws.root) folders.push_back(small_dir_path(root));
    }
    return folders;
}

}  // namespace small::serve
