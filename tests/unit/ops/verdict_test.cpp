// ops/inspect/verdict: the one verdict operation. What matters beyond the
// pipeline's own tests (check/verdict_test): a verdict that could not run is
// an error, never a default Verdict that reads as a pass.
#include "small/ops/inspect/verdict.hpp"

#include <gtest/gtest.h>

#include "support/fixtures.hpp"

namespace small {
namespace {

using testing::InitWorkspace;
using testing::memory_workspace;

TEST(VerdictCommand, AFreshWorkspaceValidates) {
    const auto w = memory_workspace();
    VerdictRequest request;
    request.kind = VerdictKind::Validate;
    Result<VerdictRun> run = verdict_command(w->fs(), w->ws(), request);
    ASSERT_TRUE(run.ok()) << run.error().describe();
    EXPECT_EQ(run->verdict.outcome, VerdictOutcome::Ok);
    EXPECT_FALSE(run->schema_source.empty());
}

TEST(VerdictCommand, SchemasThatDoNotLoadAreAnErrorNotAPass) {
    const auto w = memory_workspace();
    for (VerdictKind kind : {VerdictKind::Validate, VerdictKind::Check, VerdictKind::Verify}) {
        VerdictRequest request;
        request.kind = kind;
        request.spec_dir = "/no/such/schemas";
        Result<VerdictRun> run = verdict_command(w->fs(), w->ws(), request);
        EXPECT_FALSE(run.ok()) << "kind " << static_cast<int>(kind);
    }
}

TEST(VerdictCommand, LintReadsNoSchemasSoASpecDirIsIgnored) {
    const auto w = memory_workspace();
    VerdictRequest request;
    request.kind = VerdictKind::Lint;
    request.spec_dir = "/no/such/schemas";
    Result<VerdictRun> run = verdict_command(w->fs(), w->ws(), request);
    ASSERT_TRUE(run.ok()) << run.error().describe();
}

TEST(VerdictCommand, ABrokenPlanFailsEveryKind) {
    const auto w = memory_workspace();
    w->write("plan.small.yml", "small_version: \"1.0.0\"\nowner: agent\ntasks: [\n");
    for (VerdictKind kind : {VerdictKind::Validate, VerdictKind::Lint, VerdictKind::Check, VerdictKind::Verify}) {
        VerdictRequest request;
        request.kind = kind;
        Result<VerdictRun> run = verdict_command(w->fs(), w->ws(), request);
        ASSERT_TRUE(run.ok()) << run.error().describe();
        EXPECT_NE(run->verdict.outcome, VerdictOutcome::Ok) << "kind " << static_cast<int>(kind);
        EXPECT_FALSE(run->verdict.all_findings().empty());
    }
}

TEST(VerdictCommand, EvidenceOutsideARepositoryIsAnError) {
    const InitWorkspace w;  // a temporary folder, in no git repository
    VerdictRequest request;
    request.kind = VerdictKind::Verify;
    request.evidence = true;
    Result<VerdictRun> run = verdict_command(w.fs(), w.ws(), request);
    EXPECT_FALSE(run.ok());
}

}  // namespace
}  // namespace small
