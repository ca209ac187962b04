// small init's library half: the AGENTS.md harness block engine, the
// .gitignore helper, the templates and init_workspace on a real temporary
// directory.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "small/model/agents_block.hpp"
#include "small/base/filesystem.hpp"
#include "small/ops/session/init.hpp"
#include "small/model/replay_id.hpp"
#include "small/base/timestamp.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/templates.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

namespace stdfs = std::filesystem;

using namespace small::testing;

// write_text into a folder made first.
void spit(const std::string& path, const std::string& bytes) {
    stdfs::create_directories(stdfs::path(path).parent_path());
    write_text(path, bytes);
}

InitRequest request_in(const std::string& dir) {
    InitRequest req;
    req.cwd = dir;
    req.lock_wait = std::chrono::milliseconds(0);
    return req;
}

// ------------------------------------------------------------ agents block

TEST(AgentsBlock, ModeParsing) {
    for (const char* ok : {"append", "Append", "APPEND", " append "}) {
        ASSERT_TRUE(parse_agents_mode(ok)) << ok;
        EXPECT_EQ(*parse_agents_mode(ok), AgentsMode::Append);
    }
    EXPECT_EQ(*parse_agents_mode("Prepend"), AgentsMode::Prepend);
    EXPECT_EQ(*parse_agents_mode(""), AgentsMode::None);
    for (const char* bad : {"invalid", "overwrite"}) {
        auto m = parse_agents_mode(bad);
        ASSERT_FALSE(m) << bad;
        EXPECT_EQ(m.error().kind, Error::Kind::Usage);
        EXPECT_NE(m.error().message.find("invalid agents-mode"), std::string::npos);
    }
}

TEST(AgentsBlock, CanonicalBlockHasMarkersAndSections) {
    const std::string& b = harness_block();
    EXPECT_EQ(b.rfind(std::string(kHarnessBeginMarker) + "\n# SMALL Execution Harness", 0), 0u);
    EXPECT_EQ(b.substr(b.size() - kHarnessEndMarker.size() - 1), std::string(kHarnessEndMarker) + "\n");
    for (const char* s : {"Ownership Rules", "Artifact Rules", "Strict Mode Rules", "Localhost HTTP Allowlist (Strict Mode)",
                          "Ralph Loop Behavior", "human", "agent", "localhost", "http://[::1]"}) {
        EXPECT_NE(b.find(s), std::string::npos) << s;
    }
}

TEST(AgentsBlock, FindErrors) {
    const std::string B = "<!-- BEGIN SMALL HARNESS v1.0.0 -->", E = "<!-- END SMALL HARNESS v1.0.0 -->";
    EXPECT_FALSE(find_harness_block("plain text")->found);
    auto ok = find_harness_block("x\n" + B + "\nbody\n" + E + "\ny");
    ASSERT_TRUE(ok);
    EXPECT_TRUE(ok->found);
    EXPECT_EQ(ok->begin, 2u);
    EXPECT_EQ(ok->version, "1.0.0");
    const std::vector<std::pair<std::string, std::string>> bad = {
        {B + B + E, "multiple SMALL harness BEGIN"},
        {B + E + E, "multiple SMALL harness END"},
        {B + "\n", "BEGIN marker found without END"},
        {E + "\n", "END marker found without BEGIN"},
        {E + "\n" + B, "END marker appears before BEGIN"},
    };
    for (const auto& [text, fragment] : bad) {
        auto r = find_harness_block(text);
        ASSERT_FALSE(r) << text;
        EXPECT_NE(r.error().message.find(fragment), std::string::npos) << r.error().message;
    }
    // Other versions are found too.
    EXPECT_EQ(find_harness_block("<!-- BEGIN SMALL HARNESS v0.9 -->\n<!-- END SMALL HARNESS v0.9 -->")->version, "0.9");
}

TEST(AgentsBlock, Compose) {
    const std::string& block = harness_block();
    EXPECT_EQ(*compose_agents_file("", AgentsMode::None), block);
    EXPECT_EQ(*compose_agents_file("\n# Team\n\n", AgentsMode::Append), "# Team\n\n" + block);
    EXPECT_EQ(*compose_agents_file("# Team\n", AgentsMode::Prepend), block + "\n# Team\n");
    EXPECT_FALSE(compose_agents_file("# Team\n", AgentsMode::None));
    const std::string old = "# Header\n\n<!-- BEGIN SMALL HARNESS v0.9 -->\nold text\n<!-- END SMALL HARNESS v0.9 -->\n\n# Footer\n";
    for (AgentsMode m : {AgentsMode::Append, AgentsMode::Prepend, AgentsMode::None}) {
        auto r = compose_agents_file(old, m);
        ASSERT_TRUE(r);
        EXPECT_EQ(*r, "# Header\n\n" + block + "\n# Footer\n");
        EXPECT_EQ(*compose_agents_file(*r, m), *r) << "idempotent";
    }
    EXPECT_FALSE(compose_agents_file("<!-- BEGIN SMALL HARNESS v1.0.0 -->\n", AgentsMode::Append));
}

// ------------------------------------------------------------ helpers

TEST(InitGitignore, AddsMissingLinesOnce) {
    std::vector<std::string> added;
    const std::string once = gitignore_with_runtime_lines("node_modules/", added);
    EXPECT_EQ(once, "node_modules/\n.small-cache/\n.small-runs/\n.small-archive/\n");
    EXPECT_EQ(added.size(), 3u);
    EXPECT_EQ(gitignore_with_runtime_lines(once, added), once);
    EXPECT_TRUE(added.empty());
    EXPECT_EQ(gitignore_with_runtime_lines("  .small-runs/  \n", added), "  .small-runs/  \n.small-cache/\n.small-archive/\n");
    EXPECT_EQ(gitignore_with_runtime_lines("", added), ".small-cache/\n.small-runs/\n.small-archive/\n");
}

TEST(InitRoot, ResolvesDirAndDotSmall) {
    EXPECT_EQ(resolve_init_root(std::nullopt, "/a/b"), "/a/b");
    EXPECT_EQ(resolve_init_root(std::string("sub/p"), "/a"), "/a/sub/p");
    EXPECT_EQ(resolve_init_root(std::string("/x/y/.small/"), "/a"), "/x/y");
    EXPECT_EQ(resolve_init_root(std::string("./"), "/a"), "/a");
}

TEST(InitTemplates, ReReadAndQuoteVersion) {
    for (const YamlValue& t : {intent_template(std::nullopt), constraints_template(), plan_template(), progress_template()}) {
        const std::string text = emit_document(t);
        EXPECT_EQ(text.rfind("small_version: \"1.0.0\"\n", 0), 0u) << text;
        EXPECT_TRUE(parse_yaml(text, "t")) << text;
    }
    EXPECT_EQ(intent_template(std::string("  "))["intent"], "Define project intent");
    EXPECT_EQ(intent_template(std::string("Ship it"))["intent"], "Ship it");
}

// ------------------------------------------------------------ init_workspace

TEST(InitWorkspace, CreatesEverything) {
    TempDir dir;
    RealFileSystem fs;
    InitRequest req = request_in(dir.root());
    req.intent = "Build a widget";
    auto r = init_command(fs, req);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_EQ(r->root, dir.root());
    for (const char* f : {"intent", "constraints", "plan", "progress", "handoff", "workspace"}) {
        EXPECT_TRUE(stdfs::is_regular_file(dir.root() + "/.small/" + f + ".small.yml")) << f;
    }
    EXPECT_FALSE(r->progress_kept);
    EXPECT_TRUE(is_valid_replay_id(r->replay_id));
    const std::string ws = read_text(dir.root() + "/.small/workspace.small.yml");
    EXPECT_NE(ws.find("kind: \"repo-root\""), std::string::npos);
    EXPECT_NE(ws.find("replay_id: \"" + r->replay_id + "\""), std::string::npos);
    const std::string handoff = read_text(dir.root() + "/.small/handoff.small.yml");
    EXPECT_NE(handoff.find("value: \"" + r->replay_id + "\""), std::string::npos);
    EXPECT_NE(handoff.find("source: \"auto\""), std::string::npos);
    EXPECT_EQ(handoff.find("current_task_id"), std::string::npos);

    auto progress = parse_yaml(read_text(dir.root() + "/.small/progress.small.yml"), "p");
    ASSERT_TRUE(progress);
    NodeRef entries = progress->root().find("entries");
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries.item(0).find("task_id").as_string(), "meta/init");
    EXPECT_EQ(entries.item(0).find("replayId").as_string(), r->replay_id);
    const std::string_view ts = entries.item(0).find("timestamp").as_string();
    EXPECT_TRUE(parse_progress_timestamp(ts));
    EXPECT_EQ(ts.size(), 30u);  // 9 fractional digits, Z
    // The log travels with the repository: no absolute path in it.
    EXPECT_EQ(read_text(dir.root() + "/.small/progress.small.yml").find(dir.root()), std::string::npos);

    // The pinned id is the D3 id of the templates on disk.
    auto intent = parse_yaml(read_text(dir.root() + "/.small/intent.small.yml"), "i");
    auto plan = parse_yaml(read_text(dir.root() + "/.small/plan.small.yml"), "p");
    auto cons = parse_yaml(read_text(dir.root() + "/.small/constraints.small.yml"), "c");
    EXPECT_EQ(*compute_replay_id(intent->root(), plan->root(), cons->root()), r->replay_id);

    EXPECT_EQ(read_text(dir.root() + "/.gitignore"), ".small-cache/\n.small-runs/\n.small-archive/\n");
    EXPECT_EQ(read_text(dir.root() + "/AGENTS.md"), harness_block());
    EXPECT_EQ(r->agents, AgentsAction::Created);
    // Nothing but the six files in .small/.
    std::size_t n = 0;
    for (const auto& e : stdfs::directory_iterator(dir.root() + "/.small")) { (void)e; ++n; }
    EXPECT_EQ(n, 6u);
}

TEST(InitWorkspace, InsideAnotherWorkspaceItWarnsAndNamesIt) {
    TempDir dir;
    RealFileSystem fs;
    InitRequest top = request_in(dir.root());
    top.no_agents = true;
    auto outer = init_command(fs, top);
    ASSERT_TRUE(outer) << outer.error().describe();
    EXPECT_TRUE(outer->outer_workspace.empty());
    EXPECT_TRUE(outer->warnings.empty());

    InitRequest nested = top;
    nested.dir = "a/b";
    auto inner = init_command(fs, nested);
    ASSERT_TRUE(inner) << inner.error().describe();
    EXPECT_EQ(inner->root, dir.root() + "/a/b");
    EXPECT_EQ(inner->outer_workspace, dir.root());
    ASSERT_EQ(inner->warnings.size(), 1u);
    EXPECT_NE(inner->warnings[0].find("inside the workspace at " + dir.root() + " "), std::string::npos)
        << inner->warnings[0];
    EXPECT_TRUE(stdfs::is_regular_file(dir.root() + "/a/b/.small/plan.small.yml"));
}

TEST(InitWorkspace, RefusesExistingWorkspaceWithoutForce) {
    TempDir dir;
    RealFileSystem fs;
    InitRequest req = request_in(dir.root());
    req.no_agents = true;
    ASSERT_TRUE(init_command(fs, req));
    const std::string before = read_text(dir.root() + "/.small/progress.small.yml");
    auto again = init_command(fs, req);
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().kind, Error::Kind::Invalid);
    EXPECT_NE(again.error().message.find("already exists"), std::string::npos);
    EXPECT_EQ(read_text(dir.root() + "/.small/progress.small.yml"), before);
}

TEST(InitWorkspace, ForceKeepsProgressBytesAndAppends) {
    TempDir dir;
    RealFileSystem fs;
    InitRequest req = request_in(dir.root());
    req.no_agents = true;
    ASSERT_TRUE(init_command(fs, req));
    const std::string before = read_text(dir.root() + "/.small/progress.small.yml");
    req.force = true;
    auto r = init_command(fs, req);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_TRUE(r->progress_kept);
    const std::string after = read_text(dir.root() + "/.small/progress.small.yml");
    EXPECT_EQ(after.substr(0, before.size()), before);
    EXPECT_EQ(count_of(after, "meta/init"), 2u);
    EXPECT_EQ(count_of(after, "small init --force; earlier entries kept"), 1u);
    EXPECT_EQ(after.find(dir.root()), std::string::npos);
}

TEST(InitWorkspace, ForceRefusesUnappendableProgressAndWritesNothing) {
    TempDir dir;
    RealFileSystem fs;
    spit(dir.root() + "/.small/progress.small.yml", "small_version: \"1.0.0\"\nentries: [\n");
    spit(dir.root() + "/.small/intent.small.yml", "mine\n");
    InitRequest req = request_in(dir.root());
    req.no_agents = true;
    req.force = true;
    auto r = init_command(fs, req);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_EQ(read_text(dir.root() + "/.small/intent.small.yml"), "mine\n");
    EXPECT_FALSE(stdfs::exists(dir.root() + "/.small/plan.small.yml"));
}

TEST(InitWorkspace, AgentsRules) {
    RealFileSystem fs;
    {
        TempDir dir;
        spit(dir.root() + "/AGENTS.md", "# Team agents\n");
        auto r = init_command(fs, request_in(dir.root()));
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
        EXPECT_NE(r.error().message.find("AGENTS.md already exists"), std::string::npos);
        EXPECT_NE(r.error().message.find("--agents-mode=prepend"), std::string::npos);
        EXPECT_EQ(read_text(dir.root() + "/AGENTS.md"), "# Team agents\n");
        EXPECT_FALSE(stdfs::exists(dir.root() + "/.small"));  // refused before any write
        EXPECT_FALSE(stdfs::exists(dir.root() + "/.small-cache"));
    }
    {
        TempDir dir;
        spit(dir.root() + "/AGENTS.md", "# Team agents\n");
        InitRequest req = request_in(dir.root());
        req.agents_mode = "append";
        auto r = init_command(fs, req);
        ASSERT_TRUE(r) << r.error().describe();
        EXPECT_EQ(r->agents, AgentsAction::Appended);
        EXPECT_EQ(read_text(dir.root() + "/AGENTS.md"), "# Team agents\n\n" + harness_block());
    }
    {
        TempDir dir;
        spit(dir.root() + "/AGENTS.md", "# Team agents\n");
        InitRequest req = request_in(dir.root());
        req.overwrite_agents = true;
        auto r = init_command(fs, req);
        ASSERT_TRUE(r);
        EXPECT_EQ(r->agents, AgentsAction::Overwrote);
        EXPECT_EQ(read_text(dir.root() + "/AGENTS.md"), harness_block());
    }
    {
        TempDir dir;
        spit(dir.root() + "/AGENTS.md", "<!-- END SMALL HARNESS v1.0.0 -->\n");
        InitRequest req = request_in(dir.root());
        req.agents_mode = "prepend";
        auto r = init_command(fs, req);
        ASSERT_FALSE(r);
        EXPECT_NE(r.error().message.find("failed to compose AGENTS.md"), std::string::npos);
        EXPECT_FALSE(stdfs::exists(dir.root() + "/.small"));
    }
}

TEST(InitWorkspace, FlagErrorsAreUsageAndWriteNothing) {
    TempDir dir;
    RealFileSystem fs;
    const auto check = [&](InitRequest req) {
        auto r = init_command(fs, req);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().kind, Error::Kind::Usage) << r.error().message;
        EXPECT_FALSE(stdfs::exists(dir.root() + "/.small"));
    };
    InitRequest a = request_in(dir.root());
    a.agents_mode = "overwrite";
    check(a);
    InitRequest b = request_in(dir.root());
    b.no_agents = b.overwrite_agents = true;
    check(b);
    InitRequest c = request_in(dir.root());
    c.no_agents = true;
    c.agents_mode = "append";
    check(c);
}

TEST(InitWorkspace, DirIsCreatedAndDotSmallMeansParent) {
    TempDir dir;
    RealFileSystem fs;
    InitRequest req = request_in(dir.root());
    req.dir = "sub/project/.small";
    req.no_agents = true;
    auto r = init_command(fs, req);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_EQ(r->root, dir.root() + "/sub/project");
    EXPECT_TRUE(stdfs::is_regular_file(dir.root() + "/sub/project/.small/plan.small.yml"));
    EXPECT_FALSE(stdfs::exists(dir.root() + "/.small"));
}

}  // namespace
}  // namespace small
