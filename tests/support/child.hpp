// A function run in a forked child, for what a test must not do in its own
// process: die by a signal, hit a resource limit, drop to another user.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace small::test_support {

// Runs `body` (int(std::string& message)) in a forked child; returns its exit
// code (or 128+signal; -1 when it outlived `limit` and was killed) and the
// message it set. What the child asserts is not seen by the test (other_user.hpp
// collects it).
struct ChildOutcome {
    int code = -1;
    std::string message;
};

template <typename Body>
inline ChildOutcome run_in_child(Body body, std::chrono::seconds limit = std::chrono::seconds(30)) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) return {};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(pipe_fds[0]);
        std::string message;
        const int code = body(message);
        [[maybe_unused]] const ssize_t n = ::write(pipe_fds[1], message.data(), message.size());
        ::_exit(code);
    }
    ::close(pipe_fds[1]);
    ChildOutcome outcome;
    char buffer[4096];
    ssize_t n = 0;
    while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) outcome.message.append(buffer, static_cast<std::size_t>(n));
    ::close(pipe_fds[0]);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            return outcome;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    outcome.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return outcome;
}

}  // namespace small::test_support
