#include "small/check/verdict.hpp"

#include <algorithm>
#include <cstdint>
#include <future>
#include <memory>
#include <system_error>
#include <utility>

#include "rules_internal.hpp"
#include "small/base/fast_hash.hpp"
#include "small/doc/yaml.hpp"

namespace small {

const char* stage_status_name(StageResult::Status status) {
    switch (status) {
        case StageResult::Status::Ok: return "ok";
        case StageResult::Status::Failed: return "failed";
        case StageResult::Status::Error: return "error";
        case StageResult::Status::Skipped: return "skipped";
    }
    return "skipped";
}

std::vector<Finding> Verdict::all_findings() const {
    std::vector<Finding> out = blocking;
    for (const StageResult& stage : stages) out.insert(out.end(), stage.findings.begin(), stage.findings.end());
    return out;
}

namespace {

Finding workspace_finding(const WorkspacePaths& ws, std::string rule, std::string message, std::string hint = {}) {
    Finding f;
    f.rule = std::move(rule);
    f.file = ws.display_prefix + small_relative("");
    f.file_order = kSmallDirOrder;
    f.message = std::move(message);
    f.hint = std::move(hint);
    return f;
}

Finding finding_for(const Error& e, const std::string& rule) {
    Finding f = finding_from_error(e, kWorkspaceFileOrder);
    f.rule = rule;
    return f;
}

// Fails the verdict when there is no .small/ directory at all.
bool require_small_dir(const VerdictInput& in, Verdict& v) {
    if (in.fs.directory_exists(in.paths.small_dir)) return true;  // a link to a folder is read through
    if (in.fs.is_symlink(in.paths.small_dir)) {
        v.blocking.push_back(workspace_finding(in.paths, "WS-1",
                                               in.paths.small_dir + " is a symbolic link to a folder that does not exist",
                                               "point the link at the workspace's .small/ folder, or replace it"));
        v.outcome = VerdictOutcome::SystemError;
        return false;
    }
    v.blocking.push_back(workspace_finding(in.paths, "WS-1",
                                           "no .small/ directory found in " + in.paths.root +
                                               (in.paths.from_dir_flag ? "" : " or any parent directory"),
                                           "create a workspace with `small init`, or pass --dir"));
    v.outcome = VerdictOutcome::SystemError;
    return false;
}

// Where a verdict reads the log from: the file, or (warm) the entries
// appended after its verified prefix; and what it found out on the way.
struct Source {
    LogAfterPrefix* after = nullptr;
    const VerifiedPrefix* before = nullptr;
    bool undecided = false;  // a rule needed the verified entries themselves
    unsigned checks = 0;     // PrefixCheck bits of the checks run on the log
    std::optional<ArtifactSet> others;  // read beside the prefix: every artifact but the log
    ArtifactSet set;
};

// Loads the artifacts; load errors block the verdict.
bool load_or_block(const VerdictInput& in, Source& src, Verdict& v) {
    ArtifactSet& set = src.set;
    std::optional<Artifact> log;
    if (src.after) log = std::move(src.after->progress);
    if (src.others) {
        set = std::move(*src.others);
        src.others.reset();
        add_progress(set, in.fs, in.paths, std::move(log));
    } else {
        set = load_artifacts(in.fs, in.paths, std::move(log));
    }
    if (set.complete()) return true;
    bool system = false;
    for (const Error& e : set.errors) {
        Finding f = finding_from_error(e, 0);
        // Keep canonical order for load errors too.
        for (ArtifactType type : kArtifactTypes) {
            if (e.file == in.paths.artifact_display(type)) f.file_order = file_order(type);
        }
        if (e.message.rfind("file is missing", 0) == 0) f.hint = "create it with `small init`, or restore it";
        system = system || e.kind == Error::Kind::System || e.kind == Error::Kind::Internal;
        v.blocking.push_back(std::move(f));
    }
    sort_findings(v.blocking);
    v.outcome = system ? VerdictOutcome::SystemError : VerdictOutcome::Invalid;
    return false;
}

// The run id that scopes S2 (D9); none when workspace.small.yml is unusable.
std::string run_id_of(const Result<WorkspaceMetadata>& meta) { return meta ? meta->run_replay_id : std::string(); }

// Metadata must load and its kind suit the scope (verify always; check when scoped).
bool check_metadata(const Result<WorkspaceMetadata>& meta, const VerdictOptions& options, const WorkspacePaths& ws,
                    Verdict& v) {
    if (!meta) {
        v.blocking.push_back(finding_for(meta.error(), "WS-2"));
        v.outcome = VerdictOutcome::Invalid;
        return false;
    }
    if (options.scope) {
        if (Status s = check_workspace_scope(*meta, *options.scope, ws); !s) {
            v.blocking.push_back(finding_for(s.error(), "WS-3"));
            v.outcome = VerdictOutcome::Invalid;
            return false;
        }
    }
    return true;
}

// A run.replay_id that is no id: a warning, so the verdict stays the
// reference's (which accepts any string), while every write refuses it.
std::vector<Finding> run_id_warnings(const Result<WorkspaceMetadata>& meta) {
    if (!meta || !meta->run_id_error) return {};
    Finding f = finding_for(*meta->run_id_error, "WS-2");
    f.severity = Severity::Warning;
    f.message += " (every write command refuses it until it is repaired)";
    return {std::move(f)};
}

StageResult make_stage(std::string name, std::vector<Finding> findings) {
    StageResult stage;
    stage.name = std::move(name);
    stage.status = count_errors(findings) ? StageResult::Status::Failed : StageResult::Status::Ok;
    stage.findings = std::move(findings);
    return stage;
}

void append(std::vector<Finding>& to, std::vector<Finding> from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

// Invariants, plus S4 (strict) and small_version quoting.
std::vector<Finding> lint_findings(const VerdictInput& in, Source& src, const VerdictOptions& options,
                                   const std::string& run_id, Verdict& v) {
    const ArtifactSet& set = src.set;
    InvariantOptions inv;
    inv.strict = options.strict;
    inv.run_replay_id = run_id;
    inv.before = src.before;
    inv.undecided = &src.undecided;
    std::vector<Finding> findings = check_invariants(set, inv);
    if (options.strict) {
        Result<std::vector<Finding>> layout = check_layout(in.fs, in.paths);
        if (!layout) {
            v.blocking.push_back(finding_for(layout.error(), "IO"));
            v.outcome = VerdictOutcome::SystemError;
        } else {
            append(findings, std::move(*layout));
        }
    }
    append(findings, check_version_quoting(in.fs, in.paths, set, options.format_strict));
    sort_findings(findings);
    return findings;
}

void finish(Verdict& v) {
    if (v.outcome != VerdictOutcome::Ok) return;
    for (const StageResult& stage : v.stages) {
        if (stage.status == StageResult::Status::Failed) v.outcome = VerdictOutcome::Invalid;
    }
}

// Verify's required-files step: name every missing file at once.
bool require_files(const VerdictInput& in, Verdict& v) {
    std::string missing;
    for (ArtifactType type : kArtifactTypes) {
        if (!in.fs.file_exists(in.paths.artifact_path(type))) {
            missing += (missing.empty() ? "" : ", ") + artifact_file_name(type);
        }
    }
    if (missing.empty()) return true;
    v.blocking.push_back(workspace_finding(in.paths, "VER-0", "Missing required files: " + missing,
                                           "create them with `small init`, or restore them from version control"));
    v.outcome = VerdictOutcome::Invalid;
    return false;
}

}  // namespace

namespace {

bool rules_pass(const Artifact& log, unsigned checks, Instant now) {
    const NodeRef root = log.doc.root();
    std::vector<Finding> out;
    rules::Reporter r(out, log.display, file_order(ArtifactType::Progress));
    rules::check_global(root, ArtifactType::Progress, r);
    rules::check_progress(root, now, r);
    if (checks & kPrefixStrict) rules::check_secrets_and_links(root, ArtifactType::Progress, r);
    return out.empty();
}

}  // namespace

bool entries_are_clean(const SchemaSet& schemas, const Artifact& log, unsigned checks, Instant now) {
    const bool schema = checks & kPrefixSchema, rules = checks & (kPrefixRules | kPrefixStrict);
    const auto schema_passes = [&] { return schemas.validate(artifact_name(ArtifactType::Progress), log.doc).empty(); };
    if (!rules) return !schema || schema_passes();
    if (!schema) return rules_pass(log, checks, now);
    // Both: the schema beside the rules, as check runs validate beside lint.
    std::future<bool> schema_ok;
    try {
        schema_ok = std::async(std::launch::async, schema_passes);
    } catch (const std::system_error&) {
        schema_ok = std::async(std::launch::deferred, schema_passes);  // no thread to spare
    }
    const bool rules_ok = rules_pass(log, checks, now);
    return schema_ok.get() && rules_ok;
}

// ---- The whole log in windows (issue 39) ----

namespace {

std::optional<Artifact> parsed_log(const WorkspacePaths& ws, std::string text) {
    Result<Document> doc = parse_yaml(std::move(text), ws.artifact_display(ArtifactType::Progress));
    if (!doc || !doc->root().is_mapping()) return std::nullopt;
    return Artifact{ArtifactType::Progress, ws.artifact_path(ArtifactType::Progress),
                    ws.artifact_display(ArtifactType::Progress), std::move(*doc)};
}

}  // namespace

namespace {

// Runs one window's checks at a time on a thread of its own, in order, while
// the caller reads and parses the next window: a cold verdict keeps both
// cores busy, and holds two windows' documents at most.
class CheckBeside {
public:
    ~CheckBeside() {
        if (pending_.valid()) pending_.wait();  // its captures die with the caller; get() could throw here
    }

    // Waits for the window before; false when it failed.
    bool wait() {
        if (pending_.valid()) ok_ = pending_.get() && ok_;
        return ok_;
    }

    // Runs `check` once the window before has passed (false: it failed).
    template <class Check>
    bool then(Check check) {
        if (!wait()) return false;
        try {
            pending_ = std::async(std::launch::async, check);  // a copy: a failed launch may have moved from it
        } catch (const std::system_error&) {
            ok_ = check();  // no thread to spare: checked here
        }
        return ok_;
    }

private:
    std::future<bool> pending_;
    bool ok_ = true;
};

}  // namespace

std::optional<VerifiedPrefix> stream_verified_prefix(const FileSystem& fs, const WorkspacePaths& ws,
                                                     const SchemaSet& schemas, unsigned checks,
                                                     const LogWindows& windows,
                                                     const std::function<void(NodeRef entries)>& each) {
    const std::string path = ws.artifact_path(ArtifactType::Progress);
    const StampedFile before = stamp_file(fs, path);
    if (!before.stamp || before.stamp->size < windows.stream_from_bytes) return std::nullopt;
    const Instant now = current_instant();
    FastHasher hasher;
    std::optional<VerifiedPrefix> prefix;
    std::optional<WindowedLog> read;
    {
        CheckBeside checker;
        read = for_each_window_text(fs, path, windows, [&](EntryWindowText window) {
            const std::size_t bytes = window.text.size() - window.place.doc_start;
            hasher.update(std::string_view(window.text).substr(window.place.doc_start));
            auto log = std::make_shared<const std::optional<Artifact>>(parsed_log(ws, std::move(window.text)));
            if (!*log) return false;
            return checker.then([&, log, bytes, first = window.first, header = window.place.header_bytes, indent = window.indent] {
                const Artifact& artifact = **log;
                if (!entries_are_clean(schemas, artifact, checks, now)) return false;
                const NodeRef entries = artifact.doc.root().find("entries");
                if (first) {
                    prefix = start_prefix(artifact, checks);
                    if (!prefix || prefix->item_indent != indent || prefix->header_length != header) return false;
                } else {
                    if (!continues_prefix(*prefix, entries, now)) return false;
                    fold_entries(*prefix, entries);
                    prefix->length += bytes;
                }
                if (each) each(entries);
                return true;
            });
        });
        if (!checker.wait()) return std::nullopt;
    }
    if (!read || !prefix || prefix->length != before.stamp->size) return std::nullopt;
    if (!last_entry_reads_the_same_before(read->last_entry, prefix->item_indent)) return std::nullopt;  // as in start_prefix
    if (stamp_file(fs, path).stamp != before.stamp) return std::nullopt;  // written meanwhile
    prefix->hash = hasher.digest();
    record_stamp(*prefix, before.stamp, before.clock_ns);
    return prefix;
}


namespace {

unsigned lint_checks(const VerdictOptions& options) { return kPrefixRules | (options.strict ? kPrefixStrict : 0u); }

Verdict validate_from(const VerdictInput& in, Source& src) {
    Verdict v;
    if (!require_small_dir(in, v) || !load_or_block(in, src, v)) return v;
    v.stages.push_back(make_stage("validate", check_schemas(in.schemas, src.set)));
    src.checks = kPrefixSchema;
    finish(v);
    return v;
}

Verdict lint_from(const VerdictInput& in, const VerdictOptions& options, Source& src) {
    Verdict v;
    if (!require_small_dir(in, v) || !load_or_block(in, src, v)) return v;
    const std::string run_id = run_id_of(load_workspace_metadata(in.fs, in.paths));
    v.stages.push_back(make_stage("lint", lint_findings(in, src, options, run_id, v)));
    src.checks = lint_checks(options);
    finish(v);
    return v;
}

Verdict verify_from(const VerdictInput& in, const VerdictOptions& options, Source& src) {
    Verdict v;
    if (!require_small_dir(in, v)) return v;
    const Result<WorkspaceMetadata> meta = load_workspace_metadata(in.fs, in.paths);
    if (!check_metadata(meta, options, in.paths, v) || !require_files(in, v) || !load_or_block(in, src, v)) return v;
    std::vector<Finding> findings = check_schemas(in.schemas, src.set);
    append(findings, lint_findings(in, src, options, run_id_of(meta), v));
    append(findings, check_verify_rules(src.set));
    append(findings, run_id_warnings(meta));
    sort_findings(findings);
    v.stages.push_back(make_stage("verify", std::move(findings)));
    src.checks = kPrefixSchema | lint_checks(options);
    finish(v);
    return v;
}

Verdict check_from(const VerdictInput& in, const VerdictOptions& options, Source& src) {
    Verdict v;
    const bool scoped = options.scope && *options.scope != WorkspaceScope::Any;
    if (!require_small_dir(in, v)) return v;
    const Result<WorkspaceMetadata> meta = load_workspace_metadata(in.fs, in.paths);
    if ((scoped && !check_metadata(meta, options, in.paths, v)) || !load_or_block(in, src, v)) return v;
    // Lint does not depend on validate's result, so both run at once (the
    // lint stage is still reported as skipped when validation fails).
    Verdict lint_scratch;
    const std::string run_id = run_id_of(meta);
    const auto run_lint = [&] { return lint_findings(in, src, options, run_id, lint_scratch); };
    std::future<std::vector<Finding>> lint_future;
    try {
        lint_future = std::async(std::launch::async, run_lint);
    } catch (const std::system_error&) {
        lint_future = std::async(std::launch::deferred, run_lint);  // no thread to spare: lint runs at get()
    }
    StageResult validate = make_stage("validate", check_schemas(in.schemas, src.set));
    std::vector<Finding> lint_result = lint_future.get();
    src.checks = kPrefixSchema;
    StageResult lint{"lint", StageResult::Status::Skipped, {}};
    if (validate.status == StageResult::Status::Ok) {
        lint = make_stage("lint", std::move(lint_result));
        src.checks |= lint_checks(options);
        append(v.blocking, std::move(lint_scratch.blocking));
        if (lint_scratch.outcome != VerdictOutcome::Ok) v.outcome = lint_scratch.outcome;
    }
    StageResult verify{"verify", StageResult::Status::Skipped, {}};
    if (lint.status == StageResult::Status::Ok && v.outcome == VerdictOutcome::Ok) {
        // Schema and invariants already passed; verify adds its own checks.
        Verdict unusable;
        if (!check_metadata(meta, options, in.paths, unusable)) {
            verify = make_stage("verify", unusable.blocking);
        } else {
            verify = make_stage("verify", check_verify_rules(src.set));
        }
    }
    v.stages = {std::move(validate), std::move(lint), std::move(verify)};
    StageResult* last_run = &v.stages.front();
    for (StageResult& stage : v.stages) last_run = stage.status == StageResult::Status::Skipped ? last_run : &stage;
    append(last_run->findings, run_id_warnings(meta));
    sort_findings(last_run->findings);
    finish(v);
    return v;
}

// A finding about the log's own content: one the verified prefix cannot
// vouch for. S1 and FMT-1 are not: the prefix carries S1's facts, and the
// small_version line lies in the header that is always read.
bool has_log_findings(const Verdict& v, const std::string& log_display) {
    for (const Finding& f : v.all_findings()) {
        if (f.file == log_display && f.rule != "S1" && f.rule != "FMT-1") return true;
    }
    return false;
}

// Whether the appended entries pass the checks the verified ones passed
// that this verdict did not run (a validate after a check --strict).
bool passes_missing_checks(const VerdictInput& in, const Artifact& log, const VerifiedPrefix& before, unsigned missing) {
    const Instant now = current_instant();
    if ((missing & (kPrefixRules | kPrefixStrict)) && !continues_prefix(before, log.doc.root().find("entries"), now)) {
        return false;
    }
    return entries_are_clean(in.schemas, log, missing, now);
}

// The prefix to keep after a verdict the verified prefix decided: extended
// over clean appended entries, or (nothing appended, the bytes hashed) the
// same prefix under the file's new stamp, so the next verdict need not hash.
std::optional<VerifiedPrefix> prefix_after(const VerdictInput& in, const Artifact& log, const LogAfterPrefix& after,
                                           unsigned missing) {
    if (after.size > in.prefix->length) {
        if (!passes_missing_checks(in, log, *in.prefix, missing)) return std::nullopt;
        return extend_prefix(*in.prefix, log.doc, after);
    }
    if (after.trusted) return std::nullopt;
    VerifiedPrefix same = *in.prefix;
    record_stamp(same, after.stamp, after.clock_ns);
    if (same == *in.prefix) return std::nullopt;
    return same;
}

// A prefix long enough that hashing it is worth a thread of its own.
constexpr std::uint64_t kHashBesideOthersBytes = 1u << 20;

// The log after its prefix, read while this thread reads the other artifacts:
// hashing a long prefix costs as much as parsing a large plan.
std::optional<LogAfterPrefix> load_beside_others(const VerdictInput& in, std::optional<ArtifactSet>& others) {
    const auto read_log = [&] { return load_after_prefix(in.fs, in.paths, *in.prefix); };
    std::future<std::optional<LogAfterPrefix>> log;
    try {
        log = std::async(in.prefix->length >= kHashBesideOthersBytes ? std::launch::async : std::launch::deferred,
                         read_log);
    } catch (const std::system_error&) {
        log = std::async(std::launch::deferred, read_log);  // no thread to spare
    }
    others = load_artifacts_but_progress(in.fs, in.paths);
    return log.get();
}

// A verdict on the log after its verified prefix (in.prefix, which passed
// every check the verdict makes, `checks`) when that decides it exactly;
// with the prefix to keep.
template <class Run>
std::optional<Verdict> from_prefix(const VerdictInput& in, Run run, bool& log_read) {
    std::optional<ArtifactSet> others;
    std::optional<LogAfterPrefix> after = load_beside_others(in, others);
    if (!after) return std::nullopt;
    log_read = true;  // the log still starts with the prefix: what is left to decide is in what follows
    Source src;
    src.after = &*after;
    src.before = in.prefix;
    src.others = std::exchange(others, std::nullopt);
    Verdict v = run(src);
    const Artifact* log = src.set.get(ArtifactType::Progress);
    if (!log || src.undecided || has_log_findings(v, log->display)) return std::nullopt;
    v.used_prefix = true;
    const unsigned missing = in.prefix->checks & ~src.checks;
    if (in.want_prefix) v.next_prefix = prefix_after(in, *log, *after, missing);
    return v;
}

// Runs a verdict from the verified prefix when that decides it exactly, else
// from the log read in windows, else on the whole log; and says what prefix
// to keep.
template <class Run>
Verdict with_prefix(const VerdictInput& in, unsigned checks, Run run) {
    bool log_read = false;
    if (in.prefix && (in.prefix->checks & checks) == checks) {
        if (std::optional<Verdict> v = from_prefix(in, run, log_read)) return std::move(*v);
    }
    // A prefix that matched but could not decide (a finding in the new entries,
    // S2 undecided) would not decide in windows either: straight to the whole read.
    const std::optional<VerifiedPrefix> streamed =
        log_read ? std::nullopt : stream_verified_prefix(in.fs, in.paths, in.schemas, checks, in.windows);
    if (streamed) {
        VerdictInput windows = in;
        windows.prefix = &*streamed;
        bool unused = false;
        if (std::optional<Verdict> v = from_prefix(windows, run, unused)) {
            v->used_prefix = false;  // no cache vouched: the whole log was read
            v->read_in_windows = true;
            if (in.want_prefix && !v->next_prefix) v->next_prefix = *streamed;
            return std::move(*v);
        }
    }
    // The whole log is read now: the other files are read again beside it, so that
    // a write landing meanwhile cannot pair an older plan with a newer log.
    const std::string log_path = in.paths.artifact_path(ArtifactType::Progress);
    const StampedFile before = stamp_file(in.fs, log_path);
    Source src;
    Verdict v = run(src);
    const Artifact* log = src.set.get(ArtifactType::Progress);
    if (in.want_prefix && log && src.checks && !has_log_findings(v, log->display)) {
        v.next_prefix = start_prefix(*log, src.checks);
        const bool same = before.stamp && stamp_file(in.fs, log_path).stamp == before.stamp;
        if (v.next_prefix) record_stamp(*v.next_prefix, same ? before.stamp : std::nullopt, before.clock_ns);
    }
    return v;
}

}  // namespace

Verdict run_validate(const VerdictInput& in) {
    return with_prefix(in, kPrefixSchema, [&](Source& src) { return validate_from(in, src); });
}

Verdict run_lint(const VerdictInput& in, const VerdictOptions& options) {
    return with_prefix(in, lint_checks(options), [&](Source& src) { return lint_from(in, options, src); });
}

Verdict run_verify(const VerdictInput& in, const VerdictOptions& options) {
    return with_prefix(in, kPrefixSchema | lint_checks(options),
                       [&](Source& src) { return verify_from(in, options, src); });
}

Verdict run_check(const VerdictInput& in, const VerdictOptions& options) {
    return with_prefix(in, kPrefixSchema | lint_checks(options),
                       [&](Source& src) { return check_from(in, options, src); });
}

}  // namespace small
