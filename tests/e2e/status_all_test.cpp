// `small status --all` with real git: two work trees and a branch no work
// tree has checked out, side by side (D19): the tasks whose status differs,
// each side's newest entry, the entries not merged here, the live claims and
// a task id added on two sides with different content.
#include <filesystem>

#include "support/git_fixture.hpp"

namespace small_e2e {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPlan =
    "small_version: \"1.0.0\"\nowner: \"agent\"\ntasks:\n"
    "  - id: task-1\n    title: Parse\n    status: pending\n"
    "  - id: task-2\n    title: Print\n    status: pending\n"
    "  - id: task-3\n    title: Ship\n    status: pending\n";

class StatusAllE2E : public GitRepoE2E {
protected:
    void SetUp() override {
        GitRepoE2E::SetUp();
        if (IsSkipped()) return;
        git_ok({"init", "-q", "-b", "main"});
        ASSERT_EQ(small({"init", "--intent", "Side by side", "--no-agents"}).exit_code, 0);
        write_file(repo() / ".small/plan.small.yml", kPlan);
        git_ok({"add", "-A"});
        git_ok({"commit", "-qm", "plan"});
    }
    fs::path feature() const { return tmp_.path() / "feature"; }

    // feature-a in its own work tree: task-2 started (log only) and task-4
    // "Feature thing" added, uncommitted. topic, not checked out: task-4
    // "Topic thing" added and committed.
    void diverge() {
        git_ok({"worktree", "add", "-q", "-b", "feature-a", feature().string()});
        ASSERT_EQ(small({"plan", "--add", "Feature thing"}, feature()).exit_code, 0);
        RunResult r = small({"progress", "add", "--task", "task-2", "--status", "in_progress", "--evidence", "started it"},
                            feature());
        ASSERT_EQ(r.exit_code, 0) << r;
        const fs::path topic = tmp_.path() / "topic";
        git_ok({"worktree", "add", "-q", "-b", "topic", topic.string()});
        // By hand, with the id feature-a took: D21 keeps `plan --add` from colliding.
        write_file(tmp_.path() / "topic-task.yml", "- id: task-4\n  title: Topic thing\n");
        ASSERT_EQ(small({"plan", "--from", (tmp_.path() / "topic-task.yml").string()}, topic).exit_code, 0);
        git_ok({"commit", "-qam", "topic work"}, topic);
        git_ok({"worktree", "remove", topic.string()});
    }
};

TEST_F(StatusAllE2E, ShowsEveryWorkTreeAndBranchAndWhatDiffers) {
    diverge();
    RunOptions o;
    o.cwd = repo();
    o.env = env_;
    o.env.push_back({"SMALL_AGENT", "alice"});
    ASSERT_EQ(run_small({"claim", "task-3"}, o).exit_code, 0);

    RunResult r = small({"status", "--all", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const json j = json::parse(r.out);
    ASSERT_EQ(j["sides"].size(), 3u) << j.dump(2);
    const json& main = j["sides"][0];
    const json& feat = j["sides"][1];
    const json& topic = j["sides"][2];
    EXPECT_EQ(main["name"], "main");
    EXPECT_TRUE(main["current"].get<bool>());
    EXPECT_EQ(feat["name"], "feature-a");
    EXPECT_EQ(fs::path(feat["worktree"].get<std::string>()), fs::canonical(feature()));
    EXPECT_EQ(topic["name"], "topic");
    EXPECT_TRUE(topic["worktree"].is_null());
    EXPECT_EQ(feat["newest"]["task_id"], "task-2");
    EXPECT_EQ(feat["newest"]["evidence"], "started it");
    EXPECT_EQ(main["unmerged_entries"], 0);
    // The plan edit's bookkeeping entry and the progress entry.
    EXPECT_EQ(feat["unmerged_entries"], 2) << feat.dump(2);
    EXPECT_EQ(topic["unmerged_entries"], 1) << topic.dump(2);
    EXPECT_EQ(feat["added_tasks"], json::array({"task-4"}));
    EXPECT_EQ(topic["added_tasks"], json::array({"task-4"}));

    ASSERT_EQ(j["differences"].size(), 2u) << j["differences"].dump(2);
    EXPECT_EQ(j["differences"][0]["id"], "task-2");
    EXPECT_EQ(j["differences"][0]["statuses"]["main"], "pending");
    EXPECT_EQ(j["differences"][0]["statuses"]["feature-a"], "in_progress");
    EXPECT_EQ(j["differences"][1]["id"], "task-4");
    EXPECT_TRUE(j["differences"][1]["statuses"]["main"].is_null());

    ASSERT_EQ(j["collisions"].size(), 1u);
    EXPECT_EQ(j["collisions"][0]["id"], "task-4");
    EXPECT_EQ(j["collisions"][0]["sides"][0]["side"], "feature-a");
    EXPECT_EQ(j["collisions"][0]["sides"][0]["title"], "Feature thing");
    EXPECT_EQ(j["collisions"][0]["sides"][1]["title"], "Topic thing");

    ASSERT_EQ(j["claims"].size(), 1u);
    EXPECT_EQ(j["claims"][0]["task"], "task-3");
    EXPECT_EQ(j["claims"][0]["agent"], "alice");

    r = small({"status", "--all"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "* main")) << r;
    EXPECT_TRUE(contains(r.out, "(branch, not checked out)")) << r;
    EXPECT_TRUE(contains(r.out, "2 entries not merged here")) << r;
    EXPECT_TRUE(contains(r.out, "task-2 Print\n      main: pending · feature-a: in_progress · topic: pending")) << r;
    EXPECT_TRUE(contains(r.out, "task-3: alice until")) << r;
    EXPECT_TRUE(contains(r.out, "task-4  feature-a: \"Feature thing\" · topic: \"Topic thing\"")) << r;
}

TEST_F(StatusAllE2E, FromAnotherWorkTreeThatOneIsCurrentAndTheMainOneIsBehind) {
    diverge();
    const RunResult r = small({"status", "--all", "--json"}, feature());
    ASSERT_EQ(r.exit_code, 0) << r;
    const json j = json::parse(r.out);
    EXPECT_FALSE(j["sides"][0]["current"].get<bool>());
    EXPECT_TRUE(j["sides"][1]["current"].get<bool>());
    EXPECT_EQ(j["sides"][0]["unmerged_entries"], 0) << "main has nothing feature-a lacks";
    EXPECT_TRUE(j["sides"][0]["added_tasks"].empty());
}

TEST_F(StatusAllE2E, ABranchThatMergedEverythingShowsNothingUnmerged) {
    git_ok({"branch", "old"});
    const RunResult r = small({"status", "--all", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const json j = json::parse(r.out);
    ASSERT_EQ(j["sides"].size(), 2u);
    EXPECT_EQ(j["sides"][1]["name"], "old");
    EXPECT_EQ(j["sides"][1]["unmerged_entries"], 0);
    EXPECT_TRUE(j["differences"].empty());
    EXPECT_TRUE(j["collisions"].empty());
    EXPECT_TRUE(contains(small({"status", "--all"}).out, "Tasks: the same status on every side"));
}

TEST_F(StatusAllE2E, AWorkspaceBelowTheTopIsReadAtTheSamePlaceOnEverySide) {
    const fs::path sub = repo() / "svc";
    fs::create_directory(sub);
    ASSERT_EQ(small({"init", "--intent", "Below the top", "--no-agents"}, sub).exit_code, 0);
    write_file(sub / ".small/plan.small.yml", kPlan);
    git_ok({"add", "-A"});
    git_ok({"commit", "-qm", "svc plan"});
    git_ok({"checkout", "-q", "-b", "side"});
    ASSERT_EQ(small({"plan", "--done", "task-1"}, sub).exit_code, 0);
    git_ok({"commit", "-qam", "task-1 done"});
    git_ok({"checkout", "-q", "main"});
    const RunResult r = small({"status", "--all", "--json"}, sub);
    ASSERT_EQ(r.exit_code, 0) << r;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["workspace"], "svc");
    ASSERT_EQ(j["sides"].size(), 2u) << j.dump(2);
    EXPECT_EQ(j["sides"][1]["name"], "side");
    EXPECT_TRUE(j["sides"][1]["has_workspace"].get<bool>()) << j.dump(2);
    EXPECT_EQ(j["sides"][1]["unmerged_entries"], 1);
    ASSERT_EQ(j["differences"].size(), 1u) << j.dump(2);
    EXPECT_EQ(j["differences"][0]["statuses"]["side"], "completed");
    EXPECT_EQ(j["differences"][0]["statuses"]["main"], "pending");
}

TEST_F(StatusAllE2E, DetachedWorkTreesAreNamedByTheirFolders) {
    git_ok({"worktree", "add", "-q", "--detach", (tmp_.path() / "one").string()});
    git_ok({"worktree", "add", "-q", "--detach", (tmp_.path() / "two").string()});
    const RunResult r = small({"status", "--all", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const json j = json::parse(r.out);
    ASSERT_EQ(j["sides"].size(), 3u) << j.dump(2);
    EXPECT_EQ(j["sides"][1]["name"], "HEAD (one)");
    EXPECT_EQ(j["sides"][2]["name"], "HEAD (two)");
}

// A long log (past the size read in windows) on every side, with comments
// and block scalars, and a side whose log does not parse: each side's log is
// read a range at a time, and says what the whole read said (issue 39).
TEST_F(StatusAllE2E, LongLogsOnEverySideAreReadInWindowsAndSayTheSame) {
    std::string log = read_file(repo() / ".small/progress.small.yml");
    for (int i = 0; i < 60000; ++i) {
        if (i % 1000 == 0) log += "  # batch " + std::to_string(i / 1000) + "\n";
        log += "  - timestamp: \"2026-01-01T00:00:00." + std::to_string(100000000 + i) +
               "Z\"\n    task_id: \"meta/bulk\"\n    status: \"completed\"\n    evidence: |\n      bulk entry " +
               std::to_string(i) + "\n      - not an item\n";
    }
    ASSERT_GT(log.size(), std::size_t{8} << 20) << "past LogWindows::stream_from_bytes";
    write_file(repo() / ".small/progress.small.yml", log);
    git_ok({"commit", "-qam", "long log"});

    const fs::path wide = tmp_.path() / "wide";
    git_ok({"worktree", "add", "-q", "-b", "wide", wide.string()});
    RunResult r = small({"progress", "add", "--task", "task-2", "--status", "in_progress", "--evidence", "wide work"}, wide);
    ASSERT_EQ(r.exit_code, 0) << r;
    const std::string block = "  # a note\n  - timestamp: \"2026-12-01T00:00:00.000000001Z\"\n    task_id: \"meta/note\"\n"
                              "    status: \"completed\"\n    evidence: |\n      first line\n      - second\n# end\n";
    write_file(wide / ".small/progress.small.yml", read_file(wide / ".small/progress.small.yml") + block);

    const fs::path far = tmp_.path() / "far";
    git_ok({"worktree", "add", "-q", "-b", "far", far.string()});
    r = small({"progress", "add", "--task", "task-3", "--status", "blocked", "--evidence", "far blocked"}, far);
    ASSERT_EQ(r.exit_code, 0) << r;
    git_ok({"commit", "-qam", "far work"}, far);
    git_ok({"worktree", "remove", far.string()});

    const fs::path broken = tmp_.path() / "broken";
    git_ok({"worktree", "add", "-q", "-b", "broken", broken.string()});
    write_file(broken / ".small/progress.small.yml", log + "  - timestamp: [unclosed\n");

    r = small({"status", "--all", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const json j = json::parse(r.out);
    ASSERT_EQ(j["sides"].size(), 4u) << j.dump(2);
    const json& main = j["sides"][0];
    const json& b = j["sides"][1];  // linked work trees by path
    const json& w = j["sides"][2];
    const json& f = j["sides"][3];
    EXPECT_EQ(w["name"], "wide");
    EXPECT_EQ(b["name"], "broken");
    EXPECT_EQ(f["name"], "far");
    EXPECT_EQ(main["newest"]["evidence"], "bulk entry 59999\n- not an item\n");
    EXPECT_EQ(main["unmerged_entries"], 0);
    EXPECT_EQ(w["newest"]["task_id"], "meta/note");
    EXPECT_EQ(w["newest"]["evidence"], "first line\n- second\n");
    EXPECT_EQ(w["unmerged_entries"], 2);
    EXPECT_EQ(f["newest"]["task_id"], "task-3");
    EXPECT_EQ(f["newest"]["status"], "blocked");
    EXPECT_EQ(f["unmerged_entries"], 1);
    // The malformed log: the whole read's message, where it is; no newest entry.
    EXPECT_TRUE(contains(b["problem"].get<std::string>(), "progress.small.yml:")) << b.dump(2);
    EXPECT_TRUE(b["newest"].is_null()) << b.dump(2);
    EXPECT_EQ(b["unmerged_entries"], 0);
    ASSERT_EQ(j["differences"].size(), 2u) << j["differences"].dump(2);
    EXPECT_EQ(j["differences"][0]["statuses"]["wide"], "in_progress");
    EXPECT_EQ(j["differences"][1]["statuses"]["far"], "blocked");

    const std::string loose = r.out;
    r = small({"status", "--all"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "2 entries not merged here")) << r;
    EXPECT_TRUE(contains(r.out, "task-3 Ship\n      main: pending · broken: pending · wide: pending · far: blocked")) << r;

    // far's log streamed from its loose object; packed, it is inflated whole
    // (and deltified against main's): the same report.
    git_ok({"repack", "-adq"});
    r = small({"status", "--all", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.out, loose);
}

TEST_F(StatusAllE2E, OutsideGitItIsAUsageError) {
    const fs::path plain = tmp_.path() / "plain";
    fs::create_directory(plain);
    ASSERT_EQ(small({"init", "--intent", "No git", "--no-agents"}, plain).exit_code, 0);
    const RunResult r = small({"status", "--all"}, plain);
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(contains(r.err, "not in a git repository")) << r;
    EXPECT_EQ(small({"status", "--all", "--brief"}).exit_code, 2) << "--all excludes --brief";
}

}  // namespace
}  // namespace small_e2e
