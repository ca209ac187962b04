// `small serve`'s HTTP server: cpp-httplib (Debian's libcpp-httplib, loaded
// with dlopen by this command only, so no other command loads it or its
// TLS and compression libraries: the start-up floor), every request handed
// to serve/app, and the event stream /events: one `change` event each time
// a watched folder changes (every side's .small/ folder, the repository's
// branch tips, its work-tree list and the claims table; inotify through
// base/file_watch, debounced), so the page fetches the state again; no polling.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/serve/app.hpp"

namespace small::serve {

struct ListenOptions {
    std::string bind = "127.0.0.1";
    int port = 0;  // 0: a free port
    std::function<void(const std::string&)> log;  // one line per request and event (empty: none)
};

class HttpServer {
public:
    // Loads cpp-httplib and binds. System error when the library is not
    // installed or the address cannot be bound (in use, not ours).
    static Result<std::unique_ptr<HttpServer>> bind(const ListenOptions& options);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    int port() const;

    // Serves `app` until stop(); watches the workspace's sides meanwhile.
    Status run(const FileSystem& fs, const App& app);

    // Ends run() from any thread (a signal's thread): open streams end too.
    void stop();

    struct Impl;

private:
    explicit HttpServer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// The folders whose changes the page must see: every work tree's .small/
// for the workspace, the repository's common folder, its refs/heads,
// worktrees and claims folders (only the workspace's .small/ outside git).
std::vector<std::string> watched_folders(const FileSystem& fs, const WorkspacePaths& ws);

}  // namespace small::serve
