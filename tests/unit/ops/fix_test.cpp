// `small fix` (ops/fix.hpp) and the helpers under it: the versions,
// workspace, orphan-progress and runtime-layout repairs, in-place YAML
// edits, the superseding entries S2 honours, the moves of the change
// journal (including a crash part-way), backups and refusals.
#include "small/ops/maintenance/fix.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "small/check/invariants.hpp"
#include "small/check/orphan_progress.hpp"
#include "small/doc/yaml.hpp"
#include "small/doc/yaml_edit.hpp"
#include "small/domain/repairs.hpp"
#include "small/store/runtime_layout.hpp"
#include "small/store/workspace_change.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

namespace fs = std::filesystem;
namespace fx = small::test_fixtures;
using namespace small::testing;


// A valid workspace (run pinned) in a temporary directory.
struct Fixture {
    TempWorkspace t;
    Fixture() { testing::write_minimal_workspace(t.ws()); }
    void write(ArtifactType type, const std::string& text) const { write_text(file(artifact_file_name(type)), text); }
    std::string file(const std::string& name) const { return t.ws().path_of(name); }
    std::string read(const std::string& name) const { return read_text(file(name)); }
    Result<FixResult> fix(FixRequest req) const {
        req.lock_wait = std::chrono::milliseconds(2000);
        return fix_command(real_fs, t.ws(), req);
    }
    // Every file below .small/, with its bytes.
    std::map<std::string, std::string> snapshot() const {
        std::map<std::string, std::string> out;
        for (const auto& e : fs::recursive_directory_iterator(t.ws().small_dir)) {
            if (e.is_regular_file()) out[e.path().string()] = read_text(e.path().string());
        }
        return out;
    }
};

FixRequest all_request() {
    FixRequest req;
    req.versions = req.orphan_progress = req.runtime_layout = req.workspace = true;
    return req;
}

Document parse(const std::string& text) {
    Result<Document> doc = parse_yaml(text, "test");
    EXPECT_TRUE(doc.ok()) << text;
    return std::move(doc.value());
}

// --------------------------------------------------------------- nothing to do

TEST(Fix, NothingToFixWritesNothingAndMakesNoBackupFolder) {
    Fixture f;
    const auto before = f.snapshot();
    Result<FixResult> r = f.fix(all_request());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_FALSE(r->changed());
    EXPECT_TRUE(r->rewritten.empty());
    EXPECT_TRUE(r->appended.empty());
    EXPECT_EQ(r->backup_dir, "");
    EXPECT_EQ(f.snapshot(), before);
    EXPECT_FALSE(fs::exists(f.t.path(".small-cache/backups")));
}

TEST(Fix, NoSelectionIsAUsageError) {
    Fixture f;
    Result<FixResult> r = f.fix(FixRequest{});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Usage);
    EXPECT_NE(r.error().message.find("no fix selected"), std::string::npos);
}

// --------------------------------------------------------------- versions

TEST(FixVersions, QuotesOnlyTheValueAndKeepsCommentsAndSpacing) {
    Fixture f;
    f.write(ArtifactType::Intent, "# intent, by hand\nsmall_version: 1.0.0   # pinned\nowner: \"human\"  # me\n" +
                                      fx::kIntent.substr(fx::kIntent.find("intent:")));
    f.write(ArtifactType::Plan, "small_version: '1.0.0'\n" + fx::kPlan.substr(fx::kPlan.find("owner:")));
    f.write(ArtifactType::Constraints, "small_version: \"1.0.0\" # a '#' in a comment\n" +
                                           fx::kConstraints.substr(fx::kConstraints.find("owner:")));
    const std::string constraints = f.read("constraints.small.yml");
    FixRequest req;
    req.versions = true;
    Result<FixResult> r = f.fix(req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(f.read("intent.small.yml"), "# intent, by hand\nsmall_version: \"1.0.0\"   # pinned\nowner: \"human\"  # me\n" +
                                              fx::kIntent.substr(fx::kIntent.find("intent:")));
    EXPECT_EQ(f.read("plan.small.yml"), "small_version: \"1.0.0\"\n" + fx::kPlan.substr(fx::kPlan.find("owner:")));
    EXPECT_EQ(f.read("constraints.small.yml"), constraints);  // canonical: untouched, not "Changed"
    EXPECT_EQ(r->rewritten, (std::vector<std::string>{"intent.small.yml", "plan.small.yml"}));
    ASSERT_FALSE(r->backup_dir.empty());
    EXPECT_EQ(read_text(r->backup_dir + "/intent.small.yml").find("small_version: 1.0.0   # pinned"), 18u);
    EXPECT_TRUE(fs::exists(r->backup_dir + "/plan.small.yml"));
    EXPECT_FALSE(fs::exists(r->backup_dir + "/constraints.small.yml"));
    // lint's FMT-1 is satisfied now.
    const ArtifactSet set = load_artifacts(real_fs, f.t.ws());
    EXPECT_TRUE(check_version_quoting(real_fs, f.t.ws(), set, true).empty());
}

TEST(FixVersions, SecondRunChangesNothing) {
    Fixture f;
    f.write(ArtifactType::Plan, "small_version: 1.0.0\n" + fx::kPlan.substr(fx::kPlan.find("owner:")));
    FixRequest req;
    req.versions = true;
    ASSERT_TRUE(f.fix(req).ok());
    Result<FixResult> again = f.fix(req);
    ASSERT_TRUE(again.ok());
    EXPECT_FALSE(again->changed());
}

TEST(FixVersions, DryRunWritesNothing) {
    Fixture f;
    f.write(ArtifactType::Plan, "small_version: 1.0.0\n" + fx::kPlan.substr(fx::kPlan.find("owner:")));
    const auto before = f.snapshot();
    FixRequest req;
    req.versions = true;
    req.dry_run = true;
    Result<FixResult> r = f.fix(req);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->rewritten, std::vector<std::string>{"plan.small.yml"});
    EXPECT_EQ(r->backup_dir, "");
    EXPECT_EQ(f.snapshot(), before);
    EXPECT_FALSE(fs::exists(f.t.path(".small-cache")));
}

// Root may write a read-only file: as root, the fix runs as user nobody.
TEST(FixVersions, AReadOnlyFileIsRefusedAndNothingChanges) {
    Fixture f;
    f.write(ArtifactType::Plan, "small_version: 1.0.0\n" + fx::kPlan.substr(fx::kPlan.find("owner:")));
    f.write(ArtifactType::Intent, "small_version: 1.0.0\n" + fx::kIntent.substr(fx::kIntent.find("owner:")));
    ASSERT_EQ(::chmod(f.file("plan.small.yml").c_str(), 0444), 0);
    const auto before = f.snapshot();
    as_unprivileged(f.t.ws().root, [&] {
        FixRequest req;
        req.versions = true;
        Result<FixResult> r = f.fix(req);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().kind, Error::Kind::System);
        EXPECT_NE(r.error().message.find("read-only"), std::string::npos) << r.error().message;
    });
    EXPECT_EQ(f.snapshot(), before);  // the intent was not fixed alone either
    EXPECT_FALSE(fs::exists(f.t.path(".small-cache/backups")));
}

TEST(FixVersions, ASymlinkedCacheIsRefusedAndNothingIsWrittenThroughIt) {
    Fixture f;
    f.write(ArtifactType::Plan, "small_version: 1.0.0\n" + fx::kPlan.substr(fx::kPlan.find("owner:")));
    TempWorkspace elsewhere;
    fs::create_symlink(elsewhere.path(""), f.t.path(".small-cache"));
    const auto before = f.snapshot();
    FixRequest req;
    req.versions = true;
    Result<FixResult> r = f.fix(req);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(f.snapshot(), before);
    std::size_t outside = 0;
    for (const auto& e : fs::recursive_directory_iterator(elsewhere.path(""))) outside += e.is_regular_file() ? 1 : 0;
    EXPECT_EQ(outside, 0u) << "nothing may be written through the link";
}

// --------------------------------------------------------------- in-place YAML edits

TEST(YamlEdit, ChangesAndAppendsTopLevelScalarsKeepingComments) {
    const std::string text = "# metadata\nsmall_version: \"1.0.0\"\nowner: \"\"   # who\nkind: repo-root\n";
    const Document doc = parse(text);
    YamlValue target = to_yaml_value(doc.root());
    target["owner"] = "agent";
    target["kind"] = "examples";
    target["created_at"] = "2026-01-01T00:00:00.000000000Z";
    const MemberEdit out = edit_mapping_members(doc, target);
    ASSERT_TRUE(out.text) << out.why;
    EXPECT_EQ(*out.text, "# metadata\nsmall_version: \"1.0.0\"\nowner: \"agent\"   # who\nkind: examples\n"
                         "created_at: \"2026-01-01T00:00:00.000000000Z\"\n");
}

// D20: nested mappings (block or flow), `key:` with nothing, quoting as written.
TEST(YamlEdit, EditsNestedMembersAndEmptyValuesInPlace) {
    const Document doc = parse("owner:   # who\nrun:\n  by: 'me'\n  # the id\n  id: x\nmore: {a: 'b', c: d}\n");
    YamlValue target = to_yaml_value(doc.root());
    target["owner"] = "agent";
    target["run"]["by"] = "you";
    target["run"]["new"] = "n";
    target["more"]["a"] = "it's";
    target["more"]["c"] = "e, f";
    const MemberEdit out = edit_mapping_members(doc, target);
    ASSERT_TRUE(out.text) << out.why;
    EXPECT_EQ(*out.text,
              "owner: \"agent\"   # who\nrun:\n  by: 'you'\n  # the id\n  id: x\n  new: \"n\"\nmore: {a: \"it's\", c: \"e, f\"}\n");
}

TEST(YamlEdit, AKeyWithNothingGetsItsValueAfterTheColon) {
    for (const std::string rest : {"run: {id: x}\n", "run: 2\n", ""}) {
        for (const std::string key : {"updated_at", "'updated_at'", "\"updated_at\""}) {
            const std::string text = "a: 1\n" + key + ":  # when\n" + rest;
            const Document doc = parse(text);
            YamlValue target = to_yaml_value(doc.root());
            target["updated_at"] = "x";
            const MemberEdit out = edit_mapping_members(doc, target);
            ASSERT_TRUE(out.text) << text << out.why;
            EXPECT_EQ(*out.text, "a: 1\n" + key + ": \"x\"  # when\n" + rest);
        }
    }
}

TEST(YamlEdit, GivesUpWhereAnInPlaceEditCannotBeMadeAndSaysWhere) {
    const Document flow = parse("{small_version: \"1.0.0\", owner: x}\n");
    YamlValue target = to_yaml_value(flow.root());
    target["kind"] = "repo-root";
    MemberEdit out = edit_mapping_members(flow, target);
    EXPECT_FALSE(out.text);
    EXPECT_EQ(out.why, "a field is added to a flow mapping");
    const Document block = parse("a: 1\nb: 2\n");
    YamlValue removed = YamlValue::object();
    removed["a"] = 1;
    out = edit_mapping_members(block, removed);
    EXPECT_FALSE(out.text);
    EXPECT_EQ(out.why, "the field `b` is removed");
    EXPECT_EQ(out.line, 2u);
    const Document nested = parse("a: 1\nrun: {id: x}\n");
    YamlValue added = to_yaml_value(nested.root());
    added["run"]["by"] = "me";
    out = edit_mapping_members(nested, added);
    EXPECT_FALSE(out.text);
    EXPECT_EQ(out.line, 2u);
}

// --------------------------------------------------------------- workspace

TEST(FixWorkspace, MissingFileIsCreatedWithTheHandoffsRunId) {
    Fixture f;
    fs::remove(f.file("workspace.small.yml"));
    FixRequest req;
    req.workspace = true;
    req.scope = WorkspaceScope::Any;
    Result<FixResult> r = f.fix(req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_TRUE(r->workspace);
    EXPECT_TRUE(r->workspace->created);
    EXPECT_EQ(r->backup_dir, "");  // nothing existed to back up
    Result<WorkspaceMetadata> meta = load_workspace_metadata(real_fs, f.t.ws());
    ASSERT_TRUE(meta.ok());
    EXPECT_EQ(meta->kind, WorkspaceKind::RepoRoot);
    EXPECT_EQ(meta->run_replay_id, fx::kRunId);
    EXPECT_NE(f.read("workspace.small.yml").find("owner: \"agent\""), std::string::npos);
}

TEST(FixWorkspace, RepairsInPlaceKeepingCommentsUnknownKeysAndTheRunId) {
    Fixture f;
    const std::string text = std::string("# workspace, hand-edited\nsmall_version: \"1.0.0\"\nkind: \"bogus\"  # typo\n") +
                             "team: \"core\"\nrun:\n  replay_id: \"" + fx::kRunId + "\"\n";
    write_text(f.file("workspace.small.yml"), text);
    FixRequest req;
    req.workspace = true;
    Result<FixResult> r = f.fix(req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    const std::string now = f.read("workspace.small.yml");
    EXPECT_EQ(now.rfind("# workspace, hand-edited\nsmall_version: \"1.0.0\"\nkind: \"repo-root\"  # typo\nteam: \"core\"\n", 0), 0u) << now;
    EXPECT_NE(now.find("owner: \"agent\""), std::string::npos);
    EXPECT_NE(now.find("created_at: "), std::string::npos);
    EXPECT_NE(now.find("updated_at: "), std::string::npos);
    EXPECT_TRUE(r->workspace->comments_kept);
    ASSERT_FALSE(r->backup_dir.empty());
    EXPECT_EQ(read_text(r->backup_dir + "/workspace.small.yml"), text);
    Result<WorkspaceMetadata> meta = load_workspace_metadata(real_fs, f.t.ws());
    ASSERT_TRUE(meta.ok());
    EXPECT_EQ(meta->run_replay_id, fx::kRunId);
}

// D20: a plain wrong version, an owner with nothing after it, a plain kind:
// each value's own bytes change (the version quoted as the protocol asks);
// where the file cannot be edited in place, the result says where and why.
TEST(FixWorkspace, RepairsValuesWrittenPlainOrLeftEmptyInPlace) {
    Fixture f;
    const std::string tail = "created_at: 2026-01-01T00:00:00Z\nupdated_at: 2026-01-01T00:00:00Z\nrun:\n  replay_id: \"" +
                             std::string(fx::kRunId) + "\"\n";
    write_text(f.file("workspace.small.yml"), "small_version: 0.9  # old\nowner:   # who?\nkind: bogus\n" + tail);
    const WorkspaceRepair r = plan_workspace_repair(real_fs, f.t.ws(), {}, "2030-01-01T00:00:00.000000000Z");
    EXPECT_TRUE(r.comments_kept) << r.rewrite_reason;
    EXPECT_EQ(r.bytes, "small_version: \"1.0.0\"  # old\nowner: \"agent\"   # who?\nkind: repo-root\n"
                       "created_at: 2026-01-01T00:00:00Z\nupdated_at: \"2030-01-01T00:00:00.000000000Z\"\nrun:\n"
                       "  replay_id: \"" + std::string(fx::kRunId) + "\"\n");

    write_text(f.file("workspace.small.yml"), "small_version: \"1.0.0\"\nowner: agent\nkind: bogus\n" + tail +
                                                  "notes: &n x\nmore: *n\n");
    const WorkspaceRepair alias = plan_workspace_repair(real_fs, f.t.ws(), {}, "2030-01-01T00:00:00.000000000Z");
    EXPECT_TRUE(alias.comments_kept) << "an alias elsewhere does not stop an in-place edit";
    write_text(f.file("workspace.small.yml"), "small_version: \"1.0.0\"\nowner: agent\nkind: >\n  bogus\n" + tail);
    const WorkspaceRepair folded = plan_workspace_repair(real_fs, f.t.ws(), {}, "2030-01-01T00:00:00.000000000Z");
    EXPECT_FALSE(folded.comments_kept);
    EXPECT_EQ(folded.rewrite_reason, f.t.ws().display_of("workspace.small.yml") + ":3: the value of `kind` is not a one-line scalar");
}

TEST(FixWorkspace, ValidFileNeedsNoChangeUnlessForced) {
    Fixture f;
    const WorkspaceRepair ok = plan_workspace_repair(real_fs, f.t.ws(), {}, "2026-01-01T00:00:00.000000000Z");
    EXPECT_TRUE(ok.changes.empty());
    const WorkspaceRepair forced = plan_workspace_repair(real_fs, f.t.ws(), {WorkspaceKind::Examples, true},
                                                         "2026-01-01T00:00:00.000000000Z");
    ASSERT_EQ(forced.changes.size(), 2u);
    EXPECT_EQ(forced.changes[0].key, "kind");
    EXPECT_EQ(forced.changes[1].key, "updated_at");
    EXPECT_NE(forced.bytes.find("kind: \"examples\""), std::string::npos);
}

TEST(FixWorkspace, UnparseableFileIsReplacedAndBackedUp) {
    Fixture f;
    write_text(f.file("workspace.small.yml"), "kind: [unclosed\n");
    FixRequest req;
    req.workspace = true;
    Result<FixResult> r = f.fix(req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(r->workspace->replaced_unreadable);
    EXPECT_EQ(read_text(r->backup_dir + "/workspace.small.yml"), "kind: [unclosed\n");
    EXPECT_TRUE(load_workspace_metadata(real_fs, f.t.ws()).ok());
}

// --------------------------------------------------------------- orphan progress

std::string entry_text(const std::string& stamp, const std::string& task, const std::string& run_id) {
    return "  - timestamp: \"" + stamp + "\"\n    task_id: \"" + task + "\"\n    status: \"completed\"\n" +
           "    evidence: \"done\"  # kept\n" + (run_id.empty() ? "" : "    replayId: \"" + run_id + "\"\n");
}

const std::string kOtherRun = std::string(64, 'b');

std::string orphan_log() {
    return fx::kProgress + entry_text("2025-06-01T10:00:01.000000000Z", "task-1", fx::kRunId) +
           entry_text("2025-06-01T10:00:02.000000000Z", "reset", fx::kRunId) +
           entry_text("2025-06-01T10:00:03.000000000Z", "task-99", fx::kRunId) +
           entry_text("2025-06-01T10:00:04.000000000Z", "custom task", fx::kRunId) +
           entry_text("2025-06-01T10:00:05.000000000Z", "task-legacy", kOtherRun) +
           entry_text("2025-06-01T10:00:06.000000000Z", "meta/keep", fx::kRunId);
}

std::vector<Finding> strict_findings(const Fixture& f) {
    InvariantOptions options;
    options.strict = true;
    options.run_replay_id = fx::kRunId;
    std::vector<Finding> out;
    for (Finding& finding : check_invariants(load_artifacts(real_fs, f.t.ws()), options)) {
        if (finding.rule == "S2") out.push_back(std::move(finding));
    }
    return out;
}

TEST(FixOrphans, SupersedesByAppendingAndTheLogOnlyGrows) {
    Fixture f;
    const std::string log = orphan_log();
    f.write(ArtifactType::Progress, log);
    ASSERT_EQ(strict_findings(f).size(), 1u);
    FixRequest req;
    req.orphan_progress = true;
    Result<FixResult> r = f.fix(req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_TRUE(r->orphans);
    ASSERT_EQ(r->orphans->rewrites.size(), 3u);
    EXPECT_EQ(r->orphans->rewrites[0].new_task_id, "meta/reset");
    EXPECT_EQ(r->orphans->rewrites[0].category, "operational");
    EXPECT_EQ(r->orphans->rewrites[1].new_task_id, "meta/historical/task-99");
    EXPECT_EQ(r->orphans->rewrites[2].new_task_id, "meta/historical/unknown/custom-task");
    EXPECT_EQ(r->appended, (std::vector<std::string>{"meta/reset", "meta/historical/task-99",
                                                     "meta/historical/unknown/custom-task", "meta/reconcile-plan"}));
    const std::string now = f.read("progress.small.yml");
    EXPECT_EQ(now.substr(0, log.size()), log) << "existing bytes are never rewritten";
    EXPECT_GT(now.size(), log.size());
    EXPECT_EQ(r->backup_dir, "");  // nothing was rewritten
    EXPECT_TRUE(strict_findings(f).empty());
    Result<FixResult> again = f.fix(req);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->orphans->rewrites.empty());
    EXPECT_EQ(f.read("progress.small.yml"), now);
}

TEST(FixOrphans, AnEntryEditedAfterItWasSupersededIsAnOrphanAgain) {
    Fixture f;
    f.write(ArtifactType::Progress, orphan_log());
    FixRequest req;
    req.orphan_progress = true;
    ASSERT_TRUE(f.fix(req).ok());
    std::string log = f.read("progress.small.yml");
    const std::string was = "task_id: \"task-99\"\n    status: \"completed\"";
    log.replace(log.find(was), was.size(), "task_id: \"task-99\"\n    status: \"cancelled\"");
    write_text(f.file("progress.small.yml"), log);
    EXPECT_EQ(strict_findings(f).size(), 1u);
}

TEST(FixOrphans, MetaIdsFollowTheReferencesMapping) {
    EXPECT_EQ(orphan_meta_id("init").first, "meta/init");
    EXPECT_EQ(orphan_meta_id("task-12").first, "meta/historical/task-12");
    EXPECT_EQ(orphan_meta_id("task-").second, "unknown");
    EXPECT_EQ(orphan_meta_id("a/b c").first, "meta/historical/unknown/a-b-c");
}

// --------------------------------------------------------------- runtime layout

TEST(FixLayout, MovesLegacyStoresWithoutOverwritingAndRecordsIt) {
    Fixture f;
    fs::create_directories(f.t.path(".small/archive/run-1"));
    write_text(f.t.path(".small/archive/run-1/archive.small.yml"), "a: 1\n");
    fs::create_directories(f.t.path(".small/runs"));
    write_text(f.t.path(".small/runs/index.small.yml"), "i: 1\n");
    const std::string log = f.read("progress.small.yml");
    FixRequest req;
    req.runtime_layout = true;
    Result<FixResult> r = f.fix(req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(read_text(f.t.path(".small-archive/run-1/archive.small.yml")), "a: 1\n");
    EXPECT_EQ(read_text(f.t.path(".small-runs/index.small.yml")), "i: 1\n");
    EXPECT_FALSE(fs::exists(f.t.path(".small/archive")));
    EXPECT_FALSE(fs::exists(f.t.path(".small/runs")));
    ASSERT_EQ(r->layout->migrations.size(), 2u);
    EXPECT_EQ(r->layout->migrations[0].moved, std::vector<std::string>{".small/archive/run-1 -> .small-archive/run-1"});
    EXPECT_EQ(r->appended, std::vector<std::string>{"meta/reconcile-runtime-layout"});
    EXPECT_EQ(f.read("progress.small.yml").substr(0, log.size()), log);
    Result<FixResult> again = f.fix(req);
    ASSERT_TRUE(again.ok());
    EXPECT_FALSE(again->changed());
}

TEST(FixLayout, IdenticalFilesAreDedupedAndDifferentOnesRefused) {
    Fixture f;
    fs::create_directories(f.t.path(".small/runs"));
    fs::create_directories(f.t.path(".small-runs"));
    write_text(f.t.path(".small/runs/index.small.yml"), "same\n");
    write_text(f.t.path(".small-runs/index.small.yml"), "same\n");
    Result<LayoutPlan> plan = plan_runtime_layout(RealFileSystem(), f.t.ws());
    ASSERT_TRUE(plan.ok());
    EXPECT_TRUE(plan->migrations.empty());
    EXPECT_EQ(plan->deduped, std::vector<std::string>{".small/runs/index.small.yml"});

    write_text(f.t.path(".small-runs/index.small.yml"), "different\n");
    fs::create_directories(f.t.path(".small/archive/x"));
    write_text(f.t.path(".small/archive/x/a"), "a\n");
    FixRequest req;
    req.runtime_layout = true;
    Result<FixResult> r = f.fix(req);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("different content"), std::string::npos) << r.error().message;
    EXPECT_TRUE(fs::exists(f.t.path(".small/archive/x/a"))) << "nothing moved when one path conflicts";
    EXPECT_EQ(read_text(f.t.path(".small-runs/index.small.yml")), "different\n");
}

TEST(FixLayout, SymlinkedLegacyOrCanonicalStoresAreRefused) {
    Fixture f;
    TempWorkspace elsewhere;
    fs::create_directory_symlink(elsewhere.path(""), f.t.path(".small/runs"));
    EXPECT_FALSE(plan_runtime_layout(RealFileSystem(), f.t.ws()).ok());
    fs::remove(f.t.path(".small/runs"));
    fs::create_directories(f.t.path(".small/runs"));
    write_text(f.t.path(".small/runs/index.small.yml"), "i\n");
    fs::create_directory_symlink(elsewhere.path(""), f.t.path(".small-runs"));
    EXPECT_FALSE(plan_runtime_layout(RealFileSystem(), f.t.ws()).ok());
}

// Issue 24: a link inside .small/runs/ was moved as it was.
TEST(FixLayout, ALinkInsideALegacyStoreIsRefusedNotMoved) {
    Fixture f;
    TempWorkspace elsewhere;
    fs::create_directories(f.t.path(".small/runs/r1"));
    write_text(f.t.path(".small/runs/r1/meta.json"), "{}");
    fs::create_directory_symlink(elsewhere.path(""), f.t.path(".small/runs/r2"));
    fs::create_symlink(elsewhere.path("x"), f.t.path(".small/runs/index.small.yml"));
    Result<LayoutPlan> plan = plan_runtime_layout(RealFileSystem(), f.t.ws());
    ASSERT_FALSE(plan.ok());
    EXPECT_NE(plan.error().message.find("refusing to migrate .small/runs/index.small.yml: it is a symbolic link"),
              std::string::npos)
        << plan.error().message;
    FixRequest req;
    req.runtime_layout = true;
    EXPECT_FALSE(f.fix(req).ok());
    EXPECT_TRUE(fs::is_symlink(f.t.path(".small/runs/r2")));
    EXPECT_TRUE(fs::exists(f.t.path(".small/runs/r1/meta.json"))) << "nothing moved";
    EXPECT_FALSE(fs::exists(f.t.path(".small-runs")));
}

// A crash after the journal and part of the moves: the next write's
// recovery finishes them (roll forward), nothing is overwritten.
TEST(FixLayout, CrashMidMoveRollsForward) {
    Fixture f;
    for (const char* run : {"r1", "r2", "r3"}) {
        fs::create_directories(f.t.path(std::string(".small/runs/") + run));
        write_text(f.t.path(std::string(".small/runs/") + run + "/meta.json"), run);
    }
    Result<LayoutPlan> plan = plan_runtime_layout(RealFileSystem(), f.t.ws());
    ASSERT_TRUE(plan.ok());
    ASSERT_EQ(plan->moves.size(), 4u);  // three renames, then the emptied folder
    std::string journal = "small-change 1\nentries 0 progress-size 0\n";
    for (const PathMove& m : plan->moves) {
        journal += "move " + std::to_string(static_cast<int>(m.kind)) + " " + std::to_string(m.from.size()) + " " +
                   std::to_string(m.to.size()) + "\n" + m.from + m.to + "\n";
    }
    journal += "end\n";
    fs::create_directories(f.t.path(".small-cache"));
    write_text(f.t.path(kChangeJournalName), journal);
    fs::create_directories(f.t.path(".small-runs"));
    fs::rename(f.t.path(".small/runs/r1"), f.t.path(".small-runs/r1"));  // the crash came after the first move
    ASSERT_TRUE(recover_workspace(real_fs, f.t.ws()).ok());
    for (const char* run : {"r1", "r2", "r3"}) {
        EXPECT_EQ(read_text(f.t.path(std::string(".small-runs/") + run + "/meta.json")), run);
    }
    EXPECT_FALSE(fs::exists(f.t.path(".small/runs")));
    EXPECT_FALSE(fs::exists(f.t.path(kChangeJournalName)));
}

TEST(FixLayout, ARollForwardNeverOverwritesADestination) {
    Fixture f;
    fs::create_directories(f.t.path(".small/runs"));
    write_text(f.t.path(".small/runs/index.small.yml"), "legacy\n");
    WorkspaceChange change;
    change.moves.push_back({PathMove::Kind::Rename, f.t.path(".small/runs/index.small.yml"),
                            f.t.path(".small-runs/index.small.yml")});
    fs::create_directories(f.t.path(".small-runs"));
    write_text(f.t.path(".small-runs/index.small.yml"), "newer\n");
    EXPECT_FALSE(commit_workspace_change(real_fs, f.t.ws(), change).ok());
    EXPECT_EQ(read_text(f.t.path(".small-runs/index.small.yml")), "newer\n");
    EXPECT_EQ(read_text(f.t.path(".small/runs/index.small.yml")), "legacy\n");
}

// --------------------------------------------------------------- --all

TEST(Fix, AllRepairsAMissingWorkspaceFileUnderTheDefaultScope) {
    Fixture f;
    fs::remove(f.file("workspace.small.yml"));
    FixRequest req;
    req.versions = req.runtime_layout = req.workspace = true;  // --all
    Result<FixResult> r = f.fix(req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(r->workspace->created);
    EXPECT_TRUE(load_workspace_metadata(real_fs, f.t.ws()).ok());
}

}  // namespace
}  // namespace small
