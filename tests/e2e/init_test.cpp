// End-to-end tests of `small init` through the real binary.
#include <string>

#include <gtest/gtest.h>

#include "support/run_binary.hpp"

namespace {

using namespace small_e2e;

TEST(InitE2E, FreshWorkspacePassesEveryGate) {
    TempDir dir;
    RunResult r = run_in(dir.path(), {"init", "--intent", "Build a widget"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Initialized SMALL v1.0.0 in " + dir.str() + "/.small")) << r;
    for (const char* f : {"intent", "constraints", "plan", "progress", "handoff", "workspace"}) {
        EXPECT_TRUE(fs::is_regular_file(dir.path() / ".small" / (std::string(f) + ".small.yml"))) << f;
    }
    EXPECT_TRUE(contains(read_file(dir.path() / "AGENTS.md"), "<!-- BEGIN SMALL HARNESS v1.0.0 -->"));
    for (std::vector<std::string> gate : {std::vector<std::string>{"validate"}, {"lint", "--strict"},
                                          {"verify", "--strict"}, {"check", "--strict", "--format-strict"}}) {
        RunResult g = run_in(dir.path(), gate);
        EXPECT_EQ(g.exit_code, 0) << g;
    }
    // The pinned run id is what `small replay-id` computes for the templates.
    RunResult id = run_in(dir.path(), {"replay-id"});
    ASSERT_EQ(id.exit_code, 0) << id;
    const std::string ws = read_file(dir.path() / ".small" / "workspace.small.yml");
    EXPECT_TRUE(contains(ws, "replay_id: \"" + id.out.substr(0, 64) + "\"")) << ws;
    // No temporary files in .small/.
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir.path() / ".small")) { (void)e; ++n; }
    EXPECT_EQ(n, 6u);
}

TEST(InitE2E, RefusalsAndExitCodes) {
    TempDir dir;
    RunResult bad_mode = run_in(dir.path(), {"init", "--agents-mode", "overwrite"});
    EXPECT_EQ(bad_mode.exit_code, 2) << bad_mode;
    RunResult both = run_in(dir.path(), {"init", "--no-agents", "--overwrite-agents"});
    EXPECT_EQ(both.exit_code, 2) << both;
    EXPECT_FALSE(fs::exists(dir.path() / ".small"));

    write_file(dir.path() / "AGENTS.md", "# Team agents\n");
    RunResult agents = run_in(dir.path(), {"init"});
    EXPECT_EQ(agents.exit_code, 1) << agents;
    EXPECT_TRUE(contains(agents.err, "AGENTS.md already exists")) << agents;
    EXPECT_EQ(read_file(dir.path() / "AGENTS.md"), "# Team agents\n");
    EXPECT_FALSE(fs::exists(dir.path() / ".small"));

    RunResult ok = run_in(dir.path(), {"init", "--agents-mode", "prepend"});
    ASSERT_EQ(ok.exit_code, 0) << ok;
    const std::string text = read_file(dir.path() / "AGENTS.md");
    EXPECT_LT(text.find("END SMALL HARNESS"), text.find("# Team agents"));

    RunResult twice = run_in(dir.path(), {"init", "--no-agents"});
    EXPECT_EQ(twice.exit_code, 1) << twice;
    EXPECT_TRUE(contains(twice.err, "already exists")) << twice;
}

TEST(InitE2E, JsonIsOneDocumentOnSuccessAndFailure) {
    TempDir dir;
    RunResult r = run_in(dir.path(), {"init", "--json", "--no-agents"});
    ASSERT_EQ(r.exit_code, 0) << r;
    auto doc = parse_single_json(r.out);
    ASSERT_TRUE(doc) << r;
    EXPECT_EQ((*doc)["ok"], true);
    EXPECT_EQ((*doc)["workspace"], dir.str());
    EXPECT_EQ((*doc)["agents"]["action"], "skipped");
    EXPECT_EQ((*doc)["progress_entry"]["task_id"], "meta/init");
    EXPECT_EQ((*doc)["progress_entry"]["replayId"], (*doc)["replay_id"]);

    RunResult again = run_in(dir.path(), {"init", "--json", "--no-agents"});
    EXPECT_EQ(again.exit_code, 1) << again;
    auto err = parse_single_json(again.out);
    ASSERT_TRUE(err) << again;
    EXPECT_EQ((*err)["ok"], false);
    EXPECT_EQ((*err)["error"]["kind"], "invalid");
}

TEST(InitE2E, ForceKeepsProgressAndGitignoreLinesOnce) {
    TempDir dir;
    write_file(dir.path() / ".gitignore", "node_modules/");
    ASSERT_EQ(run_in(dir.path(), {"init", "--no-agents"}).exit_code, 0);
    const std::string before = read_file(dir.path() / ".small" / "progress.small.yml");
    RunResult r = run_in(dir.path(), {"init", "--force", "--no-agents", "--intent", "Again"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const std::string after = read_file(dir.path() / ".small" / "progress.small.yml");
    EXPECT_EQ(after.substr(0, before.size()), before);
    EXPECT_GT(after.size(), before.size());
    EXPECT_EQ(read_file(dir.path() / ".gitignore"), "node_modules/\n.small-cache/\n.small-runs/\n.small-archive/\n");
    RunResult check = run_in(dir.path(), {"check", "--strict"});
    EXPECT_EQ(check.exit_code, 0) << check;
}

TEST(InitE2E, DirDoesNotWalkUp) {
    TempDir dir;
    ASSERT_EQ(run_in(dir.path(), {"init", "--no-agents"}).exit_code, 0);
    fs::create_directories(dir.path() / "sub");
    RunResult nested = run_in(dir.path() / "sub", {"init", "--no-agents"});
    EXPECT_EQ(nested.exit_code, 0) << nested;  // init never walks up (D5): sub/ gets its own
    EXPECT_TRUE(fs::is_directory(dir.path() / "sub" / ".small"));
    EXPECT_TRUE(contains(nested.err, "Warning: initialized inside the workspace at " + dir.str() + " ")) << nested;
    RunResult other = run_in(dir.path(), {"init", "--dir", "a/b", "--no-agents"});
    EXPECT_EQ(other.exit_code, 0) << other;
    EXPECT_TRUE(fs::is_regular_file(dir.path() / "a" / "b" / ".small" / "plan.small.yml"));
}

TEST(InitE2E, NestedInitWarnsAndNamesTheOuterWorkspace) {
    TempDir dir;
    const RunResult outer = run_in(dir.path(), {"init", "--no-agents"});
    ASSERT_EQ(outer.exit_code, 0) << outer;
    EXPECT_FALSE(contains(outer.err, "Warning")) << outer;
    fs::create_directories(dir.path() / "pkg");
    const RunResult j = run_in(dir.path() / "pkg", {"init", "--no-agents", "--dir", "lib", "--json"});
    EXPECT_EQ(j.exit_code, 0) << j;
    const auto doc = parse_single_json(j.out);
    ASSERT_TRUE(doc) << j;
    EXPECT_EQ((*doc)["outer_workspace"], dir.str()) << j;
    ASSERT_EQ((*doc)["warnings"].size(), 1u) << j;
    EXPECT_TRUE(contains((*doc)["warnings"][0].get<std::string>(), "inside the workspace at " + dir.str())) << j;
    EXPECT_TRUE(fs::is_directory(dir.path() / "pkg" / "lib" / ".small"));
    const RunResult quiet = run_in(dir.path() / "pkg", {"init", "--no-agents", "--quiet"});
    EXPECT_EQ(quiet.exit_code, 0) << quiet;
    EXPECT_TRUE(quiet.err.empty()) << quiet;
}

}  // namespace
