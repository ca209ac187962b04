// End-to-end tests of `small run snapshot|list|show|diff|checkout` and
// `small archive` (inspection.md §4.2, §4.3 and the §5 hazards they fix):
// the real binary on workspaces in fresh temporary directories, the real
// `patch` for the diffs.
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nettle/sha2.h>
#include <nettle/version.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.hpp"

namespace {

using namespace small_e2e;

std::string pinned_run(const fs::path& root) {
    const std::string ws = read_file(root / ".small/workspace.small.yml");
    std::smatch m;
    EXPECT_TRUE(std::regex_search(ws, m, std::regex("replay_id: \"?([0-9a-f]{64})")));
    return m.size() > 1 ? m[1].str() : "";
}

// A workspace with a plan, some progress and a handoff; returns its run id.
std::string make_workspace(const fs::path& root, const std::string& task) {
    EXPECT_EQ(run_in(root, {"init", "--no-agents", "--intent", "Test run history"}).exit_code, 0);
    EXPECT_EQ(run_in(root, {"plan", "--add", task}).exit_code, 0);
    EXPECT_EQ(run_in(root, {"progress", "add", "--task", "task-1", "--status", "in_progress", "--evidence", "began"}).exit_code, 0);
    EXPECT_EQ(run_in(root, {"handoff", "--summary", "First run"}).exit_code, 0);
    return pinned_run(root);
}

bool have_patch() { return std::system("patch --version >/dev/null 2>&1") == 0; }

TEST(RunHistoryE2E, SnapshotStoresEverythingAndRefusesToOverwriteWithoutForce) {
    TempDir tmp;
    const fs::path root = tmp.path();
    const std::string id = make_workspace(root, "Write the parser");
    json doc = run_json(root, {"run", "snapshot"}, 0);
    const fs::path dir = root / ".small-runs" / id;
    EXPECT_EQ(doc.value("replayId", ""), id);
    for (const char* f : {"meta.json", "intent.small.yml", "plan.small.yml", "progress.small.yml", "handoff.small.yml"}) {
        EXPECT_TRUE(fs::is_regular_file(dir / f)) << f;
    }
    EXPECT_EQ(read_file(dir / "progress.small.yml"), read_file(root / ".small/progress.small.yml"));
    const json meta = json::parse(read_file(dir / "meta.json"));
    EXPECT_EQ(meta.value("replayId", ""), id);
    EXPECT_EQ(meta.value("source_dir", ""), root.string());
    EXPECT_TRUE(contains(read_file(root / ".small-runs/index.small.yml"), "snapshot"));

    RunResult again = run_in(root, {"run", "snapshot"});
    EXPECT_EQ(again.exit_code, 1) << again;
    EXPECT_TRUE(contains(again.err, "--force")) << again;
    ASSERT_EQ(run_in(root, {"progress", "add", "--task", "task-1", "--status", "completed", "--evidence", "done"}).exit_code, 0);
    doc = run_json(root, {"run", "snapshot", "--force"}, 0);
    EXPECT_TRUE(doc.value("replaced", false));
    EXPECT_EQ(read_file(dir / "progress.small.yml"), read_file(root / ".small/progress.small.yml"));
    // No side folder is left behind, and the index has both entries.
    for (const auto& e : fs::directory_iterator(root / ".small-runs")) {
        EXPECT_EQ(e.path().filename().string().find(".partial"), std::string::npos) << e.path();
        EXPECT_EQ(e.path().filename().string().find(".replacement"), std::string::npos) << e.path();
    }
    const std::string index = read_file(root / ".small-runs/index.small.yml");
    EXPECT_TRUE(contains(index, "previous_replay_id: " + id) || contains(index, "previous_replay_id: \"" + id)) << index;
}

TEST(RunHistoryE2E, ListShowDiffAndCheckoutAcrossTwoRuns) {
    TempDir tmp;
    const fs::path root = tmp.path();
    const std::string run1 = make_workspace(root, "Write the parser");
    ASSERT_EQ(run_in(root, {"run", "snapshot"}).exit_code, 0);
    ASSERT_EQ(run_in(root, {"reset", "--yes"}).exit_code, 0);
    const std::string run2 = pinned_run(root);
    ASSERT_NE(run1, run2);
    ASSERT_EQ(run_in(root, {"plan", "--add", "Write the printer"}).exit_code, 0);
    ASSERT_EQ(run_in(root, {"checkpoint", "--task", "task-1", "--status", "completed", "--evidence", "printed"}).exit_code, 0);
    ASSERT_EQ(run_in(root, {"handoff", "--summary", "Second run"}).exit_code, 0);
    ASSERT_EQ(run_in(root, {"run", "snapshot"}).exit_code, 0);

    // list: newest first, --limit.
    json list = run_json(root, {"run", "list"}, 0);
    ASSERT_GE(list["runs"].size(), 2u) << list.dump(2);
    EXPECT_EQ(list["runs"][0].value("replayId", ""), run2);
    EXPECT_EQ(list["runs"][0].value("summary", ""), "Second run");
    list = run_json(root, {"run", "list", "--limit", "1"}, 0);
    EXPECT_EQ(list["runs"].size(), 1u);
    EXPECT_TRUE(contains(run_in(root, {"run", "list"}).out, "created_at"));

    // show: artifacts and the snapshot's own progress.
    json show = run_json(root, {"run", "show", run1}, 0);
    EXPECT_EQ(show.value("summary", ""), "First run");
    EXPECT_EQ(show["meta"].value("replayId", ""), run1);
    EXPECT_GE(show["progress"].value("run_entries", 0), 1);

    // diff: real unified diffs that patch applies to a copy of run1.
    json diff = run_json(root, {"run", "diff", run1, run2, "--full"}, 0);
    EXPECT_GT(diff["progress"].value("entries_after", 0), diff["progress"].value("entries_before", 0));
    EXPECT_EQ(diff["progress"]["completed_delta"], json::array({"meta/reset", "task-1"})) << diff.dump(2);
    std::string patch_text;
    for (const json& f : diff["files"]) patch_text += f.value("diff", "");
    patch_text += diff["progress"].value("diff", "");
    ASSERT_TRUE(contains(patch_text, "@@ -")) << diff.dump(2);
    if (have_patch()) {
        const fs::path copy = tmp.path() / "copy";
        fs::copy(root / ".small-runs" / run1, copy);
        write_file(copy / "d.patch", patch_text);
        const std::string cmd = "cd '" + copy.string() + "' && patch -s -p1 < d.patch";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << patch_text;
        for (const char* f : {"intent.small.yml", "plan.small.yml", "progress.small.yml", "handoff.small.yml"}) {
            EXPECT_EQ(read_file(copy / f), read_file(root / ".small-runs" / run2 / f)) << f;
        }
    }
    // The text output applies too (patch skips the lines around the hunks).
    const RunResult text = run_in(root, {"run", "diff", run1, run2});
    EXPECT_TRUE(contains(text.out, "Progress summary:")) << text;
    EXPECT_TRUE(contains(text.out, "--- a/plan.small.yml\n+++ b/plan.small.yml\n@@ ")) << text;

    // checkout: refused without --force, then restores, pins and appends.
    const std::string log_before = read_file(root / ".small/progress.small.yml");
    const std::string plan_before = read_file(root / ".small/plan.small.yml");
    RunResult refused = run_in(root, {"run", "checkout", run1});
    EXPECT_EQ(refused.exit_code, 1) << refused;
    EXPECT_TRUE(contains(refused.err, "--force")) << refused;
    EXPECT_EQ(read_file(root / ".small/plan.small.yml"), plan_before);
    json co = run_json(root, {"run", "checkout", run1, "--force"}, 0);
    EXPECT_EQ(read_file(root / ".small/plan.small.yml"), read_file(root / ".small-runs" / run1 / "plan.small.yml"));
    EXPECT_EQ(read_file(root / ".small/handoff.small.yml"), read_file(root / ".small-runs" / run1 / "handoff.small.yml"));
    EXPECT_EQ(pinned_run(root), run1);
    const std::string log_after = read_file(root / ".small/progress.small.yml");
    ASSERT_GT(log_after.size(), log_before.size());
    EXPECT_EQ(log_after.substr(0, log_before.size()), log_before) << "the log is only appended to";
    EXPECT_TRUE(contains(log_after.substr(log_before.size()), "meta/checkout"));
    EXPECT_TRUE(contains(log_after.substr(log_before.size()), run1));
    const fs::path backup = co.value("backup", "");
    ASSERT_FALSE(backup.empty()) << co.dump(2);
    EXPECT_EQ(read_file(backup / "plan.small.yml"), plan_before);
    EXPECT_EQ(run_in(root, {"validate"}).exit_code, 0);
    EXPECT_EQ(run_in(root, {"verify", "--workspace", "root"}).exit_code, 0) << run_in(root, {"verify"});
}

TEST(RunHistoryE2E, CheckoutIntoAnotherWorkspaceFromItsStore) {
    TempDir tmp;
    const fs::path a = tmp.path() / "a", b = tmp.path() / "b";
    fs::create_directories(a), fs::create_directories(b);
    const std::string id = make_workspace(a, "Alpha task");
    ASSERT_EQ(run_in(a, {"run", "snapshot"}).exit_code, 0);
    make_workspace(b, "Beta task");
    EXPECT_EQ(run_in(b, {"run", "checkout", "--store", (a / ".small-runs").string(), id}).exit_code, 1);
    EXPECT_EQ(run_in(b, {"run", "checkout", "--store", (a / ".small-runs").string(), "--force", id}).exit_code, 0);
    EXPECT_TRUE(contains(read_file(b / ".small/plan.small.yml"), "Alpha task"));
    EXPECT_EQ(run_in(b, {"verify", "--workspace", "root"}).exit_code, 0);
}

TEST(RunHistoryE2E, PathLikeIdsAreRefusedBeforeTouchingTheDisk) {
    TempDir tmp;
    const fs::path root = tmp.path() / "ws";
    fs::create_directories(root);
    const std::string id = make_workspace(root, "Task");
    ASSERT_EQ(run_in(root, {"run", "snapshot"}).exit_code, 0);
    std::string upper = id;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const std::string& bad : {std::string("../.small"), std::string("../../ws"), std::string("/etc"),
                                   root.string() + "/.small", id + "/..", upper, id.substr(0, 63), id + ".1"}) {
        for (const std::vector<std::string>& args : {std::vector<std::string>{"run", "show", bad},
                                                     std::vector<std::string>{"run", "checkout", "--force", bad},
                                                     std::vector<std::string>{"run", "diff", id, bad}}) {
            const RunResult r = run_in(root, args);
            EXPECT_EQ(r.exit_code, 2) << r;
            EXPECT_TRUE(contains(r.err, "64 lower-case hex")) << r;
        }
    }
}

TEST(RunHistoryE2E, IdsPlantedInTheHandoffNeverNameAPath) {
    TempDir tmp;
    const fs::path root = tmp.path() / "ws";
    fs::create_directories(root);
    make_workspace(root, "Task");
    const fs::path handoff = root / ".small/handoff.small.yml";
    std::string text = read_file(handoff);
    text = std::regex_replace(text, std::regex("value: \"?[0-9a-f]{64}\"?"), "value: \"../../escaped\"");
    write_file(handoff, text);
    for (const std::vector<std::string>& args : {std::vector<std::string>{"run", "snapshot"},
                                                 std::vector<std::string>{"archive"}}) {
        const RunResult r = run_in(root, args);
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_TRUE(contains(r.err, "invalid replayId")) << r;
    }
    EXPECT_FALSE(fs::exists(tmp.path() / "escaped"));
    EXPECT_FALSE(fs::exists(root / ".small-runs"));
    EXPECT_FALSE(fs::exists(root / ".small-archive"));
}

TEST(RunHistoryE2E, SymlinkedStoresAndSnapshotsAreRefused) {
    TempDir tmp;
    const fs::path root = tmp.path() / "ws", elsewhere = tmp.path() / "elsewhere";
    fs::create_directories(root), fs::create_directories(elsewhere);
    const std::string id = make_workspace(root, "Task");
    fs::create_directory_symlink(elsewhere, root / ".small-runs");
    RunResult r = run_in(root, {"run", "snapshot"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(fs::is_empty(elsewhere));
    EXPECT_EQ(run_in(root, {"run", "list"}).exit_code, 1);
    fs::remove(root / ".small-runs");

    // A snapshot folder that is a link to another tree is not read.
    fs::create_directories(root / ".small-runs");
    fs::create_directories(elsewhere / "fake");
    write_file(elsewhere / "fake/plan.small.yml", "small_version: \"1.0.0\"\nowner: agent\ntasks: []\n");
    fs::create_directory_symlink(elsewhere / "fake", root / ".small-runs" / id);
    r = run_in(root, {"run", "checkout", "--force", id});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "symbolic link")) << r;
    EXPECT_FALSE(contains(read_file(root / ".small/plan.small.yml"), "tasks: []"));

    // A linked archive store is refused too.
    fs::create_directory_symlink(elsewhere, root / ".small-archive");
    r = run_in(root, {"archive"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_FALSE(fs::exists(elsewhere / id));
}

std::string sha256_of(const std::string& bytes) {
    sha256_ctx ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data()));
    uint8_t digest[SHA256_DIGEST_SIZE];
#if NETTLE_VERSION_MAJOR >= 4
    sha256_digest(&ctx, digest);
#else
    sha256_digest(&ctx, sizeof digest, digest);
#endif
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (uint8_t b : digest) out += std::string{kHex[b >> 4], kHex[b & 0xf]};
    return out;
}

// Issue 39: archive, archive --out and run snapshot copy the log streamed
// (one buffer, hashed while copied, whatever its length): the copy is the
// log byte for byte and the manifest holds its SHA-256; --verify hashes it
// streamed too.
TEST(RunHistoryE2E, ALongLogIsCopiedByteForByteWithItsHash) {
    TempDir tmp;
    const fs::path root = tmp.path() / "ws";
    fs::create_directories(root);
    const std::string id = make_workspace(root, "Task");
    const fs::path log_path = root / ".small/progress.small.yml";
    std::string log = read_file(log_path);
    for (int i = 0; i < 12000; ++i) {  // about 3 MB: several of the copy's 1 MiB pieces
        log += "  - timestamp: \"2026-01-01T00:00:00." + std::to_string(100000000 + i) +
               "Z\"\n    task_id: \"task-1\"\n    status: \"in_progress\"\n    evidence: \"step " + std::to_string(i) +
               " of a long log\"\n    replayId: \"" + id + "\"\n";
    }
    write_file(log_path, log);
    ASSERT_GT(log.size(), 2u << 20);
    const std::string digest = sha256_of(log);
    const auto archived_log = [&](const json& doc) {
        for (const json& f : doc["files"]) {
            if (f.value("name", "") == "progress.small.yml") return f;
        }
        return json();
    };

    json doc = run_json(root, {"archive"}, 0);
    const fs::path dir = root / ".small-archive" / id;
    EXPECT_EQ(archived_log(doc).value("sha256", ""), digest) << doc.dump(2);
    EXPECT_EQ(archived_log(doc).value("bytes", std::size_t{0}), log.size());
    EXPECT_TRUE(read_file(dir / "progress.small.yml") == log);
    EXPECT_TRUE(contains(read_file(dir / "archive.small.yml"), digest));
    EXPECT_EQ(run_in(root, {"archive", "--verify", dir.string()}).exit_code, 0);

    doc = run_json(root, {"archive", "--out", "out/big"}, 0);
    EXPECT_EQ(archived_log(doc).value("sha256", ""), digest);
    EXPECT_TRUE(read_file(root / "out/big/progress.small.yml") == log);
    EXPECT_EQ(run_in(root, {"archive", "--verify", (root / "out/big").string()}).exit_code, 0);

    run_json(root, {"run", "snapshot"}, 0);
    EXPECT_TRUE(read_file(root / ".small-runs" / id / "progress.small.yml") == log);

    // A byte changed deep in the copy (same size) is found by the streamed hash.
    std::string tampered = log;
    tampered[tampered.size() - 100] = tampered[tampered.size() - 100] == 'x' ? 'y' : 'x';
    write_file(dir / "progress.small.yml", tampered);
    doc = run_json(root, {"archive", "--verify", dir.string()}, 1);
    EXPECT_FALSE(doc.value("verified", true));
    EXPECT_TRUE(contains(doc.dump(), "mismatch")) << doc.dump(2);
}

TEST(RunHistoryE2E, ArchiveWritesAFreshFolderAndVerifiesIt) {
    TempDir tmp;
    const fs::path root = tmp.path() / "ws";
    fs::create_directories(root);
    const std::string id = make_workspace(root, "Task");
    json doc = run_json(root, {"archive"}, 0);
    const fs::path dir = root / ".small-archive" / id;
    EXPECT_EQ(doc.value("dir", ""), dir.string());
    EXPECT_EQ(doc["files"].size(), 6u) << doc.dump(2);
    EXPECT_EQ(run_in(root, {"archive", "--verify", dir.string()}).exit_code, 0);

    // Tampering and stale files are found.
    write_file(dir / "stale.txt", "old");
    RunResult v = run_in(root, {"archive", "--verify", dir.string()});
    EXPECT_EQ(v.exit_code, 1) << v;
    EXPECT_TRUE(contains(v.err, "unlisted  stale.txt")) << v;
    // A new archive of the run replaces the folder whole: no stale file survives.
    EXPECT_EQ(run_in(root, {"archive"}).exit_code, 0);
    EXPECT_FALSE(fs::exists(dir / "stale.txt"));
    write_file(dir / "plan.small.yml", "tampered\n");
    doc = run_json(root, {"archive", "--verify", dir.string()}, 1);
    EXPECT_FALSE(doc.value("verified", true));

    // --out: a new folder, never a non-empty one or a link; --include names only.
    doc = run_json(root, {"archive", "--out", "out/a1", "--include", "plan.small.yml,progress.small.yml"}, 0);
    EXPECT_EQ(doc["files"].size(), 2u);
    EXPECT_TRUE(fs::exists(root / "out/a1/archive.small.yml"));
    EXPECT_FALSE(fs::exists(root / "out/a1/intent.small.yml"));
    RunResult r = run_in(root, {"archive", "--out", "out/a1"});
    EXPECT_EQ(r.exit_code, 1) << r;
    fs::create_directory_symlink(tmp.path(), root / "out/link");
    r = run_in(root, {"archive", "--out", "out/link"});
    EXPECT_EQ(r.exit_code, 1) << r;
    for (const char* bad : {"../x", "/etc/passwd", ".small/plan.small.yml", "notes.txt"}) {
        r = run_in(root, {"archive", "--out", "out/a2", "--include", bad});
        EXPECT_EQ(r.exit_code, 2) << r;
    }
    EXPECT_FALSE(fs::exists(root / "out/a2"));
}

// Issue 24: --out reached .small/ through a link on the way, or through a
// workspace named by a linked --dir; `check --strict` then failed S4.
TEST(RunHistoryE2E, ArchiveOutNeverLandsInsideSmallThroughALink) {
    TempDir tmp;
    const fs::path root = tmp.path() / "ws";
    fs::create_directories(root);
    make_workspace(root, "Task");
    fs::create_directory_symlink(root / ".small", root / "lnk");
    RunResult r = run_in(root, {"archive", "--out", "lnk/x"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "--out would land inside a .small/ folder (really " + (root / ".small/x").string()))
        << r;
    r = run_in(root, {"archive", "--out", "lnk/deeper/x"});
    EXPECT_EQ(r.exit_code, 1) << r;
    fs::create_directory_symlink(root, tmp.path() / "linked-ws");
    r = run_in(root, {"archive", "--dir", (tmp.path() / "linked-ws").string(), "--out", ".small/z"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "--out would land inside a .small/ folder")) << r;
    r = run_in(tmp.path() / "linked-ws", {"archive", "--out", "lnk/y"});
    EXPECT_EQ(r.exit_code, 1) << r;
    fs::create_symlink(tmp.path() / "nowhere", root / "dangling");
    r = run_in(root, {"archive", "--out", "dangling/x"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "symbolic link that leads nowhere")) << r;
    EXPECT_FALSE(fs::exists(tmp.path() / "nowhere"));
    for (const char* stray : {"x", "deeper", "z", "y"}) EXPECT_FALSE(fs::exists(root / ".small" / stray)) << stray;
    EXPECT_EQ(run_in(root, {"check", "--strict"}).exit_code, 0);
    // A plain folder beside the link still works.
    EXPECT_EQ(run_in(root, {"archive", "--out", "out/a"}).exit_code, 0);
}

// Issue 24 (requirement 4): an artifact that is a link is not copied into
// an archive; the folder is not made.
TEST(RunHistoryE2E, ArchiveRefusesALinkedArtifact) {
    TempDir tmp;
    const fs::path root = tmp.path() / "ws";
    fs::create_directories(root);
    make_workspace(root, "Task");
    // A valid handoff outside (the run id is found), so the copy itself is what refuses it.
    write_file(tmp.path() / "secret.yml", read_file(root / ".small/handoff.small.yml"));
    fs::remove(root / ".small/handoff.small.yml");
    fs::create_symlink(tmp.path() / "secret.yml", root / ".small/handoff.small.yml");
    const RunResult r = run_in(root, {"archive", "--out", "out/a"});
    EXPECT_NE(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.err, "handoff.small.yml: it is a symbolic link")) << r;
    EXPECT_FALSE(fs::exists(root / "out/a"));
}

}  // namespace
