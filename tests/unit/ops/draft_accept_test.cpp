// small draft / small accept, library half: the draft checks, saving a
// draft from stdin or a file, and accept's one-step replace + progress entry
// on a real workspace (refusals leave every file unchanged).
#include "small/ops/authoring/draft.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "small/check/verdict.hpp"
#include "small/store/workspace_change.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/doc/yaml.hpp"
#include "small/ops/authoring/accept.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using testing::as_unprivileged;
using testing::TempWorkspace;
using testing::read_text;
using testing::write_text;

namespace fs = std::filesystem;
using std::chrono::milliseconds;

using namespace small::test_fixtures;

// A new intent that passes every check; its comment must survive verbatim.
const std::string kNewIntent = R"(# drafted by a human, kept verbatim
small_version: "1.0.0"
owner: "human"
intent: "Ship the widget"
scope:
  include: ["src/"]
  exclude: []
success_criteria: ["tests pass"]
)";

class DraftAcceptTest : public ::testing::Test {
protected:
    TempWorkspace t_;
    RealFileSystem fs_;

    void SetUp() override { write_workspace(true); }

    void write_workspace(bool with_run) { testing::write_minimal_workspace(t_.ws(), with_run); }
    std::string small(const std::string& name) const { return t_.ws().small_dir + "/" + name; }
    std::string draft(DraftKind kind) const { return t_.path(draft_relative_path(kind)); }

    std::map<std::string, std::string> small_files() const { return testing::snapshot(t_.ws().small_dir); }
    void put_draft(DraftKind kind, const std::string& bytes) const {
        fs::create_directories(t_.path(std::string(kDraftsDirName)));
        write_text(draft(kind), bytes);
    }

    Result<DraftResult> save(DraftKind kind, const std::string& from, std::istream* in = nullptr) {
        DraftRequest req;
        req.kind = kind;
        req.from = from;
        req.cwd = t_.ws().root;
        req.input = in;
        req.lock_wait = milliseconds(0);
        return draft_command(fs_, t_.ws(), req);
    }
    Result<AcceptResult> accept(DraftKind kind) {
        AcceptRequest req;
        req.kind = kind;
        req.lock_wait = milliseconds(0);
        return accept_command(fs_, t_.ws(), req);
    }
    // The last progress entry, parsed.
    YamlValue last_entry() const {
        Result<Document> doc = parse_yaml(read_text(t_.log()), "progress");
        EXPECT_TRUE(doc.ok());
        const NodeRef entries = doc->root().find("entries");
        return to_yaml_value(entries.item(entries.size() - 1));
    }
};

bool has_rule(const std::vector<Finding>& findings, const std::string& rule) {
    for (const Finding& f : findings) {
        if (f.rule == rule) return true;
    }
    return false;
}

TEST(DraftKinds, OnlyTheHumanOwnedArtifacts) {
    EXPECT_EQ(*parse_draft_kind("intent"), DraftKind::Intent);
    EXPECT_EQ(*parse_draft_kind("constraints"), DraftKind::Constraints);
    for (const char* bad : {"plan", "progress", "handoff", "Intent", ""}) {
        Result<DraftKind> k = parse_draft_kind(bad);
        ASSERT_FALSE(k.ok()) << bad;
        EXPECT_EQ(k.error().kind, Error::Kind::Usage) << bad;
    }
    EXPECT_EQ(draft_relative_path(DraftKind::Constraints), ".small-cache/drafts/constraints.small.yml");
}

TEST(DraftKinds, StdinIsDashOrTheWordStdin) {
    for (const char* s : {"-", "stdin", "STDIN", "Stdin", " - "}) EXPECT_TRUE(is_stdin_source(s)) << s;
    for (const char* s : {"./stdin", "stdin.yml", "--", "file.yml"}) EXPECT_FALSE(is_stdin_source(s)) << s;
}

TEST(CheckDraft, AValidDraftHasNoProblems) {
    EXPECT_TRUE(check_draft(DraftKind::Intent, kNewIntent, "d.yml").empty());
    EXPECT_TRUE(check_draft(DraftKind::Constraints, kConstraints, "d.yml").empty());
}

TEST(CheckDraft, YamlErrorsAreLocated) {
    const std::vector<Finding> f = check_draft(DraftKind::Intent, "small_version: \"1.0.0\"\nscope: [\n", "d.yml");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].rule, "LOAD");
    EXPECT_EQ(f[0].file, "d.yml");
    EXPECT_GT(f[0].mark.line, 0u);
    EXPECT_GT(f[0].mark.column, 0u);
}

TEST(CheckDraft, EmptyAndNonMappingDraftsAreOneClearProblem) {
    std::vector<Finding> f = check_draft(DraftKind::Intent, "# only a comment\n", "d.yml");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].message.find("no content"), std::string::npos);
    f = check_draft(DraftKind::Constraints, "- a\n- b\n", "d.yml");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].message.find("mapping"), std::string::npos);
}

TEST(CheckDraft, RefusesAnAgentOwnerSchemaErrorsAndSecrets) {
    std::string agent = kNewIntent;
    agent.replace(agent.find("\"human\""), 7, "\"agent\"");
    std::vector<Finding> f = check_draft(DraftKind::Intent, agent, "d.yml");
    EXPECT_TRUE(has_rule(f, "INV-I1"));
    EXPECT_TRUE(has_rule(f, "SCHEMA"));

    f = check_draft(DraftKind::Constraints, "small_version: \"1.0.0\"\nowner: \"human\"\nconstraints: []\n", "d.yml");
    EXPECT_TRUE(has_rule(f, "SCHEMA"));  // minItems 1

    std::string secret = kNewIntent;
    secret.replace(secret.find("Ship the widget"), 15, "deploy with AKIAIOSFODNN7EXAMPLE");
    f = check_draft(DraftKind::Intent, secret, "d.yml");
    ASSERT_FALSE(f.empty());
    EXPECT_NE(f[0].message.find("potential secret detected"), std::string::npos) << f[0].message;
}

TEST_F(DraftAcceptTest, DraftFromStdinIsSavedVerbatimAndTouchesNothingElse) {
    const auto before = small_files();
    std::istringstream in(kNewIntent);
    Result<DraftResult> r = save(DraftKind::Intent, "-", &in);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(read_text(draft(DraftKind::Intent)), kNewIntent);
    EXPECT_EQ(r->draft_path, draft(DraftKind::Intent));
    EXPECT_EQ(r->source, "stdin");
    EXPECT_EQ(r->bytes, kNewIntent.size());
    EXPECT_TRUE(r->warnings.empty());
    EXPECT_EQ(small_files(), before);
}

TEST_F(DraftAcceptTest, DraftFromAFileRelativeToTheCurrentDirectory) {
    write_text(t_.path("new-constraints.yml"), kConstraints);
    Result<DraftResult> r = save(DraftKind::Constraints, "new-constraints.yml");
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(read_text(draft(DraftKind::Constraints)), kConstraints);
    EXPECT_EQ(r->source, "new-constraints.yml");
    // A later draft replaces the earlier one.
    std::istringstream in(kNewIntent);
    ASSERT_TRUE(save(DraftKind::Intent, "stdin", &in).ok());
    std::istringstream again("small_version: \"1.0.0\"\n");
    ASSERT_TRUE(save(DraftKind::Intent, "stdin", &again).ok());
    EXPECT_EQ(read_text(draft(DraftKind::Intent)), "small_version: \"1.0.0\"\n");
}

TEST_F(DraftAcceptTest, AnInvalidDraftIsSavedWithWarnings) {
    std::istringstream in("owner: \"agent\"\nintent: [\n");
    Result<DraftResult> r = save(DraftKind::Intent, "-", &in);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_FALSE(r->warnings.empty());
    EXPECT_EQ(r->warnings[0].severity, Severity::Warning);
    EXPECT_EQ(read_text(draft(DraftKind::Intent)), "owner: \"agent\"\nintent: [\n");
}

TEST_F(DraftAcceptTest, DraftRefusalsWriteNothing) {
    std::istringstream blank(" \n\t\n");
    Result<DraftResult> r = save(DraftKind::Intent, "-", &blank);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_NE(r.error().message.find("standard input is empty"), std::string::npos);

    r = save(DraftKind::Intent, "  ");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Usage);

    r = save(DraftKind::Intent, "nope.yml");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::System);
    EXPECT_NE(r.error().message.find("nope.yml"), std::string::npos);

    write_text(t_.path("empty.yml"), "");
    r = save(DraftKind::Intent, "empty.yml");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_FALSE(fs::exists(draft(DraftKind::Intent)));
}

TEST_F(DraftAcceptTest, MissingSmallDirectoryIsASystemError) {
    fs::remove_all(t_.ws().small_dir);
    std::istringstream in(kNewIntent);
    Result<DraftResult> d = save(DraftKind::Intent, "-", &in);
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.error().kind, Error::Kind::System);
    Result<AcceptResult> a = accept(DraftKind::Intent);
    ASSERT_FALSE(a.ok());
    EXPECT_EQ(a.error().kind, Error::Kind::System);
    EXPECT_FALSE(fs::exists(draft(DraftKind::Intent)));
}

TEST_F(DraftAcceptTest, AcceptWithoutADraftChangesNothing) {
    const auto before = small_files();
    Result<AcceptResult> r = accept(DraftKind::Constraints);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_NE(r.error().message.find("draft not found"), std::string::npos);
    EXPECT_NE(r.error().message.find("small draft constraints --from <path|stdin>"), std::string::npos);
    EXPECT_EQ(small_files(), before);
}

TEST_F(DraftAcceptTest, AcceptRefusesASchemaInvalidDraftAndChangesNothing) {
    const std::string bad = "small_version: \"1.0.0\"\nowner: \"human\"\nintent: \"x\"\n";  // no scope
    put_draft(DraftKind::Intent, bad);
    const auto before = small_files();
    Result<AcceptResult> r = accept(DraftKind::Intent);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_FALSE(r->accepted);
    ASSERT_TRUE(has_rule(r->problems, "SCHEMA"));
    EXPECT_EQ(r->problems[0].file, t_.ws().display_prefix + ".small-cache/drafts/intent.small.yml");
    EXPECT_EQ(small_files(), before);
    EXPECT_EQ(read_text(draft(DraftKind::Intent)), bad);  // the draft is kept for fixing
}

TEST_F(DraftAcceptTest, AcceptRefusesUnparseableYamlWithItsLocation) {
    put_draft(DraftKind::Constraints, "small_version: \"1.0.0\"\nowner: \"human\"\nconstraints:\n  - {id: \"a\"\n");
    const auto before = small_files();
    Result<AcceptResult> r = accept(DraftKind::Constraints);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_FALSE(r->accepted);
    ASSERT_EQ(r->problems.size(), 1u);
    EXPECT_EQ(r->problems[0].rule, "LOAD");
    EXPECT_GT(r->problems[0].mark.line, 0u);
    EXPECT_EQ(small_files(), before);
}

TEST_F(DraftAcceptTest, AcceptReplacesTheFileAndRecordsOneEntryStampedWithTheRun) {
    put_draft(DraftKind::Intent, kNewIntent);
    const std::string log_before = read_text(t_.log());
    Result<AcceptResult> r = accept(DraftKind::Intent);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_TRUE(r->accepted);
    EXPECT_EQ(read_text(small("intent.small.yml")), kNewIntent);  // verbatim, comment included
    const std::string log = read_text(t_.log());
    EXPECT_EQ(log.substr(0, log_before.size()), log_before);  // appended, not rewritten (D7)

    const YamlValue entry = last_entry();
    EXPECT_EQ(entry["task_id"], "meta/accept-intent");
    EXPECT_EQ(entry["status"], "completed");
    EXPECT_EQ(entry["evidence"], "Accepted draft intent from .small-cache/drafts/intent.small.yml");
    EXPECT_EQ(entry["notes"], "small accept intent");
    EXPECT_EQ(entry["replayId"], kRunId);
    EXPECT_EQ(r->entry["timestamp"], entry["timestamp"]);
    EXPECT_TRUE(fs::exists(draft(DraftKind::Intent)));
    EXPECT_FALSE(fs::exists(t_.path(kChangeJournalName)));

    Result<SchemaSet> schemas = SchemaSet::embedded();
    ASSERT_TRUE(schemas.ok());
    const VerdictInput in{fs_, t_.ws(), *schemas};
    EXPECT_EQ(run_validate(in).outcome, VerdictOutcome::Ok);
    VerdictOptions strict;
    strict.strict = true;
    const Verdict lint = run_lint(in, strict);
    EXPECT_EQ(lint.outcome, VerdictOutcome::Ok) << (lint.all_findings().empty() ? "" : lint.all_findings()[0].location_text());
}

TEST_F(DraftAcceptTest, BeforeTheFirstRunTheEntryHasNoReplayId) {
    write_workspace(false);
    put_draft(DraftKind::Constraints, kConstraints);
    Result<AcceptResult> r = accept(DraftKind::Constraints);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_TRUE(r->accepted);
    const YamlValue entry = last_entry();
    EXPECT_EQ(entry["task_id"], "meta/accept-constraints");
    EXPECT_FALSE(entry.contains("replayId"));
}

TEST_F(DraftAcceptTest, AcceptNeedsTheProgressLog) {
    put_draft(DraftKind::Intent, kNewIntent);
    fs::remove(t_.log());
    Result<AcceptResult> r = accept(DraftKind::Intent);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_EQ(read_text(small("intent.small.yml")), kIntent);
}

TEST_F(DraftAcceptTest, ScopeIsEnforced) {
    write_text(small("workspace.small.yml"), "small_version: \"1.0.0\"\nowner: \"agent\"\nkind: \"examples\"\n");
    put_draft(DraftKind::Intent, kNewIntent);
    Result<AcceptResult> r = accept(DraftKind::Intent);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    AcceptRequest req;
    req.scope = WorkspaceScope::Examples;
    req.lock_wait = milliseconds(0);
    r = accept_command(fs_, t_.ws(), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(r->accepted);
}

TEST_F(DraftAcceptTest, BusyLockRefusesBothCommands) {
    put_draft(DraftKind::Intent, kNewIntent);
    const auto before = small_files();
    Result<WorkspaceLock> held = WorkspaceLock::acquire(testing::real_fs, t_.ws(), milliseconds(1000));
    ASSERT_TRUE(held.ok()) << held.error().describe();
    Result<AcceptResult> a = accept(DraftKind::Intent);
    ASSERT_FALSE(a.ok());
    EXPECT_EQ(a.error().kind, Error::Kind::Busy);
    std::istringstream in(kConstraints);
    Result<DraftResult> d = save(DraftKind::Constraints, "-", &in);
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.error().kind, Error::Kind::Busy);
    EXPECT_EQ(small_files(), before);
    EXPECT_FALSE(fs::exists(draft(DraftKind::Constraints)));
}

// Root ignores folder permissions: as root, the accept runs as user nobody.
TEST_F(DraftAcceptTest, ReadOnlySmallDirectoryIsASystemErrorAndChangesNothing) {
    put_draft(DraftKind::Intent, kNewIntent);
    const auto before = small_files();
    ASSERT_EQ(::chmod(t_.ws().small_dir.c_str(), 0555), 0);
    as_unprivileged(t_.ws().root, [&] {
        Result<AcceptResult> r = accept(DraftKind::Intent);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().kind, Error::Kind::System) << r.error().describe();
        EXPECT_NE(r.error().message.find("cannot write to"), std::string::npos) << r.error().message;
    });
    ::chmod(t_.ws().small_dir.c_str(), 0755);
    EXPECT_EQ(small_files(), before);
    EXPECT_FALSE(fs::exists(t_.path(kChangeJournalName)));
}

}  // namespace
}  // namespace small
