// End-to-end tests of `small agents apply|check|print` through the real
// binary (authoring.md §4 checklist, D4 exit codes, D11 JSON).
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_binary.hpp"

namespace {

using namespace small_e2e;

const std::string kBegin = "<!-- BEGIN SMALL HARNESS v1.0.0 -->";
const std::string kEnd = "<!-- END SMALL HARNESS v1.0.0 -->";
const std::string kTeam = "# Team agents\n\nBe kind.\n";

std::size_t count_of(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
    return n;
}

// The canonical block, as `small agents print` writes it.
std::string canonical_block(const TempDir& dir) {
    RunResult r = run_in(dir.path(), {"agents", "print"});
    EXPECT_EQ(r.exit_code, 0) << r;
    return r.out;
}

std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

json check_json(const TempDir& dir, std::vector<std::string> args, int expected_exit) {
    args.insert(args.begin(), {"agents", "check"});
    RunResult r = run_in(dir.path(), args);
    EXPECT_EQ(r.exit_code, expected_exit) << r;
    auto doc = parse_single_json(r.out);
    EXPECT_TRUE(doc) << r;
    return doc ? *doc : json();
}

// ------------------------------------------------------------------ group

TEST(AgentsE2E, GroupAlonePrintsHelpAndUnknownSubcommandIsUsage) {
    TempDir dir;
    RunResult help = run_in(dir.path(), {"agents"});
    EXPECT_EQ(help.exit_code, 0) << help;
    for (const char* sub : {"apply", "check", "print"}) EXPECT_TRUE(contains(help.out, sub)) << help;
    RunResult bogus = run_in(dir.path(), {"agents", "bogus"});
    EXPECT_EQ(bogus.exit_code, 2) << bogus;
}

// ------------------------------------------------------------------ apply

TEST(AgentsApplyE2E, CreatesTheFileWithTheCanonicalBlock) {
    TempDir dir;
    RunResult r = run_in(dir.path(), {"agents", "apply"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Created AGENTS.md")) << r;
    EXPECT_EQ(read_file(dir.path() / "AGENTS.md"), canonical_block(dir));
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"AGENTS.md"});  // no staging folder left
}

TEST(AgentsApplyE2E, UpdatesAnOldBlockInPlaceKeepingHeaderAndFooter) {
    TempDir dir;
    write_file(dir.path() / "AGENTS.md", "# Header\n\n<!-- BEGIN SMALL HARNESS v0.9 -->\nold harness text\n"
                                         "<!-- END SMALL HARNESS v0.9 -->\n\n# Footer\n");
    RunResult r = run_in(dir.path(), {"agents", "apply"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Updated SMALL harness block in AGENTS.md (v0.9 -> v1.0.0)")) << r;
    const std::string text = read_file(dir.path() / "AGENTS.md");
    EXPECT_EQ(text, "# Header\n\n" + canonical_block(dir) + "\n# Footer\n");
    EXPECT_EQ(count_of(text, "<!-- BEGIN SMALL HARNESS"), 1u);
    EXPECT_EQ(count_of(text, "<!-- END SMALL HARNESS"), 1u);
    RunResult check = run_in(dir.path(), {"agents", "check", "--strict"});
    EXPECT_EQ(check.exit_code, 0) << check;
}

TEST(AgentsApplyE2E, NoBlockAndNoFlagIsRefusedWithGuidance) {
    TempDir dir;
    write_file(dir.path() / "AGENTS.md", kTeam);
    RunResult r = run_in(dir.path(), {"agents", "apply"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "Error: AGENTS.md already exists without SMALL harness block.\nUse one of:")) << r;
    for (const char* option : {"--force (-f)", "--overwrite-agents", "--agents-mode=append", "--agents-mode=prepend"}) {
        EXPECT_TRUE(contains(r.err, option)) << r;
    }
    EXPECT_EQ(read_file(dir.path() / "AGENTS.md"), kTeam);
}

TEST(AgentsApplyE2E, AppendAndPrepend) {
    TempDir dir;
    write_file(dir.path() / "AGENTS.md", kTeam);
    RunResult append = run_in(dir.path(), {"agents", "apply", "--agents-mode=append"});
    ASSERT_EQ(append.exit_code, 0) << append;
    EXPECT_TRUE(contains(append.out, "Appended SMALL harness block to AGENTS.md")) << append;
    std::string text = read_file(dir.path() / "AGENTS.md");
    EXPECT_LT(text.find("# Team agents"), text.find(kBegin));

    write_file(dir.path() / "AGENTS.md", kTeam);
    RunResult prepend = run_in(dir.path(), {"agents", "apply", "--agents-mode", "PREPEND"});
    ASSERT_EQ(prepend.exit_code, 0) << prepend;
    text = read_file(dir.path() / "AGENTS.md");
    EXPECT_LT(text.find(kEnd), text.find("# Team agents"));
}

TEST(AgentsApplyE2E, ForceShortForceAndOverwriteGiveIdenticalBytes) {
    TempDir dir;
    std::vector<std::string> results;
    for (const char* flag : {"--force", "-f", "--overwrite-agents"}) {
        write_file(dir.path() / "AGENTS.md", kTeam);
        RunResult r = run_in(dir.path(), {"agents", "apply", flag});
        ASSERT_EQ(r.exit_code, 0) << r;
        EXPECT_TRUE(contains(r.out, "Overwrote AGENTS.md")) << r;
        results.push_back(read_file(dir.path() / "AGENTS.md"));
    }
    EXPECT_EQ(results[0], canonical_block(dir));
    EXPECT_EQ(results[0], results[1]);
    EXPECT_EQ(results[0], results[2]);
    EXPECT_FALSE(contains(results[0], "Team agents"));
}

TEST(AgentsApplyE2E, ForceReplacesTheWholeFileEvenWhenItHasABlock) {
    TempDir dir;
    write_file(dir.path() / "AGENTS.md", "# Header\n\n" + canonical_block(dir) + "\n# Footer\n");
    RunResult r = run_in(dir.path(), {"agents", "apply", "--force"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(read_file(dir.path() / "AGENTS.md"), canonical_block(dir));
}

TEST(AgentsApplyE2E, FlagErrorsExitTwoAndWriteNothing) {
    TempDir dir;
    write_file(dir.path() / "AGENTS.md", kTeam);
    const std::vector<std::vector<std::string>> cases = {
        {"agents", "apply", "--agents-mode", "overwrite"},
        {"agents", "apply", "--force", "--agents-mode=append"},
        {"agents", "apply", "--agents-mode=append", "--overwrite-agents"},
        {"agents", "apply", "--dryrun"},
    };
    for (const auto& args : cases) {
        RunResult r = run_in(dir.path(), args);
        EXPECT_EQ(r.exit_code, 2) << r;
    }
    RunResult mode = run_in(dir.path(), cases[0]);
    EXPECT_TRUE(contains(mode.err, "invalid agents-mode: \"overwrite\" (valid: append, prepend)")) << mode;
    RunResult both = run_in(dir.path(), cases[1]);
    EXPECT_TRUE(contains(both.err, "--agents-mode and --force/--overwrite-agents are mutually exclusive")) << both;
    EXPECT_EQ(read_file(dir.path() / "AGENTS.md"), kTeam);
}

TEST(AgentsApplyE2E, DryRunShowsAPseudoDiffAndWritesNothing) {
    TempDir dir;
    RunResult missing = run_in(dir.path(), {"agents", "apply", "--dry-run"});
    ASSERT_EQ(missing.exit_code, 0) << missing;
    EXPECT_TRUE(contains(missing.out, "Dry run - changes to AGENTS.md:\n--- " + dir.str() + "/AGENTS.md (current)\n+++ " +
                                          dir.str() + "/AGENTS.md (proposed)\n@@ -0,0 +1 @@\n+ " + kBegin))
        << missing;
    EXPECT_FALSE(fs::exists(dir.path() / "AGENTS.md"));

    write_file(dir.path() / "AGENTS.md", kTeam);
    RunResult append = run_in(dir.path(), {"agents", "apply", "--dry-run", "--agents-mode=append"});
    ASSERT_EQ(append.exit_code, 0) << append;
    EXPECT_TRUE(contains(append.out, "@@ SMALL harness block added @@")) << append;
    EXPECT_EQ(read_file(dir.path() / "AGENTS.md"), kTeam);
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"AGENTS.md"});

    write_file(dir.path() / "AGENTS.md", canonical_block(dir));
    RunResult same = run_in(dir.path(), {"agents", "apply", "--dry-run"});
    ASSERT_EQ(same.exit_code, 0) << same;
    EXPECT_EQ(same.out, "No changes needed\n");
}

TEST(AgentsApplyE2E, PrintWritesTheComposedFileToStdoutOnly) {
    TempDir dir;
    write_file(dir.path() / "AGENTS.md", kTeam);
    RunResult r = run_in(dir.path(), {"--quiet", "agents", "apply", "--print", "--agents-mode", "append"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.out, "# Team agents\n\nBe kind.\n\n" + canonical_block(dir));
    EXPECT_EQ(read_file(dir.path() / "AGENTS.md"), kTeam);
}

TEST(AgentsApplyE2E, CustomFileAndDirectory) {
    TempDir dir;
    fs::create_directories(dir.path() / "team");
    RunResult r = run_in(dir.path(), {"agents", "apply", "--dir", "team", "--file", "GOVERNANCE.md"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Created GOVERNANCE.md")) << r;
    EXPECT_TRUE(fs::exists(dir.path() / "team" / "GOVERNANCE.md"));
    EXPECT_FALSE(fs::exists(dir.path() / "team" / "AGENTS.md"));
    EXPECT_FALSE(fs::exists(dir.path() / "AGENTS.md"));
    RunResult check = run_in(dir.path(), {"agents", "check", "--dir", "team", "--file", "GOVERNANCE.md", "--strict"});
    EXPECT_EQ(check.exit_code, 0) << check;
}

TEST(AgentsApplyE2E, AbsoluteFileIsUsedAsIs) {
    TempDir dir;
    TempDir other;
    const std::string target = (other.path() / "RULES.md").string();
    RunResult r = run_in(dir.path(), {"agents", "apply", "--dir", dir.str(), "--file", target});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(fs::exists(target));
    EXPECT_TRUE(names_in(dir.path()).empty());
}

TEST(AgentsApplyE2E, MalformedMarkersNameTheFile) {
    TempDir dir;
    const std::string text = "# Rules\n" + kBegin + "\nno end marker\n";
    write_file(dir.path() / "GOVERNANCE.md", text);
    RunResult r = run_in(dir.path(), {"agents", "apply", "--file", "GOVERNANCE.md", "--agents-mode=append"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "malformed GOVERNANCE.md: SMALL harness BEGIN marker found without END marker")) << r;
    EXPECT_EQ(read_file(dir.path() / "GOVERNANCE.md"), text);
}

TEST(AgentsApplyE2E, SymbolicLinkIsRefused) {
    TempDir dir;
    write_file(dir.path() / "real.md", kTeam);
    fs::create_symlink(dir.path() / "real.md", dir.path() / "AGENTS.md");
    RunResult r = run_in(dir.path(), {"agents", "apply", "--force"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "symbolic link")) << r;
    EXPECT_EQ(read_file(dir.path() / "real.md"), kTeam);
    EXPECT_TRUE(fs::is_symlink(dir.path() / "AGENTS.md"));
}

// Root may write a read-only file: as root, the apply runs as user nobody.
TEST(AgentsApplyE2E, ReadOnlyFileIsASystemError) {
    TempDir dir;
    write_file(dir.path() / "AGENTS.md", kTeam);
    fs::permissions(dir.path() / "AGENTS.md", fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    RunOptions opts = unprivileged(dir.path());
    opts.cwd = dir.path();
    RunResult r = run_small({"agents", "apply", "--force"}, opts);
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "read-only")) << r;
    EXPECT_EQ(read_file(dir.path() / "AGENTS.md"), kTeam);
}

TEST(AgentsApplyE2E, LeavesDotSmallAlone) {
    TempDir dir;
    write_file(dir.path() / ".small" / "stray.txt", "stray\n");
    RunResult r = run_in(dir.path(), {"agents", "apply"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(names_in(dir.path() / ".small"), std::vector<std::string>{"stray.txt"});
    EXPECT_EQ(read_file(dir.path() / ".small" / "stray.txt"), "stray\n");
}

TEST(AgentsApplyE2E, FindsTheWorkspaceRootFromASubdirectoryOrFromInsideDotSmall) {
    TempDir dir;
    write_file(dir.path() / ".small" / "stray.txt", "stray\n");
    fs::create_directories(dir.path() / "src" / "deep");
    RunResult r = run_in(dir.path() / "src" / "deep", {"agents", "apply"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Created " + (dir.path() / "AGENTS.md").string())) << r;
    EXPECT_EQ(names_in(dir.path() / "src" / "deep"), std::vector<std::string>{});
    const std::string block = read_file(dir.path() / "AGENTS.md");
    EXPECT_TRUE(contains(block, kBegin));

    for (const fs::path& cwd : {dir.path() / ".small", dir.path() / "src"}) {
        RunResult check = run_in(cwd, {"agents", "check", "--strict", "--json"});
        EXPECT_EQ(check.exit_code, 0) << check;
        const auto doc = parse_single_json(check.out);
        ASSERT_TRUE(doc) << check;
        EXPECT_EQ((*doc)["filePath"], (dir.path() / "AGENTS.md").string()) << check;
    }
    write_file(dir.path() / "AGENTS.md", kTeam);
    RunResult inside = run_in(dir.path() / ".small", {"agents", "apply", "--agents-mode=append"});
    ASSERT_EQ(inside.exit_code, 0) << inside;
    EXPECT_TRUE(contains(read_file(dir.path() / "AGENTS.md"), kTeam + "\n" + kBegin));
    EXPECT_EQ(names_in(dir.path() / ".small"), std::vector<std::string>{"stray.txt"});
}

TEST(AgentsApplyE2E, NeverWritesInsideDotSmall) {
    TempDir dir;
    fs::create_directories(dir.path() / ".small");
    RunResult via_dir = run_in(dir.path(), {"agents", "apply", "--dir", ".small"});
    ASSERT_EQ(via_dir.exit_code, 0) << via_dir;
    EXPECT_TRUE(fs::exists(dir.path() / "AGENTS.md"));
    RunResult via_file = run_in(dir.path(), {"agents", "apply", "--file", ".small/AGENTS.md"});
    EXPECT_EQ(via_file.exit_code, 2) << via_file;
    EXPECT_TRUE(contains(via_file.err, "never touch .small/")) << via_file;
    EXPECT_TRUE(fs::is_empty(dir.path() / ".small"));
}

// Issue 24: the lexical check missed a link on the way into .small/.
TEST(AgentsApplyE2E, NeverWritesInsideDotSmallThroughALink) {
    TempDir dir;
    fs::create_directories(dir.path() / ".small");
    fs::create_directory_symlink(dir.path() / ".small", dir.path() / "lnk");
    for (const std::vector<std::string>& args : {std::vector<std::string>{"agents", "apply", "--file", "lnk/AGENTS.md"},
                                                 std::vector<std::string>{"agents", "apply", "--dir", "lnk"}}) {
        const RunResult r = run_in(dir.path(), args);
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, "would land inside a .small/ folder")) << r;
    }
    EXPECT_TRUE(fs::is_empty(dir.path() / ".small"));
}

TEST(AgentsApplyE2E, NextToDotSmallItWaitsForTheWorkspaceLock) {
    TempDir dir;
    fs::create_directories(dir.path() / ".small");
    fs::create_directories(dir.path() / ".small-cache");
    const int fd = ::open((dir.path() / ".small-cache" / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX), 0);
    const std::vector<std::pair<std::string, std::optional<std::string>>> env = {{"SMALL_LOCK_TIMEOUT_MS", "100"}};
    RunResult busy = run_in(dir.path(), {"agents", "apply", "--json"}, env);
    EXPECT_EQ(busy.exit_code, 3) << busy;
    auto doc = parse_single_json(busy.out);
    ASSERT_TRUE(doc) << busy;
    EXPECT_EQ((*doc)["error"]["kind"], "busy");
    RunResult dry = run_in(dir.path(), {"agents", "apply", "--dry-run"}, env);
    EXPECT_EQ(dry.exit_code, 0) << dry;  // reads only: no lock
    EXPECT_FALSE(fs::exists(dir.path() / "AGENTS.md"));
    ::close(fd);
    RunResult r = run_in(dir.path(), {"agents", "apply"}, env);
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(fs::is_directory(dir.path() / ".small-cache"));  // a workspace keeps its cache folder
}

TEST(AgentsApplyE2E, JsonOnSuccessAndFailure) {
    TempDir dir;
    RunResult created = run_in(dir.path(), {"agents", "apply", "--json"});
    ASSERT_EQ(created.exit_code, 0) << created;
    auto doc = parse_single_json(created.out);
    ASSERT_TRUE(doc) << created;
    EXPECT_EQ((*doc)["ok"], true);
    EXPECT_EQ((*doc)["file"], dir.str() + "/AGENTS.md");
    EXPECT_EQ((*doc)["action"], "created");
    EXPECT_EQ((*doc)["changed"], true);
    EXPECT_EQ((*doc)["written"], true);
    EXPECT_EQ((*doc)["dry_run"], false);

    RunResult again = run_in(dir.path(), {"--json", "agents", "apply"});
    auto same = parse_single_json(again.out);
    ASSERT_TRUE(same) << again;
    EXPECT_EQ((*same)["action"], "updated");
    EXPECT_EQ((*same)["changed"], false);
    EXPECT_EQ((*same)["written"], false);

    write_file(dir.path() / "OTHER.md", kTeam);
    RunResult refused = run_in(dir.path(), {"agents", "apply", "--file", "OTHER.md", "--json"});
    EXPECT_EQ(refused.exit_code, 1) << refused;
    EXPECT_TRUE(refused.err.empty()) << refused;
    auto err = parse_single_json(refused.out);
    ASSERT_TRUE(err) << refused;
    EXPECT_EQ((*err)["ok"], false);
    EXPECT_EQ((*err)["error"]["kind"], "invalid");

    RunResult usage = run_in(dir.path(), {"agents", "apply", "--agents-mode", "bad", "--json"});
    EXPECT_EQ(usage.exit_code, 2) << usage;
    auto bad = parse_single_json(usage.out);
    ASSERT_TRUE(bad) << usage;
    EXPECT_EQ((*bad)["error"]["kind"], "usage");

    RunResult print = run_in(dir.path(), {"agents", "apply", "--file", "OTHER.md", "--print", "-f", "--json"});
    auto printed = parse_single_json(print.out);
    ASSERT_TRUE(printed) << print;
    EXPECT_EQ((*printed)["content"], canonical_block(dir));
    EXPECT_EQ((*printed)["dry_run"], true);
    EXPECT_EQ(read_file(dir.path() / "OTHER.md"), kTeam);
}

// ------------------------------------------------------------------ check

TEST(AgentsCheckE2E, MissingFileFailsUnlessAllowed) {
    TempDir dir;
    RunResult missing = run_in(dir.path(), {"agents", "check"});
    EXPECT_EQ(missing.exit_code, 1) << missing;
    EXPECT_TRUE(contains(missing.err, "File: " + dir.str() + "/AGENTS.md [missing]")) << missing;
    EXPECT_TRUE(contains(missing.err, "Error: AGENTS.md not found")) << missing;
    EXPECT_TRUE(contains(missing.err, "Recommendation: Run: small agents apply")) << missing;

    RunResult allowed = run_in(dir.path(), {"agents", "check", "--allow-missing"});
    EXPECT_EQ(allowed.exit_code, 0) << allowed;
    json doc = check_json(dir, {"--allow-missing", "--format", "json"}, 0);
    EXPECT_EQ(doc["hasFile"], false);
    EXPECT_EQ(doc["blockSpan"], json::array({0, 0}));
    EXPECT_FALSE(doc.contains("error"));
    EXPECT_TRUE(names_in(dir.path()).empty());
}

TEST(AgentsCheckE2E, CanonicalBlockPassesInTextAndJson) {
    TempDir dir;
    write_file(dir.path() / "AGENTS.md", canonical_block(dir));
    RunResult text = run_in(dir.path(), {"agents", "check", "--strict"});
    EXPECT_EQ(text.exit_code, 0) << text;
    EXPECT_EQ(text.out, "File: " + dir.str() + "/AGENTS.md [exists]\nBlock: found (v1.0.0)\nStructure: valid\nDrift: none\n");
    json doc = check_json(dir, {"--format=json"}, 0);
    EXPECT_EQ(doc["hasFile"], true);
    EXPECT_EQ(doc["hasBlock"], true);
    EXPECT_EQ(doc["blockValid"], true);
    EXPECT_EQ(doc["blockVersion"], "1.0.0");
    EXPECT_EQ(doc["hasDrift"], false);
    EXPECT_EQ(doc["ok"], true);
}

TEST(AgentsCheckE2E, JsonKeepsTheReferenceKeysInTheEnvelopeAndGlobalJsonMatchesFormatJson) {
    TempDir dir;
    write_file(dir.path() / "AGENTS.md", kTeam);
    RunResult format = run_in(dir.path(), {"agents", "check", "--strict", "--format", "json"});
    RunResult global = run_in(dir.path(), {"--json", "agents", "check", "--strict"});
    EXPECT_EQ(format.exit_code, 1) << format;
    EXPECT_EQ(global.exit_code, 1) << global;
    EXPECT_EQ(format.out, global.out);
    // The reference's keys (D11) inside the envelope (D16); the reference's
    // `error` string is the envelope's error message.
    const json doc = json::parse(format.out);
    for (const char* key : {"hasFile", "hasBlock", "blockValid", "blockSpan", "hasDrift", "recommendation",
                            "filePath", "schema_version", "command", "ok", "exit_code"}) {
        EXPECT_TRUE(doc.contains(key)) << key << "\n" << format.out;
    }
    EXPECT_EQ(doc["command"], "agents check");
    EXPECT_EQ(doc["exit_code"], 1);
    EXPECT_EQ(doc["error"]["kind"], "invalid");
    EXPECT_TRUE(contains(doc["error"]["message"].get<std::string>(), "no SMALL harness block")) << format.out;
    EXPECT_TRUE(format.err.empty()) << format;
}

TEST(AgentsCheckE2E, NoBlockPassesUnlessStrict) {
    TempDir dir;
    write_file(dir.path() / "AGENTS.md", kTeam);
    RunResult lenient = run_in(dir.path(), {"agents", "check"});
    EXPECT_EQ(lenient.exit_code, 0) << lenient;
    EXPECT_TRUE(contains(lenient.out, "Block: not found")) << lenient;
    RunResult strict = run_in(dir.path(), {"agents", "check", "--strict"});
    EXPECT_EQ(strict.exit_code, 1) << strict;
    EXPECT_TRUE(contains(strict.err, "AGENTS.md exists but has no SMALL harness block")) << strict;
    EXPECT_TRUE(contains(strict.err, "Error: check failed")) << strict;
}

TEST(AgentsCheckE2E, BeginWithoutEndFails) {
    TempDir dir;
    write_file(dir.path() / "AGENTS.md", kBegin + "\nno end\n");
    RunResult r = run_in(dir.path(), {"agents", "check"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "SMALL harness BEGIN marker found without END marker")) << r;
}

TEST(AgentsCheckE2E, DriftIsReportedAndFailsWithStrict) {
    TempDir dir;
    write_file(dir.path() / "AGENTS.md",
               kBegin + "\n## Ownership Rules\nours\n## Artifact Rules\n## Strict Mode Rules\n" + kEnd + "\n");
    json doc = check_json(dir, {"--format", "json"}, 0);
    EXPECT_EQ(doc["hasDrift"], true);
    EXPECT_EQ(doc["blockValid"], true);
    json strict = check_json(dir, {"--format", "json", "--strict"}, 1);
    EXPECT_EQ(strict["error"]["message"], "block content differs from canonical template");
}

TEST(AgentsCheckE2E, BlockSpanIsTheByteOffsetOfBegin) {
    TempDir dir;
    const std::string header = "# Header\n\n";
    write_file(dir.path() / "AGENTS.md", header + canonical_block(dir) + "\n# Footer\n");
    json doc = check_json(dir, {"--format", "json"}, 0);
    EXPECT_EQ(doc["blockSpan"][0], header.size());
    EXPECT_EQ(doc["blockSpan"][1], header.size() + canonical_block(dir).size() - 1);
}

TEST(AgentsCheckE2E, LeavesTheFileAndItsMtimeUnchanged) {
    TempDir dir;
    write_file(dir.path() / "AGENTS.md", kTeam);
    const auto before = fs::last_write_time(dir.path() / "AGENTS.md");
    for (std::vector<std::string> args : {std::vector<std::string>{"agents", "check"},
                                          {"agents", "check", "--strict"}, {"agents", "check", "--json"}}) {
        run_in(dir.path(), args);
    }
    EXPECT_EQ(fs::last_write_time(dir.path() / "AGENTS.md"), before);
    EXPECT_EQ(read_file(dir.path() / "AGENTS.md"), kTeam);
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"AGENTS.md"});
}

TEST(AgentsCheckE2E, UnknownFormatIsAUsageError) {
    TempDir dir;
    RunResult r = run_in(dir.path(), {"agents", "check", "--format", "xml"});
    EXPECT_EQ(r.exit_code, 2) << r;
    RunResult j = run_in(dir.path(), {"agents", "check", "--format", "xml", "--json"});
    EXPECT_EQ(j.exit_code, 2) << j;
    auto doc = parse_single_json(j.out);
    ASSERT_TRUE(doc) << j;
    EXPECT_EQ((*doc)["error"]["kind"], "usage");
}

// ------------------------------------------------------------------ print

TEST(AgentsPrintE2E, WithAndWithoutMarkers) {
    TempDir dir;
    RunResult full = run_in(dir.path(), {"agents", "print", "--with-markers=true"});
    ASSERT_EQ(full.exit_code, 0) << full;
    EXPECT_EQ(full.out.rfind(kBegin + "\n# SMALL Execution Harness\n", 0), 0u) << full;
    EXPECT_TRUE(full.out.ends_with(kEnd + "\n")) << full;
    for (const char* heading : {"Ownership Rules", "Artifact Rules", "Strict Mode Rules", "Localhost HTTP Allowlist",
                                "Ralph Loop"}) {
        EXPECT_TRUE(contains(full.out, heading)) << heading;
    }
    RunResult body = run_in(dir.path(), {"--quiet", "agents", "print", "--with-markers=false"});
    ASSERT_EQ(body.exit_code, 0) << body;
    EXPECT_FALSE(contains(body.out, "<!--")) << body;
    EXPECT_TRUE(contains(body.out, "SMALL Execution Harness")) << body;
    EXPECT_TRUE(names_in(dir.path()).empty());
}

TEST(AgentsPrintE2E, PlainFormat) {
    TempDir dir;
    RunResult plain = run_in(dir.path(), {"agents", "print", "--with-markers=false", "--format=plain"});
    ASSERT_EQ(plain.exit_code, 0) << plain;
    EXPECT_FALSE(contains(plain.out, "## Ownership")) << plain;
    EXPECT_TRUE(contains(plain.out, "Ownership Rules")) << plain;
    RunResult implied = run_in(dir.path(), {"agents", "print", "--format", "plain"});
    EXPECT_EQ(implied.out, plain.out);
    RunResult conflict = run_in(dir.path(), {"agents", "print", "--format", "plain", "--with-markers"});
    EXPECT_EQ(conflict.exit_code, 2) << conflict;
    RunResult bad = run_in(dir.path(), {"agents", "print", "--format", "html"});
    EXPECT_EQ(bad.exit_code, 2) << bad;
}

TEST(AgentsPrintE2E, Json) {
    TempDir dir;
    RunResult r = run_in(dir.path(), {"agents", "print", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["ok"], true);
    EXPECT_EQ((*doc)["with_markers"], true);
    EXPECT_EQ((*doc)["content"], canonical_block(dir));
}

}  // namespace
