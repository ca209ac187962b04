// `small selftest`: flags, the step runner and rendering; the steps, the
// directory and its cleanup are in small/ops/maintenance/selftest.hpp. Each step runs
// this very binary as a child process (with --json), so a self-test covers
// what users run: argument parsing, the commands and their JSON envelopes.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/ops/maintenance/selftest.hpp"
#include "small/report/selftest.hpp"

namespace small::cli {

namespace {

constexpr auto kStepTimeout = std::chrono::seconds(120);

struct SelftestFlags {
    std::optional<std::string> dir;
    std::string scope = "any";
    bool keep = false;
};

struct ChildRun {
    int exit_code = 0;
    std::string out, err;
    bool timed_out = false;
};

std::string own_executable() {
    std::string path(4096, '\0');
    const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size() - 1);
    if (n <= 0) return {};
    path.resize(static_cast<std::size_t>(n));
    return path;
}

// In the child: stdin from /dev/null, stdout/stderr into the pipes, its own
// process group (so a timeout kills all of it), then exec.
[[noreturn]] void exec_child(const std::string& exe, const std::vector<std::string>& args, const std::string& cwd,
                             int out_fd, int err_fd) {
    ::setpgid(0, 0);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    if (::chdir(cwd.c_str()) != 0) ::_exit(127);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>("small"));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
}

// Reads both pipes until they close or the deadline passes.
void drain(int out_fd, int err_fd, ChildRun& run, pid_t pid) {
    const auto deadline = std::chrono::steady_clock::now() + kStepTimeout;
    pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    std::string* sinks[2] = {&run.out, &run.err};
    int open_fds = 2;
    char buf[65536];
    while (open_fds > 0) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            run.timed_out = true;
            ::kill(-pid, SIGKILL);
            return;
        }
        if (::poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) return;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0) continue;
            const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                sinks[i]->append(buf, static_cast<std::size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
}

ChildRun run_child(const std::string& exe, const std::vector<std::string>& args, const std::string& cwd) {
    ChildRun run;
    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
        return {kExitSystem, "", "cannot create a pipe", false};
    }
    const pid_t pid = ::fork();
    if (pid == 0) exec_child(exe, args, cwd, out_pipe[1], err_pipe[1]);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    if (pid > 0) drain(out_pipe[0], err_pipe[0], run, pid);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    if (pid < 0) return {kExitSystem, "", "cannot start " + exe, false};
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return run;
}

std::string last_line(const std::string& text) {
    std::string t = text;
    while (!t.empty() && t.back() == '\n') t.pop_back();
    const std::size_t nl = t.rfind('\n');
    return nl == std::string::npos ? t : t.substr(nl + 1);
}

// A step passes when it exits 0 and prints one envelope (D16) saying so.
SelftestStepOutcome judge(const ChildRun& run) {
    if (run.timed_out) {
        return {kExitSystem, "no answer within " + std::to_string(kStepTimeout.count()) + " s (killed)"};
    }
    const nlohmann::json doc = nlohmann::json::parse(run.out, nullptr, false);
    const bool envelope = doc.is_object() && doc.contains("ok") && doc.contains("exit_code");
    if (run.exit_code != 0) {
        if (envelope && doc.contains("error") && doc["error"].contains("message")) {
            return {run.exit_code, doc["error"]["message"].get<std::string>()};
        }
        const std::string line = last_line(run.err);
        return {run.exit_code, line.empty() ? "exit code " + std::to_string(run.exit_code) : line};
    }
    if (!envelope || doc["ok"] != true || doc["exit_code"] != 0) {
        return {kExitInvalid, "exit code 0 but no JSON envelope with ok: true on stdout"};
    }
    return {0, ""};
}

SelftestRunner make_runner(const Output& out, const std::string& exe) {
    return [&out, exe](const SelftestStep& step, const std::string& workdir, std::size_t index, std::size_t total) {
        if (!out.json() && !out.quiet()) {
            std::cout << "[" << index + 1 << "/" << total << "] " << step.name << "... " << std::flush;
        }
        std::vector<std::string> args = step.args;
        args.push_back("--json");
        const SelftestStepOutcome outcome = judge(run_child(exe, args, workdir));
        if (!out.json() && !out.quiet()) std::cout << (outcome.exit_code == 0 ? "OK" : "FAILED") << std::endl;
        return outcome;
    };
}

int render(const Output& out, const SelftestResult& r) {
    const bool failed = r.failed && !r.steps.empty();
    const std::string failure =
        failed ? "selftest failed at step \"" + r.steps.back().step.name + "\": " + r.steps.back().outcome.error : "";
    if (out.json()) {
        nlohmann::json doc = selftest_json(r);
        if (failed) doc.update(error_json("invalid", failure));
        out.json_document(std::move(doc), failed ? kExitInvalid : kExitOk);
        return failed ? kExitInvalid : kExitOk;
    }
    if (!r.cleanup_warning.empty()) out.problem("Warning: failed to clean up " + r.dir + ": " + r.cleanup_warning);
    if (!failed) out.info("\nAll selftest steps passed!");
    if (r.kept) out.info("\nWorkspace preserved at: " + r.dir);
    if (!failed) return kExitOk;
    return report_error(out, Error::invalid(failure + (r.kept ? "" : " (run with --keep to inspect the workspace)")));
}

int run_selftest(const Context& ctx, const SelftestFlags& f) {
    const Output out(ctx.globals, "selftest");
    Result<WorkspaceScope> scope = parse_workspace_scope(f.scope);
    if (!scope) return report_error(out, scope.error());
    const std::string exe = own_executable();
    if (exe.empty()) return report_error(out, Error::system("cannot find the running small binary (/proc/self/exe)"));

    SelftestRequest req;
    req.dir = f.dir;
    req.cwd = current_directory();
    req.keep = f.keep;
    req.scope = *scope;
    bool header = false;
    const SelftestRunner step_runner = make_runner(out, exe);
    // The header names the directory, which exists only once the first step is due.
    const SelftestRunner runner = [&](const SelftestStep& s, const std::string& dir, std::size_t i, std::size_t n) {
        if (!header) out.info("SMALL Selftest\n==============\nWorkspace: " + dir + "\n");
        header = true;
        return step_runner(s, dir, i, n);
    };
    Result<SelftestResult> r = selftest_command(req, runner);
    if (!r) return report_error(out, r.error());
    return render(out, *r);
}

}  // namespace

void register_selftest(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<SelftestFlags>();
    CLI::App* cmd =
        app.add_subcommand("selftest",
                           "Run the real commands (init, plan, progress, checkpoint, handoff, verify, ...) on a fresh "
                           "workspace in a temporary directory, then remove it");
    cmd->add_flag("--keep", f->keep, "Keep the test directory afterwards (its path is printed)");
    cmd->add_option("--dir", f->dir,
                    "Use this directory instead of a fresh one under $TMPDIR: it must be new (made with its "
                    "parents) or empty; anything else is refused untouched");
    cmd->add_option("--workspace", f->scope, "Scope for the verify step: any (default) or root")->capture_default_str();
    cmd->footer(
        "Only what selftest created is removed: a --dir that existed (empty) is emptied again but kept.\n"
        "Exit codes: 0 all steps passed, 1 a step failed or --dir is not new or empty, 2 usage or "
        "system error.");
    cmd->callback([&ctx, f] { ctx.exit_code = run_selftest(ctx, *f); });
}

}  // namespace small::cli
