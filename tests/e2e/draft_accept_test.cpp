// End-to-end tests of `small draft` and `small accept` (authoring.md §2, §3,
// DECISIONS D4, D5, D7, D8, D11): the real binary on a workspace in a fresh
// temporary directory, fed through standard input or files.
#include <fcntl.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/artifact_texts.hpp"
#include "support/run_binary.hpp"

namespace {

using namespace small_e2e;

using namespace small::test_fixtures;

const std::string kWorkspaceMeta = minimal_workspace_meta(true);

// Comments and layout must reach .small/ byte for byte.
const std::string kNewIntent = R"(# written by a human
small_version: "1.0.0"
owner: "human"
intent: "Ship the widget"   # the new goal
scope:
  include: ["src/"]
  exclude: []
success_criteria:
  - "tests pass"
)";

const std::string kNewConstraints = R"(small_version: "1.0.0"
owner: "human"
constraints:
  - id: "drafted"
    rule: "Drafted rule"
    severity: "warn"
)";

using Env = std::vector<std::pair<std::string, std::optional<std::string>>>;

// run_small (support/run_binary.hpp) always gives the child /dev/null as stdin; these tests need
// to feed it, and (as root) to run it as an unprivileged user.
RunResult run_fed(const fs::path& cwd, const std::vector<std::string>& args, const std::string& input,
                  const fs::path& io_dir, Env env = {}, std::optional<uid_t> as_uid = std::nullopt) {
    RunOptions opts;
    opts.cwd = cwd;
    opts.env = std::move(env);
    const fs::path in = io_dir / "stdin", out = io_dir / "stdout", err = io_dir / "stderr";
    write_file(in, input);
    const ExecArgs exec_args(args, opts);

    RunResult result;
    result.command = "small";
    for (const auto& a : args) result.command += " " + a;
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fds[3] = {::open(in.c_str(), O_RDONLY), ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644),
                            ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644)};
        for (int i = 0; i < 3; ++i) ::dup2(fds[i], i);
        if (as_uid && (::setgroups(0, nullptr) != 0 || ::setgid(*as_uid) != 0 || ::setuid(*as_uid) != 0)) ::_exit(125);
        if (::chdir(cwd.c_str()) != 0) ::_exit(126);
        exec_args.exec();
        ::_exit(127);
    }
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            result.timed_out = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = read_file(out);
    result.err = read_file(err);
    return result;
}

class DraftAcceptTest : public ::testing::Test {
protected:
    TempDir tmp_;
    fs::path ws() const { return tmp_.path() / "ws"; }
    fs::path small(const std::string& name) const { return ws() / ".small" / name; }
    fs::path draft(const std::string& kind) const { return ws() / ".small-cache" / "drafts" / (kind + ".small.yml"); }

    void SetUp() override {
        write_file(small("intent.small.yml"), kIntent);
        write_file(small("constraints.small.yml"), kConstraints);
        write_file(small("plan.small.yml"), kPlan);
        write_file(small("progress.small.yml"), kProgress);
        write_file(small("handoff.small.yml"), kHandoff);
        write_file(small("workspace.small.yml"), kWorkspaceMeta);
        fs::create_directories(tmp_.path() / "io");
    }
    RunResult run(const std::vector<std::string>& args, Env env = {}) { return run_in(ws(), args, std::move(env)); }
    RunResult feed(const std::vector<std::string>& args, const std::string& input, const fs::path& cwd = {}) {
        return run_fed(cwd.empty() ? ws() : cwd, args, input, tmp_.path() / "io");
    }
    std::map<std::string, std::string> small_files() const {
        std::map<std::string, std::string> out;
        for (const auto& e : fs::directory_iterator(ws() / ".small")) out[e.path().filename()] = read_file(e.path());
        return out;
    }
};

TEST_F(DraftAcceptTest, StdinDraftThenAcceptPassesEveryGate) {
    RunResult r = feed({"draft", "intent", "--from", "-"}, kNewIntent);
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.out, "Draft saved: .small-cache/drafts/intent.small.yml\nNext: small accept intent\n") << r;
    EXPECT_TRUE(r.err.empty()) << r;
    EXPECT_EQ(read_file(draft("intent")), kNewIntent);
    EXPECT_EQ(read_file(small("intent.small.yml")), kIntent);  // draft never touches .small/

    r = run({"accept", "intent"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.out,
              "Accepted draft: .small-cache/drafts/intent.small.yml -> .small/intent.small.yml\n"
              "Recorded progress entry: meta/accept-intent\n") << r;
    EXPECT_EQ(read_file(small("intent.small.yml")), kNewIntent);
    const std::string log = read_file(small("progress.small.yml"));
    ASSERT_EQ(log.substr(0, kProgress.size()), kProgress);  // appended (D7)
    const std::string added = log.substr(kProgress.size());
    EXPECT_TRUE(contains(added, "task_id: \"meta/accept-intent\"")) << added;
    EXPECT_TRUE(contains(added, "evidence: \"Accepted draft intent from .small-cache/drafts/intent.small.yml\"")) << added;
    EXPECT_TRUE(contains(added, "notes: \"small accept intent\"")) << added;
    EXPECT_TRUE(contains(added, std::string("replayId: \"") + kRunId + "\"")) << added;  // D8
    for (const std::vector<std::string>& gate : {std::vector<std::string>{"validate"}, {"lint", "--strict"},
                                                 {"check", "--strict"}}) {
        const RunResult g = run(gate);
        EXPECT_EQ(g.exit_code, 0) << g;
    }
}

TEST_F(DraftAcceptTest, FileSourceIsRelativeToTheCurrentDirectory) {
    const fs::path sub = ws() / "docs";
    write_file(sub / "constraints.yml", kNewConstraints);
    RunResult r = run_in(sub, {"draft", "constraints", "--from", "constraints.yml"});  // walks up to ws (D5)
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(read_file(draft("constraints")), kNewConstraints);
    r = run_in(tmp_.path(), {"accept", "constraints", "--dir", ws().string()});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(read_file(small("constraints.small.yml")), kNewConstraints);
    EXPECT_EQ(run({"lint", "--strict"}).exit_code, 0);
}

TEST_F(DraftAcceptTest, EmptyStdinIsRefused) {
    for (const char* from : {"-", "stdin"}) {
        const RunResult r = feed({"draft", "intent", "--from", from}, "  \n\n");
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, "standard input is empty")) << r;
        EXPECT_FALSE(fs::exists(draft("intent")));
    }
}

TEST_F(DraftAcceptTest, MissingFromIsAUsageError) {
    RunResult r = run({"draft", "intent"});
    EXPECT_EQ(r.exit_code, 2) << r;
    r = run({"draft", "intent", "--json"});
    EXPECT_EQ(r.exit_code, 2) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["ok"], false);
    r = run({"draft", "intent", "--from", ""});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_FALSE(fs::exists(draft("intent")));
}

TEST_F(DraftAcceptTest, MissingSourceFileIsASystemError) {
    const RunResult r = run({"draft", "intent", "--from", "nope.yml"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "nope.yml")) << r;
    EXPECT_FALSE(fs::exists(draft("intent")));
}

TEST_F(DraftAcceptTest, AcceptWithoutADraftChangesNothing) {
    const auto before = small_files();
    RunResult r = run({"accept", "intent"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "draft not found")) << r;
    EXPECT_TRUE(contains(r.err, "small draft intent --from <path|stdin>")) << r;
    r = run({"accept", "constraints", "--json"});
    EXPECT_EQ(r.exit_code, 1) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["error"]["kind"], "invalid");
    EXPECT_EQ(small_files(), before);
}

TEST_F(DraftAcceptTest, SchemaInvalidDraftIsSavedWithWarningsButNotAccepted) {
    const std::string bad = "small_version: \"1.0.0\"\nowner: \"agent\"\nintent: \"x\"\n";
    RunResult r = feed({"draft", "intent", "--from", "-"}, bad);
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, "warning:")) << r;
    EXPECT_TRUE(contains(r.out, "Draft saved:")) << r;

    const auto before = small_files();
    r = run({"accept", "intent"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, ".small-cache/drafts/intent.small.yml:2:")) << r;
    EXPECT_TRUE(contains(r.err, "[SCHEMA]")) << r;
    EXPECT_TRUE(contains(r.err, "left unchanged")) << r;
    EXPECT_EQ(small_files(), before);

    r = run({"accept", "intent", "--json"});
    EXPECT_EQ(r.exit_code, 1) << r;
    const auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["ok"], false);
    EXPECT_EQ((*doc)["error"]["kind"], "invalid");
    EXPECT_FALSE((*doc)["errors"].empty());
    EXPECT_EQ(small_files(), before);
    EXPECT_EQ(read_file(draft("intent")), bad);
}

TEST_F(DraftAcceptTest, UnparseableDraftIsRefusedWithItsLocation) {
    write_file(draft("constraints"), "small_version: \"1.0.0\"\nconstraints: [\n");
    const auto before = small_files();
    const RunResult r = run({"accept", "constraints"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, ".small-cache/drafts/constraints.small.yml:")) << r;
    EXPECT_EQ(small_files(), before);
}

TEST_F(DraftAcceptTest, JsonReportsWhatWasWritten) {
    RunResult r = run_fed(ws(), {"--json", "draft", "constraints", "--from", "-"}, kNewConstraints, tmp_.path() / "io");
    ASSERT_EQ(r.exit_code, 0) << r;
    auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["ok"], true);
    EXPECT_EQ((*doc)["command"], "draft");
    EXPECT_EQ((*doc)["kind"], "constraints");
    EXPECT_EQ((*doc)["draft"], draft("constraints").string());
    EXPECT_EQ((*doc)["source"], "stdin");
    EXPECT_EQ((*doc)["acceptable"], true);
    EXPECT_TRUE((*doc)["warnings"].empty());

    r = run({"accept", "constraints", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["ok"], true);
    EXPECT_EQ((*doc)["target"], small("constraints.small.yml").string());
    EXPECT_EQ((*doc)["entry"]["task_id"], "meta/accept-constraints");
    EXPECT_EQ((*doc)["entry"]["replayId"], kRunId);
}

TEST_F(DraftAcceptTest, UnknownKindIsAUsageErrorAndBareGroupsPrintHelp) {
    RunResult r = run({"draft", "plan"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "unknown draft kind \"plan\"")) << r;
    r = run({"draft", "plan", "--from", "-"});  // CLI11 rejects --from first: still a usage error
    EXPECT_EQ(r.exit_code, 2) << r;
    r = run({"accept", "handoff", "--json"});
    EXPECT_EQ(r.exit_code, 2) << r;
    ASSERT_TRUE(parse_single_json(r.out)) << r;
    r = run({"accept", "intent", "--workspace", "nowhere"});
    EXPECT_EQ(r.exit_code, 2) << r;
    for (const char* group : {"draft", "accept"}) {
        r = run({group});
        EXPECT_EQ(r.exit_code, 0) << r;
        EXPECT_TRUE(contains(r.out, "intent") && contains(r.out, "constraints")) << r;
    }
}

TEST_F(DraftAcceptTest, BusyLockIsExit3) {
    write_file(draft("intent"), kNewIntent);
    const auto before = small_files();
    fs::create_directories(ws() / ".small-cache");
    const int fd = ::open((ws() / ".small-cache" / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX), 0);
    const Env env = {{"SMALL_LOCK_TIMEOUT_MS", "0"}};
    RunResult r = run({"accept", "intent"}, env);
    EXPECT_EQ(r.exit_code, 3) << r;
    EXPECT_TRUE(contains(r.err, "workspace is locked")) << r;
    r = run({"accept", "intent", "--json"}, env);
    EXPECT_EQ(r.exit_code, 3) << r;
    EXPECT_EQ(json::parse(r.out)["error"]["kind"], "busy") << r;
    r = run({"draft", "constraints", "--from", (ws() / ".small" / "plan.small.yml").string()}, env);
    EXPECT_EQ(r.exit_code, 3) << r;
    ::close(fd);
    EXPECT_EQ(small_files(), before);
    EXPECT_FALSE(fs::exists(draft("constraints")));
    r = run({"accept", "intent"}, env);
    EXPECT_EQ(r.exit_code, 0) << r;
}

// As root, directory permissions do not apply: the binary then runs as
// nobody on a workspace handed over to nobody.
TEST_F(DraftAcceptTest, ReadOnlySmallDirectoryIsExit2AndChangesNothing) {
    write_file(draft("intent"), kNewIntent);
    std::optional<uid_t> as_uid;
    if (::geteuid() == 0) {
        const std::optional<OtherUser> nobody = give_to_nobody(tmp_.path());
        ASSERT_TRUE(nobody) << "running as root, the accept runs as user nobody: there is no such user";
        as_uid = nobody->uid;
    }
    const auto before = small_files();
    fs::permissions(ws() / ".small", fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
    const RunResult r = run_fed(ws(), {"accept", "intent"}, "", tmp_.path() / "io", {}, as_uid);
    fs::permissions(ws() / ".small", fs::perms::owner_write, fs::perm_options::add);
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "cannot write to .small/")) << r;
    EXPECT_EQ(small_files(), before);
    EXPECT_FALSE(fs::exists(ws() / ".small-cache" / "change.journal"));
}

TEST_F(DraftAcceptTest, MissingSmallDirectoryIsExit2) {
    const fs::path empty = tmp_.path() / "empty";
    fs::create_directories(empty);
    RunResult r = run_fed(empty, {"draft", "intent", "--from", "-", "--dir", empty.string()}, kNewIntent,
                          tmp_.path() / "io");
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "no .small/ directory")) << r;
    r = run_in(empty, {"accept", "intent", "--dir", empty.string(), "--json"});
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_EQ(json::parse(r.out)["error"]["kind"], "system") << r;
    EXPECT_FALSE(fs::exists(empty / ".small-cache" / "drafts"));
}

}  // namespace
