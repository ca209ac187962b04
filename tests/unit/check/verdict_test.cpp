// The verdict pipeline behind validate / lint / verify / check, on
// in-memory workspaces.
#include "small/check/verdict.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "support/fixtures.hpp"

namespace small {
namespace {

using namespace small::testing;

// A FileSystem that fails to read or list chosen paths (I/O errors).
class FailingFileSystem final : public FileSystem {
public:
    explicit FailingFileSystem(MemoryFileSystem inner) : inner_(std::move(inner)) {}
    std::set<std::string> unreadable, unlistable;

    Result<std::string> read_file(const std::string& path) const override {
        if (unreadable.count(path)) return Error::system("cannot read " + path + ": Permission denied");
        return inner_.read_file(path);
    }
    bool file_exists(const std::string& path) const override { return inner_.file_exists(path); }
    bool directory_exists(const std::string& path) const override { return inner_.directory_exists(path); }
    Result<std::vector<DirEntry>> list_directory(const std::string& path) const override {
        if (unlistable.count(path)) return Error::system("cannot list " + path + ": Permission denied");
        return inner_.list_directory(path);
    }

private:
    MemoryFileSystem inner_;
};

std::string describe(const Verdict& v) {
    std::string out = "outcome " + std::to_string(static_cast<int>(v.outcome)) + "\n";
    if (!v.blocking.empty()) out += "blocking:\n" + small::testing::describe(v.blocking);
    for (const StageResult& s : v.stages) {
        out += "stage " + s.name + ": " + stage_status_name(s.status) + "\n" + small::testing::describe(s.findings);
    }
    return out;
}

const StageResult* stage(const Verdict& v, const std::string& name) {
    for (const StageResult& s : v.stages) {
        if (s.name == name) return &s;
    }
    return nullptr;
}

bool has_rule(const std::vector<Finding>& findings, const std::string& rule) {
    return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) { return f.rule == rule; });
}

class VerdictPipeline : public ::testing::Test {
protected:
    TestWorkspace ws;
    VerdictOptions options;

    template <typename Fn>
    Verdict with_input(const FileSystem& fs, Fn fn, const std::string& cwd = "/ws") {
        const VerdictInput in{fs, locate_workspace(fs, std::nullopt, cwd), builtin_schemas()};
        return fn(in);
    }
    Verdict validate() {
        const MemoryFileSystem fs = ws.fs();
        return with_input(fs, [&](const VerdictInput& in) { return run_validate(in); });
    }
    Verdict lint() {
        const MemoryFileSystem fs = ws.fs();
        return with_input(fs, [&](const VerdictInput& in) { return run_lint(in, options); });
    }
    Verdict verify() {
        const MemoryFileSystem fs = ws.fs();
        return with_input(fs, [&](const VerdictInput& in) { return run_verify(in, options); });
    }
    Verdict check() {
        const MemoryFileSystem fs = ws.fs();
        return with_input(fs, [&](const VerdictInput& in) { return run_check(in, options); });
    }
    std::vector<Verdict> all_four() { return {validate(), lint(), verify(), check()}; }
};

// ---------------------------------------------------------------- no workspace

TEST_F(VerdictPipeline, NoSmallDirectoryIsASystemError) {
    MemoryFileSystem fs;
    fs.add_directory("/elsewhere/project");
    for (int which = 0; which < 4; ++which) {
        SCOPED_TRACE(which);
        const Verdict v = with_input(
            fs,
            [&](const VerdictInput& in) {
                switch (which) {
                    case 0: return run_validate(in);
                    case 1: return run_lint(in, options);
                    case 2: return run_verify(in, options);
                    default: return run_check(in, options);
                }
            },
            "/elsewhere/project");
        EXPECT_EQ(v.outcome, VerdictOutcome::SystemError) << describe(v);
        ASSERT_EQ(v.blocking.size(), 1u) << describe(v);
        EXPECT_EQ(v.blocking[0].rule, "WS-1");
        EXPECT_TRUE(contains(v.blocking[0].message, "no .small/ directory")) << v.blocking[0].message;
        EXPECT_TRUE(contains(v.blocking[0].message, "/elsewhere/project")) << v.blocking[0].message;
        EXPECT_TRUE(v.stages.empty()) << describe(v);
        EXPECT_FALSE(v.blocking[0].hint.empty());
    }
}

// ---------------------------------------------------------------- valid

TEST_F(VerdictPipeline, ValidWorkspacePassesEverything) {
    for (bool strict : {false, true}) {
        SCOPED_TRACE(strict ? "strict" : "non-strict");
        options.strict = strict;
        options.scope = WorkspaceScope::Root;
        for (const Verdict& v : all_four()) {
            EXPECT_EQ(v.outcome, VerdictOutcome::Ok) << describe(v);
            EXPECT_TRUE(v.all_findings().empty()) << describe(v);
        }
        const Verdict c = check();
        ASSERT_EQ(c.stages.size(), 3u) << describe(c);
        for (const StageResult& s : c.stages) EXPECT_EQ(s.status, StageResult::Status::Ok) << s.name;
        EXPECT_EQ(c.stages[0].name, "validate");
        EXPECT_EQ(c.stages[1].name, "lint");
        EXPECT_EQ(c.stages[2].name, "verify");
    }
}

TEST_F(VerdictPipeline, WorkspaceFoundFromASubdirectory) {
    ws.replace("plan", "owner: \"agent\"", "owner: \"human\"");
    const MemoryFileSystem fs = ws.fs();
    const Verdict v = with_input(fs, [&](const VerdictInput& in) { return run_lint(in, options); }, "/ws/src/deep");
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    const auto findings = v.all_findings();
    ASSERT_EQ(findings.size(), 1u) << describe(v);
    EXPECT_EQ(findings[0].rule, "INV-P1");
    EXPECT_EQ(findings[0].file, "/ws/.small/plan.small.yml");
}

// ---------------------------------------------------------------- load errors

TEST_F(VerdictPipeline, MissingArtifactIsInvalid) {
    ws.remove("plan");
    for (const Verdict& v : {validate(), lint(), check()}) {
        EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
        ASSERT_EQ(v.blocking.size(), 1u) << describe(v);
        EXPECT_EQ(v.blocking[0].rule, "LOAD");
        EXPECT_EQ(v.blocking[0].file, shown("plan"));
        EXPECT_TRUE(contains(v.blocking[0].message, "missing")) << v.blocking[0].message;
        EXPECT_TRUE(v.stages.empty()) << describe(v);
    }
}

TEST_F(VerdictPipeline, VerifyNamesEveryMissingFileAtOnce) {
    ws.remove("plan");
    ws.remove("handoff");
    const Verdict v = verify();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    ASSERT_EQ(v.blocking.size(), 1u) << describe(v);
    EXPECT_EQ(v.blocking[0].rule, "VER-0");
    EXPECT_TRUE(contains(v.blocking[0].message, "Missing required files: plan.small.yml, handoff.small.yml"))
        << v.blocking[0].message;
}

TEST_F(VerdictPipeline, YamlSyntaxErrorIsLocated) {
    ws.append("progress", "  - timestamp: [unclosed\n");
    for (const Verdict& v : all_four()) {
        EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
        ASSERT_EQ(v.blocking.size(), 1u) << describe(v);
        EXPECT_EQ(v.blocking[0].rule, "LOAD");
        EXPECT_EQ(v.blocking[0].file, shown("progress"));
        EXPECT_GT(v.blocking[0].mark.line, 0u) << describe(v);
    }
}

TEST_F(VerdictPipeline, EmptyOrNonMappingDocumentIsALoadError) {
    for (const char* text : {"", "# only a comment\n", "- a\n- b\n", "just text\n"}) {
        SCOPED_TRACE(text);
        ws = TestWorkspace();
        ws.set("handoff", text);
        const Verdict v = validate();
        EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
        ASSERT_EQ(v.blocking.size(), 1u) << describe(v);
        EXPECT_EQ(v.blocking[0].rule, "LOAD");
        EXPECT_TRUE(contains(v.blocking[0].message, "artifact must be a YAML mapping (object) at top level"))
            << v.blocking[0].message;
        EXPECT_GT(v.blocking[0].mark.line, 0u);
    }
}

TEST_F(VerdictPipeline, LoadErrorsInCanonicalOrder) {
    ws.set("handoff", "- x\n");
    ws.set("intent", "a: [\n");
    ws.remove("plan");
    const Verdict v = validate();
    ASSERT_EQ(v.blocking.size(), 3u) << describe(v);
    EXPECT_EQ(v.blocking[0].file, shown("intent"));
    EXPECT_EQ(v.blocking[1].file, shown("plan"));
    EXPECT_EQ(v.blocking[2].file, shown("handoff"));
}

TEST_F(VerdictPipeline, UnreadableFileIsASystemError) {
    FailingFileSystem fs(ws.fs());
    fs.unreadable.insert("/ws/.small/progress.small.yml");
    const Verdict v = with_input(fs, [&](const VerdictInput& in) { return run_validate(in); });
    EXPECT_EQ(v.outcome, VerdictOutcome::SystemError) << describe(v);
    ASSERT_EQ(v.blocking.size(), 1u) << describe(v);
    EXPECT_EQ(v.blocking[0].rule, "IO");
    EXPECT_EQ(v.blocking[0].file, shown("progress"));
    EXPECT_TRUE(contains(v.blocking[0].message, "Permission denied")) << v.blocking[0].message;
}

TEST_F(VerdictPipeline, UnlistableSmallDirIsASystemErrorInStrictLint) {
    FailingFileSystem fs(ws.fs());
    fs.unlistable.insert("/ws/.small");
    options.strict = true;
    const Verdict v = with_input(fs, [&](const VerdictInput& in) { return run_lint(in, options); });
    EXPECT_EQ(v.outcome, VerdictOutcome::SystemError) << describe(v);
    EXPECT_TRUE(has_rule(v.blocking, "IO")) << describe(v);
    // Non-strict lint does not list the directory.
    options.strict = false;
    const Verdict loose = with_input(fs, [&](const VerdictInput& in) { return run_lint(in, options); });
    EXPECT_EQ(loose.outcome, VerdictOutcome::Ok) << describe(loose);
}

// ---------------------------------------------------------------- validate / lint

TEST_F(VerdictPipeline, ValidateReportsSchemaFindingsOnly) {
    ws.replace("progress", "    notes: \"small init\"\n", "    notes: \"small init\"\n    summary: \"x\"\n");
    ws.append("plan", "  - id: \"task-4\"\n    title: \"Four\"\n    depends_on: [\"ghost\"]\n");  // lint-only problem
    const Verdict v = validate();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    ASSERT_EQ(v.stages.size(), 1u);
    EXPECT_EQ(v.stages[0].name, "validate");
    EXPECT_EQ(v.stages[0].status, StageResult::Status::Failed);
    ASSERT_EQ(v.stages[0].findings.size(), 1u) << describe(v);
    const Finding& f = v.stages[0].findings[0];
    EXPECT_EQ(f.rule, "SCHEMA");
    EXPECT_EQ(f.file, shown("progress"));
    EXPECT_EQ(f.pointer, "/entries/0/summary");
    EXPECT_EQ(f.mark.line, line_of(ws.text("progress"), "summary:"));
    EXPECT_TRUE(contains(f.message, "/entries/0/summary")) << f.message;
}

TEST_F(VerdictPipeline, LintReportsInvariantsNotSchema) {
    ws.replace("progress", "    notes: \"small init\"\n", "    notes: \"small init\"\n    summary: \"x\"\n");
    EXPECT_EQ(lint().outcome, VerdictOutcome::Ok) << describe(lint());
    ws.append("plan", "  - id: \"task-4\"\n    title: \"Four\"\n    depends_on: [\"ghost\"]\n");
    const Verdict v = lint();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    ASSERT_EQ(v.stages.size(), 1u);
    EXPECT_EQ(v.stages[0].name, "lint");
    EXPECT_EQ(rules_of(v.all_findings()), (std::vector<std::string>{"INV-P6"})) << describe(v);
}

TEST_F(VerdictPipeline, LintStrictAddsS4AndStrictRules) {
    ws.add_extra_file("notes.txt");
    ws.append("plan", "  - id: \"task-4\"\n    title: \"Four\"\n    status: \"completed\"\n");
    EXPECT_EQ(lint().outcome, VerdictOutcome::Ok) << describe(lint());
    options.strict = true;
    const Verdict v = lint();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    EXPECT_EQ(rules_of(v.all_findings()), (std::vector<std::string>{"S1", "S4"})) << describe(v);
}

TEST_F(VerdictPipeline, LintScopesS2ByTheWorkspaceRunId) {
    // D9: workspace.small.yml run.replay_id scopes S2, not the handoff's id.
    ws.replace("workspace", kRunId, kOtherRunId);
    ws.append("progress", std::string("  - timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"ghost\"\n    evidence: \"x\"\n") +
                              "    replayId: \"" + kOtherRunId + "\"\n");
    ws.append("progress", std::string("  - timestamp: \"2025-06-01T10:00:07.0Z\"\n    task_id: \"phantom\"\n    evidence: \"x\"\n") +
                              "    replayId: \"" + kRunId + "\"\n");
    options.strict = true;
    const Verdict v = lint();
    const auto s2 = with_rule(v.all_findings(), "S2");
    ASSERT_EQ(s2.size(), 1u) << describe(v);
    EXPECT_TRUE(contains(s2[0].message, std::string("(replayId scope: ") + kOtherRunId + "): unknown progress task ids: ghost"))
        << s2[0].message;
    EXPECT_FALSE(contains(s2[0].message, "phantom"));
    // Without a workspace file, the handoff's id is the scope.
    ws.remove("workspace");
    const auto fallback = with_rule(lint().all_findings(), "S2");
    ASSERT_EQ(fallback.size(), 1u) << describe(lint());
    EXPECT_TRUE(contains(fallback[0].message, "unknown progress task ids: phantom")) << fallback[0].message;
}

TEST_F(VerdictPipeline, QuotingWarningDoesNotFailUnlessFormatStrict) {
    ws.replace("plan", "small_version: \"1.0.0\"", "small_version: 1.0.0");
    Verdict v = lint();
    EXPECT_EQ(v.outcome, VerdictOutcome::Ok) << describe(v);
    ASSERT_EQ(v.all_findings().size(), 1u) << describe(v);
    EXPECT_EQ(v.all_findings()[0].rule, "FMT-1");
    EXPECT_EQ(v.all_findings()[0].severity, Severity::Warning);
    options.format_strict = true;
    v = lint();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    EXPECT_EQ(v.all_findings()[0].severity, Severity::Error);
    v = check();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    EXPECT_EQ(stage(v, "lint")->status, StageResult::Status::Failed) << describe(v);
}

// ---------------------------------------------------------------- check

TEST_F(VerdictPipeline, CheckStopsAtSchemaFailure) {
    ws.replace("intent", "owner: \"human\"", "owner: \"agent\"");  // schema and invariants both fail
    const Verdict v = check();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    ASSERT_EQ(v.stages.size(), 3u) << describe(v);
    EXPECT_EQ(v.stages[0].status, StageResult::Status::Failed);
    EXPECT_EQ(v.stages[1].status, StageResult::Status::Skipped);
    EXPECT_EQ(v.stages[2].status, StageResult::Status::Skipped);
    EXPECT_TRUE(v.stages[1].findings.empty()) << describe(v);
    EXPECT_TRUE(v.stages[2].findings.empty()) << describe(v);
    for (const Finding& f : v.all_findings()) EXPECT_EQ(f.rule, "SCHEMA") << describe(v);
    EXPECT_TRUE(contains(v.stages[0].findings.at(0).message, "/owner")) << describe(v);
}

TEST_F(VerdictPipeline, CheckStopsAtLintFailure) {
    // Schema-valid, but an entry without evidence.
    ws.append("progress", "  - timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-1\"\n    notes: \"hm\"\n");
    const Verdict v = check();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    ASSERT_EQ(v.stages.size(), 3u) << describe(v);
    EXPECT_EQ(v.stages[0].status, StageResult::Status::Ok);
    EXPECT_EQ(v.stages[1].status, StageResult::Status::Failed);
    EXPECT_EQ(v.stages[2].status, StageResult::Status::Skipped);
    EXPECT_EQ(rules_of(v.all_findings()), (std::vector<std::string>{"INV-R7"})) << describe(v);
}

TEST_F(VerdictPipeline, CheckStrictStopsAtLayout) {
    ws.add_extra_dir("logs");
    options.strict = true;
    const Verdict v = check();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    ASSERT_EQ(v.stages.size(), 3u);
    EXPECT_EQ(v.stages[1].status, StageResult::Status::Failed);
    EXPECT_EQ(v.stages[2].status, StageResult::Status::Skipped);
    EXPECT_EQ(rules_of(v.all_findings()), (std::vector<std::string>{"S4"})) << describe(v);
}

TEST_F(VerdictPipeline, CheckVerifyStageReportsVerifyRules) {
    ws.replace("handoff", "  next_steps: []\n", "  current_task_id: \"task-9\"\n  next_steps: []\n");
    const Verdict v = check();  // non-strict: S3 does not run, VER-7 does
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    ASSERT_EQ(v.stages.size(), 3u);
    EXPECT_EQ(v.stages[0].status, StageResult::Status::Ok);
    EXPECT_EQ(v.stages[1].status, StageResult::Status::Ok);
    EXPECT_EQ(v.stages[2].status, StageResult::Status::Failed);
    EXPECT_EQ(rules_of(v.all_findings()), (std::vector<std::string>{"VER-7"})) << describe(v);
}

TEST_F(VerdictPipeline, CheckVerifyStageReportsWorkspaceMetadataProblems) {
    ws.remove("workspace");
    Verdict v = check();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    ASSERT_EQ(v.stages.size(), 3u) << describe(v);
    EXPECT_EQ(v.stages[0].status, StageResult::Status::Ok);
    EXPECT_EQ(v.stages[1].status, StageResult::Status::Ok);
    EXPECT_EQ(v.stages[2].status, StageResult::Status::Failed);
    auto findings = v.all_findings();
    ASSERT_EQ(findings.size(), 1u) << describe(v);
    EXPECT_EQ(findings[0].rule, "WS-2");
    EXPECT_TRUE(contains(findings[0].message, "workspace metadata missing")) << findings[0].message;

    ws = TestWorkspace();
    ws.replace("workspace", "kind: \"repo-root\"", "kind: \"monorepo\"");
    v = check();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    findings = v.all_findings();
    ASSERT_EQ(findings.size(), 1u) << describe(v);
    EXPECT_EQ(findings[0].rule, "WS-2");
    EXPECT_TRUE(contains(findings[0].message, "invalid workspace kind \"monorepo\"")) << findings[0].message;
    EXPECT_EQ(findings[0].mark.line, 3u);
    EXPECT_EQ(findings[0].file, ".small/workspace.small.yml");
}

// ---------------------------------------------------------------- verify

TEST_F(VerdictPipeline, VerifyCollectsSchemaInvariantAndVerifyFindings) {
    ws.replace("progress", "    notes: \"small init\"\n", "    notes: \"small init\"\n    summary: \"x\"\n");  // SCHEMA
    ws.append("progress", "  - timestamp: \"2025-06-01T10:00:06.0Z\"\n    task_id: \"task-1\"\n");       // INV-R7
    ws.replace("handoff", "  next_steps: []\n", "  current_task_id: \"task-9\"\n  next_steps: []\n");     // VER-7
    const Verdict v = verify();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    ASSERT_EQ(v.stages.size(), 1u) << describe(v);
    EXPECT_EQ(v.stages[0].name, "verify");
    EXPECT_EQ(v.stages[0].status, StageResult::Status::Failed);
    EXPECT_EQ(rules_of(v.all_findings()), (std::vector<std::string>{"SCHEMA", "INV-R7", "VER-7"})) << describe(v);
}

TEST_F(VerdictPipeline, VerifyStrictAddsStrictRulesAndLayout) {
    ws.replace("handoff", "  next_steps: []\n", "  current_task_id: \"task-9\"\n  next_steps: []\n");
    ws.add_extra_file("scratch.md");
    options.strict = true;
    const Verdict v = verify();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    EXPECT_EQ(rules_of(v.all_findings()), (std::vector<std::string>{"S3", "VER-7", "S4"})) << describe(v);
}

TEST_F(VerdictPipeline, VerifyReportsReplayIdProblemsBesideTheSchema) {
    ws.replace("handoff", "source: \"auto\"", "source: \"robot\"");
    const Verdict v = verify();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    const auto findings = v.all_findings();
    EXPECT_TRUE(has_rule(findings, "SCHEMA")) << describe(v);
    EXPECT_TRUE(has_rule(findings, "VER-5")) << describe(v);
}

TEST_F(VerdictPipeline, MissingWorkspaceMetadataFailsVerifyOnly) {
    ws.remove("workspace");
    EXPECT_EQ(validate().outcome, VerdictOutcome::Ok) << describe(validate());
    EXPECT_EQ(lint().outcome, VerdictOutcome::Ok) << describe(lint());
    options.strict = true;
    EXPECT_EQ(lint().outcome, VerdictOutcome::Ok) << describe(lint());
    for (auto scope : {std::optional<WorkspaceScope>(), std::optional<WorkspaceScope>(WorkspaceScope::Any)}) {
        options.scope = scope;
        const Verdict v = verify();
        EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
        ASSERT_EQ(v.blocking.size(), 1u) << describe(v);
        EXPECT_EQ(v.blocking[0].rule, "WS-2");
        EXPECT_TRUE(contains(v.blocking[0].message, "workspace metadata missing")) << v.blocking[0].message;
        EXPECT_TRUE(v.stages.empty());
    }
}

// ---------------------------------------------------------------- scope

TEST_F(VerdictPipeline, ExamplesKindFailsRootScope) {
    ws.replace("workspace", "kind: \"repo-root\"", "kind: \"examples\"");
    options.scope = WorkspaceScope::Root;
    for (const Verdict& v : {verify(), check()}) {
        EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
        ASSERT_EQ(v.blocking.size(), 1u) << describe(v);
        EXPECT_EQ(v.blocking[0].rule, "WS-3");
        EXPECT_TRUE(contains(v.blocking[0].message, "workspace kind \"examples\" is not allowed for scope root"))
            << v.blocking[0].message;
        EXPECT_EQ(v.blocking[0].file, ".small/workspace.small.yml");
    }
}

TEST_F(VerdictPipeline, ExamplesKindPassesExamplesAndAnyScope) {
    ws.replace("workspace", "kind: \"repo-root\"", "kind: \"examples\"");
    for (WorkspaceScope scope : {WorkspaceScope::Examples, WorkspaceScope::Any}) {
        SCOPED_TRACE(std::string(workspace_scope_name(scope)));
        options.scope = scope;
        for (const Verdict& v : {verify(), check()}) EXPECT_EQ(v.outcome, VerdictOutcome::Ok) << describe(v);
    }
}

TEST_F(VerdictPipeline, RepoRootKindFailsExamplesScope) {
    options.scope = WorkspaceScope::Examples;
    const Verdict v = verify();
    EXPECT_EQ(v.outcome, VerdictOutcome::Invalid) << describe(v);
    ASSERT_EQ(v.blocking.size(), 1u) << describe(v);
    EXPECT_EQ(v.blocking[0].rule, "WS-3");
    EXPECT_TRUE(contains(v.blocking[0].message, "workspace kind \"repo-root\" is not allowed for scope examples"))
        << v.blocking[0].message;
}

TEST(VerdictScope, ParseScope) {
    EXPECT_EQ(*parse_workspace_scope(" ROOT "), WorkspaceScope::Root);
    EXPECT_EQ(*parse_workspace_scope("Examples"), WorkspaceScope::Examples);
    EXPECT_EQ(*parse_workspace_scope("any"), WorkspaceScope::Any);
    const auto bad = parse_workspace_scope("everything");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().kind, Error::Kind::Usage);
    EXPECT_TRUE(contains(bad.error().message, "invalid workspace scope: everything")) << bad.error().message;
}

}  // namespace
}  // namespace small
