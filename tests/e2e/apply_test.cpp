// End-to-end tests of `small apply` (authoring.md §8, §0.14; DECISIONS D4,
// D8, D14; inspection.md §5 hazards): the real binary on a workspace made
// by `small init` in a fresh temporary directory.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.hpp"

namespace {

using namespace small_e2e;
using namespace std::chrono_literals;

class Apply : public ::testing::Test {
protected:
    void SetUp() override {
        const RunResult r = run_in(dir_.path(), {"init", "--intent", "Build a widget"});
        ASSERT_EQ(r.exit_code, 0) << r;
        progress_before_ = progress();
    }
    fs::path root() const { return dir_.path(); }
    std::string progress() const { return read_file(root() / ".small/progress.small.yml"); }
    std::string plan() const { return read_file(root() / ".small/plan.small.yml"); }
    // The entries appended since SetUp.
    std::string appended() const { return progress().substr(progress_before_.size()); }
    RunResult apply(std::vector<std::string> args, RunOptions opts = {}) const {
        args.insert(args.begin(), "apply");
        opts.cwd = root();
        return run_small(args, opts);
    }
    RunResult audit(std::vector<std::string> args) const {
        RunOptions o;
        o.env = {{"SMALL_PROGRESS_MODE", "audit"}};
        return apply(std::move(args), o);
    }
    std::string run_id() const {
        const std::string w = read_file(root() / ".small/workspace.small.yml");
        std::smatch m;
        if (std::regex_search(w, m, std::regex("replay_id: \"?([0-9a-f]{64})"))) return m[1];
        return "";
    }
    static int count(const std::string& text, const std::string& needle) {
        int n = 0;
        for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
        return n;
    }

    TempDir dir_;
    std::string progress_before_;
};

TEST_F(Apply, ExitsWithTheCommandsCodeAndRecordsIt) {
    const RunResult r = apply({"--cmd", "echo visible; exit 3", "--task", "task-1"});
    EXPECT_EQ(r.exit_code, 3) << r;
    EXPECT_TRUE(contains(r.out, "visible\n")) << r;
    EXPECT_TRUE(contains(r.out, "Command failed (exit code: 3)")) << r;
    const std::string added = appended();
    EXPECT_EQ(count(added, "task_id:"), 1) << added;
    EXPECT_TRUE(contains(added, "status: \"blocked\"")) << added;
    EXPECT_TRUE(contains(added, "Command failed with exit code 3")) << added;
    EXPECT_TRUE(contains(added, "command_sha256:")) << added;
    EXPECT_TRUE(contains(added, "command_ref: \".small-cache/logs/")) << added;
    EXPECT_TRUE(contains(added, "replayId: \"" + run_id() + "\"")) << added;
    // Apply never changes the plan without --auto-checkpoint.
    EXPECT_FALSE(contains(plan(), "blocked"));
}

TEST_F(Apply, SignalModeWithoutTaskRecordsNothingButKeepsTheLog) {
    const RunResult r = apply({"--cmd", "echo hello-log"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(progress(), progress_before_);
    const fs::path logs = root() / ".small-cache/logs" / run_id() / "commands";
    ASSERT_TRUE(fs::is_directory(logs)) << r;
    int commands = 0, outputs = 0;
    for (const auto& e : fs::directory_iterator(logs)) {
        const std::string name = e.path().filename().string();
        EXPECT_TRUE(std::regex_match(name, std::regex(R"(\d{8}T\d{6}\.\d{9}Z(\.output)?\.txt)"))) << name;
        if (contains(name, ".output.")) {
            ++outputs;
            EXPECT_EQ(read_file(e.path()), "hello-log\n");
        } else {
            ++commands;
            EXPECT_EQ(read_file(e.path()), "echo hello-log");
        }
    }
    EXPECT_EQ(commands, 1);
    EXPECT_EQ(outputs, 1);
}

TEST_F(Apply, AuditModeRecordsStartAndEndUnderMetaApply) {
    const RunResult r = audit({"--cmd", "true"});
    EXPECT_EQ(r.exit_code, 0) << r;
    const std::string added = appended();
    EXPECT_EQ(count(added, "task_id: \"meta/apply\""), 2) << added;
    EXPECT_TRUE(contains(added, "status: \"in_progress\"")) << added;
    EXPECT_TRUE(contains(added, "apply: execution started")) << added;
    EXPECT_TRUE(contains(added, "status: \"completed\"")) << added;
    // Both entries point at the same log.
    std::smatch m;
    std::regex ref("command_ref: \"([^\"]+)\"");
    std::vector<std::string> refs;
    for (auto it = std::sregex_iterator(added.begin(), added.end(), ref); it != std::sregex_iterator(); ++it) {
        refs.push_back((*it)[1]);
    }
    ASSERT_EQ(refs.size(), 2u);
    EXPECT_EQ(refs[0], refs[1]);
    EXPECT_EQ(read_file(root() / refs[0]), "true");
    const RunResult lint = run_in(root(), {"lint", "--strict"});
    EXPECT_EQ(lint.exit_code, 0) << lint;
}

TEST_F(Apply, UnknownTaskIsRefusedBeforeAnythingRuns) {
    const RunResult r = apply({"--cmd", "touch ran-anyway", "--task", "task-9"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "task-1")) << "names the closest id\n" << r;
    EXPECT_FALSE(fs::exists(root() / "ran-anyway"));
    EXPECT_EQ(progress(), progress_before_);
    EXPECT_FALSE(fs::exists(root() / ".small-cache/logs"));
}

TEST_F(Apply, MetaTaskIdsAreAllowed) {
    const RunResult r = apply({"--cmd", "true", "--task", "meta/build"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(appended(), "task_id: \"meta/build\"")) << appended();
}

TEST_F(Apply, UsageErrors) {
    EXPECT_EQ(apply({"--cmd", "true", "--auto-checkpoint"}).exit_code, 2);
    EXPECT_EQ(apply({"--cmd", "true", "--task", "task-1", "--auto-checkpoint", "--dry-run"}).exit_code, 2);
    EXPECT_EQ(apply({"--cmd", "true", "--auto-progress", "--dry-run"}).exit_code, 2);
    EXPECT_EQ(apply({"--auto-progress"}).exit_code, 2) << "no silent dry run";
    EXPECT_EQ(apply({"--cmd", "true", "--timeout", "0"}).exit_code, 2);
    EXPECT_EQ(apply({"--cmd", "true", "--timeout", "soon"}).exit_code, 2);
    EXPECT_EQ(apply({"--cmd", "true", "--task", "  "}).exit_code, 2);
    EXPECT_EQ(apply({"--cmd", "true", "--task", "meta/x", "--auto-checkpoint"}).exit_code, 2);
    EXPECT_EQ(apply({"--cmd", "true", "extra-argument"}).exit_code, 2);
    EXPECT_EQ(progress(), progress_before_);
}

TEST_F(Apply, DryRunWithoutTaskWritesNothing) {
    const fs::path marker = root() / "should-not-exist";
    const RunResult r = apply({"--cmd", "touch should-not-exist", "--dry-run"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Dry-run mode: no command will be executed")) << r;
    EXPECT_TRUE(contains(r.out, "Would execute: touch should-not-exist")) << r;
    EXPECT_FALSE(fs::exists(marker));
    EXPECT_EQ(progress(), progress_before_);
    EXPECT_FALSE(fs::exists(root() / ".small-cache/logs"));
    const RunResult none = apply({});
    EXPECT_EQ(none.exit_code, 0) << none;
    EXPECT_TRUE(contains(none.out, "No command specified")) << none;
    EXPECT_EQ(progress(), progress_before_);
}

TEST_F(Apply, DryRunWithTaskRecordsAPendingEntryOnly) {
    const RunResult r = apply({"--cmd", "touch should-not-exist", "--task", "task-1", "--dry-run"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_FALSE(fs::exists(root() / "should-not-exist"));
    const std::string added = appended();
    EXPECT_TRUE(contains(added, "status: \"pending\"")) << added;
    EXPECT_TRUE(contains(added, "Dry-run: no command executed")) << added;
    EXPECT_TRUE(contains(added, "apply --dry-run (cmd: \\\"touch should-not-exist\\\")")) << added;
    EXPECT_FALSE(contains(plan(), "completed"));
}

TEST_F(Apply, AutoCheckpointSetsThePlanStatus) {
    const RunResult bad = apply({"--cmd", "exit 4", "--task", "task-1", "--auto-checkpoint"});
    EXPECT_EQ(bad.exit_code, 4) << bad;
    EXPECT_TRUE(std::regex_search(plan(), std::regex("status: \"?blocked"))) << plan();
    const RunResult good = apply({"--cmd", "true", "--task", "task-1", "--auto-checkpoint", "--handoff"});
    EXPECT_EQ(good.exit_code, 0) << good;
    EXPECT_TRUE(std::regex_search(plan(), std::regex("status: \"?completed"))) << plan();
    EXPECT_TRUE(contains(good.out, "Handoff generated")) << good;
    const std::string handoff = read_file(root() / ".small/handoff.small.yml");
    EXPECT_TRUE(contains(handoff, run_id())) << handoff;
    EXPECT_FALSE(contains(handoff, "current_task_id")) << handoff;
    const RunResult check = run_in(root(), {"check", "--strict"});
    EXPECT_EQ(check.exit_code, 0) << check;
}

TEST_F(Apply, AutoProgressKeepsTheEndOfTheOutputEscaped) {
    const RunResult r = apply({"--cmd", "seq 1 3000; printf 'say \"hi\"\\n' >&2", "--task", "task-1", "--auto-progress"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "\n2999\n3000\n")) << "the output is still shown";
    const std::string added = appended();
    EXPECT_TRUE(contains(added, "exit_code=0 output=")) << added;
    EXPECT_TRUE(contains(added, "say \\\\\\\"hi\\\\\\\"")) << added;  // YAML-quoted \"hi\"
    EXPECT_TRUE(contains(added, "truncated=true limit=4000")) << added;
    EXPECT_FALSE(contains(added, "\\n1\\n2\\n3\\n")) << "the start of a long output is cut, not its end";
}

TEST_F(Apply, AutoProgressNeverPutsASecretIntoTheLog) {
    const RunResult r = apply({"--cmd", "echo AKIAIOSFODNN7EXAMPLE; echo http://insecure.example.com", "--task",
                               "task-1", "--auto-progress"});
    EXPECT_EQ(r.exit_code, 0) << r;
    const std::string added = appended();
    EXPECT_TRUE(contains(added, "output withheld")) << added;
    EXPECT_FALSE(contains(added, "AKIA")) << added;
    EXPECT_TRUE(contains(r.err, "Warning:")) << r;
    const RunResult lint = run_in(root(), {"lint", "--strict"});
    EXPECT_EQ(lint.exit_code, 0) << lint;
}

TEST_F(Apply, ASecretInTheCommandLineNeverReachesTheLog) {
    const RunResult r = apply({"--cmd", "echo AKIAIOSFODNN7EXAMPLE >/dev/null", "--task", "task-1"});
    EXPECT_EQ(r.exit_code, 0) << r;
    const std::string added = appended();
    EXPECT_FALSE(contains(added, "AKIA")) << added;
    EXPECT_TRUE(contains(added, "command_sha256:")) << added;
    EXPECT_FALSE(contains(added, "command_summary:")) << added;
    EXPECT_TRUE(contains(r.err, "withheld") || contains(r.err, "fails the entry checks")) << r;
    const RunResult lint = run_in(root(), {"lint", "--strict"});
    EXPECT_EQ(lint.exit_code, 0) << lint;
}

TEST_F(Apply, AnHttpLinkInTheCommandStillRuns) {
    const RunResult r = apply({"--cmd", "echo http://localhost:8080/health; touch ran", "--task", "task-1"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(fs::exists(root() / "ran"));
    EXPECT_EQ(run_in(root(), {"check", "--strict"}).exit_code, 0);
}

TEST_F(Apply, RunsInTheWorkspaceRootWithoutALoginShell) {
    fs::create_directories(root() / "sub");
    RunOptions o;
    o.cwd = root() / "sub";
    o.env = {{"ENV", (root() / "profile.sh").string()}, {"HOME", root().string()}};
    write_file(root() / ".profile", "echo PROFILE-SOURCED\n");
    write_file(root() / "profile.sh", "echo ENV-SOURCED\n");
    const RunResult r = run_small({"apply", "--cmd", "pwd"}, o);
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, root().string() + "\n")) << r;
    EXPECT_FALSE(contains(r.out, "PROFILE-SOURCED")) << r;
    EXPECT_FALSE(contains(r.out, "ENV-SOURCED")) << r;
}

TEST_F(Apply, TimeoutStopsTheCommandAndIsRecorded) {
    const auto start = std::chrono::steady_clock::now();
    const RunResult r = apply({"--cmd", "sleep 30", "--task", "task-1", "--timeout", "0.3"});
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
    EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r;
    EXPECT_TRUE(contains(r.err, "Timed out")) << r;
    const std::string added = appended();
    EXPECT_TRUE(contains(added, "killed by SIGTERM")) << added;
    EXPECT_TRUE(contains(added, "timed out after 0.3s")) << added;
}

TEST_F(Apply, CommandMayWriteProgressItselfWhileRunning) {
    // The lock is not held while the command runs: a nested small must not wait for it.
    RunOptions o;
    o.env = {{"SMALL_LOCK_TIMEOUT_MS", "500"}};
    const std::string nested = std::string(SMALL_BINARY) +
                               " progress add --task task-1 --status in_progress --evidence 'from inside'";
    const RunResult r = apply({"--cmd", nested, "--task", "task-1"}, o);
    EXPECT_EQ(r.exit_code, 0) << r;
    const std::string added = appended();
    EXPECT_TRUE(contains(added, "from inside")) << added;
    EXPECT_LT(added.find("from inside"), added.find("Command completed successfully")) << added;
}

TEST_F(Apply, HostileReplayIdInTheHandoffIsNeverAPath) {
    // No pinned run; the handoff names a traversal instead of an id.
    const fs::path ws_file = root() / ".small/workspace.small.yml";
    std::string w = read_file(ws_file);
    w = std::regex_replace(w, std::regex("\\nrun:\\n  replay_id: [^\\n]*"), "");
    write_file(ws_file, w);
    const fs::path handoff = root() / ".small/handoff.small.yml";
    std::string h = read_file(handoff);
    h = std::regex_replace(h, std::regex("value: \"?[0-9a-f]{64}\"?"), "value: \"../../../escape\"");
    write_file(handoff, h);
    const RunResult r = apply({"--cmd", "touch ran", "--task", "task-1"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "replay id")) << r;
    EXPECT_FALSE(fs::exists(root() / "ran"));
    EXPECT_FALSE(fs::exists(root().parent_path() / "escape"));
    EXPECT_FALSE(fs::exists(root() / ".small-cache/logs"));
}

TEST_F(Apply, SymlinkedLogFolderIsRefused) {
    TempDir outside;
    fs::create_directories(root() / ".small-cache");
    fs::create_directory_symlink(outside.path(), root() / ".small-cache/logs");
    const RunResult r = apply({"--cmd", "touch ran", "--task", "task-1"});
    EXPECT_NE(r.exit_code, 0) << r;
    EXPECT_FALSE(fs::exists(root() / "ran"));
    EXPECT_TRUE(fs::is_empty(outside.path()));
}

TEST_F(Apply, JsonIsOneDocumentAndTheCommandsStdoutGoesToStderr) {
    const RunResult r = apply({"--cmd", "echo on-stdout; exit 5", "--task", "task-1", "--json"});
    EXPECT_EQ(r.exit_code, 5) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_TRUE(contains(r.err, "on-stdout")) << r;
    EXPECT_EQ((*doc)["command"], "apply");
    EXPECT_EQ((*doc)["exit_code"], 5);
    EXPECT_EQ((*doc)["ok"], false);
    EXPECT_EQ((*doc)["error"]["kind"], "command");
    EXPECT_EQ((*doc)["run"]["exit_code"], 5);
    EXPECT_EQ((*doc)["run"]["status"], "blocked");
    EXPECT_EQ((*doc)["entries"].size(), 1u);
    EXPECT_EQ((*doc)["command_log"]["replay_id"], run_id());
}

// small runs apply in the background; the test signals it like a Ctrl-C would.
struct Background {
    pid_t pid = -1;
    int wait_exit(std::chrono::milliseconds limit) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        int status = 0;
        while (std::chrono::steady_clock::now() < deadline) {
            if (::waitpid(pid, &status, WNOHANG) == pid) {
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            std::this_thread::sleep_for(20ms);
        }
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        return -1;
    }
};

Background start_small(const fs::path& cwd, const std::vector<std::string>& args, const fs::path& out) {
    std::vector<std::string> store = {SMALL_BINARY};
    store.insert(store.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : store) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string cwd_s = cwd.string(), out_s = out.string();
    Background b;
    b.pid = ::fork();
    if (b.pid == 0) {
        const int fd = ::open(out_s.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int in = ::open("/dev/null", O_RDONLY);
        ::dup2(in, 0);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        if (::chdir(cwd_s.c_str()) != 0) ::_exit(126);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    return b;
}

bool wait_for_file(const fs::path& p, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (fs::exists(p)) return true;
        std::this_thread::sleep_for(20ms);
    }
    return false;
}

TEST_F(Apply, CtrlCIsForwardedToTheCommandAndRecorded) {
    const std::string script =
        "trap 'echo INT > got-int; exit 130' INT; touch ready; while :; do sleep 0.05; done";
    Background b = start_small(root(), {"apply", "--cmd", script, "--task", "task-1"}, root() / "small.out");
    ASSERT_TRUE(wait_for_file(root() / "ready", 10s));
    ASSERT_EQ(::kill(b.pid, SIGINT), 0);
    const int code = b.wait_exit(10s);
    EXPECT_EQ(code, 130) << read_file(root() / "small.out");
    EXPECT_EQ(read_file(root() / "got-int"), "INT\n");
    const std::string added = appended();
    EXPECT_TRUE(contains(added, "interrupted: SIGINT forwarded to its process group")) << added;
    EXPECT_TRUE(contains(added, "status: \"blocked\"")) << added;
}

// Issue 24: SIGUSR1 ended small with 138, the command ran on and nothing was recorded.
TEST_F(Apply, Sigusr1IsForwardedAndRecordedLikeCtrlC) {
    // Bounded (30 s): before the fix the command outlived small.
    const std::string script =
        "trap 'echo USR1 > got-usr1; exit 9' USR1; touch ready; i=0; while [ $i -lt 600 ]; do sleep 0.05; "
        "i=$((i+1)); done";
    Background b = start_small(root(), {"apply", "--cmd", script, "--task", "task-1"}, root() / "small.out");
    ASSERT_TRUE(wait_for_file(root() / "ready", 10s));
    ASSERT_EQ(::kill(b.pid, SIGUSR1), 0);
    const int code = b.wait_exit(10s);
    EXPECT_EQ(code, 9) << read_file(root() / "small.out");
    EXPECT_EQ(read_file(root() / "got-usr1"), "USR1\n");
    EXPECT_TRUE(contains(appended(), "interrupted: SIGUSR1 forwarded to its process group")) << appended();
}

TEST_F(Apply, SigtermIsForwardedToo) {
    Background b = start_small(root(), {"apply", "--cmd", "touch ready; exec sleep 30", "--task", "task-1"},
                               root() / "small.out");
    ASSERT_TRUE(wait_for_file(root() / "ready", 10s));
    std::this_thread::sleep_for(100ms);  // past the touch, into the sleep
    ASSERT_EQ(::kill(b.pid, SIGTERM), 0);
    const int code = b.wait_exit(10s);
    EXPECT_EQ(code, 128 + SIGTERM) << read_file(root() / "small.out");
    EXPECT_TRUE(contains(appended(), "killed by SIGTERM")) << appended();
}

}  // namespace
