#include "small/ops/inspect/verdict.hpp"

#include "small/check/evidence_check.hpp"
#include "small/check/schema.hpp"
#include "small/model/layout.hpp"
#include "small/store/verified_cache.hpp"

namespace small {

namespace {

// The verified-prefix cache knows only the built-in schemas (lint reads none).
bool uses_cache(const VerdictRequest& request) {
    return !request.no_cache && (request.kind == VerdictKind::Lint || !request.spec_dir);
}

Result<SchemaSet> load_schemas(const FileSystem& fs, const VerdictRequest& request) {
    // lint uses no schemas; --spec-dir is accepted there for compatibility only.
    if (request.kind == VerdictKind::Lint || !request.spec_dir) return SchemaSet::embedded();
    return SchemaSet::from_directory(fs, *request.spec_dir);
}

Verdict run_pipeline(const VerdictInput& input, const VerdictRequest& request) {
    const VerdictOptions& options = request.options;
    switch (request.kind) {
        case VerdictKind::Validate: return run_validate(input);
        case VerdictKind::Lint: return run_lint(input, options);
        case VerdictKind::Verify: return run_verify(input, options);
        case VerdictKind::Check: break;
    }
    return run_check(input, options);
}

// The evidence rules as one more stage, so text and JSON list their findings
// with the others (file:line:column, rule id).
void add_evidence_stage(Verdict& v, const EvidenceReport& ev) {
    StageResult stage;
    stage.name = "evidence";
    stage.findings = ev.findings;
    const bool failed = count_errors(ev.findings) > 0;
    stage.status = failed ? StageResult::Status::Failed : StageResult::Status::Ok;
    v.stages.push_back(std::move(stage));
    if (failed && v.outcome == VerdictOutcome::Ok) v.outcome = VerdictOutcome::Invalid;
}

}  // namespace

Result<VerdictRun> verdict_command(const FileSystem& fs, const WorkspacePaths& ws, const VerdictRequest& request) {
    Result<SchemaSet> schemas = load_schemas(fs, request);
    if (!schemas) return schemas.error();
    VerdictRun run;
    run.schema_source = schemas->source();
    const bool cached = uses_cache(request);
    const std::optional<VerifiedPrefix> before =
        cached ? load_verified_prefix(fs, ws, &run.cache_note) : std::nullopt;
    // Verdicts never create .small-cache/ (store/verified_cache): without it, none is kept.
    const bool keeps = cached && fs.directory_exists(runtime_path(ws.root, kCacheDirName));
    run.verdict = run_pipeline(VerdictInput{fs, ws, *schemas, before ? &*before : nullptr, keeps}, request);
    if (run.verdict.next_prefix && run.verdict.next_prefix != before) {
        save_verified_prefix(fs, ws, *run.verdict.next_prefix);
    }
    if (request.kind == VerdictKind::Verify && request.evidence) {
        Result<EvidenceReport> evidence = check_evidence(fs, ws);
        if (!evidence) return evidence.error();
        add_evidence_stage(run.verdict, *evidence);
    }
    return run;
}

}  // namespace small
