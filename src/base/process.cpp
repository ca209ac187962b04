// Running a bounded child process (see the header).
#include "small/base/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "small/base/fd.hpp"
#include "small/base/filesystem.hpp"

namespace small {

// ---------------------------------------------------------------------------
// HeadTailCapture

void HeadTailCapture::append(const char* data, std::size_t n) {
    total_ += n;
    const std::size_t head_budget = limit_ / 2;
    const std::size_t tail_budget = limit_ - head_budget;
    const std::size_t to_head = std::min(n, head_budget - std::min(head_budget, head_.size()));
    head_.append(data, to_head);
    if (tail_budget == 0) return;
    tail_.append(data + to_head, n - to_head);
    // Cut back only once it holds twice its budget: amortised O(1) per byte.
    if (tail_.size() > 2 * tail_budget) tail_.erase(0, tail_.size() - tail_budget);
}

std::string HeadTailCapture::text(const std::string& marker) const {
    if (!truncated()) return head_ + tail_;
    const std::size_t tail_budget = limit_ - limit_ / 2;
    const std::size_t keep = std::min(tail_budget, tail_.size());
    return head_ + marker + tail_.substr(tail_.size() - keep);
}

std::string HeadTailCapture::last(std::size_t n) const {
    const std::string all = text();
    return all.size() <= n ? all : all.substr(all.size() - n);
}

std::string signal_name(int sig) {
    switch (sig) {
        case SIGHUP: return "SIGHUP";
        case SIGINT: return "SIGINT";
        case SIGQUIT: return "SIGQUIT";
        case SIGABRT: return "SIGABRT";
        case SIGKILL: return "SIGKILL";
        case SIGSEGV: return "SIGSEGV";
        case SIGPIPE: return "SIGPIPE";
        case SIGALRM: return "SIGALRM";
        case SIGTERM: return "SIGTERM";
        case SIGUSR1: return "SIGUSR1";
        case SIGUSR2: return "SIGUSR2";
        case SIGVTALRM: return "SIGVTALRM";
        case SIGPROF: return "SIGPROF";
        case SIGXCPU: return "SIGXCPU";
        case SIGPOLL: return "SIGPOLL";
        case SIGPWR: return "SIGPWR";
        case SIGBUS: return "SIGBUS";
        case SIGFPE: return "SIGFPE";
        case SIGILL: return "SIGILL";
        default: return "signal " + std::to_string(sig);
    }
}

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Every asynchronous signal whose default action would end small while the
// child lives on, unrecorded (issue 24: SIGUSR1 did). SIGPIPE is ignored
// instead (see SignalScope); SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
// SIGTRAP and SIGSYS are faults of this process, not requests, and SIGKILL
// and SIGSTOP cannot be caught.
constexpr std::array<int, 12> kForwarded = {SIGINT,  SIGTERM, SIGHUP,    SIGQUIT, SIGUSR1, SIGUSR2,
                                            SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGPOLL, SIGPWR};

// The self-pipe the forwarding handler writes signal numbers to. One run at
// a time per process (apply runs one child).
int g_signal_write_fd = -1;

extern "C" void on_forwarded_signal(int sig) {
    const int saved = errno;
    const unsigned char byte = static_cast<unsigned char>(sig);
    if (g_signal_write_fd >= 0) {
        [[maybe_unused]] const ssize_t n = ::write(g_signal_write_fd, &byte, 1);
    }
    errno = saved;
}

// Installs the handlers (and ignores SIGPIPE, so a closed sink is an error,
// not our death) for the lifetime of the object; restores them after.
class SignalScope {
public:
    SignalScope(bool forward, int write_fd) {
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        ::sigemptyset(&ignore.sa_mask);
        ::sigaction(SIGPIPE, &ignore, &old_pipe_);
        if (!forward) return;
        g_signal_write_fd = write_fd;
        struct sigaction act {};
        act.sa_handler = on_forwarded_signal;
        ::sigemptyset(&act.sa_mask);
        act.sa_flags = SA_RESTART;
        for (std::size_t i = 0; i < kForwarded.size(); ++i) ::sigaction(kForwarded[i], &act, &old_[i]);
        installed_ = true;
    }
    ~SignalScope() {
        if (installed_) {
            for (std::size_t i = 0; i < kForwarded.size(); ++i) ::sigaction(kForwarded[i], &old_[i], nullptr);
            g_signal_write_fd = -1;
        }
        ::sigaction(SIGPIPE, &old_pipe_, nullptr);
    }
    SignalScope(const SignalScope&) = delete;
    SignalScope& operator=(const SignalScope&) = delete;

private:
    bool installed_ = false;
    struct sigaction old_pipe_ {};
    std::array<struct sigaction, kForwarded.size()> old_{};
};

struct Pipe {
    Fd read, write;
};

Result<Pipe> make_pipe(bool nonblocking_read) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return Error::system(std::string("cannot create a pipe: ") + std::strerror(errno));
    Pipe p{Fd(fds[0]), Fd(fds[1])};
    if (nonblocking_read) ::fcntl(p.read.get(), F_SETFL, ::fcntl(p.read.get(), F_GETFL) | O_NONBLOCK);
    return p;
}

// Writes everything or gives up on the sink (EPIPE, a closed descriptor).
void copy_to_sink(int& sink, const char* data, std::size_t n) {
    while (sink >= 0 && n > 0) {
        const ssize_t w = ::write(sink, data, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            sink = -1;
            return;
        }
        data += w;
        n -= static_cast<std::size_t>(w);
    }
}

// This process's environment with `set` applied, as execve wants it (built
// before the fork: the child may only make async-signal-safe calls).
std::vector<char*> child_environment(const std::vector<std::pair<std::string, std::string>>& set,
                                     std::vector<std::string>& store) {
    for (char** e = environ; e && *e; ++e) {
        const std::string_view entry(*e);
        const std::string_view name = entry.substr(0, entry.find('='));
        const bool replaced = std::any_of(set.begin(), set.end(), [&](const auto& kv) { return kv.first == name; });
        if (!replaced) store.emplace_back(entry);
    }
    for (const auto& [name, value] : set) store.push_back(name + "=" + value);
    std::vector<char*> out;
    out.reserve(store.size() + 1);
    for (std::string& s : store) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

// The guardian of a child that must not outlive this process: it leads the
// child's process group, gets SIGTERM when this process dies however it dies
// (PR_SET_PDEATHSIG; a SIGKILL included), and then ends the whole group —
// git and what git started (a local remote's receive-pack), not only git.
volatile sig_atomic_t g_guardian_fired = 0;

extern "C" void on_guardian_term(int) {
    if (g_guardian_fired) return;
    g_guardian_fired = 1;
    ::kill(0, SIGTERM);  // SIGTERM, not SIGKILL: git removes its lock files on it
}

// Runs in the guardian after the fork that made the child `pid`: waits for
// it and ends with its status. Async-signal-safe calls only.
[[noreturn]] void guard(pid_t pid) {
    int status = 0;
    for (;;) {
        const pid_t r = ::waitpid(pid, &status, 0);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) ::_exit(127);
    }
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

// Between fork and exec: async-signal-safe calls only (the library may
// have threads). Never returns.
[[noreturn]] void exec_child(const std::vector<char*>& argv, char* const* envp, const char* cwd, int in, int out,
                             int err, int report_fd, pid_t parent, bool die_with_parent) {
    ::setpgid(0, 0);
    if (die_with_parent) {
        // The guardian's handler goes in before PR_SET_PDEATHSIG: the parent's
        // death signal must never meet the parent's own (inherited) handler,
        // which only notes it, or git would run on, unstopped, after it.
        struct sigaction term {};
        term.sa_handler = on_guardian_term;
        ::sigemptyset(&term.sa_mask);
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        ::sigemptyset(&ignore.sa_mask);
        for (int sig : kForwarded) ::sigaction(sig, sig == SIGTERM ? &term : &ignore, nullptr);
        // A parent already gone (killed before this line) is caught by getppid.
        if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != parent) ::_exit(128 + SIGTERM);
        // Fired before the fork: the group it stopped held no child yet.
        if (g_guardian_fired) ::_exit(128 + SIGTERM);
        const pid_t guardian = ::getpid();
        const pid_t pid = ::fork();
        if (pid < 0) {
            const int e = errno;
            [[maybe_unused]] ssize_t n = ::write(report_fd, &e, sizeof e);
            ::_exit(127);
        }
        if (pid > 0) {
            ::close(report_fd);  // the child's copy reports a failed exec
            guard(pid);
        }
        if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != guardian) ::_exit(128 + SIGTERM);
    }
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigemptyset(&dfl.sa_mask);
    for (int sig : kForwarded) ::sigaction(sig, &dfl, nullptr);
    for (int sig : {SIGPIPE, SIGXFSZ, SIGCHLD, SIGTTIN, SIGTTOU, SIGTSTP}) ::sigaction(sig, &dfl, nullptr);
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    // The guardian's stop reached this child (or the guardian, just before
    // the fork) while its handler was still in place: the command never runs
    // (D21: nothing is published by a process that was stopped).
    if (die_with_parent && g_guardian_fired) ::_exit(128 + SIGTERM);
    int e = 0;
    if (::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) e = errno;
    if (e == 0 && cwd && ::chdir(cwd) != 0) e = errno;
    if (e == 0) {
        ::execve(argv[0], argv.data(), envp);
        e = errno;
    }
    [[maybe_unused]] ssize_t n = ::write(report_fd, &e, sizeof e);
    ::_exit(127);
}

// The parent's side of one run.
class Supervisor {
public:
    Supervisor(const ProcessOptions& o, pid_t pid, Fd out, Fd err, int signal_fd)
        : o_(o), pid_(pid), signal_fd_(signal_fd), start_(Clock::now()) {
        fds_[0] = std::move(out);
        fds_[1] = std::move(err);
        sinks_[0] = o.stdout_sink;
        sinks_[1] = o.stderr_sink;
        result_.output = HeadTailCapture(o.capture_limit);
        if (o.separate_stderr) result_.errors = HeadTailCapture(o.capture_limit);
        if (o.timeout) deadline_ = start_ + *o.timeout;
    }

    ProcessResult run() {
        for (;;) {
            reap();
            const Clock::time_point now = Clock::now();
            if (exited_ && (!fds_[0].valid() && !fds_[1].valid())) break;
            if (exited_ && now >= exit_at_ + o_.drain_after_exit) break;
            enforce_deadline(now);
            wait_for_events(next_wakeup(now) - now);
        }
        result_.duration = std::chrono::duration_cast<milliseconds>(Clock::now() - start_);
        return std::move(result_);
    }

private:
    void reap() {
        if (exited_) return;
        int status = 0;
        pid_t r;
        do r = ::waitpid(pid_, &status, WNOHANG);
        while (r < 0 && errno == EINTR);
        if (r != pid_) return;
        exited_ = true;
        exit_at_ = Clock::now();
        if (WIFEXITED(status)) {
            result_.exit_code = WEXITSTATUS(status);
        } else if (WIFSIGNALED(status)) {
            result_.term_signal = WTERMSIG(status);
            result_.exit_code = 128 + WTERMSIG(status);
        }
        // A timed-out job's stragglers get no second grace period.
        if (result_.timed_out) ::kill(-pid_, SIGKILL);
    }

    void enforce_deadline(Clock::time_point now) {
        if (exited_ || !deadline_ || now < *deadline_) return;
        if (!result_.timed_out) {
            result_.timed_out = true;
            ::kill(-pid_, SIGTERM);
            kill_at_ = now + o_.kill_grace;
        } else if (!result_.killed_after_grace && now >= kill_at_) {
            result_.killed_after_grace = true;
            ::kill(-pid_, SIGKILL);
        }
    }

    Clock::time_point next_wakeup(Clock::time_point now) const {
        Clock::time_point t = now + milliseconds(50);  // the child's exit is noticed by polling
        if (exited_) t = std::min(t, exit_at_ + o_.drain_after_exit);
        if (!exited_ && deadline_ && !result_.killed_after_grace) {
            t = std::min(t, result_.timed_out ? kill_at_ : *deadline_);
        }
        return std::max(t, now);
    }

    void wait_for_events(Clock::duration wait) {
        std::array<pollfd, 3> p{};
        nfds_t n = 0;
        std::array<int, 3> which{};
        for (int i = 0; i < 2; ++i) {
            if (!fds_[i].valid()) continue;
            p[n] = pollfd{fds_[i].get(), POLLIN, 0};
            which[n++] = i;
        }
        if (signal_fd_ >= 0) {
            p[n] = pollfd{signal_fd_, POLLIN, 0};
            which[n++] = 2;
        }
        const auto ms = std::chrono::duration_cast<milliseconds>(wait).count();
        const int ready = ::poll(p.data(), n, static_cast<int>(std::clamp<long long>(ms, 0, 1000)));
        if (ready <= 0) return;
        for (nfds_t i = 0; i < n; ++i) {
            if (p[i].revents == 0) continue;
            if (which[i] == 2) forward_signals();
            else read_stream(which[i]);
        }
    }

    void read_stream(int i) {
        char buf[65536];
        // A bounded number of reads per wake-up keeps the two streams interleaved.
        for (int round = 0; round < 4; ++round) {
            const ssize_t r = ::read(fds_[i].get(), buf, sizeof buf);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0 && errno == EAGAIN) return;
            if (r <= 0) {
                fds_[i].reset();
                return;
            }
            (i == 1 && o_.separate_stderr ? result_.errors : result_.output).append(buf, static_cast<std::size_t>(r));
            copy_to_sink(sinks_[i], buf, static_cast<std::size_t>(r));
        }
    }

    void forward_signals() {
        unsigned char sigs[16];
        const ssize_t r = ::read(signal_fd_, sigs, sizeof sigs);
        for (ssize_t i = 0; i < r; ++i) {
            if (!result_.interrupted_by) result_.interrupted_by = sigs[i];
            if (!exited_) ::kill(-pid_, sigs[i]);
        }
    }

    const ProcessOptions& o_;
    pid_t pid_;
    std::array<Fd, 2> fds_;
    std::array<int, 2> sinks_{};
    int signal_fd_;
    Clock::time_point start_;
    std::optional<Clock::time_point> deadline_;
    Clock::time_point kill_at_{};
    bool exited_ = false;
    Clock::time_point exit_at_{};
    ProcessResult result_;
};

}  // namespace

Result<ProcessResult> run_process(const ProcessOptions& o) {
    if (o.argv.empty() || o.argv[0].empty() || o.argv[0][0] != '/') {
        return Error::usage("run_process needs an absolute program path");
    }
    std::vector<std::string> args = o.argv;
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    Fd devnull(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!devnull.valid()) return Error::from_errno("cannot open", "/dev/null", errno);
    Result<Pipe> out = make_pipe(true);
    if (!out) return out.error();
    Result<Pipe> err = make_pipe(true);
    if (!err) return err.error();
    Result<Pipe> report = make_pipe(false);
    if (!report) return report.error();
    Result<Pipe> signals = make_pipe(true);
    if (!signals) return signals.error();
    ::fcntl(signals->write.get(), F_SETFL, ::fcntl(signals->write.get(), F_GETFL) | O_NONBLOCK);

    // Handlers go in before the fork: a Ctrl-C from now on reaches the child.
    const SignalScope scope(o.forward_signals, signals->write.get());
    const char* cwd = o.cwd.empty() ? nullptr : o.cwd.c_str();
    std::vector<std::string> env_store;
    const std::vector<char*> envp = child_environment(o.set_env, env_store);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) return Error::from_errno("cannot start", o.argv[0], errno);
    if (pid == 0) {
        exec_child(argv, envp.data(), cwd, devnull.get(), out->write.get(), err->write.get(), report->write.get(), parent,
                   o.die_with_parent);
    }
    ::setpgid(pid, pid);  // also done by the child: whichever runs first wins the race
    out->write.reset();
    err->write.reset();
    report->write.reset();
    int exec_errno = 0;
    ssize_t got;
    do got = ::read(report->read.get(), &exec_errno, sizeof exec_errno);
    while (got < 0 && errno == EINTR);
    if (got == static_cast<ssize_t>(sizeof exec_errno)) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        return Error::from_errno("cannot run", o.argv[0] + (o.cwd.empty() ? "" : " in " + o.cwd), exec_errno);
    }
    Supervisor s(o, pid, std::move(out->read), std::move(err->read),
                 o.forward_signals ? signals->read.get() : -1);
    return s.run();
}

std::optional<std::string> find_executable(const std::string& name) {
    const char* path = std::getenv("PATH");
    const std::string_view dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
    for (std::size_t from = 0; from <= dirs.size();) {
        const std::size_t colon = std::min(dirs.find(':', from), dirs.size());
        std::string dir(dirs.substr(from, colon - from));
        if (dir.empty()) dir = ".";
        std::string candidate = dir + "/" + name;
        struct stat st {};
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
            if (candidate[0] != '/') candidate = process_directory() + "/" + candidate;
            return candidate;
        }
        from = colon + 1;
    }
    return std::nullopt;
}

}  // namespace small
