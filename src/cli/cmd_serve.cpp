// `small serve`: the live board in a browser (small/serve/http_server.hpp
// serves it). Only the wiring is here: flags, the token, the URL on stdout,
// the signals that stop it.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "cli.hpp"
#include "small/model/claims.hpp"
#include "small/serve/http_server.hpp"

namespace small::cli {

namespace {

struct ServeFlags {
    WorkspaceFlags where;
    int port = 0;
    std::string bind = "127.0.0.1";
    bool write = false;
    std::string as;
    bool log = false;
    std::size_t recent = 50;
};

std::string url_host(const std::string& bind) {
    if (bind == "0.0.0.0" || bind == "::") return "127.0.0.1";
    return bind.find(':') != std::string::npos ? "[" + bind + "]" : bind;
}

int run_serve(Context& ctx, ServeFlags& f) {
    const Output out(ctx.globals, "serve");
    const Result<Target> target = resolve_target(ctx, f.where);
    if (!target) return report_error(out, target.error());
    if (Status there = require_small_dir(ctx.fs, target->ws); !there) return report_error(out, there.error());
    if (f.as.empty()) {  // the person who started the board
        f.as = "person@" + this_host_name();
        for (const char* var : {"USER", "LOGNAME"}) {
            const char* user = std::getenv(var);
            if (user != nullptr && *user != '\0' && unsafe_name_reason(user).empty()) {
                f.as = user;
                break;
            }
        }
    } else if (std::string why = unsafe_name_reason(f.as); !why.empty()) {
        return report_error(out, Error::usage("--as " + why + "; use letters, digits and punctuation"));
    }
    // SIGINT and SIGTERM are taken by one thread (below): the server's threads never see them.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
    serve::ListenOptions listen{f.bind, f.port, {}};
    if (f.log) listen.log = [](const std::string& line) { std::cerr << "small serve: " << line << '\n'; };
    Result<std::unique_ptr<serve::HttpServer>> server = serve::HttpServer::bind(listen);
    if (!server) return report_error(out, server.error());
    const int port = (*server)->port();
    serve::AppConfig config;
    config.ws = target->ws;
    config.scope = target->scope;
    config.write = f.write;
    config.actor = f.as;
    config.state.recent = f.recent;
    config.guard = {serve::new_token(), serve::allowed_hosts_for(f.bind, port), port};
    const serve::App app(ctx.fs, config);
    std::cout << "http://" << url_host(f.bind) << ":" << port << "/?token=" << config.guard.token << std::endl;
    std::cerr << "small serve: " << target->ws.root << (f.write ? " (--write: the page may change it)" : " (read-only)")
              << "; Ctrl-C stops\n";
    if (f.bind != "127.0.0.1" && f.bind != "localhost" && f.bind != "::1") {
        std::cerr << "small serve: warning: listening on " << f.bind << ", not only this machine's loopback\n";
    }
    std::atomic<bool> finished{false};
    std::thread stopper([&] {
        int signal = 0;
        sigwait(&stop_signals, &signal);
        // Again until run() returns: a signal that came before the server listened must still stop it.
        while (!finished) {
            (*server)->stop();
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });
    const Status ran = (*server)->run(ctx.fs, app);
    finished = true;
    ::kill(::getpid(), SIGTERM);  // ends the stopper when the server ended by itself
    stopper.join();
    if (!ran) return report_error(out, ran.error());
    return kExitOk;
}

}  // namespace

void register_serve(CLI::App& app, Context& ctx) {
    const auto [cmd, f] = add_command<ServeFlags>(app, ctx, "serve", run_serve);
    cmd->add_option("--port", f->port, "The port to listen on (default: a free one)")->check(CLI::Range(0, 65535));
    cmd->add_option("--bind", f->bind, "The address to listen on (default: 127.0.0.1, this machine only)");
    cmd->add_flag("--write", f->write, "Let the page block, unblock, add and retitle tasks (default: read-only)");
    cmd->add_option("--as", f->as, "Who the page's changes are recorded as, in the log's entries and claims (default: $USER, else $LOGNAME, else person@HOST)");
    cmd->add_option("--recent", f->recent, "Newest log entries the page shows (default: 50)")->check(CLI::Range(1, 2000));
    cmd->add_flag("--log", f->log, "Print each request and change on stderr");
    add_workspace_flags(cmd, f->where, "Workspace scope of the writes: root (default), examples or any");
    cmd->footer("Prints the page's URL, which carries a random token: every request needs it (the page keeps it in a "
                "cookie). Only 127.0.0.1:PORT and localhost:PORT are accepted as Host, and a write or the event "
                "stream only from the page's own origin. The page follows every work tree and branch as their files "
                "change. Ctrl-C or SIGTERM stops it (exit 0). Needs cpp-httplib (Debian: libcpp-httplib0.11).");
}

}  // namespace small::cli
