// Runs and renders the four verdict commands (validate, lint, check,
// verify); the command files only declare their flags.
#include <cstdlib>
#include <iostream>

#include "cli.hpp"
#include "small/check/evidence_check.hpp"
#include "small/store/verified_cache.hpp"

namespace small::cli {

namespace {

const char* kind_name(VerdictKind kind) {
    switch (kind) {
        case VerdictKind::Validate: return "validate";
        case VerdictKind::Lint: return "lint";
        case VerdictKind::Check: return "check";
        case VerdictKind::Verify: return "verify";
    }
    return "check";
}

const char* success_line(VerdictKind kind) {
    switch (kind) {
        case VerdictKind::Validate: return "All artifacts are valid";
        case VerdictKind::Lint: return "All invariants satisfied";
        case VerdictKind::Check: return "Check passed";
        case VerdictKind::Verify: return "Verification passed";
    }
    return "";
}

const char* failure_title(VerdictKind kind) {
    switch (kind) {
        case VerdictKind::Validate: return "Validation failed";
        case VerdictKind::Lint: return "Invariant violations found";
        case VerdictKind::Check: return "Check failed";
        case VerdictKind::Verify: return "Verification failed";
    }
    return "Failed";
}

std::optional<std::string> schema_dir(const VerdictFlags& flags) {
    if (flags.spec_dir) return flags.spec_dir;
    if (const char* env = std::getenv("SMALL_SPEC_DIR"); env && *env) return std::string(env);
    return std::nullopt;
}

Result<SchemaSet> load_schemas(const FileSystem& fs, const VerdictFlags& flags) {
    const std::optional<std::string> dir = schema_dir(flags);
    return dir ? SchemaSet::from_directory(fs, *dir) : SchemaSet::embedded();
}

// The verified-prefix cache is used only with the built-in schemas (it does
// not know other ones; lint reads none), and not under --no-cache.
bool uses_cache(VerdictKind kind, const VerdictFlags& flags) {
    return !flags.no_cache && (kind == VerdictKind::Lint || !schema_dir(flags));
}

void keep_prefix(const Context& ctx, const WorkspacePaths& ws, const std::optional<VerifiedPrefix>& before,
                 const Verdict& v) {
    if (!v.next_prefix || v.next_prefix == before) return;
    save_verified_prefix(ctx.fs, ws, *v.next_prefix);
}

nlohmann::json verdict_json(VerdictKind kind, const Verdict& v, int exit_code, const WorkspacePaths& ws,
                            const std::string& schema_source) {
    if (kind == VerdictKind::Check) return check_json(v, exit_code);
    return small::verdict_json(v, exit_code, ws, kind == VerdictKind::Validate ? &schema_source : nullptr);
}

// The last line: the success line, or the failure's title with its count.
// `to_stderr`: stdout holds a document (--format github), so the line goes to stderr.
void render_outcome(VerdictKind kind, const Verdict& v, const std::vector<Finding>& all, const Output& out, bool ci,
                    bool to_stderr = false) {
    const std::size_t errors = count_errors(all);
    if (v.outcome == VerdictOutcome::Ok) {
        if (ci || out.quiet()) return;
        if (to_stderr) out.problem(success_line(kind));
        else out.success(success_line(kind));
        return;
    }
    std::string title = failure_title(kind);
    if (errors) title += " (" + std::to_string(errors) + " error" + (errors == 1 ? "" : "s") + ")";
    out.problem(title);
}

void render_text(VerdictKind kind, const Verdict& v, const Output& out, bool ci) {
    const std::vector<Finding> all = v.all_findings();
    out.findings(all, !ci);
    render_outcome(kind, v, all, out, ci);
}

// The evidence rules as one more stage of the verdict, so text and JSON
// list their findings with the others (file:line:column, rule id).
void add_evidence_stage(Verdict& v, const EvidenceReport& ev) {
    StageResult stage;
    stage.name = "evidence";
    stage.findings = ev.findings;
    const bool failed = count_errors(ev.findings) > 0;
    stage.status = failed ? StageResult::Status::Failed : StageResult::Status::Ok;
    v.stages.push_back(std::move(stage));
    if (failed && v.outcome == VerdictOutcome::Ok) v.outcome = VerdictOutcome::Invalid;
}

const std::vector<std::string> kVerdictFormats = {"text", "json", "sarif", "github", "gitlab"};

enum class Format { Text, Json, Sarif, Github, Gitlab };

Format format_of(const Output& out, const VerdictFlags& flags) {
    if (flags.format == "sarif") return Format::Sarif;
    if (flags.format == "gitlab") return Format::Gitlab;
    if (flags.format == "github") return Format::Github;
    return out.json() ? Format::Json : Format::Text;
}

// A verdict that could not be reached (a bad flag, no schemas, git not
// readable), in the format asked for; returns `code`.
int render_failure(const Output& out, Format format, const Error& error, int code) {
    if (format == Format::Sarif) {
        std::cout << findings_sarif({}, {current_directory(), code, error.describe()}).dump(2) << '\n';
        out.problem("Error: " + error.describe());
        return code;
    }
    if (format == Format::Gitlab) {
        std::cout << "[]\n";  // nothing to report as code quality; the job fails on the exit code
        out.problem("Error: " + error.describe());
        return code;
    }
    if (format == Format::Github) {
        Finding f;
        f.rule = "small";
        f.file = error.file;
        f.mark = {error.line, error.column};
        f.message = error.message;
        f.hint = error.hint;
        std::cout << github_annotations({f});
        out.problem("Error: " + error.describe());
        return code;
    }
    return report_error(out, error);
}

}  // namespace

void add_format_option(CLI::App* cmd, std::string& format) {
    cmd->add_option("--format", format,
                    "text (default), json (the same document as --json), sarif (SARIF 2.1.0, for code scanning), "
                    "github (GitHub Actions annotations) or gitlab (GitLab Code Quality report); the exit code is the "
                    "same in every format")
        ->check(one_of(kVerdictFormats));
    complete_as(cmd->get_option("--format"), kVerdictFormats);
}

void add_no_cache_flag(CLI::App* cmd, VerdictFlags& flags) {
    cmd->add_flag("--no-cache", flags.no_cache,
                  "Read the whole progress log; without it only the entries appended since the last clean verdict "
                  "are read (.small-cache/progress.verified, authenticated with this user's key; off under CI=true "
                  "unless SMALL_VERIFIED_CACHE=1)");
    cmd->add_flag("--verbose", flags.verbose,
                  "Say on stderr why a verified-prefix cache was not used (another user's, copied or committed, "
                  "failing its key, CI=true)");
}

int run_verdict_command(Context& ctx, VerdictKind kind, const VerdictFlags& flags) {
    Globals globals = ctx.globals;
    globals.json = globals.json || flags.format == "json";
    const Output out(globals, kind_name(kind));
    const Format format = format_of(out, flags);
    Result<WorkspaceScope> scope = parse_workspace_scope(flags.scope);
    if (!scope) return render_failure(out, format, scope.error(), kExitUsage);
    // lint uses no schemas; --spec-dir is accepted there for compatibility only.
    Result<SchemaSet> schemas = kind == VerdictKind::Lint ? SchemaSet::embedded() : load_schemas(ctx.fs, flags);
    if (!schemas) return render_failure(out, format, schemas.error(), kExitSystem);
    const WorkspacePaths ws = locate_workspace(ctx.fs, flags.dir, current_directory());
    const bool cached = uses_cache(kind, flags);
    std::string ignored;
    const std::optional<VerifiedPrefix> before = cached ? load_verified_prefix(ctx.fs, ws, &ignored) : std::nullopt;
    if (flags.verbose && !ignored.empty()) std::cerr << "note: " << ignored << '\n';
    // Verdicts never create .small-cache/ (store/verified_cache): without it, none is kept.
    const bool keeps = cached && ctx.fs.directory_exists(runtime_path(ws.root, kCacheDirName));
    const VerdictInput input{ctx.fs, ws, *schemas, before ? &*before : nullptr, keeps};
    VerdictOptions options;
    options.strict = flags.strict;
    options.format_strict = flags.format_strict;
    options.scope = *scope;
    Verdict verdict;
    switch (kind) {
        case VerdictKind::Validate: verdict = run_validate(input); break;
        case VerdictKind::Lint: verdict = run_lint(input, options); break;
        case VerdictKind::Check: verdict = run_check(input, options); break;
        case VerdictKind::Verify: verdict = run_verify(input, options); break;
    }
    keep_prefix(ctx, ws, before, verdict);
    if (kind == VerdictKind::Verify && flags.evidence) {
        Result<EvidenceReport> ev = check_evidence(ctx.fs, ws);
        if (!ev) return render_failure(out, format, ev.error(), exit_code_for(ev.error().kind));
        add_evidence_stage(verdict, *ev);
    }
    const int code = exit_code_for(verdict.outcome);
    if (format == Format::Sarif) {
        std::cout << findings_sarif(verdict.all_findings(), {current_directory(), code, ""}).dump(2) << '\n';
    } else if (format == Format::Gitlab) {
        std::cout << findings_code_quality(verdict.all_findings()).dump(2) << '\n';
    } else if (format == Format::Github) {
        const std::vector<Finding> all = verdict.all_findings();
        std::cout << github_annotations(all);
        render_outcome(kind, verdict, all, out, flags.ci, true);
    } else if (out.json()) {
        out.json_document(verdict_json(kind, verdict, code, ws, schemas->source()), code);
    } else {
        if (kind == VerdictKind::Validate && flags.spec_dir) out.info("Schema resolution: using schemas from " + schemas->source());
        render_text(kind, verdict, out, flags.ci);
    }
    return code;
}

int run_strict_check(Context& ctx, const WorkspacePaths& ws, nlohmann::json* json_out) {
    const Output out(ctx.globals, "check");
    Result<SchemaSet> schemas = SchemaSet::embedded();
    if (!schemas) {
        if (json_out) *json_out = error_json("system", schemas.error().message);
        else out.problem("Error: " + schemas.error().message);
        return kExitSystem;
    }
    VerdictOptions options;
    options.strict = true;
    const Verdict verdict = run_check(VerdictInput{ctx.fs, ws, *schemas}, options);
    const int code = exit_code_for(verdict.outcome);
    if (json_out) *json_out = check_json(verdict, code);
    else render_text(VerdictKind::Check, verdict, out, false);
    return code;
}

}  // namespace small::cli
