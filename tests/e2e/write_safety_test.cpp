// Write safety of the state-changing commands (DECISIONS D4, D7, D8), as
// automated end-to-end tests of the real binary:
//   * concurrency: many `small` processes writing one workspace at once;
//   * crash safety: SIGKILL at random moments, then every artifact must still
//     parse, no acknowledged entry may be lost, and a multi-file change
//     (checkpoint: plan status + entry) must be all there or not at all;
//   * failures: read-only `.small/`, a full disk (RLIMIT_FSIZE), a missing
//     `.small/`, malformed artifacts, a busy lock -> a clear message, the D4
//     exit code and every file under `.small/` byte-identical.
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <chrono>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.hpp"

namespace {

using namespace small_e2e;

using Env = std::vector<std::pair<std::string, std::optional<std::string>>>;

const std::regex kCanonicalTimestamp(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$)");

// ---------------------------------------------------------------------------
// Running the binary with a prepared child (resource limit, other user)
// ---------------------------------------------------------------------------

struct ChildSetup {
    std::optional<rlim_t> fsize_limit;  // RLIMIT_FSIZE in bytes
    std::optional<uid_t> uid;           // run as this user (needs root)
    std::optional<gid_t> gid;
};

// run_small (support/run_binary.hpp) with ChildSetup applied in the child.
RunResult run_child(const fs::path& cwd, const std::vector<std::string>& args, const Env& env,
                    const ChildSetup& setup) {
    RunOptions opts;
    opts.cwd = cwd;
    opts.env = env;
    opts.timeout = std::chrono::seconds(60);
    opts.fsize_limit = setup.fsize_limit;
    opts.uid = setup.uid;
    opts.gid = setup.gid;
    return run_small(args, opts);
}

// Starts `small args...` with every standard stream on /dev/null and
// returns at once (the caller kills and reaps it).
pid_t spawn_quiet(const fs::path& cwd, const std::vector<std::string>& args, const Env& env) {
    RunOptions opts;
    opts.env = env;
    const ExecArgs exec_args(args, opts);
    const std::string dir = cwd.string();
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int devnull = ::open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            ::dup2(devnull, STDIN_FILENO);
            ::dup2(devnull, STDOUT_FILENO);
            ::dup2(devnull, STDERR_FILENO);
        }
        if (::chdir(dir.c_str()) != 0) ::_exit(126);
        exec_args.exec();
        ::_exit(127);
    }
    return pid;
}

// ---------------------------------------------------------------------------
// Workspace helpers
// ---------------------------------------------------------------------------

// Every path under `dir`, recursively: relative path -> bytes ("<dir>" for
// directories, "<symlink>" for links).
using Snapshot = std::map<std::string, std::string>;

Snapshot snapshot(const fs::path& dir) {
    Snapshot files;
    std::error_code ec;
    if (!fs::exists(dir, ec)) return files;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        const std::string rel = fs::relative(it->path(), dir).string();
        if (it->is_symlink()) files[rel] = "<symlink>";
        else if (it->is_directory()) files[rel] = "<dir>";
        else files[rel] = read_file(it->path());
    }
    return files;
}

// "" when equal, else which paths differ.
std::string snapshot_diff(const Snapshot& before, const Snapshot& after) {
    std::string out;
    for (const auto& [path, bytes] : before) {
        const auto it = after.find(path);
        if (it == after.end()) out += "  removed: " + path + "\n";
        else if (it->second != bytes) out += "  changed: " + path + "\n";
    }
    for (const auto& [path, bytes] : after) {
        if (!before.count(path)) out += "  added:   " + path + "\n";
    }
    return out;
}

std::string unquote(std::string v) {
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return v.substr(1, v.size() - 2);
    return v;
}

// The items of a top-level block sequence (`entries:` / `tasks:`) in the
// house style `small` writes: "  - key: value" opens an item, "    key: value"
// continues it; deeper lines (lists inside an item) are skipped.
std::vector<std::map<std::string, std::string>> sequence_items(const std::string& text, const std::string& key) {
    std::vector<std::map<std::string, std::string>> items;
    std::istringstream in(text);
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] != ' ' && line[0] != '#') {
            inside = line == key + ":";
            continue;
        }
        if (!inside) continue;
        std::string kv;
        if (line.rfind("  - ", 0) == 0) {
            items.emplace_back();
            kv = line.substr(4);
        } else if (line.rfind("    ", 0) == 0 && line.rfind("     ", 0) != 0 && !items.empty()) {
            kv = line.substr(4);
        } else {
            continue;
        }
        const std::size_t colon = kv.find(": ");
        if (colon == std::string::npos) continue;
        items.back()[kv.substr(0, colon)] = unquote(kv.substr(colon + 2));
    }
    return items;
}

std::vector<std::map<std::string, std::string>> progress_entries(const fs::path& root) {
    return sequence_items(read_file(root / ".small" / "progress.small.yml"), "entries");
}

std::vector<std::map<std::string, std::string>> plan_tasks(const fs::path& root) {
    return sequence_items(read_file(root / ".small" / "plan.small.yml"), "tasks");
}

std::string status_or_pending(const std::map<std::string, std::string>& task) {
    const auto it = task.find("status");
    return it == task.end() || it->second.empty() ? "pending" : it->second;
}

// "" when every timestamp is canonical and strictly after the previous one.
std::string timestamp_order_problem(const std::vector<std::map<std::string, std::string>>& entries) {
    std::string previous;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const auto it = entries[i].find("timestamp");
        if (it == entries[i].end()) return "entry " + std::to_string(i) + " has no timestamp";
        if (!std::regex_match(it->second, kCanonicalTimestamp)) {
            return "entry " + std::to_string(i) + " timestamp " + it->second + " is not canonical";
        }
        // Canonical UTC with 9 digits: string order is time order.
        if (!(previous < it->second)) {
            return "entry " + std::to_string(i) + " timestamp " + it->second + " is not after " + previous;
        }
        previous = it->second;
    }
    return "";
}

std::string dump_workspace(const fs::path& root) {
    std::string out = "[plan.small.yml]\n" + read_file(root / ".small" / "plan.small.yml");
    const std::string progress = read_file(root / ".small" / "progress.small.yml");
    out += "[progress.small.yml, last 3000 bytes]\n" +
           (progress.size() > 3000 ? progress.substr(progress.size() - 3000) : progress);
    out += "\n[.small-cache]\n";
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root / ".small-cache", ec)) out += "  " + e.path().filename().string() + "\n";
    return out;
}

void run_ok(const fs::path& cwd, const std::vector<std::string>& args, const Env& env = {}) {
    const RunResult r = run_in(cwd, args, env);
    ASSERT_EQ(r.exit_code, 0) << r;
}

// A valid workspace every write command below succeeds on: the init
// templates, task-2 added and checkpointed (so nothing dangles).
void make_base(const fs::path& root) {
    fs::create_directories(root);
    ASSERT_NO_FATAL_FAILURE(run_ok(root, {"init", "--no-agents"}));
    ASSERT_NO_FATAL_FAILURE(run_ok(root, {"plan", "--add", "Second task"}));
    ASSERT_NO_FATAL_FAILURE(run_ok(root, {"checkpoint", "--task", "task-2", "--status", "completed", "--evidence", "done"}));
}

// A copy of the workspace `from` at `to`, without its cache.
void copy_workspace(const fs::path& from, const fs::path& to) {
    fs::copy(from, to, fs::copy_options::recursive);
    fs::remove_all(to / ".small-cache");
}

struct WriteCommand {
    std::string name;
    std::vector<std::string> args;
    bool appends = true;  // writes progress entries (on this workspace)
};

// Every write command, each a success on make_base's workspace.
const std::vector<WriteCommand>& write_commands() {
    static const std::vector<WriteCommand> commands = {
        {"init --force", {"init", "--force", "--no-agents"}, true},
        {"plan --add", {"plan", "--add", "Another task"}, true},
        {"progress add", {"progress", "add", "--task", "task-1", "--status", "in_progress", "--evidence", "probe"}, true},
        {"checkpoint", {"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "checked"}, true},
        {"handoff", {"handoff"}, false},
        {"start", {"start"}, false},  // the run is pinned: no self-heal entry
        {"reset --yes", {"reset", "--yes"}, true},
    };
    return commands;
}

std::vector<std::string> with_json(std::vector<std::string> args) {
    args.push_back("--json");
    return args;
}

// What a refused write must look like.
struct Expectation {
    int exit_code = 0;
    std::string kind;                  // error.kind in JSON
    std::vector<std::string> in_err;   // substrings of stderr
    std::optional<std::regex> err_re;  // a regex stderr must contain
};

// Runs `cmd` in `work`, in text and in JSON mode, and checks the exit code,
// the message and that nothing under .small/ changed.
void expect_refused_without_change(const fs::path& work, const WriteCommand& cmd, const Env& env,
                                   const ChildSetup& setup, const Expectation& want) {
    const Snapshot before = snapshot(work / ".small");
    ASSERT_FALSE(before.empty());
    const RunResult r = run_child(work, cmd.args, env, setup);
    EXPECT_EQ(r.exit_code, want.exit_code) << r;
    EXPECT_TRUE(contains(r.err, "Error: ")) << r;
    for (const std::string& s : want.in_err) {
        EXPECT_TRUE(contains(r.err, s)) << "stderr lacks \"" << s << "\"\n" << r;
    }
    if (want.err_re) {
        EXPECT_TRUE(std::regex_search(r.err, *want.err_re)) << r;
    }
    std::string diff = snapshot_diff(before, snapshot(work / ".small"));
    EXPECT_TRUE(diff.empty()) << "files under .small/ changed:\n" << diff << r;

    const RunResult j = run_child(work, with_json(cmd.args), env, setup);
    EXPECT_EQ(j.exit_code, want.exit_code) << j;
    const auto doc = parse_single_json(j.out);
    ASSERT_TRUE(doc) << "not exactly one JSON document\n" << j;
    EXPECT_EQ((*doc).value("ok", true), false) << j;
    if (!want.kind.empty()) {
        EXPECT_TRUE(doc->contains("error") && (*doc)["error"].value("kind", "") == want.kind) << j;
    }
    diff = snapshot_diff(before, snapshot(work / ".small"));
    EXPECT_TRUE(diff.empty()) << "files under .small/ changed (JSON mode):\n" << diff << j;
}

// ---------------------------------------------------------------------------
// Failures: the control, then each way a write can fail
// ---------------------------------------------------------------------------

class WriteFailureTest : public ::testing::Test {
protected:
    TempDir tmp_;
    fs::path base_;
    int copies_ = 0;

    void SetUp() override {
        base_ = tmp_.path() / "base";
        ASSERT_NO_FATAL_FAILURE(make_base(base_));
    }
    fs::path fresh_copy() {
        const fs::path to = tmp_.path() / ("case-" + std::to_string(copies_++));
        copy_workspace(base_, to);
        return to;
    }
};

// Without this control the failure tests below could pass for a wrong
// reason (a command that always fails).
TEST_F(WriteFailureTest, EveryWriteCommandSucceedsOnTheBaseWorkspace) {
    for (const WriteCommand& cmd : write_commands()) {
        SCOPED_TRACE(cmd.name);
        const fs::path work = fresh_copy();
        const RunResult r = run_in(work, cmd.args);
        EXPECT_EQ(r.exit_code, 0) << r;
        const RunResult v = run_in(work, {"validate"});
        EXPECT_EQ(v.exit_code, 0) << v;
        if (cmd.name == "init --force") continue;  // see InitForceOnAWorkedWorkspacePassesVerifyStrict
        const RunResult strict = run_in(work, {"verify", "--strict"});
        EXPECT_EQ(strict.exit_code, 0) << strict;
    }
}

// docs/commands.md: the workspace init leaves passes verify --strict; with
// --force the kept log's entries of the old run must not fall into the new
// run's S2 scope.
TEST_F(WriteFailureTest, InitForceOnAWorkedWorkspacePassesVerifyStrict) {
    const fs::path work = fresh_copy();  // task-2 added and checkpointed in the init run
    const RunResult r = run_in(work, {"init", "--force", "--no-agents"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const RunResult strict = run_in(work, {"verify", "--strict"});
    EXPECT_EQ(strict.exit_code, 0) << strict << read_file(work / ".small" / "workspace.small.yml");
}

// Read-only .small/ (its files and the directory itself). Root ignores
// permission bits, so as root the commands run as user `nobody` on a
// workspace owned by `nobody`.
TEST_F(WriteFailureTest, ReadOnlySmallDirectoryIsASystemErrorAndWritesNothing) {
    ChildSetup setup;
    const RunOptions as = unprivileged(tmp_.path());
    setup.uid = as.uid;
    setup.gid = as.gid;
    const auto give_to_user = [&](const fs::path& dir) {
        if (setup.uid) {
            ASSERT_TRUE(give_to_nobody(dir)) << dir;
        }
    };
    for (const WriteCommand& cmd : write_commands()) {
        SCOPED_TRACE(cmd.name);
        // Control: the same user succeeds on a writable copy, so the failure
        // below is the permissions' doing.
        const fs::path control = fresh_copy();
        ASSERT_NO_FATAL_FAILURE(give_to_user(control));
        const RunResult ok = run_child(control, cmd.args, {}, setup);
        ASSERT_EQ(ok.exit_code, 0) << ok;

        const fs::path work = fresh_copy();
        ASSERT_NO_FATAL_FAILURE(give_to_user(work));
        for (const auto& e : fs::directory_iterator(work / ".small")) fs::permissions(e.path(), fs::perms(0444));
        fs::permissions(work / ".small", fs::perms(0555));
        Expectation want;
        want.exit_code = 2;  // D4: I/O failure
        want.kind = "system";
        want.in_err = {"Permission denied", work.string() + "/.small/"};
        expect_refused_without_change(work, cmd, {}, setup, want);
    }
}

// A full disk, simulated by RLIMIT_FSIZE (writes past it fail with EFBIG):
// the progress log is already bigger than the limit, every other file is
// far below it, so the commands that append fail at the append, after the
// change journal and (for some) other files were prepared.
TEST_F(WriteFailureTest, FullDiskAtTheProgressAppendIsASystemErrorAndWritesNothing) {
    std::string padding;
    for (int i = 1; i <= 3000; ++i) {
        char ts[40];
        std::snprintf(ts, sizeof ts, "2099-01-01T00:00:00.%09dZ", i);
        padding += std::string("  - timestamp: \"") + ts + "\"\n    task_id: \"meta/pad\"\n    status: \"completed\"\n" +
                   "    evidence: \"padding entry " + std::to_string(i) + " to grow the log past the size limit\"\n";
    }
    const rlim_t limit = 256 * 1024;
    for (const WriteCommand& cmd : write_commands()) {
        if (!cmd.appends) continue;  // handoff/start append nothing: the limit does not hit them
        SCOPED_TRACE(cmd.name);
        const fs::path work = fresh_copy();
        const fs::path log = work / ".small" / "progress.small.yml";
        write_file(log, read_file(log) + padding);
        ASSERT_GT(fs::file_size(log), limit + 64 * 1024);
        if (cmd.name == "plan --add") {  // the padded log itself is fine
            const RunResult v = run_in(work, {"validate"});
            ASSERT_EQ(v.exit_code, 0) << v;
        }
        Expectation want;
        want.exit_code = 2;  // D4: I/O failure
        want.kind = "system";
        want.in_err = {"File too large", "progress.small.yml"};
        ChildSetup setup;
        setup.fsize_limit = limit;
        expect_refused_without_change(work, cmd, {}, setup, want);
        // Without the limit the same command goes through.
        const RunResult after = run_in(work, cmd.args);
        EXPECT_EQ(after.exit_code, 0) << after;
    }
}

// A limit so small that the first file a command writes fails.
TEST_F(WriteFailureTest, FullDiskForEveryFileIsASystemErrorAndWritesNothing) {
    for (const WriteCommand& cmd : write_commands()) {
        SCOPED_TRACE(cmd.name);
        const fs::path work = fresh_copy();
        Expectation want;
        want.exit_code = 2;
        want.kind = "system";
        want.in_err = {"File too large", work.string() + "/"};  // names the file it could not write
        ChildSetup setup;
        setup.fsize_limit = 100;
        expect_refused_without_change(work, cmd, {}, setup, want);
    }
}

// D10: reset saves the old run in .small-runs/<old id>/ before replacing
// intent and plan. A reset that failed while saving (full disk) must not
// leave a folder that makes the retried reset skip the save: the old intent
// and plan would then be gone for good.
TEST_F(WriteFailureTest, ResetRetriedAfterAFullDiskStillSavesThePreviousRun) {
    const fs::path work = fresh_copy();
    const fs::path small = work / ".small";
    const std::string intent = read_file(small / "intent.small.yml");
    const std::string precious = intent.substr(0, intent.find("intent:")) + "intent: \"Precious human intent\"\n" +
                                 intent.substr(intent.find('\n', intent.find("intent:")) + 1);
    ASSERT_NE(precious, intent);
    write_file(small / "intent.small.yml", precious);
    ASSERT_EQ(run_in(work, {"validate"}).exit_code, 0);
    const std::string plan = read_file(small / "plan.small.yml");
    const std::string handoff = read_file(small / "handoff.small.yml");
    const std::string ws_text = read_file(small / "workspace.small.yml");
    const std::size_t at = ws_text.find("replay_id: \"");
    ASSERT_NE(at, std::string::npos) << ws_text;
    const std::string old_run = ws_text.substr(at + 12, 64);

    ChildSetup full;
    full.fsize_limit = 100;
    const RunResult failed = run_child(work, {"reset", "--yes"}, {}, full);
    ASSERT_EQ(failed.exit_code, 2) << failed;
    ASSERT_EQ(read_file(small / "intent.small.yml"), precious);

    const RunResult retried = run_in(work, {"reset", "--yes"});
    ASSERT_EQ(retried.exit_code, 0) << retried;
    const fs::path saved = work / ".small-runs" / old_run;
    EXPECT_EQ(read_file(saved / "intent.small.yml"), precious) << retried << "saved in " << saved;
    EXPECT_EQ(read_file(saved / "plan.small.yml"), plan) << "saved in " << saved;
    EXPECT_EQ(read_file(saved / "handoff.small.yml"), handoff) << "saved in " << saved;
}

TEST_F(WriteFailureTest, MissingSmallDirectoryIsASystemErrorAndCreatesNothing) {
    for (const WriteCommand& cmd : write_commands()) {
        SCOPED_TRACE(cmd.name);
        const fs::path work = tmp_.path() / ("bare-" + std::to_string(copies_++));
        fs::create_directories(work);
        write_file(work / "README.md", "not a SMALL workspace yet\n");
        std::vector<std::string> args = cmd.args;
        args.insert(args.end(), {"--dir", work.string()});  // no upward search into /tmp's parents
        const Snapshot before = snapshot(work);
        const RunResult r = run_in(work, args);
        if (cmd.name == "init --force") {
            // init creates what is missing; --force only allows re-initializing.
            EXPECT_EQ(r.exit_code, 0) << r;
            EXPECT_TRUE(fs::is_regular_file(work / ".small" / "plan.small.yml"));
            continue;
        }
        EXPECT_EQ(r.exit_code, 2) << r;  // D4: missing .small/ is a system error
        EXPECT_TRUE(contains(r.err, ".small")) << r;
        EXPECT_TRUE(contains(r.err, "small init")) << r;
        const RunResult j = run_in(work, with_json(args));
        EXPECT_EQ(j.exit_code, 2) << j;
        const auto doc = parse_single_json(j.out);
        ASSERT_TRUE(doc) << j;
        EXPECT_EQ((*doc).value("ok", true), false) << j;
        EXPECT_EQ((*doc)["error"].value("kind", ""), "system") << j;
        const std::string diff = snapshot_diff(before, snapshot(work));
        EXPECT_TRUE(diff.empty()) << "the directory changed:\n" << diff << r;
    }
}

// plan.small.yml that is not YAML: every command that needs the plan refuses
// with its location. (progress add, reset and init --force do not need the
// old plan: reset and init replace it, progress add only looks a task up.)
TEST_F(WriteFailureTest, MalformedPlanIsRefusedWithItsLocation) {
    const std::string bad_plan = "small_version: \"1.0.0\"\n"
                                 "owner: \"agent\"\n"
                                 "tasks:\n"
                                 "  - id: \"task-1\"\n"
                                 "    title: \"Initial task\"\n"
                                 "    status: [pending\n"
                                 "  - id: \"task-2\"\n";
    for (const WriteCommand& cmd : write_commands()) {
        if (cmd.name != "plan --add" && cmd.name != "checkpoint" && cmd.name != "handoff" && cmd.name != "start") continue;
        SCOPED_TRACE(cmd.name);
        const fs::path work = fresh_copy();
        write_file(work / ".small" / "plan.small.yml", bad_plan);
        Expectation want;
        want.exit_code = 1;  // D4: invalid state
        want.kind = "invalid";
        want.err_re = std::regex(R"(\.small/plan\.small\.yml:\d+:\d+: )");  // D2: file:line:column
        expect_refused_without_change(work, cmd, {}, ChildSetup{}, want);
    }
}

// progress.small.yml with a duplicate key (D2: an error): every command that
// appends or reads the log refuses with the key's location.
std::string progress_with_duplicate_key(const fs::path& work, int* line_out) {
    const std::string text = read_file(work / ".small" / "progress.small.yml");
    const std::string key = "    status: \"completed\"\n";
    const std::size_t at = text.find(key);
    if (at == std::string::npos) return "";
    *line_out = 2 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
    return text.substr(0, at + key.size()) + key + text.substr(at + key.size());
}

TEST_F(WriteFailureTest, MalformedProgressIsRefusedWithItsLocation) {
    for (const WriteCommand& cmd : write_commands()) {
        if (cmd.name == "start") continue;  // see StartWithAMalformedProgressLogWritesNothing
        SCOPED_TRACE(cmd.name);
        const fs::path work = fresh_copy();
        int line = 0;
        const std::string bad = progress_with_duplicate_key(work, &line);
        ASSERT_FALSE(bad.empty());
        write_file(work / ".small" / "progress.small.yml", bad);
        Expectation want;
        want.exit_code = 1;
        want.kind = "invalid";
        want.in_err = {".small/progress.small.yml:" + std::to_string(line) + ":5: ", "duplicate key"};
        expect_refused_without_change(work, cmd, {}, ChildSetup{}, want);
    }
}

// The issue's requirement for every write command, start included: a
// malformed artifact leaves every file under .small/ as it was.
TEST_F(WriteFailureTest, StartWithAMalformedProgressLogWritesNothing) {
    const fs::path work = fresh_copy();
    int line = 0;
    const std::string bad = progress_with_duplicate_key(work, &line);
    ASSERT_FALSE(bad.empty());
    write_file(work / ".small" / "progress.small.yml", bad);
    Expectation want;
    want.exit_code = 1;
    want.kind = "invalid";
    want.in_err = {".small/progress.small.yml:" + std::to_string(line) + ":5: ", "duplicate key"};
    expect_refused_without_change(work, WriteCommand{"start", {"start"}, false}, {}, ChildSetup{}, want);
}

// ---------------------------------------------------------------------------
// A busy lock
// ---------------------------------------------------------------------------

TEST_F(WriteFailureTest, BusyLockIsExit3AndWritesNothing) {
    const fs::path work = fresh_copy();
    fs::create_directories(work / ".small-cache");
    const std::string lock_path = (work / ".small-cache" / "lock").string();
    const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    ASSERT_EQ(::flock(fd, LOCK_EX), 0) << std::strerror(errno);
    const std::string holder = "pid: " + std::to_string(::getpid()) + "\n";
    ASSERT_EQ(::ftruncate(fd, 0), 0);
    ASSERT_EQ(::pwrite(fd, holder.data(), holder.size(), 0), static_cast<ssize_t>(holder.size()));

    const Env env = {{"SMALL_LOCK_TIMEOUT_MS", "0"}};
    for (const WriteCommand& cmd : write_commands()) {
        SCOPED_TRACE(cmd.name);
        Expectation want;
        want.exit_code = 3;  // D4: lock busy
        want.kind = "busy";
        want.in_err = {"locked by pid " + std::to_string(::getpid()), ".small-cache/lock"};
        const auto started = std::chrono::steady_clock::now();
        expect_refused_without_change(work, cmd, env, ChildSetup{}, want);
        // SMALL_LOCK_TIMEOUT_MS=0 fails fast (two runs, far below the 10 s default).
        EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(8));
    }
    ::close(fd);  // released: the same commands go through
    const RunResult r = run_in(work, {"plan", "--add", "After the lock"}, env);
    EXPECT_EQ(r.exit_code, 0) << r;
}

// ---------------------------------------------------------------------------
// Concurrency
// ---------------------------------------------------------------------------

constexpr int kWriters = 8;

// Runs `job(worker)` on kWriters threads; each returns its failed runs.
std::vector<RunResult> run_writers(const std::function<std::vector<RunResult>(int)>& job) {
    std::vector<std::vector<RunResult>> failures(kWriters);
    std::vector<std::thread> threads;
    for (int w = 0; w < kWriters; ++w) threads.emplace_back([&, w] { failures[w] = job(w); });
    for (auto& t : threads) t.join();
    std::vector<RunResult> all;
    for (auto& f : failures) all.insert(all.end(), f.begin(), f.end());
    return all;
}

TEST(WriteSafetyConcurrency, EightWritersTimesTwoHundredProgressAdds) {
    constexpr int kPerWriter = 200;
    TempDir tmp;
    const fs::path root = tmp.path() / "ws";
    fs::create_directories(root);
    ASSERT_NO_FATAL_FAILURE(run_ok(root, {"init", "--no-agents"}));
    const std::string before = read_file(root / ".small" / "progress.small.yml");
    const std::size_t entries_before = progress_entries(root).size();
    const Env env = {{"SMALL_LOCK_TIMEOUT_MS", "60000"}};

    const std::vector<RunResult> failed = run_writers([&](int w) {
        std::vector<RunResult> bad;
        RunOptions opts;
        opts.cwd = root;
        opts.env = env;
        opts.timeout = std::chrono::seconds(120);
        for (int i = 0; i < kPerWriter; ++i) {
            const RunResult r = run_small({"progress", "add", "--task", "meta/stress", "--status", "completed",
                                           "--evidence", "w" + std::to_string(w) + "-" + std::to_string(i)},
                                          opts);
            if (r.exit_code != 0) bad.push_back(r);
        }
        return bad;
    });
    ASSERT_TRUE(failed.empty()) << failed.size() << " runs failed; first:\n" << failed.front();

    const std::string after = read_file(root / ".small" / "progress.small.yml");
    EXPECT_EQ(after.substr(0, before.size()), before);  // D7: existing bytes untouched
    const auto entries = progress_entries(root);
    ASSERT_EQ(entries.size(), entries_before + kWriters * kPerWriter);
    std::map<std::string, int> seen;
    for (std::size_t i = entries_before; i < entries.size(); ++i) ++seen[entries[i].at("evidence")];
    for (int w = 0; w < kWriters; ++w) {
        for (int i = 0; i < kPerWriter; ++i) {
            const std::string ev = "w" + std::to_string(w) + "-" + std::to_string(i);
            EXPECT_EQ(seen[ev], 1) << ev;
        }
    }
    const std::string order = timestamp_order_problem(entries);
    EXPECT_TRUE(order.empty()) << order;
    const RunResult verify = run_in(root, {"verify", "--strict"});
    EXPECT_EQ(verify.exit_code, 0) << verify;
}

TEST(WriteSafetyConcurrency, EightWritersMixingPlanProgressAndCheckpoint) {
    constexpr int kRounds = 25;
    TempDir tmp;
    const fs::path root = tmp.path() / "ws";
    fs::create_directories(root);
    ASSERT_NO_FATAL_FAILURE(run_ok(root, {"init", "--no-agents"}));
    const std::size_t entries_before = progress_entries(root).size();
    const std::size_t tasks_before = plan_tasks(root).size();
    const Env env = {{"SMALL_LOCK_TIMEOUT_MS", "60000"}};

    std::vector<std::vector<std::string>> added(kWriters);
    const std::vector<RunResult> failed = run_writers([&](int w) {
        std::vector<RunResult> bad;
        RunOptions opts;
        opts.cwd = root;
        opts.env = env;
        opts.timeout = std::chrono::seconds(120);
        for (int round = 0; round < kRounds; ++round) {
            const std::string tag = "w" + std::to_string(w) + "-r" + std::to_string(round);
            const RunResult add = run_small({"plan", "--add", "Task " + tag, "--json"}, opts);
            const auto doc = parse_single_json(add.out);
            if (add.exit_code != 0 || !doc || !doc->contains("added_task_id")) {
                bad.push_back(add);
                continue;
            }
            const std::string id = (*doc)["added_task_id"].get<std::string>();
            added[w].push_back(id);
            RunResult r = run_small({"progress", "add", "--task", id, "--status", "in_progress", "--evidence",
                                     "start " + tag},
                                    opts);
            if (r.exit_code != 0) bad.push_back(r);
            r = run_small({"checkpoint", "--task", id, "--status", "completed", "--evidence", "done " + tag}, opts);
            if (r.exit_code != 0) bad.push_back(r);
        }
        return bad;
    });
    ASSERT_TRUE(failed.empty()) << failed.size() << " runs failed; first:\n" << failed.front();

    const auto tasks = plan_tasks(root);
    ASSERT_EQ(tasks.size(), tasks_before + kWriters * kRounds);
    std::set<std::string> ids;
    std::map<std::string, std::string> status_of;
    for (const auto& t : tasks) {
        EXPECT_TRUE(ids.insert(t.at("id")).second) << "duplicate task id " << t.at("id");
        status_of[t.at("id")] = status_or_pending(t);
    }
    for (const auto& list : added) {
        for (const std::string& id : list) {
            EXPECT_EQ(status_of[id], "completed") << id;
        }
    }
    const auto entries = progress_entries(root);
    EXPECT_EQ(entries.size(), entries_before + 3u * kWriters * kRounds);
    std::map<std::string, int> seen;
    for (const auto& e : entries) ++seen[e.count("evidence") ? e.at("evidence") : ""];
    for (int w = 0; w < kWriters; ++w) {
        for (int round = 0; round < kRounds; ++round) {
            const std::string tag = "w" + std::to_string(w) + "-r" + std::to_string(round);
            EXPECT_EQ(seen["start " + tag], 1) << tag;
            EXPECT_EQ(seen["done " + tag], 1) << tag;
        }
    }
    const std::string order = timestamp_order_problem(entries);
    EXPECT_TRUE(order.empty()) << order;
    const RunResult verify = run_in(root, {"verify", "--strict"});
    EXPECT_EQ(verify.exit_code, 0) << verify;
    const RunResult handoff = run_in(root, {"handoff"});  // nothing dangles
    EXPECT_EQ(handoff.exit_code, 0) << handoff;
}

// ---------------------------------------------------------------------------
// Crash safety
// ---------------------------------------------------------------------------

// What must hold once the next write command has run recovery; "" when it does.
std::string crash_consistency_problem(const fs::path& root, const std::set<std::string>& acked_evidence,
                                      const std::set<std::string>& acked_titles) {
    const auto entries = progress_entries(root);
    const auto tasks = plan_tasks(root);
    if (const std::string order = timestamp_order_problem(entries); !order.empty()) return order;

    std::map<std::string, int> evidence_count;
    for (const auto& e : entries) ++evidence_count[e.count("evidence") ? e.at("evidence") : ""];
    for (const std::string& ev : acked_evidence) {
        if (evidence_count[ev] == 0) return "acknowledged entry \"" + ev + "\" is lost";
    }
    for (const auto& [ev, n] : evidence_count) {
        if ((ev.rfind("cp-", 0) == 0 || ev.rfind("pa-", 0) == 0) && n > 1) return "entry \"" + ev + "\" is duplicated";
    }
    std::set<std::string> titles;
    std::set<std::string> plan_ids;
    for (const auto& t : tasks) {
        titles.insert(t.count("title") ? t.at("title") : "");
        if (t.at("id") != "task-1") plan_ids.insert(t.at("id"));
    }
    for (const std::string& title : acked_titles) {
        if (!titles.count(title)) return "acknowledged task \"" + title + "\" is missing from the plan";
    }
    // plan --add: the task and its "Added task" entry, both or neither.
    std::set<std::string> added_by_entries;
    for (const auto& e : entries) {
        const std::string ev = e.count("evidence") ? e.at("evidence") : "";
        if (ev.rfind("Added task ", 0) == 0) added_by_entries.insert(e.at("task_id"));
    }
    if (added_by_entries != plan_ids) {
        std::string msg = "plan tasks and `plan --add` entries disagree: plan {";
        for (const auto& id : plan_ids) msg += " " + id;
        msg += " } entries {";
        for (const auto& id : added_by_entries) msg += " " + id;
        return msg + " }";
    }
    // checkpoint: a task's status is that of its last checkpoint entry.
    std::map<std::string, std::string> last_checkpoint;
    for (const auto& e : entries) {
        const std::string ev = e.count("evidence") ? e.at("evidence") : "";
        if (ev.rfind("cp-", 0) == 0) last_checkpoint[e.at("task_id")] = e.at("status");
    }
    for (const auto& t : tasks) {
        const std::string id = t.at("id");
        const std::string want = last_checkpoint.count(id) ? last_checkpoint[id] : "pending";
        if (status_or_pending(t) != want) {
            return "task " + id + " has status " + status_or_pending(t) + " but its last checkpoint entry says " + want;
        }
    }
    return "";
}

TEST(WriteSafetyCrash, SigkillAtRandomMomentsKeepsEveryArtifactParseableAndNoAcknowledgedEntryLost) {
    constexpr int kKills = 320;
    TempDir tmp;
    const fs::path root = tmp.path() / "ws";
    fs::create_directories(root);
    ASSERT_NO_FATAL_FAILURE(run_ok(root, {"init", "--no-agents"}));
    const Env env = {{"SMALL_LOCK_TIMEOUT_MS", "60000"}};
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE("random seed " + std::to_string(seed));
    std::mt19937 rng(seed);

    std::set<std::string> acked_evidence;
    std::set<std::string> acked_titles;
    std::map<std::string, int> kills_by_command;
    std::map<std::string, std::vector<long>> durations_us;  // of runs that were not killed
    int kills = 0, interrupted = 0, acknowledged = 0, handoffs = 0, torn = 0;
    // Past kKills, keep going (until a deadline) while too few kills landed
    // inside a write: on a loaded machine the fast writes are hard to hit.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(150);
    for (int n = 0; kills < kKills || (torn < 5 && std::chrono::steady_clock::now() < deadline); ++n) {
        const auto tasks = plan_tasks(root);
        std::set<std::string> with_entries;
        for (const auto& e : progress_entries(root)) with_entries.insert(e.at("task_id"));

        std::vector<std::string> args;
        std::string evidence, title;
        // Checkpoints outnumber plan --add, so that tasks stop dangling now and
        // then and handoffs get past their refusal to the write.
        const unsigned pick = rng() % 20;
        const unsigned op = pick < 4 ? 0 : pick < 11 ? 1 : pick < 15 ? 2 : 3;
        if (op == 0) {
            title = "crash task " + std::to_string(n);
            args = {"plan", "--add", title};
        } else if (op == 1) {
            // Prefer a dangling task, so that handoffs get through now and then.
            std::vector<std::string> dangling, all;
            for (const auto& t : tasks) {
                all.push_back(t.at("id"));
                const std::string s = status_or_pending(t);
                if (s != "completed" && s != "blocked" && with_entries.count(t.at("id"))) dangling.push_back(t.at("id"));
            }
            const auto& pool = dangling.empty() ? all : dangling;
            const std::string task = pool[rng() % pool.size()];
            evidence = "cp-" + std::to_string(n);
            args = {"checkpoint", "--task", task, "--status", rng() % 4 == 0 ? "blocked" : "completed",
                    "--evidence", evidence};
        } else if (op == 2) {
            evidence = "pa-" + std::to_string(n);
            args = {"progress", "add", "--task", "meta/crash", "--status", "completed", "--evidence", evidence};
        } else {
            // Settle the dangling tasks first (runs that finish), so that the
            // handoff gets past its refusal and is killed in its write.
            for (const auto& t : tasks) {
                const std::string s = status_or_pending(t);
                if (s == "completed" || s == "blocked" || !with_entries.count(t.at("id"))) continue;
                const std::string ev = "cp-" + std::to_string(n) + "-" + t.at("id");
                const RunResult settle =
                    run_in(root, {"checkpoint", "--task", t.at("id"), "--status", "completed", "--evidence", ev}, env);
                ASSERT_EQ(settle.exit_code, 0) << settle << dump_workspace(root);
                acked_evidence.insert(ev);
            }
            args = {"handoff"};
        }
        const std::string what = args[0] + (args[0] == "progress" ? " add" : "");

        // Three runs in four are killed 0-15 ms after the fork; the others
        // finish, so later kills have acknowledged entries to lose. Half of
        // the delays are drawn from 0 to this command's typical run time
        // (capped at 0.5 s), so that fast and loaded machines alike see kills inside writes.
        const bool kill_it = rng() % 4 != 0;
        unsigned window_us = 15000;
        if (auto& d = durations_us[what]; d.size() >= 3 && rng() % 2 == 0) {
            std::vector<long> sorted = d;
            std::sort(sorted.begin(), sorted.end());
            // Up to the command's median run time, however slow a loaded machine makes it.
            window_us = static_cast<unsigned>(std::clamp<long>(sorted[sorted.size() / 2], 1, 500000));
        }
        const unsigned delay_us = rng() % (window_us + 1);
        const auto started = std::chrono::steady_clock::now();
        const pid_t pid = spawn_quiet(root, args, env);
        ASSERT_GT(pid, 0) << std::strerror(errno);
        if (kill_it) {
            ::usleep(delay_us);
            ::kill(pid, SIGKILL);
            ++kills;
            ++kills_by_command[what];
        }
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (WIFSIGNALED(status)) {
            ++interrupted;
        } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            if (!kill_it) {
                durations_us[what].push_back(static_cast<long>(std::chrono::duration_cast<std::chrono::microseconds>(
                                                                   std::chrono::steady_clock::now() - started)
                                                                   .count()));
            }
            ++acknowledged;
            if (!evidence.empty()) acked_evidence.insert(evidence);
            if (!title.empty()) acked_titles.insert(title);
            if (args[0] == "handoff") ++handoffs;
        } else {
            const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            FAIL() << "iteration " << n << ": " << what << " exited " << code << "\n" << dump_workspace(root);
        }

        // A kill inside a write leaves a journal for the next command to settle.
        if (fs::exists(root / ".small-cache" / "change.journal") ||
            fs::exists(root / ".small-cache" / "progress.journal")) {
            ++torn;
        }
        // Right after the kill, before any recovery: every artifact parses.
        const RunResult v = run_in(root, {"validate"});
        ASSERT_EQ(v.exit_code, 0) << "iteration " << n << ", after " << (kill_it ? "killing " : "running ") << what
                                  << " after " << delay_us << " us\n" << v << dump_workspace(root);
        // The next write command recovers (`small plan` alone changes nothing itself).
        const RunResult rec = run_in(root, {"plan"}, env);
        ASSERT_EQ(rec.exit_code, 0) << "iteration " << n << "\n" << rec << dump_workspace(root);
        const std::string problem = crash_consistency_problem(root, acked_evidence, acked_titles);
        ASSERT_TRUE(problem.empty()) << "iteration " << n << ", after " << (kill_it ? "killing " : "running ") << what
                                     << " after " << delay_us << " us: " << problem << "\n" << dump_workspace(root);
    }
    EXPECT_GE(kills, 300);
    for (const char* c : {"plan", "checkpoint", "progress add", "handoff"}) {
        EXPECT_GE(kills_by_command[c], 30) << c;
    }
    // Enough kills landed while `small` ran, and enough runs were acknowledged,
    // for the checks above to mean something.
    EXPECT_GE(interrupted, 30);
    EXPECT_GE(acknowledged, 40);
    // Typically a quarter of the kills land inside a write (a journal is left);
    // a handful is the least that makes recovery part of the test.
    EXPECT_GE(torn, 5);
    EXPECT_GE(handoffs, 5);
    RecordProperty("kills", kills);
    RecordProperty("interrupted", interrupted);
    RecordProperty("acknowledged", acknowledged);
    RecordProperty("handoffs_written", handoffs);
    RecordProperty("killed_inside_a_write", torn);

    // The workspace is still fully usable: settle every open task, hand off, pass the gate.
    for (const auto& t : plan_tasks(root)) {
        const std::string s = status_or_pending(t);
        if (s == "completed" || s == "blocked") continue;
        ASSERT_NO_FATAL_FAILURE(run_ok(root, {"checkpoint", "--task", t.at("id"), "--status", "completed"}, env));
    }
    ASSERT_NO_FATAL_FAILURE(run_ok(root, {"handoff"}, env));
    const RunResult verify = run_in(root, {"verify", "--strict"});
    EXPECT_EQ(verify.exit_code, 0) << verify << dump_workspace(root);
}

}  // namespace
