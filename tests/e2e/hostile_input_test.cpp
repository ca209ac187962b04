// Hostile files and file systems, through the real binary: FIFOs, devices,
// a symlinked .small, symlinked AGENTS.md/.gitignore, read-only artifacts,
// a full disk during reset, resource-hungry YAML and a bad pinned run id.
// Every run that could hang or eat memory has a timeout and RLIMIT_AS.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_binary.hpp"

namespace {

using namespace small_e2e;

constexpr rlim_t kOneGiB = rlim_t{1} << 30;

// Every path below `dir` -> bytes ("<dir>", "<symlink>"), to prove "nothing changed".
std::map<std::string, std::string> tree(const fs::path& dir) {
    std::map<std::string, std::string> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        const std::string rel = fs::relative(it->path(), dir).string();
        if (it->is_symlink()) out[rel] = "<symlink>";
        else if (it->is_directory()) out[rel] = "<dir>";
        else if (it->is_regular_file()) out[rel] = read_file(it->path());
        else out[rel] = "<special>";
    }
    return out;
}

// Bounded in time and memory: a hang or a runaway read fails the test instead of the machine.
RunResult run_bounded(const fs::path& cwd, const std::vector<std::string>& args, RunOptions opts = {}) {
    opts.cwd = cwd;
    opts.timeout = std::chrono::seconds(10);
    if (!opts.memory_limit) opts.memory_limit = kOneGiB;
    return run_small(args, opts);
}

std::string joined(const std::vector<std::string>& args) {
    std::string out;
    for (const std::string& a : args) out += (out.empty() ? "" : " ") + a;
    return out;
}

void init_workspace(const fs::path& root) {
    fs::create_directories(root);
    const RunResult r = run_in(root, {"init", "--no-agents"});
    ASSERT_EQ(r.exit_code, 0) << r;
}

void make_fifo(const fs::path& path) {
    std::error_code ec;
    fs::remove(path, ec);
    ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0) << path << ": " << std::strerror(errno);
}

// ---------------------------------------------------------------------------
// FIFOs, devices, endless input
// ---------------------------------------------------------------------------

TEST(HostileInput, FifoArtifactIsRefusedAtOnceByReadersAndWriters) {
    TempDir tmp;
    ASSERT_NO_FATAL_FAILURE(init_workspace(tmp.path()));
    ASSERT_NO_FATAL_FAILURE(make_fifo(tmp.path() / ".small" / "plan.small.yml"));
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"validate"}, {"verify", "--strict"}, {"plan", "--add", "x"}, {"handoff"}}) {
        const RunResult r = run_bounded(tmp.path(), args);
        EXPECT_FALSE(r.timed_out) << r;
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, "plan.small.yml")) << r;
        EXPECT_TRUE(contains(r.err, "FIFO")) << r;
    }
    // The refused writer released the lock.
    const RunResult after = run_bounded(tmp.path(), {"progress", "add", "--task", "meta/x", "--status", "completed",
                                                     "--evidence", "lock is free"});
    EXPECT_EQ(after.exit_code, 0) << after;
}

TEST(HostileInput, DraftFromAFifoOrADeviceIsRefusedWithoutBlocking) {
    TempDir tmp;
    ASSERT_NO_FATAL_FAILURE(init_workspace(tmp.path()));
    ASSERT_NO_FATAL_FAILURE(make_fifo(tmp.path() / "pipe"));
    for (const std::string& source : {(tmp.path() / "pipe").string(), std::string("/dev/zero")}) {
        const RunResult r = run_bounded(tmp.path(), {"draft", "intent", "--from", source});
        EXPECT_FALSE(r.timed_out) << r;
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, source)) << r;
        EXPECT_TRUE(contains(r.err, "not a regular file")) << r;
        EXPECT_FALSE(fs::exists(tmp.path() / ".small-cache" / "drafts" / "intent.small.yml"));
    }
}

TEST(HostileInput, EndlessStandardInputStopsAtTheSizeLimit) {
    TempDir tmp;
    ASSERT_NO_FATAL_FAILURE(init_workspace(tmp.path()));
    RunOptions opts;
    opts.stdin_file = "/dev/zero";
    opts.memory_limit = 2 * kOneGiB;  // the 256 MiB limit, with room for the string's growth
    opts.cwd = tmp.path();
    // 256 MiB through a pipe takes seconds on a loaded machine: the timeout
    // only has to catch "never stops".
    opts.timeout = std::chrono::seconds(60);
    const RunResult r = run_small({"draft", "intent", "--from", "-"}, opts);
    EXPECT_FALSE(r.timed_out) << r;
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "larger than 256 MiB")) << r;
}

TEST(HostileInput, AcceptOfAFifoDraftDoesNotHoldTheLock) {
    TempDir tmp;
    ASSERT_NO_FATAL_FAILURE(init_workspace(tmp.path()));
    fs::create_directories(tmp.path() / ".small-cache" / "drafts");
    ASSERT_NO_FATAL_FAILURE(make_fifo(tmp.path() / ".small-cache" / "drafts" / "intent.small.yml"));
    const auto before = tree(tmp.path() / ".small");
    const RunResult r = run_bounded(tmp.path(), {"accept", "intent"});
    EXPECT_FALSE(r.timed_out) << r;
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "FIFO")) << r;
    EXPECT_EQ(tree(tmp.path() / ".small"), before);
}

// Issue 24: a --dir that is a link into .small/ made .small/ a workspace
// root: init wrote .small/.small/, AGENTS.md and .gitignore inside it.
TEST(HostileInput, ARootReachedThroughALinkIntoSmallIsRefused) {
    TempDir tmp;
    const fs::path real = tmp.path() / "real";
    ASSERT_NO_FATAL_FAILURE(init_workspace(real));
    fs::create_directory_symlink(real / ".small", tmp.path() / "lnk");
    const auto before = tree(tmp.path());
    for (const std::vector<std::string>& args : {std::vector<std::string>{"init", "--dir", "lnk"},
                                                 std::vector<std::string>{"init", "--dir", "lnk", "--no-agents"}}) {
        SCOPED_TRACE(joined(args));
        const RunResult r = run_bounded(tmp.path(), args);
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, "inside a .small/ folder (reached through a symbolic link)")) << r;
        EXPECT_EQ(tree(tmp.path()), before) << "something was written\n" << r;
    }
}

// ---------------------------------------------------------------------------
// A symlinked .small (D7)
// ---------------------------------------------------------------------------

const std::vector<std::vector<std::string>>& every_write_command() {
    static const std::vector<std::vector<std::string>> commands = {
        {"init", "--force", "--no-agents"},
        {"plan", "--add", "Another task"},
        {"progress", "add", "--task", "task-1", "--status", "in_progress", "--evidence", "probe"},
        {"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "checked"},
        {"handoff"},
        {"start"},
        {"reset", "--yes"},
        {"draft", "intent", "--from", "draft.yml"},
        {"accept", "intent"},
        {"progress", "migrate"},
    };
    return commands;
}

class LinkedSmallDir : public ::testing::Test {
protected:
    TempDir tmp_;
    fs::path real_ = tmp_.path() / "real";
    fs::path ws_ = tmp_.path() / "ws";

    void SetUp() override {
        ASSERT_NO_FATAL_FAILURE(init_workspace(real_));
        fs::create_directories(ws_);
        write_file(ws_ / "draft.yml", read_file(real_ / ".small" / "intent.small.yml"));
    }
    void expect_every_write_refused(const std::string& what) {
        const auto before = tree(tmp_.path());
        for (const auto& args : every_write_command()) {
            SCOPED_TRACE(joined(args));
            const RunResult r = run_bounded(ws_, args);
            EXPECT_EQ(r.exit_code, 1) << what << "\n" << r;
            EXPECT_TRUE(contains(r.err, "refusing to write through " + (ws_ / ".small").string() +
                                            ": it is a symbolic link"))
                << r;
            EXPECT_EQ(tree(tmp_.path()), before) << "something was written\n" << r;
        }
    }
};

TEST_F(LinkedSmallDir, EveryWriteCommandRefusesALinkToAWorkspace) {
    fs::create_directory_symlink(real_ / ".small", ws_ / ".small");
    expect_every_write_refused("link to a workspace");
    // Readers read through the link (documented): the linked workspace is valid.
    const RunResult v = run_bounded(ws_, {"verify", "--strict"});
    EXPECT_EQ(v.exit_code, 0) << v;
}

TEST_F(LinkedSmallDir, EveryWriteCommandRefusesADanglingLink) {
    fs::create_directory_symlink(tmp_.path() / "nowhere", ws_ / ".small");
    expect_every_write_refused("dangling link");
    // A dangling link is not a missing .small/: the search does not go on
    // to a parent's workspace, and readers name the link.
    for (const std::vector<std::string>& args : {std::vector<std::string>{"validate"}, {"replay-id"}}) {
        const RunResult v = run_bounded(ws_, args);
        EXPECT_EQ(v.exit_code, 2) << v;
        EXPECT_TRUE(contains(v.err, (ws_ / ".small").string() + " is a symbolic link")) << v;
    }
}

TEST_F(LinkedSmallDir, InitWithoutForceRefusesTheLinkToo) {
    fs::create_directory_symlink(real_ / ".small", ws_ / ".small");
    const auto before = tree(tmp_.path());
    const RunResult r = run_bounded(ws_, {"init", "--no-agents"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "symbolic link")) << r;
    EXPECT_EQ(tree(tmp_.path()), before);
}

// ---------------------------------------------------------------------------
// init: every refusal before the first write
// ---------------------------------------------------------------------------

TEST(HostileInit, SymlinkedAgentsOrGitignoreIsRefusedBeforeAnyWrite) {
    TempDir tmp;
    write_file(tmp.path() / "elsewhere" / "notes", "do not touch\n");
    struct Case {
        std::string link;
        fs::path target;
        std::vector<std::string> args;
    };
    const std::vector<Case> cases = {
        {"AGENTS.md", tmp.path() / "elsewhere" / "notes", {"init", "--overwrite-agents"}},
        {"AGENTS.md", tmp.path() / "elsewhere" / "missing", {"init"}},
        {".gitignore", tmp.path() / "elsewhere" / "notes", {"init", "--no-agents"}},
        {".gitignore", tmp.path() / "elsewhere" / "missing", {"init", "--no-agents"}},
    };
    int n = 0;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.link + " -> " + c.target.string());
        const fs::path root = tmp.path() / ("case-" + std::to_string(n++));
        fs::create_directories(root);
        fs::create_symlink(c.target, root / c.link);
        const auto before = tree(tmp.path());
        const RunResult r = run_bounded(root, c.args);
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, (root / c.link).string() + ": it is a symbolic link")) << r;
        EXPECT_EQ(tree(tmp.path()), before) << "a refused init wrote something\n" << r;
    }
}

TEST(HostileInit, ForceWithASymlinkedGitignoreKeepsTheWorkspaceAndMakesNoSnapshot) {
    TempDir tmp;
    ASSERT_NO_FATAL_FAILURE(init_workspace(tmp.path() / "ws"));
    const fs::path ws = tmp.path() / "ws";
    fs::remove(ws / ".gitignore");
    write_file(tmp.path() / "shared-ignore", "build/\n");
    fs::create_symlink(tmp.path() / "shared-ignore", ws / ".gitignore");
    const auto before = tree(tmp.path());
    const RunResult r = run_bounded(ws, {"init", "--force", "--no-agents"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_EQ(tree(tmp.path()), before) << r;
    EXPECT_FALSE(fs::exists(ws / ".small-runs"));
}

// ---------------------------------------------------------------------------
// Read-only artifacts (docs/commands.md: a read-only file is "do not change")
// ---------------------------------------------------------------------------

TEST(HostileReadOnly, ReadOnlyArtifactsAreNotReplacedEvenInAWritableFolder) {
    TempDir tmp;
    const fs::path base = tmp.path() / "base";
    ASSERT_NO_FATAL_FAILURE(init_workspace(base));
    write_file(base / "draft.yml", read_file(base / ".small" / "intent.small.yml"));
    ASSERT_EQ(run_in(base, {"draft", "intent", "--from", "draft.yml"}).exit_code, 0);
    std::vector<fs::path> works;
    for (std::size_t i = 0; i < every_write_command().size(); ++i) {
        works.push_back(tmp.path() / ("case-" + std::to_string(i)));
        fs::copy(base, works.back(), fs::copy_options::recursive);
        for (const auto& e : fs::directory_iterator(works.back() / ".small")) fs::permissions(e.path(), fs::perms(0444));
    }
    // Root may write any file; as root, the runs drop to user nobody.
    const RunOptions opts = unprivileged(tmp.path());
    for (std::size_t i = 0; i < works.size(); ++i) {
        const auto& args = every_write_command()[i];
        // draft writes only into .small-cache/; migrate has nothing to rewrite here.
        if (args[0] == "draft" || joined(args) == "progress migrate") continue;
        SCOPED_TRACE(joined(args));
        const fs::path& work = works[i];
        ASSERT_EQ(::access((work / ".small").c_str(), W_OK), 0);  // the folder stays writable: a rename would work
        const auto before = tree(work / ".small");
        const RunResult r = run_bounded(work, args, opts);
        EXPECT_EQ(r.exit_code, 2) << r;
        EXPECT_TRUE(contains(r.err, "read-only")) << r;
        EXPECT_TRUE(contains(r.err, (work / ".small").string() + "/")) << r;  // names the file
        EXPECT_EQ(tree(work / ".small"), before) << r;
        EXPECT_FALSE(fs::exists(work / ".small-runs")) << "a refused command left a snapshot\n" << r;
    }
}

// ---------------------------------------------------------------------------
// A failed reset leaves no run-store folder behind
// ---------------------------------------------------------------------------

TEST(HostileReset, FullDiskDuringResetLeavesNoSnapshotFolders) {
    TempDir tmp;
    const fs::path ws = tmp.path() / "ws";
    ASSERT_NO_FATAL_FAILURE(init_workspace(ws));
    // Fails in the snapshot (every file is bigger than 100 bytes), and, with a
    // log bigger than the limit, at the progress append after the snapshot.
    const fs::path log = ws / ".small" / "progress.small.yml";
    for (const rlim_t limit : {rlim_t{100}, rlim_t{64 * 1024}}) {
        SCOPED_TRACE("RLIMIT_FSIZE " + std::to_string(limit));
        std::string pad;
        for (int i = 1; limit > 100 && pad.size() < 2 * limit; ++i) {
            char ts[40];
            std::snprintf(ts, sizeof ts, "2099-01-01T00:00:00.%09dZ", i);
            pad += std::string("  - timestamp: \"") + ts + "\"\n    task_id: \"meta/pad\"\n" +
                   "    status: \"completed\"\n    evidence: \"padding to grow the log past the limit\"\n";
        }
        write_file(log, read_file(log) + pad);
        const auto before = tree(ws);
        RunOptions opts;
        opts.fsize_limit = limit;
        const RunResult r = run_bounded(ws, {"reset", "--yes"}, opts);
        EXPECT_EQ(r.exit_code, 2) << r;
        EXPECT_TRUE(contains(r.err, "File too large")) << r;
        auto after = tree(ws);
        for (auto it = after.begin(); it != after.end();) {  // the lock and cache may change
            it = it->first.rfind(".small-cache", 0) == 0 ? after.erase(it) : std::next(it);
        }
        for (auto it = after.begin(); it != after.end(); ++it) {
            EXPECT_TRUE(before.count(it->first)) << "left behind: " << it->first << "\n" << r;
        }
        EXPECT_FALSE(fs::exists(ws / ".small-runs")) << r;
    }
    const RunResult retried = run_bounded(ws, {"reset", "--yes"});
    EXPECT_EQ(retried.exit_code, 0) << retried;
    EXPECT_TRUE(fs::is_directory(ws / ".small-runs"));
}

// ---------------------------------------------------------------------------
// The pinned run id: one rule for verify and writes
// ---------------------------------------------------------------------------

// verify keeps the reference's verdict (it accepts any string) but warns at
// the position every write then refuses, with the same repair.
TEST(HostileRunId, VerifyWarnsAndEveryWriteRefusesARunIdThatIsNoIdAtTheSamePosition) {
    TempDir tmp;
    const fs::path ws = tmp.path() / "ws";
    ASSERT_NO_FATAL_FAILURE(init_workspace(ws));
    write_file(ws / "draft.yml", read_file(ws / ".small" / "intent.small.yml"));
    const fs::path meta = ws / ".small" / "workspace.small.yml";
    std::string text = read_file(meta);
    const std::size_t at = text.find("replay_id: \"");
    ASSERT_NE(at, std::string::npos) << text;
    text.insert(at + 12, "not-hex-");  // still a string, no longer 64 hex digits
    write_file(meta, text);
    const std::string line = std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
    const std::string where = ".small/workspace.small.yml:" + line + ":";

    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"verify", "--strict"}, {"check", "--strict"}}) {
        const RunResult v = run_bounded(ws, args);
        EXPECT_EQ(v.exit_code, 0) << v;
        EXPECT_TRUE(contains(v.out + v.err, where)) << v;
        EXPECT_TRUE(contains(v.out + v.err, "warning: run.replay_id must be a replay id")) << v;
        EXPECT_TRUE(contains(v.out + v.err, "[WS-2]")) << v;
        EXPECT_TRUE(contains(v.out + v.err, "Fix: set run.replay_id")) << v;
    }
    const auto before = tree(ws / ".small");
    for (const auto& args : every_write_command()) {
        if (args[0] == "init") continue;  // starts over: it does not read the old run id
        SCOPED_TRACE(joined(args));
        const RunResult r = run_bounded(ws, args);
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, where)) << r;
        EXPECT_TRUE(contains(r.err, "Fix: set run.replay_id")) << r;
        EXPECT_EQ(tree(ws / ".small"), before) << r;
    }
}

TEST(HostileRunId, ReplayIdOfANonFiniteNumberNamesFileAndPosition) {
    TempDir tmp;
    ASSERT_NO_FATAL_FAILURE(init_workspace(tmp.path()));
    const fs::path intent = tmp.path() / ".small" / "intent.small.yml";
    const std::string text = read_file(intent);
    write_file(intent, text + "x: .inf\n");
    const std::string line = std::to_string(1 + std::count(text.begin(), text.end(), '\n'));
    const RunResult r = run_bounded(tmp.path(), {"replay-id"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, ".small/intent.small.yml:" + line + ":4: number '.inf'")) << r;
}

// ---------------------------------------------------------------------------
// YAML resource bounds and hints
// ---------------------------------------------------------------------------

std::string intent_head() { return "small_version: \"1.0.0\"\nowner: \"human\"\n"; }

TEST(HostileYaml, FiveMillionOpenBracketsFailFastAndSmall) {
    TempDir tmp;
    ASSERT_NO_FATAL_FAILURE(init_workspace(tmp.path()));
    write_file(tmp.path() / ".small" / "intent.small.yml", intent_head() + "intent: " + std::string(5'000'000, '[') + "\n");
    RunOptions opts;
    opts.memory_limit = 512u << 20;  // was 1.7 GB before the early check
    const auto start = std::chrono::steady_clock::now();
    const RunResult r = run_bounded(tmp.path(), {"validate"}, opts);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "intent.small.yml:3:")) << r;
    EXPECT_TRUE(contains(r.err, "nesting is deeper than 256 levels")) << r;
    EXPECT_LT(ms.count(), 3000) << r;
}

TEST(HostileYaml, AliasesThatRepeatMegabytesAreRefusedFast) {
    TempDir tmp;
    ASSERT_NO_FATAL_FAILURE(init_workspace(tmp.path()));
    // 100 KB of text, repeated 300,000 times: 300k nodes (under the old
    // node limit) but 30 GB of text once expanded.
    std::string doc = intent_head() + "intent: \"x\"\nscope:\n  include: &s [\"" + std::string(100'000, 'x') +
                      "\"]\n  exclude: []\nsuccess_criteria: &l [";
    for (int i = 0; i < 1000; ++i) doc += i ? ",*s" : "*s";
    doc += "]\nextra: [";
    for (int i = 0; i < 300; ++i) doc += i ? ",*l" : "*l";
    doc += "]\n";
    write_file(tmp.path() / ".small" / "intent.small.yml", doc);
    for (const std::vector<std::string>& args : {std::vector<std::string>{"validate"}, {"replay-id"}}) {
        const RunResult r = run_bounded(tmp.path(), args);
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, "aliases expand to more than")) << r;
        EXPECT_FALSE(r.timed_out) << r;
    }
}

TEST(HostileYaml, AHugeValueIsNotRepeatedInMessages) {
    TempDir tmp;
    ASSERT_NO_FATAL_FAILURE(init_workspace(tmp.path()));
    const std::string huge(8 << 20, 'v');
    write_file(tmp.path() / ".small" / "intent.small.yml",
               "small_version: \"" + huge + "\"\nowner: \"" + huge + "\"\nintent: [\"" + huge + "\"]\n" + huge +
                   ": 1\n");
    for (const std::vector<std::string>& args : {std::vector<std::string>{"validate"}, {"lint"}, {"verify"}}) {
        const RunResult r = run_bounded(tmp.path(), args);
        EXPECT_EQ(r.exit_code, 1) << r.command << "\n" << r.err.substr(0, 2000);
        EXPECT_LT(r.err.size(), 8000u) << r.err.substr(0, 2000);
        EXPECT_TRUE(contains(r.err, std::string(80, 'v') + "\u2026")) << r.err.substr(0, 2000);
    }
}

TEST(HostileYaml, SyntaxErrorsOfHandEditsComeWithAHint) {
    TempDir tmp;
    ASSERT_NO_FATAL_FAILURE(init_workspace(tmp.path()));
    const fs::path plan = tmp.path() / ".small" / "plan.small.yml";
    const std::string head = "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n  - id: \"task-1\"\n";
    write_file(plan, head + "    title: Fix bug: crash on start\n");
    const RunResult colon = run_bounded(tmp.path(), {"plan", "--add", "x"});
    EXPECT_EQ(colon.exit_code, 1) << colon;
    EXPECT_TRUE(contains(colon.err, ".small/plan.small.yml:5:")) << colon;
    EXPECT_TRUE(contains(colon.err, "Fix: the value of \"title\" contains \": \"")) << colon;
    EXPECT_TRUE(contains(colon.err, "title: \"Fix bug: crash on start\"")) << colon;

    write_file(plan, head + "   title: \"x\"\n");
    const RunResult indent = run_bounded(tmp.path(), {"validate", "--json"});
    EXPECT_EQ(indent.exit_code, 1) << indent;
    const auto doc = parse_single_json(indent.out);
    ASSERT_TRUE(doc) << indent;
    EXPECT_TRUE(contains(doc->dump(), "indent it to column 5")) << indent;
}

TEST(HostileYaml, ABrokenAliasNameInALargeLogIsALocatedErrorForValidateAndTheMergeDriver) {
    // 400 KB: `small merge` took 68 s on it (libfyaml's look-ahead is quadratic there).
    TempDir tmp;
    ASSERT_NO_FATAL_FAILURE(init_workspace(tmp.path()));
    const std::string head = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";
    const std::string entry = "  - timestamp: \"2025-01-01T00:00:01.000000000Z\"\n    task_id: \"meta/x\"\n"
                              "    status: \"completed\"\n    evidence: \"e\"\n";
    const std::string half(200'000, 'A');
    const std::string broken = head + entry + "    notes: [*" + half + "\x0e" + half + "]\n";
    write_file(tmp.path() / ".small" / "progress.small.yml", broken);
    const RunResult validate = run_bounded(tmp.path(), {"validate"});
    EXPECT_EQ(validate.exit_code, 1) << validate;
    EXPECT_TRUE(contains(validate.err, ".small/progress.small.yml:8:13:")) << validate;
    EXPECT_TRUE(contains(validate.err, "the alias name here is broken by the character U+000E")) << validate;

    write_file(tmp.path() / "o", head + entry);
    write_file(tmp.path() / "a", broken);
    write_file(tmp.path() / "b", head + entry);
    const RunResult merge = run_bounded(tmp.path(), {"merge", "o", "a", "b", ".small/progress.small.yml"});
    EXPECT_EQ(merge.exit_code, 1) << merge;
    EXPECT_FALSE(merge.timed_out) << merge;
    EXPECT_TRUE(contains(merge.err, ":8:13:")) << merge;
    EXPECT_TRUE(contains(merge.err, "the alias name here is broken")) << merge;
}

}  // namespace
