// mcp/answer_cache (issue 39): resume, ready and check answered from memory
// while nothing they read changed, and computed again, byte for byte as a
// fresh server computes them, after a change to any input: each artifact,
// a cache of .small-cache/, the claims table, the folder's entries, git
// appearing, the call's arguments, the environment, a write tool, and the
// clock (a lease that ends, a held claim's seconds, an entry far ahead).
//
// The change clock is shifted an hour ahead, so a recording is never racy
// and a repeat is served deterministically; every change a test makes moves
// a stamp for sure (a rename gives a new inode, an append a new size, and
// the workspace's mtimes are put a year back first). No test measures time.
#include "small/mcp/answer_cache.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstdlib>
#include <iterator>
#include <filesystem>

#include "small/mcp/server.hpp"
#include "small/ops/session/claim.hpp"
#include "small/ops/session/handoff.hpp"
#include "small/ops/session/init.hpp"
#include "small/ops/session/plan.hpp"
#include "small/ops/session/progress_add.hpp"
#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"

namespace small {
namespace {

using nlohmann::json;
using mcp::AnswerCache;
using mcp::AnswerClocks;
using mcp::kSteadyForever;
using mcp::TimedAnswer;
namespace stdfs = std::filesystem;
constexpr std::int64_t kHourNs = 3'600'000'000'000;

// Every file and folder below `root` last changed a year ago: whatever
// changes later gets a new mtime.
void backdate_tree(const std::string& root) {
    const auto old = stdfs::file_time_type::clock::now() - std::chrono::hours(24 * 365);
    for (const auto& e : stdfs::recursive_directory_iterator(root)) {
        if (!e.is_symlink()) stdfs::last_write_time(e.path(), old);
    }
    stdfs::last_write_time(root, old);
}

// --- the cache itself, on one file ---

class AnswerCacheTest : public ::testing::Test {
protected:
    void SetUp() override {
        testing::write_text(file_, "1");
        backdate_tree(tmp_.root());
    }
    AnswerClocks clocks() {
        return {[this](const FileSystem& fs) { return fs.change_clock_ns().value_or(0) + shift_ns_; },
                [this] { return wall_; }};
    }
    // The answer: the file's bytes, held until `until_`.
    json ask(AnswerCache& cache, const std::string& key = "tool\n{}") {
        return cache.answer(key, disk_, [this](const FileSystem& fs, Instant) {
            Result<std::string> bytes = fs.read_file(file_);
            return TimedAnswer{json(bytes ? *bytes : "none"), until_};
        });
    }

    RealFileSystem disk_;
    test_support::TempDir tmp_;
    const std::string file_ = tmp_.path("input");
    std::int64_t shift_ns_ = kHourNs;
    Instant wall_ = current_instant();
    std::optional<Instant> until_ = kSteadyForever;
};

TEST_F(AnswerCacheTest, AnUnchangedInputIsServedAndAChangedOneComputed) {
    AnswerCache cache(clocks());
    EXPECT_EQ(ask(cache), "1");
    EXPECT_EQ(ask(cache), "1");
    EXPECT_EQ(cache.counts().served, 1u);
    testing::write_text(file_, "22");
    EXPECT_EQ(ask(cache), "22");
    EXPECT_EQ(cache.counts().computed, 2u);
    EXPECT_EQ(ask(cache), "22");
    EXPECT_EQ(cache.counts().served, 2u);
}

TEST_F(AnswerCacheTest, ARacyRecordingIsComputedAgain) {
    shift_ns_ = -kHourNs;  // every file changed "within the granularity" of the clock
    AnswerCache cache(clocks());
    ask(cache);
    ask(cache);
    EXPECT_EQ(cache.counts().served, 0u);
    EXPECT_EQ(cache.counts().computed, 2u);
}

TEST_F(AnswerCacheTest, TheKeyTheEnvironmentAndClearSeparateAnswers) {
    AnswerCache cache(clocks());
    ask(cache, "tool\n{}");
    ask(cache, "tool\n{\"max_bytes\":300}");
    EXPECT_EQ(cache.counts().computed, 2u) << "other arguments, another answer";
    ask(cache, "tool\n{}");
    EXPECT_EQ(cache.counts().served, 1u);
    ::setenv("SMALL_AGENT", "answer-cache-test", 1);
    ask(cache, "tool\n{}");
    ::unsetenv("SMALL_AGENT");
    EXPECT_EQ(cache.counts().computed, 3u) << "the tools read the environment too";
    cache.clear();
    ask(cache, "tool\n{}");
    EXPECT_EQ(cache.counts().computed, 4u);
}

TEST_F(AnswerCacheTest, AnAnswerIsServedOnlyInsideItsSteadyStretch) {
    until_ = Instant{wall_.seconds + 60, 0};
    AnswerCache cache(clocks());
    ask(cache);
    wall_.seconds += 59;
    ask(cache);
    EXPECT_EQ(cache.counts().served, 1u);
    wall_.seconds += 1;  // at the limit
    ask(cache);
    EXPECT_EQ(cache.counts().computed, 2u);
    until_ = kSteadyForever;
    ask(cache);
    wall_.seconds -= 3600;  // the clock set back: before the answer was computed
    ask(cache);
    EXPECT_EQ(cache.counts().computed, 4u);
    until_ = std::nullopt;  // the tool could not tell: never kept
    cache.clear();
    ask(cache);
    ask(cache);
    EXPECT_EQ(cache.counts().computed, 6u);
}

TEST_F(AnswerCacheTest, NoChangeClockNoMemory) {
    MemoryFileSystem memory;  // the fake cannot tell its clock
    memory.add_file(file_, "1");
    AnswerCache cache;
    for (int i = 0; i < 2; ++i) {
        cache.answer("k", memory, [&](const FileSystem& fs, Instant) { return TimedAnswer{json(*fs.read_file(file_)), kSteadyForever}; });
    }
    EXPECT_EQ(cache.counts().served, 0u);
}

// --- the server's tools on a real workspace ---

class McpAnswersTest : public ::testing::Test {
protected:
    void SetUp() override {
        // A check keeps rewriting its verified prefix while the log's own
        // stamp is racy (the first 100 ms after a change): the tests want
        // a repeat served at once, not after that window.
        ::setenv("SMALL_VERIFIED_CACHE", "0", 1);
        InitRequest req;
        req.cwd = dir_;
        req.intent = "Ship the widget";
        req.no_agents = true;
        req.lock_wait = std::chrono::milliseconds(0);
        ASSERT_TRUE(init_command(disk_, req));
        backdate_tree(dir_);
        server_ = make_server(clocks());
    }
    AnswerClocks clocks() {
        return {[](const FileSystem& fs) { return fs.change_clock_ns().value_or(0) + kHourNs; },
                [this] { return wall_.value_or(current_instant()); }};
    }
    std::unique_ptr<mcp::Server> make_server(AnswerClocks c) {
        auto server = std::make_unique<mcp::Server>(
            disk_, mcp::ServerOptions{locate_workspace(disk_, dir_, dir_), WorkspaceScope::Root, "9.9.9", std::move(c)});
        server->handle(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})");
        return server;
    }
    static std::string line(const std::string& tool, const json& arguments = json::object()) {
        return json{{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"}, {"params", {{"name", tool}, {"arguments", arguments}}}}.dump();
    }
    std::string call(const std::string& tool, const json& arguments = json::object()) {
        return server_->handle(line(tool, arguments)).value_or("");
    }
    // What a server that never answered before says (the uncached answer).
    std::string fresh(const std::string& tool, const json& arguments = json::object()) {
        return make_server({})->handle(line(tool, arguments)).value_or("");
    }
    // Calls `tool` until an answer comes from memory: its first calls write
    // the disk caches (.small-cache/) that it reads the next time, which
    // moves their stamps.
    void until_served(const std::string& tool) {
        const std::size_t before = served();
        for (int i = 0; i < 4 && served() == before; ++i) call(tool);
        ASSERT_EQ(served(), before + 1) << tool << " never answered from memory";
    }
    std::size_t served() const { return server_->answer_counts().served; }
    std::size_t computed() const { return server_->answer_counts().computed; }
    const WorkspacePaths ws() { return locate_workspace(disk_, dir_, dir_); }

    void TearDown() override { ::unsetenv("SMALL_VERIFIED_CACHE"); }

    RealFileSystem disk_;
    test_support::TempDir tmp_;
    const std::string dir_ = tmp_.root();
    std::optional<Instant> wall_;
    std::unique_ptr<mcp::Server> server_;
};

constexpr const char* kCachedTools[] = {"resume", "ready", "check"};

TEST_F(McpAnswersTest, UnchangedAnswersAreServedByteForByte) {
    for (const char* tool : kCachedTools) {
        const std::string first = call(tool);
        until_served(tool);
        const std::size_t before = served();
        EXPECT_EQ(call(tool), first) << tool;
        EXPECT_EQ(served(), before + 1) << tool << " from memory";
        EXPECT_EQ(fresh(tool), first) << tool << " as a fresh server says it";
    }
}

// Each change made from outside the server (no write tool ran, so only the
// stamps tell), after which each tool that reads it computes its answer
// again, and every tool says what a fresh server says. (check reads neither
// .small-cache/ nor git here: its verified prefix is off, see SetUp; a
// claim's audit entry goes to the log, which check reads.)
struct OutsideChange {
    const char* what;
    std::vector<std::string> readers;  // the tools whose answers read it (the others may stay served)
    std::function<void(const FileSystem&, const WorkspacePaths&, const std::string& dir)> make;
};
const std::vector<std::string> kAll = {"resume", "ready", "check"};

const OutsideChange kChanges[] = {
    {"plan", kAll, [](const FileSystem& fs, const WorkspacePaths& ws, const std::string&) {
         PlanRequest r = testing::plan_req();
         r.add = {"Outside task"};
         ASSERT_TRUE(plan_command(fs, ws, r));
     }},
    {"progress log", kAll, [](const FileSystem& fs, const WorkspacePaths& ws, const std::string&) {
         ProgressAddRequest r;
         r.task = "task-1";
         r.status = TaskStatus::InProgress;
         r.evidence = "started outside";
         r.lock_wait = std::chrono::milliseconds(2000);
         ASSERT_TRUE(progress_add_command(fs, ws, r));
     }},
    {"handoff", {"resume", "check"}, [](const FileSystem& fs, const WorkspacePaths& ws, const std::string&) {
         HandoffRequest r = testing::handoff_req();
         r.summary = "Written outside the server";
         ASSERT_TRUE(handoff_command(fs, ws, r));
     }},
    {"intent", {"resume", "check"}, [](const FileSystem&, const WorkspacePaths&, const std::string& dir) {
         const std::string path = dir + "/.small/intent.small.yml";
         testing::write_text(path, testing::mutate(test_support::read_text(path), "Ship the widget", "Ship two widgets"));
     }},
    {"constraints", {"resume", "check"}, [](const FileSystem&, const WorkspacePaths&, const std::string& dir) {
         const std::string path = dir + "/.small/constraints.small.yml";
         testing::write_text(path, test_support::read_text(path) + "# reviewed\n");
     }},
    {"workspace.small.yml", kAll, [](const FileSystem&, const WorkspacePaths&, const std::string& dir) {
         const std::string path = dir + "/.small/workspace.small.yml";
         testing::write_text(path, test_support::read_text(path) + "# touched\n");
     }},
    {"a cache of .small-cache", {"resume", "ready"}, [](const FileSystem&, const WorkspacePaths&, const std::string& dir) {
         for (const auto& e : stdfs::directory_iterator(dir + "/.small-cache")) {
             if (e.is_regular_file()) stdfs::remove(e.path());
         }
     }},
    {"another agent's claim", kAll, [](const FileSystem& fs, const WorkspacePaths& ws, const std::string&) {
         ClaimOptions o;
         o.agent = "bob";
         o.lock_wait = std::chrono::milliseconds(2000);
         ASSERT_TRUE(claim_command(fs, ws, "task-1", 3600, o));
     }},
    {"a stray file in .small", {"check"}, [](const FileSystem&, const WorkspacePaths&, const std::string& dir) {
         testing::write_text(dir + "/.small/notes.txt", "x");
     }},
    {"git init", {"resume", "ready"}, [](const FileSystem&, const WorkspacePaths&, const std::string& dir) {
         stdfs::create_directories(dir + "/.git/refs");
         testing::write_text(dir + "/.git/HEAD", "ref: refs/heads/main\n");
     }},
};

class McpAnswersChangeTest : public McpAnswersTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(McpAnswersChangeTest, IsSeenByTheNextCall) {
    const OutsideChange& change = kChanges[GetParam()];
    for (const char* tool : kCachedTools) until_served(tool);
    change.make(disk_, ws(), dir_);
    for (const std::string& tool : kAll) {
        const bool reads_it = std::find(change.readers.begin(), change.readers.end(), tool) != change.readers.end();
        const std::size_t before = computed();
        const std::string now = call(tool);
        EXPECT_EQ(computed(), before + (reads_it ? 1 : 0)) << tool << " after a change of " << change.what;
        EXPECT_EQ(now, fresh(tool)) << tool << " after a change of " << change.what;
    }
}

INSTANTIATE_TEST_SUITE_P(EachInput, McpAnswersChangeTest, ::testing::Range<std::size_t>(0, std::size(kChanges)),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                             std::string name;
                             for (const char c : std::string(kChanges[info.param].what)) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                             return name;
                         });

TEST_F(McpAnswersTest, TheOutsideChangesAreVisibleInTheAnswers) {
    const std::string ready = call("ready"), check = call("check");
    kChanges[0].make(disk_, ws(), dir_);  // a task added to the plan
    EXPECT_NE(call("ready"), ready);
    EXPECT_NE(call("ready").find("Outside task"), std::string::npos);
    testing::write_text(dir_ + "/.small/notes.txt", "x");
    const std::string failed = call("check");
    EXPECT_NE(failed, check);
    EXPECT_NE(failed.find("S4"), std::string::npos) << failed;
}

// Before there is a workspace, resume says to call init; one made from
// outside (the CLI's init) is in the next answer.
TEST(McpAnswersWithoutWorkspace, AWorkspaceMadeOutsideIsSeen) {
    RealFileSystem disk;
    test_support::TempDir tmp;
    const AnswerClocks clocks{[](const FileSystem& fs) { return fs.change_clock_ns().value_or(0) + kHourNs; }, {}};
    mcp::Server server(disk, mcp::ServerOptions{locate_workspace(disk, tmp.root(), tmp.root()), WorkspaceScope::Root, "9.9.9", clocks});
    server.handle(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})");
    const std::string resume = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"resume"}})";
    const std::string missing = server.handle(resume).value_or("");
    ASSERT_NE(missing.find("init"), std::string::npos) << missing;
    EXPECT_EQ(server.handle(resume).value_or(""), missing);
    EXPECT_EQ(server.answer_counts().served, 1u);
    InitRequest req;
    req.cwd = tmp.root();
    req.intent = "Made outside";
    req.no_agents = true;
    ASSERT_TRUE(init_command(disk, req));
    EXPECT_NE(server.handle(resume).value_or("").find("Made outside"), std::string::npos);
    EXPECT_EQ(server.answer_counts().computed, 2u);
}

TEST_F(McpAnswersTest, ArgumentsAreOfTheKey) {
    until_served("resume");
    const std::size_t computed_before = computed();
    const std::string whole = call("resume"), short_one = call("resume", {{"max_bytes", 300}});
    EXPECT_NE(whole, short_one);
    EXPECT_EQ(computed(), computed_before + 1) << "other arguments, another answer";
    EXPECT_EQ(call("resume"), whole);
    EXPECT_EQ(call("resume", {{"max_bytes", 300}}), short_one);
    EXPECT_EQ(served(), 4u);
}

TEST_F(McpAnswersTest, AnyWriteToolForgetsEveryAnswer) {
    for (const char* tool : kCachedTools) until_served(tool);
    call("status");  // read-only: nothing forgotten
    call("check");
    EXPECT_EQ(served(), 4u);
    call("claims");  // not read-only (it may publish claims), whether or not anything changed
    const std::size_t before = computed();
    call("check");
    EXPECT_EQ(computed(), before + 1);
    call("checkpoint", {{"task", "task-1"}, {"status", "in_progress"}, {"evidence", "started"}});
    const std::string resume = call("resume");
    EXPECT_EQ(computed(), before + 2);
    EXPECT_EQ(resume, fresh("resume"));
}

// A lease that ends changes resume and ready (the claim is no longer
// live): kept until then, computed after. The cache's wall clock is set by
// the test (the tools read the real one: only what is kept is under test).
TEST_F(McpAnswersTest, AnAnswerBuiltOnALeaseIsKeptUntilTheLeaseEnds) {
    // Early in today (UTC), so that the next day's start is far after the lease.
    const Instant claimed{current_instant().seconds / 86400 * 86400 + 60, 0};
    ClaimOptions o;
    o.agent = "bob";
    o.now = claimed;
    o.lock_wait = std::chrono::milliseconds(2000);
    ASSERT_TRUE(claim_command(disk_, ws(), "task-1", 3600, o));
    backdate_tree(dir_);
    wall_ = Instant{claimed.seconds + 10, 0};
    until_served("resume");
    until_served("ready");
    wall_->seconds = claimed.seconds + 3599;
    call("resume");
    call("ready");
    EXPECT_EQ(served(), 4u) << "before the lease ends";
    const std::size_t before = computed();
    wall_->seconds = claimed.seconds + 3600;
    call("resume");
    call("ready");
    EXPECT_EQ(computed(), before + 2) << "at the lease's end";
}

// A claim the agent holds shows its seconds_left in ready: kept for the
// second it was computed in only.
TEST_F(McpAnswersTest, ReadyWithAHeldClaimHoldsForItsSecond) {
    ClaimOptions o;
    o.lock_wait = std::chrono::milliseconds(2000);
    ASSERT_TRUE(claim_command(disk_, ws(), "task-1", 3600, o));  // the server's own agent
    backdate_tree(dir_);
    wall_ = current_instant();
    const std::string ready = call("ready");
    ASSERT_NE(ready.find("seconds_left"), std::string::npos) << ready;
    until_served("ready");
    const std::size_t before = computed();
    wall_->seconds += 1;
    call("ready");
    EXPECT_EQ(computed(), before + 1);
}

// INV-R8 (an entry too far ahead of the clock) is the verdict's one use of
// the clock: a check that warns of it is never kept.
TEST_F(McpAnswersTest, ACheckThatWarnsOfAnEntryAheadOfTheClockIsNeverKept) {
    ProgressAddRequest r;
    r.task = "task-1";
    r.status = TaskStatus::InProgress;
    r.evidence = "dated ahead";
    r.at = "2099-01-01T00:00:00.000000000Z";
    r.lock_wait = std::chrono::milliseconds(2000);
    ASSERT_TRUE(progress_add_command(disk_, ws(), r));
    backdate_tree(dir_);
    const std::string check = call("check");
    ASSERT_NE(check.find("INV-R8"), std::string::npos) << check;
    for (int i = 0; i < 4; ++i) call("check");
    EXPECT_EQ(served(), 0u);
    EXPECT_EQ(computed(), 5u);
}

}  // namespace
}  // namespace small
