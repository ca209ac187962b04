// The server's folders to watch, and its bind (the rest runs end to end in
// tests/serve-browser).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "support/fixtures.hpp"
#include "small/serve/http_server.hpp"

namespace small::serve {
namespace {

using namespace small::testing;

TEST(HttpServer, OutsideGitOnlyTheWorkspaceFolderIsWatched) {
    InitWorkspace w;
    EXPECT_EQ(watched_folders(w.fs(), w.ws()), std::vector<std::string>{w.ws().small_dir});
}

TEST(HttpServer, BindsAFreeLoopbackPort) {
    Result<std::unique_ptr<HttpServer>> server = HttpServer::bind(ListenOptions{});
    if (!server && server.error().message.find("needs cpp-httplib") != std::string::npos) {
        // scripts/setup.sh installs it; CI must have it.
        if (const char* ci = std::getenv("CI"); ci && std::string(ci) == "true") FAIL() << server.error().message;
        GTEST_SKIP() << server.error().message;
    }
    ASSERT_TRUE(server) << server.error().describe();
    EXPECT_GT((*server)->port(), 0);
    Result<std::unique_ptr<HttpServer>> same = HttpServer::bind(ListenOptions{"127.0.0.1", (*server)->port(), {}});
    EXPECT_FALSE(same);  // in use
}

}  // namespace
}  // namespace small::serve
