// Shared by the end-to-end tests: temporary directories, file helpers and
// running the real `small` binary (fork + exec, own cwd and environment,
// stdout/stderr captured, killed after a timeout).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <grp.h>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/other_user.hpp"
#include "support/temp_dir.hpp"

extern char** environ;

namespace small_e2e {

namespace fs = std::filesystem;
using nlohmann::json;
using small::test_support::give_back;
using small::test_support::give_to_nobody;
using small::test_support::OtherUser;
using small::test_support::TempDir;

// ---------------------------------------------------------------------------
// Temporary directories and files
// ---------------------------------------------------------------------------

inline void write_file(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good()) << "cannot write " << path;
}

inline std::string read_file(const fs::path& path) { return small::test_support::read_text(path); }


// ---------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------

struct RunResult {
    int exit_code = -1;   // exit status, or 128 + signal when killed
    bool signaled = false;
    bool timed_out = false;
    std::string out;
    std::string err;
    std::string command;  // for failure messages
};

inline std::ostream& operator<<(std::ostream& os, const RunResult& r) {
    return os << "$ " << r.command << "\n[exit " << r.exit_code << (r.timed_out ? ", TIMED OUT" : "")
              << (r.signaled ? ", killed by a signal" : "") << "]\n[stdout]\n"
              << r.out.substr(0, 4000) << "\n[stderr]\n"
              << r.err.substr(0, 4000) << "\n";
}

struct RunOptions {
    fs::path cwd;
    // Extra environment: name -> value; std::nullopt removes the variable.
    std::vector<std::pair<std::string, std::optional<std::string>>> env;
    std::chrono::milliseconds timeout{30'000};
    std::optional<std::string> stdin_text;  // default: /dev/null (must fit a pipe buffer)
    std::optional<std::string> stdin_file;  // or this file (e.g. /dev/zero) as standard input
    // Applied in the child between fork and exec.
    std::optional<rlim_t> fsize_limit;      // RLIMIT_FSIZE in bytes (a "full disk")
    std::optional<rlim_t> memory_limit;     // RLIMIT_AS in bytes (a runaway read fails instead of swapping)
    std::optional<uid_t> uid;               // run as this user (needs root)
    std::optional<gid_t> gid;
    std::optional<std::string> program;     // run this program (absolute path) instead of small
};

// Variables that change output; the tests set them explicitly when needed.
inline const std::vector<std::string> kScrubbedEnv = {"NO_COLOR", "CLICOLOR_FORCE", "CLICOLOR", "CI",
                                               "SMALL_SPEC_DIR", "SMALL_PROGRESS_MODE", "SMALL_NO_BANNER",
                                               "SMALL_VERIFIED_CACHE"};

inline std::vector<std::string> child_environment(const RunOptions& opts) {
    std::map<std::string, std::string> env;
    for (char** e = environ; e && *e; ++e) {
        const std::string entry = *e;
        const auto eq = entry.find('=');
        if (eq == std::string::npos) continue;
        env[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    for (const auto& name : kScrubbedEnv) env.erase(name);
    for (const auto& [name, value] : opts.env) {
        if (value) env[name] = *value;
        else env.erase(name);
    }
    std::vector<std::string> out;
    for (const auto& [k, v] : env) out.push_back(k + "=" + v);
    return out;
}

// A child's argv and envp, made before fork (nothing is allocated between
// fork and exec): opts.program (default: the built small) with `args`, in
// the environment child_environment(opts) makes.
class ExecArgs {
public:
    ExecArgs(const std::vector<std::string>& args, const RunOptions& opts)
        : argv_store_{opts.program.value_or(SMALL_BINARY)}, env_store_(child_environment(opts)) {
        argv_store_.insert(argv_store_.end(), args.begin(), args.end());
        for (auto& a : argv_store_) argv_.push_back(a.data());
        argv_.push_back(nullptr);
        for (auto& e : env_store_) envp_.push_back(e.data());
        envp_.push_back(nullptr);
    }
    ExecArgs(const ExecArgs&) = delete;
    ExecArgs& operator=(const ExecArgs&) = delete;

    // Returns only when execve fails.
    void exec() const { ::execve(argv_[0], argv_.data(), envp_.data()); }

private:
    std::vector<std::string> argv_store_;
    std::vector<std::string> env_store_;
    std::vector<char*> argv_;
    std::vector<char*> envp_;
};

inline RunResult run_small(const std::vector<std::string>& args, const RunOptions& opts) {
    RunResult result;
    result.command = opts.program.value_or("small");
    for (const auto& a : args) result.command += " " + (a.size() > 80 ? a.substr(0, 80) + "..." : a);
    result.command += "   (cwd " + opts.cwd.string() + ")";
    if (opts.stdin_text) result.command += " [stdin \"" + *opts.stdin_text + "\"]";
    if (opts.fsize_limit) result.command += " [RLIMIT_FSIZE " + std::to_string(*opts.fsize_limit) + "]";
    if (opts.uid) result.command += " [uid " + std::to_string(*opts.uid) + "]";
    if (opts.stdin_file) result.command += " < " + *opts.stdin_file;
    if (opts.memory_limit) result.command += " [RLIMIT_AS " + std::to_string(*opts.memory_limit) + "]";

    // Everything the child needs is prepared before fork.
    const ExecArgs exec_args(args, opts);
    const std::string cwd = opts.cwd.string();

    int in_pipe[2], out_pipe[2], err_pipe[2];
    if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
        ADD_FAILURE() << "pipe2: " << std::strerror(errno);
        return result;
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        ADD_FAILURE() << "fork: " << std::strerror(errno);
        return result;
    }
    if (pid == 0) {
        const int devnull = ::open(opts.stdin_file ? opts.stdin_file->c_str() : "/dev/null", O_RDONLY);
        ::dup2(opts.stdin_text ? in_pipe[0] : devnull, STDIN_FILENO);
        ::dup2(out_pipe[1], STDOUT_FILENO);
        ::dup2(err_pipe[1], STDERR_FILENO);
        if (opts.gid && (::setgroups(0, nullptr) != 0 || ::setgid(*opts.gid) != 0)) ::_exit(125);
        if (opts.uid && ::setuid(*opts.uid) != 0) ::_exit(125);
        if (opts.fsize_limit) {
            const rlimit lim{*opts.fsize_limit, *opts.fsize_limit};
            if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) ::_exit(125);
        }
        if (opts.memory_limit) {
            const rlimit lim{*opts.memory_limit, *opts.memory_limit};
            if (::setrlimit(RLIMIT_AS, &lim) != 0) ::_exit(125);
        }
        if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
        exec_args.exec();
        ::_exit(127);
    }
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    if (opts.stdin_text && !opts.stdin_text->empty()) {
        // Tiny input (below a pipe buffer): written at once; a child that
        // exits without reading must not kill us with SIGPIPE.
        struct sigaction ignore {}, old {};
        ignore.sa_handler = SIG_IGN;
        ::sigaction(SIGPIPE, &ignore, &old);
        [[maybe_unused]] const ssize_t n = ::write(in_pipe[1], opts.stdin_text->data(), opts.stdin_text->size());
        ::sigaction(SIGPIPE, &old, nullptr);
    }
    ::close(in_pipe[1]);

    const auto deadline = std::chrono::steady_clock::now() + opts.timeout;
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&result.out, &result.err};
    int open_fds = 2;
    char buf[65536];
    while (open_fds > 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            result.timed_out = true;
            ::kill(pid, SIGKILL);
            break;
        }
        const int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000)));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
            if (got > 0) {
                sinks[i]->append(buf, static_cast<std::size_t>(got));
            } else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
    for (auto& p : fds) {
        if (p.fd >= 0) ::close(p.fd);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) {
        result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        result.signaled = true;
        result.exit_code = 128 + WTERMSIG(status);
    }
    return result;
}

inline RunResult run_in(const fs::path& cwd, const std::vector<std::string>& args,
                 std::vector<std::pair<std::string, std::optional<std::string>>> env = {}) {
    RunOptions opts;
    opts.cwd = cwd;
    opts.env = std::move(env);
    return run_small(args, opts);
}

// `opts` for a run that root would pass where a user is refused (a read-only
// file or folder): as root, `dir` (the test's temporary folder) is given to
// user nobody and the run is made as nobody (other_user.hpp); as any other
// user, `opts` unchanged.
inline RunOptions unprivileged(const fs::path& dir, RunOptions opts = {}) {
    if (::geteuid() != 0) return opts;
    const std::optional<OtherUser> user = give_to_nobody(dir);
    EXPECT_TRUE(user) << "running as root, the check runs as user nobody: there is no such user, or " << dir
                      << " cannot be given to it";
    if (user) {
        opts.uid = user->uid;
        opts.gid = user->gid;
    }
    return opts;
}

// What a client sends `small mcp` on stdin: initialize, initialized, then one
// tools/call per item of `calls` ({"name": ..., "arguments": {...}}).
inline std::string mcp_session(const std::vector<json>& calls) {
    const auto rpc = [](int id, const char* method, const json& params) {
        return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump() + "\n";
    };
    std::string input = rpc(1, "initialize", {{"protocolVersion", "2025-06-18"},
                                              {"capabilities", json::object()},
                                              {"clientInfo", {{"name", "e2e"}, {"version", "1"}}}}) +
                        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    int id = 2;
    for (const json& c : calls) input += rpc(id++, "tools/call", c);
    return input;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

inline bool has_escape(const std::string& text) { return text.find('\033') != std::string::npos; }

// Parses `text` as exactly one JSON document (trailing garbage fails).
inline std::optional<json> parse_single_json(const std::string& text) {
    try {
        return json::parse(text);
    } catch (const json::exception&) {
        return std::nullopt;
    }
}

// Runs a command with --json: exactly one JSON document with a boolean "ok"
// that agrees with the exit code.
inline json run_json(const fs::path& cwd, std::vector<std::string> args, int expected_exit) {
    args.push_back("--json");
    const RunResult r = run_in(cwd, args);
    EXPECT_EQ(r.exit_code, expected_exit) << r;
    const auto doc = parse_single_json(r.out);
    if (!doc) {
        ADD_FAILURE() << "stdout is not exactly one JSON document\n" << r;
        return json::object();
    }
    EXPECT_TRUE(doc->is_object() && doc->contains("ok") && (*doc)["ok"].is_boolean()) << r;
    if (doc->contains("ok") && (*doc)["ok"].is_boolean()) {
        EXPECT_EQ((*doc)["ok"].get<bool>(), expected_exit == 0) << r;
    }
    if (expected_exit != 0) {
        EXPECT_TRUE(doc->contains("error") && (*doc)["error"].contains("kind") && (*doc)["error"].contains("message"))
            << r;
    }
    return *doc;
}

// The views' shared workspace: init, task-1 retitled, task-2 and task-3
// (task-3 depends on task-2), then `last` (a checkpoint that sets the scene).
inline void seed_three_tasks(const fs::path& root, const std::vector<std::string>& last) {
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"init", "--no-agents"},
                                               {"plan", "--title", "task-1", "Review the layout"},
                                               {"plan", "--add", "Parse the flag"},
                                               {"plan", "--add", "Print it"},
                                               {"plan", "--depends", "task-3:task-2"},
                                               last}) {
        const RunResult r = run_in(root, args);
        ASSERT_EQ(r.exit_code, 0) << r;
    }
}

}  // namespace small_e2e
