// Runs and renders the four verdict commands (validate, lint, check,
// verify); the command files only declare their flags.
#include <cstdlib>
#include <iostream>

#include "cli.hpp"

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
    const WorkspacePaths ws = locate_workspace(ctx.fs, flags.dir, current_directory());
    VerdictRequest request;
    request.kind = kind;
    request.spec_dir = schema_dir(flags);
    request.options.scope = *scope;
    request.options.strict = flags.strict;
    request.options.format_strict = flags.format_strict;
    request.evidence = flags.evidence;
    request.no_cache = flags.no_cache;
    Result<VerdictRun> run = verdict_command(ctx.fs, ws, request);
    if (!run) return render_failure(out, format, run.error(), exit_code_for(run.error().kind));
    if (flags.verbose && !run->cache_note.empty()) std::cerr << "note: " << run->cache_note << '\n';
    const Verdict& verdict = run->verdict;
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
        out.json_document(verdict_json(kind, verdict, code, ws, run->schema_source), code);
    } else {
        if (kind == VerdictKind::Validate && flags.spec_dir) out.info("Schema resolution: using schemas from " + run->schema_source);
        render_text(kind, verdict, out, flags.ci);
    }
    return code;
}

int run_strict_check(Context& ctx, const WorkspacePaths& ws, nlohmann::json* json_out) {
    const Output out(ctx.globals, "check");
    VerdictRequest request;
    request.kind = VerdictKind::Check;
    request.options.strict = true;
    Result<VerdictRun> run = verdict_command(ctx.fs, ws, request);
    if (!run) {
        if (json_out) *json_out = error_json("system", run.error().message);
        else out.problem("Error: " + run.error().message);
        return kExitSystem;
    }
    const int code = exit_code_for(run->verdict.outcome);
    if (json_out) *json_out = check_json(run->verdict, code);
    else render_text(VerdictKind::Check, run->verdict, out, false);
    return code;
}

}  // namespace small::cli
