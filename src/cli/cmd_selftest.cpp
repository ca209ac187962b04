// `small selftest`: flags, the step runner and rendering; the steps, the
// directory and its cleanup are in small/ops/maintenance/selftest.hpp. Each step runs
// this very binary as a child process (with --json), so a self-test covers
// what users run: argument parsing, the commands and their JSON envelopes.
#include <chrono>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "small/base/process.hpp"
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

std::string own_executable(const FileSystem& fs) {
    Result<std::string> path = fs.read_link("/proc/self/exe");
    return path ? *path : std::string();
}

// The step's own process group, stdin from /dev/null, stdout and stderr
// kept apart (stdout must be one JSON envelope).
ChildRun run_child(const std::string& exe, const std::vector<std::string>& args, const std::string& cwd) {
    ProcessOptions options;
    options.argv.push_back(exe);
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.cwd = cwd;
    options.timeout = kStepTimeout;
    options.kill_grace = std::chrono::seconds(1);
    options.separate_stderr = true;
    options.capture_limit = std::size_t{16} << 20;
    Result<ProcessResult> run = run_process(options);
    if (!run) return {kExitSystem, "", run.error().message, false};
    return {run->exit_code, run->output.text(), run->errors.text(), run->timed_out};
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
    if (!failed) out.lines("\nAll selftest steps passed!");
    if (r.kept) out.lines("\nWorkspace preserved at: " + r.dir);
    if (!failed) return kExitOk;
    return report_error(out, Error::invalid(failure + (r.kept ? "" : " (run with --keep to inspect the workspace)")));
}

int run_selftest(const Context& ctx, const SelftestFlags& f) {
    const Output out(ctx.globals, "selftest");
    Result<WorkspaceScope> scope = parse_workspace_scope(f.scope);
    if (!scope) return report_error(out, scope.error());
    const std::string exe = own_executable(ctx.fs);
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
        if (!header) out.lines("SMALL Selftest\n==============\nWorkspace: " + dir + "\n");
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
        add_command(app, "selftest");
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
