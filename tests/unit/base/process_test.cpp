// The bounded child-process runner (base/process.hpp) behind `small apply`:
// exit codes, signals, time limits, the output cap, live streaming, and
// children that close or keep their pipes in unusual ways.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "small/base/fd.hpp"
#include "small/base/process.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using namespace std::chrono_literals;

ProcessOptions shell(const std::string& script) {
    ProcessOptions o;
    o.argv = {"/bin/sh", "-c", script};
    return o;
}

ProcessResult run_ok(const ProcessOptions& o) {
    Result<ProcessResult> r = run_process(o);
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? std::move(*r) : ProcessResult{};
}

TEST(HeadTailCapture, KeepsEverythingUnderTheLimit) {
    HeadTailCapture c(10);
    c.append("abc", 3);
    c.append("defg", 4);
    EXPECT_EQ(c.text("|"), "abcdefg");
    EXPECT_FALSE(c.truncated());
    EXPECT_EQ(c.total(), 7u);
}

TEST(HeadTailCapture, KeepsHeadAndTailOfALongStream) {
    HeadTailCapture c(10);
    const std::string data = "0123456789abcdefghijklmnopqrstuvwxyz";
    for (const char ch : data) c.append(&ch, 1);  // byte by byte: the tail buffer is cut back repeatedly
    EXPECT_TRUE(c.truncated());
    EXPECT_EQ(c.total(), data.size());
    EXPECT_EQ(c.text("|"), "01234|vwxyz");
    EXPECT_EQ(c.last(3), "xyz");
}

TEST(HeadTailCapture, OneBigChunk) {
    HeadTailCapture c(6);
    const std::string data(100, 'x');
    c.append(data.data(), data.size());
    EXPECT_EQ(c.text("[cut]"), "xxx[cut]xxx");
}

TEST(RunProcess, SetEnvAddsAndReplacesVariablesAndKeepsTheRest) {
    ::setenv("SMALL_TEST_KEPT", "kept", 1);
    ::setenv("SMALL_TEST_REPLACED", "old", 1);
    ProcessOptions o = shell("echo \"$SMALL_TEST_KEPT $SMALL_TEST_REPLACED $SMALL_TEST_ADDED\"; env | grep -c '^SMALL_TEST_REPLACED='");
    o.set_env = {{"SMALL_TEST_REPLACED", "new"}, {"SMALL_TEST_ADDED", "added"}};
    EXPECT_EQ(run_ok(o).output.text(), "kept new added\n1\n");
    ::unsetenv("SMALL_TEST_KEPT");
    ::unsetenv("SMALL_TEST_REPLACED");
}

TEST(RunProcess, ReportsTheExitCode) {
    EXPECT_EQ(run_ok(shell("exit 0")).exit_code, 0);
    EXPECT_EQ(run_ok(shell("exit 3")).exit_code, 3);
    EXPECT_EQ(run_ok(shell("exit 255")).exit_code, 255);
}

TEST(RunProcess, ASignalDeathIs128PlusTheSignal) {
    const ProcessResult r = run_ok(shell("kill -KILL $$"));
    EXPECT_EQ(r.exit_code, 128 + SIGKILL);
    ASSERT_TRUE(r.term_signal);
    EXPECT_EQ(*r.term_signal, SIGKILL);
    EXPECT_EQ(signal_name(*r.term_signal), "SIGKILL");
}

TEST(RunProcess, CapturesStdoutAndStderrAndRunsInCwd) {
    ProcessOptions o = shell("pwd; echo to-err >&2");
    o.cwd = "/tmp";
    const ProcessResult r = run_ok(o);
    EXPECT_NE(r.output.text().find(std::filesystem::canonical("/tmp").string()), std::string::npos);
    EXPECT_NE(r.output.text().find("to-err"), std::string::npos);
}

TEST(RunProcess, StdinIsEmpty) {
    const ProcessResult r = run_ok(shell("cat; echo done"));
    EXPECT_EQ(r.output.text(), "done\n");
}

TEST(RunProcess, RunsInItsOwnProcessGroup) {
    const ProcessResult r = run_ok(shell("ps -o pgid= -p $$; echo $$"));
    std::string text = r.output.text();
    long pgid = std::strtol(text.c_str(), nullptr, 10);
    long pid = std::strtol(text.substr(text.find('\n') + 1).c_str(), nullptr, 10);
    if (pgid == 0) GTEST_SKIP() << "no ps here";
    EXPECT_EQ(pgid, pid);
    EXPECT_NE(pgid, static_cast<long>(::getpgrp()));
}

TEST(RunProcess, StreamsToTheSinksAsOutputArrives) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    Fd read_end(fds[0]), write_end(fds[1]);
    ProcessOptions o = shell("echo first; sleep 5; echo second");
    o.stdout_sink = write_end.get();
    o.timeout = 10s;
    // Read the sink while the child sleeps: "first" must already be there.
    std::string seen;
    std::thread reader([&] {
        char buf[64];
        const ssize_t n = ::read(read_end.get(), buf, sizeof buf);
        if (n > 0) seen.assign(buf, static_cast<std::size_t>(n));
    });
    const auto start = std::chrono::steady_clock::now();
    std::thread runner([&] { (void)run_ok(o); });
    reader.join();
    const auto first_after = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(seen, "first\n");
    EXPECT_LT(first_after, 4s) << "the first line was not streamed before the child ended";
    runner.join();
}

TEST(RunProcess, CapsTheCaptureAndMarksIt) {
    ProcessOptions o = shell("head -c 300000 /dev/zero | tr '\\0' a; echo; echo THE-END");
    o.capture_limit = 1000;
    const ProcessResult r = run_ok(o);
    EXPECT_TRUE(r.output.truncated());
    EXPECT_EQ(r.output.total(), 300000u + 1 + 8);
    const std::string text = r.output.text("[cut]");
    EXPECT_LT(text.size(), 1100u);
    EXPECT_NE(text.find("[cut]"), std::string::npos);
    EXPECT_NE(text.find("THE-END"), std::string::npos) << "the tail (where errors are) must be kept";
}

TEST(RunProcess, TimeoutSendsTermToTheGroup) {
    ProcessOptions o = shell("sleep 30");
    o.timeout = 200ms;
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r = run_ok(o);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
    EXPECT_TRUE(r.timed_out);
    EXPECT_FALSE(r.killed_after_grace);
    EXPECT_EQ(r.exit_code, 128 + SIGTERM);
}

TEST(RunProcess, TimeoutEscalatesToKillWhenTermIsIgnored) {
    ProcessOptions o = shell("trap '' TERM; while :; do sleep 0.05; done");
    o.timeout = 200ms;
    o.kill_grace = 300ms;
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r = run_ok(o);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
    EXPECT_TRUE(r.timed_out);
    EXPECT_TRUE(r.killed_after_grace);
    EXPECT_EQ(r.exit_code, 128 + SIGKILL);
}

TEST(RunProcess, AChildThatClosesStdoutEarlyIsStillFollowed) {
    const ProcessResult r = run_ok(shell("exec 1>&-; sleep 0.3; echo late >&2; exit 7"));
    EXPECT_EQ(r.exit_code, 7);
    EXPECT_NE(r.output.text().find("late"), std::string::npos);
}

TEST(RunProcess, AChildThatClosesBothPipesStillHonoursTheTimeout) {
    ProcessOptions o = shell("exec >&- 2>&-; sleep 30");
    o.timeout = 200ms;
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r = run_ok(o);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
    EXPECT_TRUE(r.timed_out);
}

TEST(RunProcess, AGrandchildHoldingThePipeDoesNotHoldUs) {
    // setsid: the grandchild leaves the group, so not even the timeout's
    // signals reach it; it keeps stdout open for 30 s.
    ProcessOptions o = shell("setsid sleep 30 & echo parent-done");
    o.timeout = 10s;
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r = run_ok(o);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.output.text(), "parent-done\n");
}

TEST(RunProcess, AGrandchildHoldingThePipeAfterATimeoutDoesNotHoldUs) {
    ProcessOptions o = shell("setsid sh -c 'trap \"\" TERM; sleep 30' & sleep 30");
    o.timeout = 200ms;
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r = run_ok(o);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
    EXPECT_TRUE(r.timed_out);
}

TEST(RunProcess, ForwardsAnInterruptToTheChildGroup) {
    const testing::TempDir dir;
    const std::string marker = dir.path("got-int");
    ProcessOptions o = shell("trap 'echo INT > " + marker + "; exit 130' INT; echo ready; while :; do sleep 0.05; done");
    o.forward_signals = true;
    o.timeout = 10s;
    std::thread killer([] {
        std::this_thread::sleep_for(300ms);
        ::kill(::getpid(), SIGINT);  // as a Ctrl-C would reach small
    });
    const ProcessResult r = run_ok(o);
    killer.join();
    EXPECT_EQ(r.exit_code, 130);
    ASSERT_TRUE(r.interrupted_by);
    EXPECT_EQ(*r.interrupted_by, SIGINT);
    EXPECT_FALSE(r.timed_out);
    std::ifstream in(marker);
    std::string got;
    in >> got;
    EXPECT_EQ(got, "INT");
    // Our own handler is gone again: SIGINT's disposition is what it was.
    struct sigaction now {};
    ::sigaction(SIGINT, nullptr, &now);
    EXPECT_EQ(now.sa_handler, SIG_DFL);
}

// Issue 24: SIGUSR1 ended small (exit 138) and left the child running. Every
// signal whose default would end us is forwarded like SIGINT.
TEST(RunProcess, ForwardsTheOtherEndingSignalsToo) {
    for (const int sig : {SIGUSR1, SIGUSR2, SIGALRM, SIGHUP, SIGVTALRM, SIGPWR}) {
        SCOPED_TRACE(signal_name(sig));
        const testing::TempDir dir;
        const std::string ready = dir.path("ready");
        const std::string name = signal_name(sig).substr(3);
        ProcessOptions o = shell("trap 'echo got; exit 7' " + name + "; touch " + ready +
                                 "; i=0; while [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done");
        o.forward_signals = true;
        o.timeout = 20s;
        std::thread sender([&ready, sig] {
            while (!std::filesystem::exists(ready)) std::this_thread::sleep_for(10ms);
            ::kill(::getpid(), sig);
        });
        const ProcessResult r = run_ok(o);
        sender.join();
        EXPECT_EQ(r.exit_code, 7);
        ASSERT_TRUE(r.interrupted_by);
        EXPECT_EQ(*r.interrupted_by, sig);
        // The whole group gets the signal, so the shell may also report its
        // `sleep` child ended by it ("Power failure"); the trap must have run.
        EXPECT_NE(r.output.text().find("got\n"), std::string::npos) << r.output.text();
        struct sigaction now {};
        ::sigaction(sig, nullptr, &now);
        EXPECT_EQ(now.sa_handler, SIG_DFL);
    }
}

TEST(RunProcess, AChildSignalDispositionIsResetBeforeExec) {
    // We ignore SIGPIPE while running; the child must not inherit that, or
    // `yes` would see EPIPE and complain instead of dying quietly.
    const ProcessResult r = run_ok(shell("yes | head -c 10 >/dev/null"));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.output.text(), "");
}

TEST(RunProcess, AMissingProgramIsAnError) {
    ProcessOptions o;
    o.argv = {"/nonexistent/program"};
    Result<ProcessResult> r = run_process(o);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("/nonexistent/program"), std::string::npos);
    ProcessOptions relative;
    relative.argv = {"sh"};
    EXPECT_FALSE(run_process(relative));
}

TEST(RunProcess, AClosedSinkDoesNotKillUs) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    ::close(fds[0]);
    Fd write_end(fds[1]);
    ProcessOptions o = shell("echo one; echo two");
    o.stdout_sink = write_end.get();
    const ProcessResult r = run_ok(o);  // EPIPE, not SIGPIPE
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.output.text(), "one\ntwo\n");
}

}  // namespace
}  // namespace small

namespace small {
namespace {

// die_with_parent puts a guardian between us and the child: the run looks
// the same (exit code, output, a failed exec reported as such).
TEST(RunProcessGuarded, RunsTheChildAsWithoutAGuardian) {
    ProcessOptions o = shell("echo out; echo err >&2; exit 3");
    o.die_with_parent = true;
    o.separate_stderr = true;
    const ProcessResult r = run_ok(o);
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.output.text(), "out\n");
    EXPECT_EQ(r.errors.text(), "err\n");
    ProcessOptions missing;
    missing.argv = {"/nonexistent/program"};
    missing.die_with_parent = true;
    EXPECT_FALSE(run_process(missing).ok());
}

// Alive and not a zombie (a reparented child may wait for init to reap it).
bool running(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    const std::size_t close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

// A process that dies by SIGKILL while its guarded child (and the child's
// own child) still run: the guardian ends the whole group at once.
TEST(RunProcessGuarded, TheChildsGroupDiesWithItsParentEvenBySigkill) {
    int pids[2];
    ASSERT_EQ(::pipe(pids), 0);
    const pid_t parent = ::fork();
    ASSERT_GE(parent, 0);
    if (parent == 0) {
        ::close(pids[0]);
        ProcessOptions o = shell("sleep 60 & echo $! >&3; echo $$ >&3; wait");
        o.die_with_parent = true;
        ::dup2(pids[1], 3);
        (void)run_process(o);
        ::_exit(0);
    }
    ::close(pids[1]);
    std::string got;
    char buf[64];
    while (std::count(got.begin(), got.end(), '\n') < 2) {
        const ssize_t n = ::read(pids[0], buf, sizeof buf);
        ASSERT_GT(n, 0);
        got.append(buf, static_cast<std::size_t>(n));
    }
    ::close(pids[0]);
    ::kill(parent, SIGKILL);
    ::waitpid(parent, nullptr, 0);
    const pid_t sleeper = std::stoi(got.substr(0, got.find('\n')));
    const pid_t shell_pid = std::stoi(got.substr(got.find('\n') + 1));
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
        gone = !running(sleeper) && !running(shell_pid);
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(gone) << "the child and its own child outlived their parent";
}

// A parent killed at any moment of the start, the guardian's fork included,
// never lets the command run on (sim.agents: a killed `small claim` left its
// guardian running git: the death signal met the handler the guardian had
// inherited, or came before the fork, whose child then ran git unstopped).
TEST(RunProcessGuarded, AParentKilledWhileItStartsTheChildNeverLetsTheCommandRun) {
    const testing::TempDir dir;
    const std::string mark = dir.path("ran");
    for (int i = 0; i < 400; ++i) {
        const pid_t parent = ::fork();
        ASSERT_GE(parent, 0);
        if (parent == 0) {
            ProcessOptions o = shell("sleep 0.3; echo x >> '" + mark + "'");
            o.die_with_parent = true;
            (void)run_process(o);
            ::_exit(0);
        }
        std::this_thread::sleep_for(std::chrono::microseconds(i % 200 * 5));  // 0 to 1 ms: around the forks
        ::kill(parent, SIGKILL);
        ::waitpid(parent, nullptr, 0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    EXPECT_FALSE(std::filesystem::exists(mark)) << "a command ran on after its parent was killed";
}

}  // namespace
}  // namespace small
