// Running a child process with a bound (used by `small apply`): its own
// process group, standard input from /dev/null, standard output and error
// read through pipes, each chunk passed on to a sink descriptor as it comes
// (streaming) and kept in a capped capture, an optional time limit, and the
// interrupting signals the caller receives passed on to the child's group.
//
// Not a terminal concern: the caller names the descriptors output goes to.
//
// How a run ends:
//   * the child exits or dies: its status is the result (exit code, or
//     128 + signal number, as shells report it);
//   * the time limit passes: SIGTERM to the child's process group, SIGKILL
//     after `kill_grace` if it still lives (timed_out is set);
//   * a signal that would otherwise end this process reaches it while
//     forwarding is on (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
//     SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGPOLL, SIGPWR): the same signal
//     goes to the child's group (interrupted_by is set), and the run goes on
//     until the child ends, so the caller can record it. SIGPIPE is ignored
//     (a closed sink is an error, not our death) and not forwarded.
// Once the child has ended, output is read for at most `drain_after_exit`
// more: a grandchild that keeps the pipes open (a background job, a daemon)
// cannot hold the caller.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "small/base/result.hpp"

namespace small {

// A capture that keeps the first and the last bytes of a stream within
// `limit` bytes and counts what it dropped in between.
class HeadTailCapture {
public:
    explicit HeadTailCapture(std::size_t limit) : limit_(limit) {}
    void append(const char* data, std::size_t n);
    std::uint64_t total() const { return total_; }
    bool truncated() const { return total_ > limit_; }
    // The kept bytes: all of them, or head + `marker` + tail when truncated.
    std::string text(const std::string& marker = "") const;
    // The last `n` bytes kept (for a short summary of a long output).
    std::string last(std::size_t n) const;

private:
    std::size_t limit_;
    std::uint64_t total_ = 0;
    std::string head_;
    std::string tail_;  // grows to 2x the tail budget, then is cut back
};

struct ProcessOptions {
    std::vector<std::string> argv;  // argv[0] is an absolute path (no PATH search)
    std::string cwd;                // "" = the caller's
    std::optional<std::chrono::milliseconds> timeout;
    std::chrono::milliseconds kill_grace{5000};
    std::chrono::milliseconds drain_after_exit{200};
    int stdout_sink = -1;  // where the child's stdout is copied live (-1: nowhere)
    int stderr_sink = -1;
    std::size_t capture_limit = 1 << 20;  // stdout and stderr interleaved, head + tail
    bool forward_signals = false;          // SIGINT, SIGTERM, SIGHUP, SIGUSR1, ... (see above)
    bool separate_stderr = false;          // stderr captured in ProcessResult::errors, not in output
    // The child's whole process group gets SIGTERM when this process dies,
    // however it dies (even SIGKILL), through a guardian process between
    // them: nothing the child started outlives `small`.
    bool die_with_parent = false;
    // Variables set (or replaced) in the child's environment, which is
    // otherwise this process's.
    std::vector<std::pair<std::string, std::string>> set_env;
};

struct ProcessResult {
    int exit_code = 0;                // 0-255; 128 + signal when killed
    std::optional<int> term_signal;   // the signal that killed the child
    bool timed_out = false;
    bool killed_after_grace = false;  // SIGKILL was needed
    std::optional<int> interrupted_by;  // first signal forwarded to the child
    std::chrono::milliseconds duration{0};
    HeadTailCapture output{0};          // stdout + stderr in arrival order (stdout alone: separate_stderr)
    HeadTailCapture errors{0};          // stderr, with separate_stderr
};

// Runs the child and waits for its end (see above). Errors (System): pipes
// or fork failed, or argv[0] could not be executed (the message names it
// and the reason; no process ran).
Result<ProcessResult> run_process(const ProcessOptions& options);

// The program `name` as the shell finds it: the first executable file of
// that name in $PATH's folders (absolute); nullopt when there is none.
std::optional<std::string> find_executable(const std::string& name);

// "SIGINT", "SIGKILL", ... (or "signal N").
std::string signal_name(int sig);

}  // namespace small
