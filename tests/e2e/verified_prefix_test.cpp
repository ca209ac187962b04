// The verdicts' verified-prefix cache (.small-cache/progress.verified) end to
// end: the real binary gives the same verdict with the cache as with
// --no-cache after appends, same-size edits with the mtime restored, a
// corrupt cache and an unwritable one.
#include <nettle/hmac.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "support/git_fixture.hpp"
#include "support/run_binary.hpp"

namespace small_e2e {
namespace {

class VerifiedPrefixE2E : public ::testing::Test {
protected:
    void SetUp() override {
        ok({"init", "--no-agents", "--intent", "Cache the verified log"});
        ok({"plan", "--add", "Second task"});
        ok({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "first done"});
        ok({"progress", "add", "--task", "task-2", "--status", "in_progress", "--evidence", "started"});
    }
    fs::path root() const { return tmp_.path(); }
    fs::path log() const { return root() / ".small/progress.small.yml"; }
    fs::path cache() const { return root() / ".small-cache/progress.verified"; }

    RunResult small(const std::vector<std::string>& args) { return run_in(root(), args); }
    void ok(const std::vector<std::string>& args) {
        const RunResult r = small(args);
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    // The verdict with the cache equals the one without; returns it.
    RunResult same_as_without_cache(std::vector<std::string> args) {
        const RunResult warm = small(args);
        args.push_back("--no-cache");
        const RunResult cold = small(args);
        EXPECT_EQ(warm.exit_code, cold.exit_code) << warm << cold;
        EXPECT_EQ(warm.out, cold.out);
        EXPECT_EQ(warm.err, cold.err);
        return warm;
    }
    void append(const std::string& text) {
        std::ofstream(log(), std::ios::app) << text;
    }

    TempDir tmp_;
};

TEST_F(VerifiedPrefixE2E, ACleanVerdictKeepsThePrefixAndAnAppendedDefectIsStillFound) {
    ok({"check", "--strict"});
    ASSERT_TRUE(fs::exists(cache()));
    EXPECT_TRUE(contains(read_file(cache()), "small verified-prefix 3"));
    append("  - timestamp: \"2099-06-01T10:20:00Z\"\n    task_id: \"task-2\"\n    status: \"completed\"\n"
           "    evidence: \"no fraction\"\n");
    for (const char* verdict : {"check", "verify", "lint", "validate"}) {
        const RunResult r = same_as_without_cache({verdict, "--strict"});
        if (std::string(verdict) != "validate") {
            EXPECT_EQ(r.exit_code, 1) << r;
            EXPECT_TRUE(contains(r.out + r.err, "[INV-R5]")) << r;
        }
    }
}

// libfyaml reads `command_ref:` then `a:"x"` at the key's indentation as a
// value at the end of the file, and refuses it once another entry follows:
// the clean verdict on the first file must not vouch for the second.
TEST_F(VerifiedPrefixE2E, AnEntryThatReadsOtherwiseBeforeAnotherIsNotVouchedFor) {
    // Dated now, after the entries the set-up wrote, so the first file is clean.
    const auto stamp = [](int nanos) {
        const std::time_t now = std::time(nullptr) + 1;  // after every entry of this second
        char text[64];
        std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", std::gmtime(&now));
        return std::string(text) + "." + std::to_string(900000000 + nanos) + "Z";
    };
    append("  - timestamp: \"" + stamp(1) + "\"\n    task_id: \"meta/note\"\n"
           "    evidence: \"ran it\"\n    command_ref:\n    a:\"x\"\n");
    const RunResult clean = same_as_without_cache({"check", "--strict"});
    ASSERT_EQ(clean.exit_code, 0) << clean;
    append("  - timestamp: \"" + stamp(2) + "\"\n    task_id: \"meta/note\"\n"
           "    evidence: \"ran it again\"\n");
    const RunResult r = same_as_without_cache({"check", "--strict"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.out + r.err, "[LOAD]")) << r;
}

TEST_F(VerifiedPrefixE2E, AnAppendByTheToolIsCheckedAndTheCacheMovesOn) {
    ok({"check", "--strict"});
    const std::string before = read_file(cache());
    ok({"progress", "add", "--task", "task-2", "--status", "completed", "--evidence", "done"});
    const RunResult r = same_as_without_cache({"check", "--strict"});
    EXPECT_EQ(r.exit_code, 0) << r;
    ok({"check", "--strict"});
    EXPECT_NE(read_file(cache()), before);
}

TEST_F(VerifiedPrefixE2E, ASameSizeEditWithTheMtimeRestoredIsSeen) {
    ok({"check", "--strict"});
    struct stat st {};
    ASSERT_EQ(::stat(log().c_str(), &st), 0);
    std::string text = read_file(log());
    const std::size_t at = text.find("first done");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 10, "ghp_AAAAAA");  // same size; still no secret (too short) but different bytes
    const std::size_t ts = text.rfind("timestamp: \"20");
    ASSERT_NE(ts, std::string::npos);
    --text[ts + 15];  // the newest entry a year earlier: out of order (INV-R6)
    std::ofstream(log(), std::ios::trunc | std::ios::binary) << text;
    const struct utimbuf times {st.st_atime, st.st_mtime};
    ASSERT_EQ(::utime(log().c_str(), &times), 0);
    const RunResult r = same_as_without_cache({"check", "--strict"});
    EXPECT_EQ(r.exit_code, 1) << r;
}

// Git's racy-clean rule: once the log's stamp is older than the recording by
// more than the timestamps' granularity, a verdict with nothing new reads
// none of the verified bytes (the cache is left as it is, not re-stamped);
// a same-size edit with the mtime put back still moves ctime and is seen.
TEST_F(VerifiedPrefixE2E, AStampThatVouchesStillSeesASameSizeEditWithTheMtimeRestored) {
    struct stat st {};
    ASSERT_EQ(::stat(log().c_str(), &st), 0);
    if (st.st_mtim.tv_nsec == 0 && st.st_ctim.tv_nsec == 0) {
        GTEST_SKIP() << "this filesystem stamps whole seconds: the rule waits 2 s there";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));  // past the 100 ms granularity
    ok({"check", "--strict"});
    const std::string recorded = read_file(cache());
    ASSERT_TRUE(contains(recorded, "\nS ")) << recorded;
    ok({"check", "--strict"});
    EXPECT_EQ(read_file(cache()), recorded) << "the stamp should have vouched (no re-stamp)";

    std::string text = read_file(log());
    const std::size_t ts = text.rfind("timestamp: \"20");
    ASSERT_NE(ts, std::string::npos);
    --text[ts + 15];  // the newest entry a year earlier: out of order (INV-R6), same size
    std::ofstream(log(), std::ios::trunc | std::ios::binary) << text;
    // mtime put back to the nanosecond: only ctime can tell.
    const struct timespec times[2] = {st.st_atim, st.st_mtim};
    ASSERT_EQ(::utimensat(AT_FDCWD, log().c_str(), times, 0), 0);
    struct stat now {};
    ASSERT_EQ(::stat(log().c_str(), &now), 0);
    ASSERT_EQ(now.st_mtim.tv_nsec, st.st_mtim.tv_nsec);
    ASSERT_EQ(now.st_size, st.st_size);
    const RunResult r = same_as_without_cache({"check", "--strict"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "[INV-R6]")) << r;
}

TEST_F(VerifiedPrefixE2E, ACorruptCacheIsIgnoredAndReplaced) {
    ok({"check", "--strict"});
    std::ofstream(cache(), std::ios::trunc) << "small verified-prefix 3 garbage\nP 1 2\n";
    const RunResult r = same_as_without_cache({"check", "--strict"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(read_file(cache()), "\nP "));
}

TEST_F(VerifiedPrefixE2E, AnUnwritableCacheOnlyCostsSpeed) {
    fs::remove_all(root() / ".small-cache");
    std::ofstream(root() / ".small-cache") << "not a folder\n";
    const RunResult r = same_as_without_cache({"check", "--strict"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(fs::is_regular_file(root() / ".small-cache"));
}

TEST_F(VerifiedPrefixE2E, NoCacheLeavesTheCacheAsItIs) {
    ok({"check", "--strict"});
    const std::string before = read_file(cache());
    ok({"progress", "add", "--task", "task-2", "--status", "completed", "--evidence", "done"});
    ok({"check", "--strict", "--no-cache"});
    EXPECT_EQ(read_file(cache()), before);
}

// Issue 41: a verdict trusts only what this machine computed. The forger
// below is what anyone can do with an XXH3 tool: take a real cache, point its
// P line at a rewritten log (the hash of its first N bytes) and recompute the
// check line, as the forger's own small would accept it (under the forger's
// own key when there is one). The forgery is real: the forger's own small
// takes it. Committed into a pull request, it must convince no other clone.
std::string hex_of(const unsigned char* bytes, std::size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 15];
    }
    return out;
}

std::string xxh3_hex(std::string_view data) {
    const XXH128_hash_t h = XXH3_128bits(data.data(), data.size());
    unsigned char bytes[16];
    for (int i = 0; i < 16; ++i) bytes[i] = static_cast<unsigned char>(((i < 8 ? h.high64 : h.low64) >> (8 * (7 - i % 8))) & 0xff);
    return hex_of(bytes, 16);
}

std::string forge_cache(const std::string& cache, const std::string& log, const std::optional<std::string>& key) {
    std::vector<std::string> lines;
    std::istringstream in(cache);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    EXPECT_GE(lines.size(), 3u) << cache;
    if (lines.size() < 3) return cache;
    std::vector<std::string> p;
    std::istringstream fields(lines[1]);
    for (std::string f; fields >> f;) p.push_back(f);
    EXPECT_EQ(p.size(), 10u) << lines[1];
    if (p.size() != 10) return cache;
    p[7] = xxh3_hex(std::string_view(log).substr(0, std::stoull(p[1])));
    std::string body;
    for (std::size_t i = 0; i < p.size(); ++i) body += (i ? " " : "") + p[i];
    body += "\n";
    for (std::size_t i = 2; i + 1 < lines.size(); ++i) body += lines[i] + "\n";
    std::string check;
    if (key) {
        struct hmac_sha256_ctx ctx;
        hmac_sha256_set_key(&ctx, key->size(), reinterpret_cast<const std::uint8_t*>(key->data()));
        const std::string head = lines[0] + "\n";
        hmac_sha256_update(&ctx, head.size(), reinterpret_cast<const std::uint8_t*>(head.data()));
        hmac_sha256_update(&ctx, body.size(), reinterpret_cast<const std::uint8_t*>(body.data()));
        unsigned char digest[SHA256_DIGEST_SIZE];
        hmac_sha256_digest(&ctx, sizeof digest, digest);
        check = hex_of(digest, sizeof digest);
    } else {
        check = xxh3_hex(body);
    }
    return lines[0] + "\n" + body + "Z " + check + "\n";
}

class ForgedCacheE2E : public GitRepoE2E {
protected:
    void SetUp() override {
        GitRepoE2E::SetUp();
        if (IsSkipped()) return;
        git_ok({"init", "-q", "-b", "main"});
        must({"init", "--no-agents", "--intent", "Guard the gate"});
        must({"plan", "--add", "Second task"});
        must({"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "first done"});
        must({"progress", "add", "--task", "task-2", "--status", "in_progress", "--evidence", "started"});
        must({"progress", "add", "--task", "task-2", "--status", "in_progress", "--evidence", "going on"});
        must({"check", "--strict"});  // the forger's own clean verdict: a real cache
        ASSERT_TRUE(fs::exists(cache(repo())));
        // History rewritten: the newest entry a year earlier (same size): INV-R6.
        std::string text = read_file(log(repo()));
        const std::size_t ts = text.rfind("timestamp: \"20");
        ASSERT_NE(ts, std::string::npos);
        --text[ts + 15];
        std::ofstream(log(repo()), std::ios::trunc | std::ios::binary) << text;
        ASSERT_EQ(small({"check", "--strict", "--no-cache"}).exit_code, 1);
        const std::optional<std::string> key = forger_key();
        const std::string forged = forge_cache(read_file(cache(repo())), text, key);
        std::ofstream(cache(repo()), std::ios::trunc | std::ios::binary) << forged;
        const RunResult own = small({"check", "--strict"});
        ASSERT_EQ(own.exit_code, 0) << "the forgery does not even fool its forger's small: " << own;
    }
    void must(const std::vector<std::string>& args) {
        const RunResult r = small(args);
        ASSERT_EQ(r.exit_code, 0) << r;
    }
    static fs::path log(const fs::path& at) { return at / ".small/progress.small.yml"; }
    static fs::path cache(const fs::path& at) { return at / ".small-cache/progress.verified"; }
    std::optional<std::string> forger_key() const {
        const fs::path key = repo() / ".git/small" / ("verified-prefix." + std::to_string(::geteuid()) + ".key");
        if (!fs::exists(key)) return std::nullopt;
        return read_file(key);
    }
    // The forged cache and the rewritten log, committed and cloned.
    fs::path victim() {
        git_ok({"add", "-A"});
        git_ok({"add", "-f", ".small-cache/progress.verified"});
        git_ok({"commit", "-qm", "rewritten history, vouched for"});
        const fs::path clone = tmp_.path() / "victim";
        git_ok({"clone", "-q", repo().string(), clone.string()});
        EXPECT_TRUE(fs::exists(cache(clone)));
        return clone;
    }
};

TEST_F(ForgedCacheE2E, ACommittedForgedCacheConvincesNoVerdictOfAnotherClone) {
    const fs::path clone = victim();
    for (const char* verdict : {"check", "verify"}) {
        const RunResult r = small({verdict, "--strict"}, clone);
        EXPECT_EQ(r.exit_code, 1) << verdict << ": " << r;
        EXPECT_TRUE(contains(r.out + r.err, "INV-R6")) << r;
    }
    const RunResult told = small({"check", "--strict", "--verbose"}, clone);
    EXPECT_EQ(told.exit_code, 1) << told;
    EXPECT_TRUE(contains(told.err, "ignored .small-cache/progress.verified")) << told;
    const RunResult report = small({"report", "--html", "-o", "r.html"}, clone);
    EXPECT_TRUE(contains(read_file(clone / "r.html"), "INV-R6")) << report;
    EXPECT_TRUE(contains(read_file(clone / "r.html"), "fail\">failed")) << report;
    RunOptions mcp;
    mcp.cwd = clone;
    mcp.env = env_;
    mcp.stdin_text = mcp_session({{{"name", "check"}, {"arguments", json::object()}}});
    const RunResult server = run_small({"mcp"}, mcp);
    EXPECT_TRUE(contains(server.out, "INV-R6")) << server;
}

TEST_F(ForgedCacheE2E, UnderCiTheCacheIsNotReadUnlessAskedFor) {
    // On the forger's own machine the forgery passes its key; CI=true reads the whole log.
    const RunResult ci = run_in(repo(), {"check", "--strict", "--verbose"}, [&] {
        Env env = env_;
        env.emplace_back("CI", "true");
        return env;
    }());
    EXPECT_EQ(ci.exit_code, 1) << ci;
    EXPECT_TRUE(contains(ci.err, "CI=true")) << ci;
    Env opt_in = env_;
    opt_in.emplace_back("CI", "true");
    opt_in.emplace_back("SMALL_VERIFIED_CACHE", "1");
    EXPECT_EQ(run_in(repo(), {"check", "--strict"}, opt_in).exit_code, 0);
    Env off = env_;
    off.emplace_back("SMALL_VERIFIED_CACHE", "0");
    EXPECT_EQ(run_in(repo(), {"check", "--strict"}, off).exit_code, 1);
}

TEST_F(ForgedCacheE2E, TheKeyLivesInGitsFolderOnlyForThisUser) {
    const fs::path key = repo() / ".git/small" / ("verified-prefix." + std::to_string(::geteuid()) + ".key");
    ASSERT_TRUE(fs::exists(key));
    EXPECT_EQ(fs::file_size(key), 32u);
    EXPECT_EQ(fs::status(key).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
    EXPECT_FALSE(fs::exists(repo() / ".small-cache/verified-prefix.key"));
    // A key others may read is not trusted: the whole log is read.
    fs::permissions(key, fs::perms::group_read, fs::perm_options::add);
    EXPECT_EQ(small({"check", "--strict"}).exit_code, 1);
    fs::permissions(key, fs::perms::group_read, fs::perm_options::remove);
    EXPECT_EQ(small({"check", "--strict"}).exit_code, 0);
    if (::geteuid() == 0) {  // only root can give a file away: a cache of another user is not read
        ASSERT_EQ(::chown(cache(repo()).c_str(), 65534, 65534), 0);
        const RunResult r = small({"check", "--strict", "--verbose"});
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, "belongs to another user")) << r;
    }
}

}  // namespace
}  // namespace small_e2e
