// agents apply / check / print in the library (authoring.md §4), on a real
// temporary directory for apply (it writes) and in memory for check.
#include "small/ops/authoring/agents.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "support/fixtures.hpp"
#include "small/store/atomic_file.hpp"

namespace small {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTeamText = "# Team agents\n\nBe kind.\n";

using namespace small::testing;
const MemoryFileSystem no_files;  // no workspace anywhere: targets resolve against cwd or --dir

AgentsApplyRequest apply_request(const TempDir& dir, const std::string& file = "AGENTS.md") {
    AgentsApplyRequest req;
    req.target = *resolve_agents_target(real_fs, dir.root(), file, "/");
    return req;
}

// `agents apply --force` on `dir`/AGENTS.md.
Result<AgentsApplyResult> apply_forced(const TempDir& dir) {
    AgentsApplyRequest req = apply_request(dir);
    req.overwrite = true;
    return agents_apply_command(real_fs, req);
}

std::string block_with_body(const std::string& body, const std::string& version = "1.0.0") {
    return "<!-- BEGIN SMALL HARNESS v" + version + " -->\n" + body + "<!-- END SMALL HARNESS v" + version + " -->\n";
}


// ------------------------------------------------------------------ target

TEST(AgentsTarget, JoinsDirAndFileAndKeepsTheFileNameForMessages) {
    Result<AgentsTarget> plain = resolve_agents_target(no_files, std::nullopt, "", "/work/repo");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->path, "/work/repo/AGENTS.md");
    EXPECT_EQ(plain->display, "AGENTS.md");

    Result<AgentsTarget> relative = resolve_agents_target(no_files, std::string("docs/../team"), "GOVERNANCE.md", "/work/repo");
    ASSERT_TRUE(relative);
    EXPECT_EQ(relative->path, "/work/repo/team/GOVERNANCE.md");
    EXPECT_EQ(relative->display, "GOVERNANCE.md");

    Result<AgentsTarget> empty_dir = resolve_agents_target(no_files, std::string(""), "AGENTS.md", "/work/repo");
    ASSERT_TRUE(empty_dir);
    EXPECT_EQ(empty_dir->path, "/work/repo/AGENTS.md");
}

TEST(AgentsTarget, AbsoluteFileIsUsedAsIs) {
    Result<AgentsTarget> t = resolve_agents_target(no_files, std::string("/work/repo"), "/srv/other/AGENTS.md", "/");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->path, "/srv/other/AGENTS.md");
    EXPECT_EQ(t->display, "/srv/other/AGENTS.md");
}

TEST(AgentsTarget, FileMustNameAFile) {
    for (const char* bad : {"docs/", "..", "."}) {
        Result<AgentsTarget> t = resolve_agents_target(no_files, std::string("/work/repo"), bad, "/");
        ASSERT_FALSE(t) << bad;
        EXPECT_EQ(t.error().kind, Error::Kind::Usage) << bad;
    }
}

TEST(AgentsTarget, FindsTheWorkspaceRootLikeEveryCommand) {
    MemoryFileSystem mem;
    mem.add_directory("/work/repo/.small");
    mem.add_directory("/work/repo/src/deep");
    for (const char* cwd : {"/work/repo", "/work/repo/src/deep", "/work/repo/.small"}) {
        Result<AgentsTarget> t = resolve_agents_target(mem, std::nullopt, "", cwd);
        ASSERT_TRUE(t) << cwd;
        EXPECT_EQ(t->path, "/work/repo/AGENTS.md") << cwd;
    }
    EXPECT_EQ(resolve_agents_target(mem, std::nullopt, "", "/work/repo")->display, "AGENTS.md");
    EXPECT_EQ(resolve_agents_target(mem, std::nullopt, "", "/work/repo/src")->display, "/work/repo/AGENTS.md");
    // --dir may name the root or its .small/; it is not searched upwards from.
    EXPECT_EQ(resolve_agents_target(mem, std::string("/work/repo/.small"), "", "/")->path, "/work/repo/AGENTS.md");
    EXPECT_EQ(resolve_agents_target(mem, std::string("src"), "", "/work/repo")->path, "/work/repo/src/AGENTS.md");
    // No workspace: the current directory (AGENTS.md may come before init).
    EXPECT_EQ(resolve_agents_target(mem, std::nullopt, "", "/elsewhere")->path, "/elsewhere/AGENTS.md");
}

TEST(AgentsTarget, NeverInsideDotSmall) {
    for (const char* file : {".small/AGENTS.md", "/srv/other/.small/RULES.md"}) {
        Result<AgentsTarget> t = resolve_agents_target(no_files, std::string("/work/repo"), file, "/");
        ASSERT_FALSE(t) << file;
        EXPECT_EQ(t.error().kind, Error::Kind::Usage) << file;
        EXPECT_TRUE(contains(t.error().message, "never touch .small/")) << t.error().message;
    }
}

// ------------------------------------------------------------------- apply

TEST(AgentsApply, CreatesTheFileAndLeavesNoStagingFolder) {
    TempDir dir;
    Result<AgentsApplyResult> r = agents_apply_command(real_fs, apply_request(dir));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->action, AgentsAction::Created);
    EXPECT_TRUE(r->written);
    EXPECT_EQ(read_text(dir.path("AGENTS.md")), harness_block());
    EXPECT_FALSE(fs::exists(dir.path(".small-cache")));
}

TEST(AgentsApply, KeepsAnExistingStagingFolder) {
    TempDir dir;
    fs::create_directories(dir.path(".small-cache"));
    ASSERT_TRUE(agents_apply_command(real_fs, apply_request(dir)));
    EXPECT_TRUE(fs::is_directory(dir.path(".small-cache")));
}

TEST(AgentsApply, ReplacesAnExistingBlockInPlaceWithoutFlags) {
    TempDir dir;
    write_text(dir.path("AGENTS.md"), "# Header\n\n" + block_with_body("old harness text\n", "0.9") + "\n# Footer\n");
    Result<AgentsApplyResult> r = agents_apply_command(real_fs, apply_request(dir));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->action, AgentsAction::Updated);
    EXPECT_EQ(r->previous_version, "0.9");
    const std::string text = read_text(dir.path("AGENTS.md"));
    EXPECT_EQ(text, "# Header\n\n" + harness_block() + "\n# Footer\n");
    EXPECT_FALSE(contains(text, "old harness text"));
    EXPECT_EQ(count_of(text, "<!-- BEGIN SMALL HARNESS"), 1u);
}

TEST(AgentsApply, RefusesAFileWithoutBlockAndWithoutFlag) {
    TempDir dir;
    write_text(dir.path("AGENTS.md"), kTeamText);
    Result<AgentsApplyResult> r = agents_apply_command(real_fs, apply_request(dir));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    for (const char* part : {"AGENTS.md already exists without SMALL harness block.\nUse one of:", "--force (-f)",
                             "--overwrite-agents", "--agents-mode=append", "--agents-mode=prepend"}) {
        EXPECT_TRUE(contains(r.error().message, part)) << r.error().message;
    }
    EXPECT_EQ(read_text(dir.path("AGENTS.md")), kTeamText);
}

TEST(AgentsApply, AppendAndPrependCompose) {
    TempDir dir;
    write_text(dir.path("AGENTS.md"), kTeamText);
    AgentsApplyRequest req = apply_request(dir);
    req.agents_mode = "Append ";
    Result<AgentsApplyResult> appended = agents_apply_command(real_fs, req);
    ASSERT_TRUE(appended) << appended.error().message;
    EXPECT_EQ(appended->action, AgentsAction::Appended);
    EXPECT_EQ(read_text(dir.path("AGENTS.md")), "# Team agents\n\nBe kind.\n\n" + harness_block());

    write_text(dir.path("AGENTS.md"), kTeamText);
    req.agents_mode = "prepend";
    Result<AgentsApplyResult> prepended = agents_apply_command(real_fs, req);
    ASSERT_TRUE(prepended) << prepended.error().message;
    EXPECT_EQ(prepended->action, AgentsAction::Prepended);
    EXPECT_EQ(read_text(dir.path("AGENTS.md")), harness_block() + "\n# Team agents\n\nBe kind.\n");
}

TEST(AgentsApply, OverwriteReplacesTheWholeFileEvenWithABlockOrBadMarkers) {
    TempDir dir;
    AgentsApplyRequest req = apply_request(dir);
    req.overwrite = true;
    for (const std::string& before : {std::string(kTeamText), "# Header\n\n" + harness_block() + "\n# Footer\n",
                                      std::string("<!-- BEGIN SMALL HARNESS v1.0.0 -->\nno end\n")}) {
        write_text(dir.path("AGENTS.md"), before);
        Result<AgentsApplyResult> r = agents_apply_command(real_fs, req);
        ASSERT_TRUE(r) << r.error().message;
        EXPECT_EQ(r->action, AgentsAction::Overwrote);
        EXPECT_EQ(read_text(dir.path("AGENTS.md")), harness_block()) << before;
    }
}

TEST(AgentsApply, FlagErrorsAreUsageErrors) {
    TempDir dir;
    write_text(dir.path("AGENTS.md"), kTeamText);
    AgentsApplyRequest req = apply_request(dir);
    req.agents_mode = "overwrite";
    Result<AgentsApplyResult> bad_mode = agents_apply_command(real_fs, req);
    ASSERT_FALSE(bad_mode);
    EXPECT_EQ(bad_mode.error().kind, Error::Kind::Usage);
    EXPECT_EQ(bad_mode.error().message, "invalid agents-mode: \"overwrite\" (valid: append, prepend)");

    req.agents_mode = "append";
    req.overwrite = true;
    Result<AgentsApplyResult> both = agents_apply_command(real_fs, req);
    ASSERT_FALSE(both);
    EXPECT_EQ(both.error().kind, Error::Kind::Usage);
    EXPECT_EQ(both.error().message, "--agents-mode and --force/--overwrite-agents are mutually exclusive");
    EXPECT_EQ(read_text(dir.path("AGENTS.md")), kTeamText);
}

TEST(AgentsApply, MalformedMarkersNameTheFile) {
    TempDir dir;
    const std::string text = "# Rules\n<!-- BEGIN SMALL HARNESS v1.0.0 -->\n";
    write_text(dir.path("GOVERNANCE.md"), text);
    AgentsApplyRequest req = apply_request(dir, "GOVERNANCE.md");
    req.agents_mode = "append";
    Result<AgentsApplyResult> r = agents_apply_command(real_fs, req);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_EQ(r.error().message, "malformed GOVERNANCE.md: SMALL harness BEGIN marker found without END marker");
    EXPECT_EQ(read_text(dir.path("GOVERNANCE.md")), text);
}

TEST(AgentsApply, CustomFileGetsTheBlockAndAgentsMdIsNotCreated) {
    TempDir dir;
    Result<AgentsApplyResult> r = agents_apply_command(real_fs, apply_request(dir, "GOVERNANCE.md"));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(read_text(dir.path("GOVERNANCE.md")), harness_block());
    EXPECT_FALSE(fs::exists(dir.path("AGENTS.md")));
}

TEST(AgentsApply, DryRunDecidesButWritesNothing) {
    TempDir dir;
    AgentsApplyRequest req = apply_request(dir);
    req.dry_run = true;
    Result<AgentsApplyResult> missing = agents_apply_command(real_fs, req);
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->action, AgentsAction::Created);
    EXPECT_EQ(missing->new_content, harness_block());
    EXPECT_FALSE(missing->written);
    EXPECT_FALSE(fs::exists(dir.path("AGENTS.md")));
    EXPECT_FALSE(fs::exists(dir.path(".small-cache")));

    write_text(dir.path("AGENTS.md"), kTeamText);
    req.agents_mode = "append";
    Result<AgentsApplyResult> existing = agents_apply_command(real_fs, req);
    ASSERT_TRUE(existing);
    EXPECT_TRUE(existing->changed());
    EXPECT_EQ(read_text(dir.path("AGENTS.md")), kTeamText);
}

TEST(AgentsApply, IdenticalContentIsNotRewritten) {
    TempDir dir;
    write_text(dir.path("AGENTS.md"), harness_block());
    struct stat before {};
    ASSERT_EQ(::stat(dir.path("AGENTS.md").c_str(), &before), 0);
    Result<AgentsApplyResult> r = agents_apply_command(real_fs, apply_request(dir));
    ASSERT_TRUE(r);
    EXPECT_FALSE(r->changed());
    EXPECT_FALSE(r->written);
    struct stat after {};
    ASSERT_EQ(::stat(dir.path("AGENTS.md").c_str(), &after), 0);
    EXPECT_EQ(before.st_ino, after.st_ino);
}

TEST(AgentsApply, RefusesASymbolicLink) {
    TempDir dir;
    write_text(dir.path("real.md"), kTeamText);
    ASSERT_EQ(::symlink(dir.path("real.md").c_str(), dir.path("AGENTS.md").c_str()), 0);
    Result<AgentsApplyResult> r = apply_forced(dir);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(r.error().message, "symbolic link")) << r.error().message;
    EXPECT_EQ(read_text(dir.path("real.md")), kTeamText);
    EXPECT_TRUE(fs::is_symlink(dir.path("AGENTS.md")));
}

TEST(AgentsApply, MissingDirectoryIsNotCreated) {
    TempDir dir;
    Result<AgentsApplyResult> r = agents_apply_command(real_fs, apply_request(dir, "sub/AGENTS.md"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, Error::Kind::System);
    EXPECT_TRUE(contains(r.error().message, "does not exist")) << r.error().message;
    EXPECT_FALSE(fs::exists(dir.path("sub")));

    write_text(dir.path("plain"), "a file\n");
    Result<AgentsApplyResult> under_file = agents_apply_command(real_fs, apply_request(dir, "plain/AGENTS.md"));
    ASSERT_FALSE(under_file);
    EXPECT_TRUE(contains(under_file.error().message, "is not a directory")) << under_file.error().message;
}

// Root may write a read-only file: as root, the apply runs as user nobody.
TEST(AgentsApply, ReadOnlyFileIsASystemErrorAndStaysUnchanged) {
    TempDir dir;
    write_text(dir.path("AGENTS.md"), kTeamText);
    ASSERT_EQ(::chmod(dir.path("AGENTS.md").c_str(), 0444), 0);
    as_unprivileged(dir.path(), [&] {
        Result<AgentsApplyResult> r = apply_forced(dir);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().kind, Error::Kind::System);
        EXPECT_TRUE(contains(r.error().message, "read-only")) << r.error().message;
    });
    EXPECT_EQ(read_text(dir.path("AGENTS.md")), kTeamText);
}

TEST(AgentsApplyDiff, DescribesWhatChanges) {
    AgentsApplyResult created;
    created.new_content = harness_block();
    const std::string new_file = agents_apply_diff(created, "/d/AGENTS.md");
    EXPECT_EQ(new_file.rfind("--- /d/AGENTS.md (current)\n+++ /d/AGENTS.md (proposed)\n@@ -0,0 +1 @@\n+ <!-- BEGIN", 0),
              0u)
        << new_file;
    EXPECT_TRUE(contains(new_file, "+ <!-- END SMALL HARNESS v1.0.0 -->\n")) << new_file;

    AgentsApplyResult updated;
    updated.existed = true;
    updated.action = AgentsAction::Updated;
    updated.old_content = "# H\n\n" + block_with_body("old\n");
    updated.new_content = "# H\n\n" + harness_block();
    EXPECT_TRUE(contains(agents_apply_diff(updated, "p"),
                         "@@ SMALL harness block updated @@\n- [old block content]\n+ [new block content]\n"));

    AgentsApplyResult appended;
    appended.existed = true;
    appended.action = AgentsAction::Appended;
    appended.old_content = kTeamText;
    appended.new_content = std::string(kTeamText) + "\n" + harness_block();
    const std::string added = agents_apply_diff(appended, "p");
    EXPECT_TRUE(contains(added, "@@ SMALL harness block added @@\n+ <!-- BEGIN")) << added;
    EXPECT_FALSE(contains(added, "Team agents")) << added;

    AgentsApplyResult overwrote = appended;
    overwrote.action = AgentsAction::Overwrote;
    overwrote.new_content = harness_block();
    EXPECT_TRUE(contains(agents_apply_diff(overwrote, "p"), "@@ file contents changed @@\n"));

    AgentsApplyResult same;
    same.existed = true;
    same.old_content = same.new_content = harness_block();
    EXPECT_EQ(agents_apply_diff(same, "p"), "");
}

// ------------------------------------------------------------------- check

struct CheckCase {
    MemoryFileSystem fs;
    AgentsCheckRequest req;
    CheckCase() { req.target = *resolve_agents_target(no_files, std::string("/repo"), "AGENTS.md", "/"); }
    AgentsCheckReport run() {
        Result<AgentsCheckReport> r = agents_check_command(fs, req);
        EXPECT_TRUE(r) << r.error().message;
        return r ? *r : AgentsCheckReport{};
    }
};

TEST(AgentsCheck, MissingFileFailsUnlessAllowed) {
    CheckCase c;
    AgentsCheckReport missing = c.run();
    EXPECT_FALSE(missing.passed);
    EXPECT_FALSE(missing.has_file);
    EXPECT_EQ(missing.error, "AGENTS.md not found");
    EXPECT_EQ(missing.recommendation, "Run: small agents apply");
    EXPECT_EQ(missing.file_path, "/repo/AGENTS.md");

    c.req.allow_missing = true;
    AgentsCheckReport allowed = c.run();
    EXPECT_TRUE(allowed.passed);
    EXPECT_FALSE(allowed.has_file);
    EXPECT_EQ(allowed.error, "");
    EXPECT_EQ(allowed.recommendation, "File missing (allowed by --allow-missing)");
}

TEST(AgentsCheck, CanonicalBlockPassesStrict) {
    CheckCase c;
    c.fs.add_file("/repo/AGENTS.md", harness_block());
    c.req.strict = true;
    AgentsCheckReport r = c.run();
    EXPECT_TRUE(r.passed);
    EXPECT_TRUE(r.has_file);
    EXPECT_TRUE(r.has_block);
    EXPECT_TRUE(r.block_valid);
    EXPECT_FALSE(r.has_drift);
    EXPECT_EQ(r.block_version, "1.0.0");
    EXPECT_EQ(r.span_begin, 0u);
    EXPECT_EQ(r.span_end, harness_block().size() - 1);
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.recommendation, "");
}

TEST(AgentsCheck, NoBlockFailsOnlyWithStrict) {
    CheckCase c;
    c.fs.add_file("/repo/AGENTS.md", kTeamText);
    AgentsCheckReport lenient = c.run();
    EXPECT_TRUE(lenient.passed);
    EXPECT_FALSE(lenient.has_block);
    EXPECT_EQ(lenient.recommendation, "No SMALL harness block found (use --strict to enforce)");

    c.req.strict = true;
    AgentsCheckReport strict = c.run();
    EXPECT_FALSE(strict.passed);
    EXPECT_EQ(strict.error, "AGENTS.md exists but has no SMALL harness block");
    EXPECT_EQ(strict.recommendation, "Run: small agents apply --agents-mode=append");
}

TEST(AgentsCheck, MalformedMarkersFail) {
    CheckCase c;
    c.fs.add_file("/repo/AGENTS.md", "<!-- BEGIN SMALL HARNESS v1.0.0 -->\nno end\n");
    AgentsCheckReport r = c.run();
    EXPECT_FALSE(r.passed);
    EXPECT_TRUE(r.has_file);
    EXPECT_EQ(r.error, "SMALL harness BEGIN marker found without END marker");
    EXPECT_EQ(r.recommendation, "Fix malformed markers in AGENTS.md");
}

TEST(AgentsCheck, DriftIsReportedAndFailsOnlyWithStrict) {
    CheckCase c;
    c.fs.add_file("/repo/AGENTS.md",
                  block_with_body("## Ownership Rules\nmine\n## Artifact Rules\n## Strict Mode Rules\n"));
    AgentsCheckReport lenient = c.run();
    EXPECT_TRUE(lenient.passed);
    EXPECT_TRUE(lenient.block_valid);
    EXPECT_TRUE(lenient.has_drift);
    EXPECT_EQ(lenient.recommendation, "Block differs from canonical template. Run: small agents apply");

    c.req.strict = true;
    AgentsCheckReport strict = c.run();
    EXPECT_FALSE(strict.passed);
    EXPECT_EQ(strict.error, "block content differs from canonical template");
}

TEST(AgentsCheck, OlderMarkerVersionIsNamed) {
    CheckCase c;
    std::string old = harness_block();
    for (std::size_t pos = old.find("v1.0.0"); pos != std::string::npos; pos = old.find("v1.0.0")) {
        old.replace(pos, 6, "v0.9");
    }
    c.fs.add_file("/repo/AGENTS.md", old);
    AgentsCheckReport lenient = c.run();
    EXPECT_TRUE(lenient.passed);
    EXPECT_TRUE(lenient.has_drift);
    EXPECT_EQ(lenient.block_version, "0.9");
    EXPECT_TRUE(contains(lenient.recommendation, "v0.9")) << lenient.recommendation;

    c.req.strict = true;
    AgentsCheckReport strict = c.run();
    EXPECT_FALSE(strict.passed);
    EXPECT_EQ(strict.error, "block is v0.9, the current harness is v1.0.0");
}

TEST(AgentsCheck, BlockMissingASectionIsInvalid) {
    CheckCase c;
    c.fs.add_file("/repo/AGENTS.md", block_with_body("## Ownership Rules\n## Strict Mode Rules\n"));
    AgentsCheckReport r = c.run();
    EXPECT_FALSE(r.passed);
    EXPECT_TRUE(r.has_block);
    EXPECT_FALSE(r.block_valid);
    EXPECT_EQ(r.error, "block structure invalid: missing section: Artifact Rules");
    EXPECT_EQ(r.recommendation, "Run: small agents apply to regenerate block");
}

TEST(AgentsCheck, SpanIsTheByteOffsetOfTheMarkers) {
    CheckCase c;
    const std::string header = "# Header\n\n";
    c.fs.add_file("/repo/AGENTS.md", header + harness_block() + "\n# Footer\n");
    AgentsCheckReport r = c.run();
    EXPECT_TRUE(r.passed);
    EXPECT_EQ(r.span_begin, header.size());
    EXPECT_EQ(r.span_end, header.size() + harness_block().size() - 1);
}

TEST(AgentsCheck, CustomFileNameAppearsInMessages) {
    CheckCase c;
    c.req.target = *resolve_agents_target(no_files, std::string("/repo"), "GOVERNANCE.md", "/");
    EXPECT_EQ(c.run().error, "GOVERNANCE.md not found");
    c.fs.add_file("/repo/GOVERNANCE.md", harness_block());
    EXPECT_TRUE(c.run().passed);
}

// ------------------------------------------------------------------- print

TEST(AgentsPrint, MarkdownWithAndWithoutMarkers) {
    EXPECT_EQ(harness_print_text(true, HarnessFormat::Markdown), harness_block());
    const std::string body = harness_print_text(false, HarnessFormat::Markdown);
    EXPECT_EQ(body, harness_block_body());
    EXPECT_FALSE(contains(body, "<!--"));
    for (const char* heading : {"Ownership Rules", "Artifact Rules", "Strict Mode Rules", "Localhost HTTP Allowlist",
                                "Ralph Loop", "SMALL Execution Harness"}) {
        EXPECT_TRUE(contains(body, heading)) << heading;
    }
}

TEST(AgentsPrint, TheBlockSaysHowToWorkWithOneExamplePerSessionStep) {
    const std::string body = harness_block_body();
    // The session loop, in order.
    const std::vector<std::string> loop = {"`small status --brief` first", "small plan", "small progress add",
                                           "small checkpoint", "small handoff", "small check --strict"};
    std::size_t at = body.find("## How to work");
    ASSERT_NE(at, std::string::npos);
    for (const std::string& step : loop) {
        const std::size_t next = body.find(step, at);
        ASSERT_NE(next, std::string::npos) << step;
        at = next;
    }
    for (const char* example : {"`small plan --add \"", "`small progress add --task ", "`small checkpoint --task ",
                                "`small handoff --summary \""}) {
        EXPECT_TRUE(contains(body, example)) << example;
    }
    EXPECT_TRUE(contains(body, "Never edit `.small/` files by hand, except `intent.small.yml` and "
                               "`constraints.small.yml`"));
    // Several agents (D19): what one may take, and how it takes it.
    EXPECT_TRUE(contains(body, "`small ready` lists what you may take; `small claim --next` takes one as a lease"))
        << body;
    // A few lines: an agent reads this at the start of every session.
    EXPECT_LE(std::count(body.begin(), body.end(), '\n'), 60);
}

// An agent copies the examples: each command in backquotes that writes an
// entry is complete (task and status given), not a fragment.
TEST(AgentsPrint, EveryEntryExampleIsACompleteCommand) {
    const std::string body = harness_block_body();
    std::size_t examples = 0;
    for (std::size_t open = body.find('`'); open != std::string::npos; open = body.find('`', open + 1)) {
        const std::size_t close = body.find('`', open + 1);
        ASSERT_NE(close, std::string::npos);
        const std::string code = body.substr(open + 1, close - open - 1);
        open = close;
        if (code.rfind("small checkpoint ", 0) != 0 && code.rfind("small progress add ", 0) != 0) continue;
        ++examples;
        EXPECT_NE(code.find("--task "), std::string::npos) << code;
        EXPECT_NE(code.find("--status "), std::string::npos) << code;
    }
    EXPECT_GE(examples, 3u) << "the table's progress and checkpoint rows, and the blocked one";
    EXPECT_NE(body.find("--status blocked --evidence"), std::string::npos);
}

TEST(AgentsPrint, PlainRemovesMarkdownButKeepsTextAndIndentation) {
    const std::string plain = harness_print_text(true, HarnessFormat::Plain);
    EXPECT_FALSE(contains(plain, "<!--"));
    EXPECT_FALSE(contains(plain, "## "));
    EXPECT_FALSE(contains(plain, "**"));
    EXPECT_FALSE(contains(plain, "`"));
    EXPECT_TRUE(contains(plain, "\nOwnership Rules\n")) << plain;
    EXPECT_EQ(plain.back(), '\n');
    EXPECT_EQ(strip_markdown("## Title\n  - `x` is **bold**\n#hashtag\n"), "Title\n  - x is bold\n#hashtag\n");
}

TEST(AgentsPrint, FormatNames) {
    EXPECT_EQ(*parse_harness_format("md"), HarnessFormat::Markdown);
    EXPECT_EQ(*parse_harness_format("plain"), HarnessFormat::Plain);
    Result<HarnessFormat> bad = parse_harness_format("html");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().kind, Error::Kind::Usage);
}

// -------------------------------------- WriteScope::UserNamed writes (atomic_file)

WorkspacePaths paths_of(const TempDir& dir) {
    WorkspacePaths ws;
    ws.root = dir.root();
    ws.small_dir = dir.path(".small");
    return ws;
}

TEST(AtomicFileNamed, WritesAUserNamedFileAtTheRootOnly) {
    TempDir dir;
    const WorkspacePaths ws = paths_of(dir);
    ASSERT_TRUE(write_file_atomic(real_fs, ws, dir.path("GOVERNANCE.md"), "rules\n", {.scope = WriteScope::UserNamed}));
    EXPECT_EQ(read_text(dir.path("GOVERNANCE.md")), "rules\n");
    EXPECT_FALSE(write_file_atomic(real_fs, ws, dir.path("OTHER.md"), "x\n"));  // the D7 list still holds there

    fs::create_directories(dir.path("sub"));
    for (const std::string& bad : {dir.path("sub/x.md"), dir.path(".small"), dir.path(".small-cache"),
                                   dir.path("../x.md"), std::string("/etc/small-named-test")}) {
        const Status s = write_file_atomic(real_fs, ws, bad, "x\n", {.scope = WriteScope::UserNamed});
        ASSERT_FALSE(s) << bad;
        EXPECT_EQ(s.error().kind, Error::Kind::Invalid) << bad;
        EXPECT_TRUE(contains(s.error().message, "refusing to write")) << s.error().message;
    }
    EXPECT_FALSE(fs::exists(dir.path("sub/x.md")));
    EXPECT_FALSE(fs::exists("/etc/small-named-test"));
}

TEST(AtomicFileNamed, RefusesASymbolicLink) {
    TempDir dir;
    write_text(dir.path("real.md"), "precious\n");
    ASSERT_EQ(::symlink(dir.path("real.md").c_str(), dir.path("GOVERNANCE.md").c_str()), 0);
    const Status s = write_file_atomic(real_fs, paths_of(dir), dir.path("GOVERNANCE.md"), "x\n", {.scope = WriteScope::UserNamed});
    ASSERT_FALSE(s);
    EXPECT_TRUE(contains(s.error().message, "symbolic link")) << s.error().message;
    EXPECT_EQ(read_text(dir.path("real.md")), "precious\n");
}

}  // namespace
}  // namespace small
