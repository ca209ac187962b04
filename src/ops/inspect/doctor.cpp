// `small doctor` (see the header).
#include "small/ops/inspect/doctor.hpp"

#include <algorithm>

#include "small/base/text.hpp"
#include "small/check/invariants.hpp"
#include "small/check/verdict.hpp"
#include "small/check/verified_prefix.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/plan_summary.hpp"
#include "small/model/resume_point.hpp"
#include "small/check/evidence_check.hpp"
#include "small/base/git.hpp"
#include "small/store/local_work.hpp"
#include "small/base/merge_strategy.hpp"
#include "small/domain/claim_gate.hpp"
#include "small/domain/scope_drift.hpp"
#include "small/domain/artifact_merge.hpp"
#include "small/domain/unmerged_files.hpp"

namespace small {

namespace {

// What doctor reads of the log beyond the rules: the per-task facts (the
// run state, the handoff's freshness), the entry count and the task ids
// merges renamed (D21), folded entry by entry so that a log read in windows
// gives what the whole one gives.
struct LogSummary {
    LogFacts facts;
    std::vector<std::string> renames;  // "old -> new at <timestamp>", oldest first

    void fold(NodeRef entries, const std::string& run_id) {
        for (std::size_t i = 0; entries.is_sequence() && i < entries.size(); ++i) {
            const NodeRef entry = entries.item(i);
            add_entry_facts(facts, entry_text(entry), ++facts.entries, run_id);
            const NodeRef notes = entry.find("notes");
            if (!notes.is_string()) continue;
            if (const std::optional<TaskRename> r = parse_rename_note(notes.as_string())) {
                renames.push_back(describe_rename(*r) + " at " + std::string(entry.find("timestamp").as_string()));
            }
        }
    }
};

// The content checks of the artifacts as loaded, before any is reported.
struct ContentFindings {
    std::vector<Finding> schema, invariants, strict, verify;
    bool undecided = false;  // a rule needed the entries the verified prefix stands for
};

class Doctor {
public:
    Doctor(const FileSystem& fs, const WorkspacePaths& ws, const SchemaSet& schemas, const LogWindows& windows)
        : fs_(fs), ws_(ws), schemas_(schemas), windows_(windows) {}

    DoctorReport run() {
        if (!workspace()) return finish();
        metadata();
        const bool files_ok = files();
        runtime_layout();
        index_conflicts();
        merge_strategy();
        if (files_ok && loading()) {
            ContentFindings content = content_findings();
            // Issue 39: read in windows, the verdict is exact only without a
            // finding in the log itself (the windows cannot say where it is)
            // and when no rule needed the verified entries: else the whole
            // read decides, as for every verdict.
            if (prefix_ && !exact(content)) {
                prefix_.reset();
                if (!load_whole()) return finish();
                content = content_findings();
            }
            findings_check("Schema", std::move(content.schema), "All artifacts pass schema validation",
                           "Fix the schema violation, then run: small validate");
            findings_check("Invariant", std::move(content.invariants), "All protocol invariants satisfied",
                           "Fix the invariant violation, then run: small lint");
            strict(std::move(content.strict));
            replay_id(std::move(content.verify));
            version();
            run_state();
            progress();
            handoff();
            git_checks();
        }
        return finish();
    }

private:
    void add(std::string category, DoctorStatus status, std::string message, std::string suggestion = {},
             std::vector<Finding> findings = {}) {
        sort_findings(findings);
        report_.checks.push_back(
            {std::move(category), status, std::move(message), std::move(suggestion), std::move(findings)});
    }

    DoctorReport finish() {
        for (const DoctorCheck& c : report_.checks) {
            report_.errors += c.status == DoctorStatus::Error;
            report_.warnings += c.status == DoctorStatus::Warning;
        }
        return std::move(report_);
    }

    // One check from rule findings: an error when any is an error, a
    // warning when only warnings, else ok with `ok_message`.
    void findings_check(const char* category, std::vector<Finding> findings, const char* ok_message,
                        const std::string& suggestion) {
        if (findings.empty()) return add(category, DoctorStatus::Ok, ok_message);
        const std::size_t errors = count_errors(findings);
        const std::size_t warnings = findings.size() - errors;
        std::string message = errors ? std::to_string(errors) + " error(s)" : "";
        if (warnings) message += (message.empty() ? "" : ", ") + std::to_string(warnings) + " warning(s)";
        add(category, errors ? DoctorStatus::Error : DoctorStatus::Warning, message, suggestion, std::move(findings));
    }

    // Evidence and scope drift against git: only in a repository, so a
    // workspace outside git keeps exactly the report it had.
    void git_checks() {
        Result<std::optional<GitRepo>> repo = GitRepo::discover(ws_.root);
        if (!repo || !*repo) return;
        Result<EvidenceReport> ev = check_evidence(fs_, ws_);
        if (!ev) {
            add("Git Evidence", DoctorStatus::Warning, ev.error().message);
        } else {
            const std::string ok = std::to_string(ev->commits) + " commit and " + std::to_string(ev->links) +
                                   " link evidence(s) verified against git";
            findings_check("Git Evidence", ev->findings, ok.c_str(), "Run: small verify --evidence");
        }
        Result<DriftReport> drift = scope_drift(fs_, ws_, DriftOptions{});
        if (!drift) return add("Scope Drift", DoctorStatus::Warning, drift.error().message);
        if (drift->files.empty()) {
            return add("Scope Drift", DoctorStatus::Ok,
                       drift->has_scope ? std::to_string(drift->changed) + " changed file(s), all in the intent's scope"
                                        : "the intent has no scope globs");
        }
        std::string names;
        for (std::size_t i = 0; i < drift->files.size() && i < 3; ++i) names += (i ? ", " : "") + drift->files[i].path;
        if (drift->files.size() > 3) names += ", ...";
        add("Scope Drift", DoctorStatus::Warning,
            std::to_string(drift->files.size()) + " changed file(s) outside the intent's scope: " + names,
            "Run: small drift (then revert the files or widen scope in the intent)");
    }

    bool workspace() {
        if (fs_.directory_exists(ws_.small_dir)) {
            add("Workspace", DoctorStatus::Ok, ".small/ directory exists in " + ws_.root);
            return true;
        }
        add("Workspace", DoctorStatus::Error,
            "no .small/ directory found in " + ws_.root + (ws_.from_dir_flag ? "" : " or any parent directory"),
            "Run: small init (or pass --dir to the workspace)");
        return false;
    }

    void metadata() {
        Result<WorkspaceMetadata> meta = load_workspace_metadata(fs_, ws_);
        if (!meta) {
            Finding f = finding_from_error(meta.error(), kWorkspaceFileOrder);
            f.rule = "WS-2";
            add("Metadata", DoctorStatus::Error, ws_.display_of(kWorkspaceFileName) + " is missing or unusable",
                "Run: small fix workspace (keeps the artifacts; `small init --force` would replace them)", {f});
            return;
        }
        meta_ = *meta;
        add("Metadata", DoctorStatus::Ok,
            std::string("workspace kind ") + std::string(workspace_kind_name(meta->kind)) +
                (meta->run_replay_id.empty() ? ", no run pinned yet" : ", run " + meta->run_replay_id));
    }

    bool files() {
        std::string missing;
        for (ArtifactType t : kArtifactTypes) {
            if (!fs_.file_exists(ws_.artifact_path(t)))
                missing += (missing.empty() ? "" : ", ") + artifact_file_name(t);
        }
        if (missing.empty()) {
            add("Files", DoctorStatus::Ok, "All required files present");
            return true;
        }
        add("Files", DoctorStatus::Error, "Missing files: " + missing,
            "Restore them from version control, or run: small init --force (it snapshots the current files first)");
        return false;
    }

    // Runtime files in the old place (.small/archive/, .small/runs/) are a
    // warning of their own; any other stray path is strict rule S4 (below).
    void runtime_layout() {
        Result<LayoutScan> scan = scan_layout(fs_, ws_);
        if (!scan) {
            add("Runtime Layout", DoctorStatus::Error, scan.error().describe());
            return;
        }
        layout_ = *scan;
        if (layout_.legacy.empty()) {
            add("Runtime Layout", DoctorStatus::Ok, "no runtime files under .small/");
            return;
        }
        std::string legacy;
        for (const std::string& p : layout_.legacy) legacy += (legacy.empty() ? "" : ", ") + p;
        add("Runtime Layout", DoctorStatus::Warning,
            "Legacy runtime layout detected: " + legacy + " (`check --strict` fails until they move)",
            "Run: small fix --runtime-layout");
    }

    // A long log (issue 39) is read in windows: the verified prefix of every
    // check doctor makes of the log alone, and in the same pass the facts,
    // the count and the renames; then the other artifacts beside the entries
    // appended since (none, unless a write landed meanwhile). Anything else
    // (a short log, a finding in the log, a layout windows cannot follow) is
    // read whole, as before; another file that does not load is reported
    // without reading the log again.
    bool loading() {
        if (const std::optional<bool> complete = load_windowed()) return *complete;
        return load_whole();
    }

    // nullopt: the log cannot be read in windows. Else whether every file loaded
    // (the others' errors are reported; the log, read cleanly, is not read again).
    std::optional<bool> load_windowed() {
        const std::string run = run_id();
        LogSummary summary;
        std::optional<VerifiedPrefix> prefix =
            stream_verified_prefix(fs_, ws_, schemas_, kPrefixSchema | kPrefixRules | kPrefixStrict, windows_,
                                   [&](NodeRef entries) { summary.fold(entries, run); });
        if (!prefix) return std::nullopt;
        std::optional<LogAfterPrefix> after = load_after_prefix(fs_, ws_, *prefix);
        if (!after) return std::nullopt;
        summary.fold(after->progress.doc.root().find("entries"), run);
        set_ = load_artifacts(fs_, ws_, std::move(after->progress));
        prefix_ = std::move(prefix);
        summary_ = std::move(summary);
        if (set_.complete()) return true;
        report_load_errors();
        return false;
    }

    bool load_whole() {
        summary_.reset();
        set_ = load_artifacts(fs_, ws_);
        if (set_.complete()) return true;
        report_load_errors();
        return false;
    }

    void report_load_errors() {
        std::vector<Finding> findings;
        for (const Error& e : set_.errors) findings.push_back(finding_from_error(e, 0));
        // The count is taken before `findings` is moved (argument order is unspecified).
        const std::string message = "Failed to load " + std::to_string(findings.size()) + " artifact(s)";
        add("Loading", DoctorStatus::Error, message, "Fix the YAML at the position shown, then run: small validate",
            std::move(findings));
        const std::size_t loading_check = report_.checks.size() - 1;
        merge_markers();
        // A file a merge left with git's conflict markers is not a YAML
        // mistake: the Merge check says how to finish the merge.
        const bool merge_left = std::any_of(report_.checks.begin(), report_.checks.end(), [](const DoctorCheck& c) {
            return c.category == "Merge" && c.status == DoctorStatus::Error;
        });
        if (merge_left) {
            report_.checks[loading_check].suggestion = "Finish the merge first (see Merge), then run: small validate";
        }
    }

    // git stopped on a conflict in a `.small/` file (a merge, rebase or
    // cherry-pick) and the index still holds its stages: the driver's rule,
    // run again on them, says what collides. The driver leaves CURRENT's
    // text in place, so without this the file looks fine and `git add`
    // would drop the other side's changes.
    void index_conflicts() {
        Result<std::vector<UnmergedFile>> files = unmerged_workspace_files(ws_);
        if (!files) return add("Merge", DoctorStatus::Warning, files.error().message);
        for (const UnmergedFile& r : *files) {
            unmerged_.push_back(r.path.substr(r.path.rfind('/') + 1));
            if (r.outcome.conflicts.empty()) {
                CleanMergeAdvice advice = clean_merge_advice(r);
                add("Merge", DoctorStatus::Error,
                    r.path + " is unmerged in git's index, but small's merge driver merges it cleanly (" +
                        advice.reason + ")",
                    std::move(advice.fix));
                continue;
            }
            std::string message = r.path + " is unmerged: " + std::to_string(r.outcome.conflicts.size()) +
                                  " conflict(s) small's merge driver cannot settle: ";
            std::vector<std::string> hints;
            for (std::size_t i = 0; i < r.outcome.conflicts.size(); ++i) {
                const MergeConflict& c = r.outcome.conflicts[i];
                message += (i ? "; " : "") + c.message;
                if (std::find(hints.begin(), hints.end(), c.hint) == hints.end()) hints.push_back(c.hint);
            }
            std::string suggestion;
            for (const std::string& h : hints) suggestion += (suggestion.empty() ? "" : "; ") + h;
            add("Merge", DoctorStatus::Error, message, suggestion);
        }
    }

    // `git merge -s small` needs git-merge-small where git looks for it
    // (D17). Checked where small's merge driver is registered, the sign that
    // git merges this workspace's files; read-only, so the fix is a command.
    void merge_strategy() {
        Result<std::optional<GitRepo>> repo = GitRepo::discover(ws_.root);
        if (!repo || !*repo) return;
        Result<std::optional<std::string>> driver = (*repo)->effective_config("merge.small.driver");
        if (!driver || !*driver || (*driver)->empty()) return;
        const MergeStrategyReach reach = find_merge_strategy(fs_);
        if (!reach.found.empty()) {
            return add("Merge Strategy", DoctorStatus::Ok, "git merge -s small runs " + reach.found);
        }
        add("Merge Strategy", DoctorStatus::Warning, reach.problem, "Run: " + reach.fix);
    }

    // An artifact that does not load may hold git's conflict markers: a merge
    // without small's merge driver (D17). Only failed files are read again;
    // one the index check already explained is not reported twice.
    void merge_markers() {
        for (ArtifactType type : kArtifactTypes) {
            if (set_.get(type)) continue;
            const std::string name(artifact_file_name(type));
            if (std::find(unmerged_.begin(), unmerged_.end(), name) != unmerged_.end()) continue;
            const std::string path = ws_.artifact_path(type);
            Result<std::string> text = fs_.read_file(path);
            if (!text || !(text->starts_with("<<<<<<< ") || text->find("\n<<<<<<< ") != std::string::npos)) continue;
            add("Merge", DoctorStatus::Error,
                ws_.artifact_display(type) + " holds unresolved git conflict markers",
                "it was staged or committed with git's conflict markers: edit it so both sides' changes are kept "
                "(small check --strict says what is left), or restore one side (git checkout REV -- " +
                    shell_quote(ws_.display_of(name)) +
                    ") and merge again with small's merge driver registered (small hooks install git)");
        }
    }

    // Schema, invariants, the strict rules and the verify rules of the set
    // as loaded (with the verified prefix when the log was read in windows).
    ContentFindings content_findings() {
        ContentFindings c;
        c.schema = check_schemas(schemas_, set_);
        InvariantOptions o;
        o.run_replay_id = run_id();
        o.before = prefix_ ? &*prefix_ : nullptr;
        o.undecided = &c.undecided;
        c.invariants = check_invariants(set_, o);
        o.strict = true;
        // The rules only strict mode applies (secrets, links, S1-S3; S4 below).
        for (Finding& f : check_invariants(set_, o)) {
            if (f.rule == "SEC" || f.rule == "LINK" || f.rule == "S1" || f.rule == "S2" || f.rule == "S3")
                c.strict.push_back(std::move(f));
        }
        c.verify = check_verify_rules(set_);
        return c;
    }

    // Whether findings of a set read after a verified prefix are the whole
    // read's: none about the log's own content (S1 stands at `entries:` and
    // FMT-1 in the header, which windows read as the whole file does).
    bool exact(const ContentFindings& c) const {
        if (c.undecided) return false;
        const std::string log = ws_.artifact_display(ArtifactType::Progress);
        for (const std::vector<Finding>* list : {&c.schema, &c.invariants, &c.strict, &c.verify}) {
            for (const Finding& f : *list) {
                if (f.file == log && f.rule != "S1" && f.rule != "FMT-1") return false;
            }
        }
        return true;
    }

    void strict(std::vector<Finding> findings) {
        if (layout_.unexpected.size() > layout_.legacy.size()) {
            for (Finding& f : layout_findings(layout_, ws_)) findings.push_back(std::move(f));
        }
        const bool s2 = std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.rule == "S2"; });
        findings_check("Strict", std::move(findings), "Strict rules (secrets, links, S1-S4) satisfied",
                       s2 ? "Fix the findings (orphan progress: small fix --orphan-progress), then run: small check --strict"
                          : "Fix the findings, then run: small check --strict");
    }

    void replay_id(std::vector<Finding> findings) {
        if (meta_ && meta_->run_id_error) {
            Finding f = finding_from_error(*meta_->run_id_error, kWorkspaceFileOrder);
            f.rule = "WS-2";
            findings.push_back(std::move(f));
        }
        const std::string handoff_id(trim(set_.root(ArtifactType::Handoff).find("replayId").find("value").as_string()));
        if (meta_ && !meta_->run_replay_id.empty() && !handoff_id.empty() &&
            lower_ascii(handoff_id) != meta_->run_replay_id) {
            Finding f;
            f.rule = "RUN-1";
            f.severity = Severity::Warning;
            f.file = ws_.artifact_display(ArtifactType::Handoff);
            f.file_order = 4;
            f.message = "handoff replayId.value " + handoff_id + " is not the run pinned in workspace.small.yml (" +
                        meta_->run_replay_id + ")";
            f.hint = "Run: small handoff (writes the handoff for the pinned run)";
            findings.push_back(std::move(f));
        }
        findings_check("Replay Id", std::move(findings), "handoff replayId and the pinned run id are consistent",
                       "Fix the replay id (small handoff rewrites the handoff for the pinned run)");
    }

    void version() {
        findings_check("Version", check_version_quoting(fs_, ws_, set_, false), "small_version is \"1.0.0\" everywhere",
                       "Write small_version: \"1.0.0\" (double-quoted), or run: small fix --versions");
    }

    void run_state() {
        const PlanSummary plan = summarize_plan(set_.root(ArtifactType::Plan), 0);
        if (plan.total_tasks == 0) return;
        const std::size_t in_progress = plan.count(TaskStatus::InProgress), pending = plan.count(TaskStatus::Pending),
                          blocked = plan.count(TaskStatus::Blocked);
        DoctorStatus status = DoctorStatus::Ok;
        std::string suggestion;
        if (in_progress > 1) {
            status = DoctorStatus::Warning;
            suggestion = "Multiple tasks in_progress. Consider focusing on one at a time.";
        }
        if (blocked > 0 && in_progress == 0 && pending == 0 && !plan.all_done) {
            status = DoctorStatus::Warning;
            suggestion = "All remaining tasks are blocked. Review blockers.";
        }
        // The next step is the resume point's (D18), as status and the primer name it.
        const ResumePoint point = resume_point(outline_plan(set_.root(ArtifactType::Plan)), claimed_facts(fs_, ws_, own_facts()));
        if (point.kind == ResumeKind::Complete) {
            suggestion = handoff_source_state().empty() ? "All tasks complete and the handoff is up to date. New work: "
                                                          "small plan --add \"<title>\"; a new run: small reset"
                                                        : "All tasks complete. Run: small handoff";
        } else if (suggestion.empty() || point.kind != ResumeKind::Work) {
            const std::string step = point.action.stop.empty() ? "Run: " + cli_line(point.action) : cli_line(point.action);
            suggestion = (point.steps.empty() ? std::string() : point.steps.front() + ". ") + step;
        }
        add("Run State",
            status,
            "Tasks: " + std::to_string(plan.total_tasks) + " total, " +
                std::to_string(plan.count(TaskStatus::Completed)) + " completed, " + std::to_string(in_progress) +
                " in_progress, " + std::to_string(pending) + " pending, " + std::to_string(blocked) + " blocked",
            suggestion);
    }

    void progress() {
        const std::uint64_t n = summary().facts.entries;
        if (n == 0) {
            add("Progress", DoctorStatus::Ok, "No progress entries yet (fresh run)",
                "Record work with: small progress add, small checkpoint or small apply");
        } else {
            add("Progress", DoctorStatus::Ok, std::to_string(n) + " progress entries recorded");
        }
        merge_renames();
    }

    // D21: the task ids merges renamed (a task both sides added under one
    // id), from the log's records: the newest few.
    void merge_renames() {
        const std::vector<std::string>& said = summary().renames;
        if (said.empty()) return;
        constexpr std::size_t kShown = 3;
        std::string message =
            std::to_string(said.size()) + " task id(s) renamed by merges (both sides had added " + "the id): ";
        for (std::size_t i = said.size() > kShown ? said.size() - kShown : 0; i < said.size(); ++i) {
            message += said[i] + (i + 1 < said.size() ? "; " : "");
        }
        add("Merge Renames", DoctorStatus::Ok, message,
            "The other side's task took the new id with its entries; its older entries' notes may still name the "
            "old id");
    }

    void handoff() {
        if (const std::string why = handoff_source_state(); !why.empty() && why != kUnrecorded) {
            add("Handoff", DoctorStatus::Warning, "Handoff is stale: " + why, "Run: small handoff");
            return;
        }
        const NodeRef steps = set_.root(ArtifactType::Handoff).find("resume").find("next_steps");
        if (!steps.is_sequence() || steps.size() == 0) return;
        add("Handoff", DoctorStatus::Ok, "Handoff has " + std::to_string(steps.size()) + " next steps defined",
            "Resume from the handoff (small status shows the next task)");
    }

    static constexpr const char* kUnrecorded = "it does not record what it was computed from";

    std::string run_id() const { return meta_ ? meta_->run_replay_id : std::string(); }
    // The log's summary: folded beside the windows, or from the whole log read.
    const LogSummary& summary() {
        if (!summary_) {
            summary_.emplace();
            summary_->fold(set_.root(ArtifactType::Progress).find("entries"), run_id());
        }
        return *summary_;
    }
    const LogFacts& facts() { return summary().facts; }
    // The per-task facts with this checkout's own tasks marked (store/local_work), read once.
    const WorkFacts& own_facts() {
        if (!own_facts_) own_facts_ = with_local_work(fs_, ws_, run_id(), facts().tasks);
        return *own_facts_;
    }

    // Why the handoff is stale; kUnrecorded when it has no source line; "" fresh.
    std::string handoff_source_state() {
        const Artifact* h = set_.get(ArtifactType::Handoff);
        const std::optional<HandoffSource> recorded = h ? parse_source_comment(h->doc.source()) : std::nullopt;
        if (!recorded) return kUnrecorded;
        return staleness(recorded,
                         handoff_source(outline_plan(set_.root(ArtifactType::Plan)), facts(), own_facts()));
    }

    const FileSystem& fs_;
    const WorkspacePaths& ws_;
    const SchemaSet& schemas_;
    const LogWindows& windows_;
    DoctorReport report_;
    std::optional<WorkspaceMetadata> meta_;
    LayoutScan layout_;
    ArtifactSet set_;
    // Set when the log was read in windows: `set_` then holds the entries
    // after it (check/verified_prefix), and the rules add what it carries.
    std::optional<VerifiedPrefix> prefix_;
    std::vector<std::string> unmerged_;  // file names git's index holds in conflict
    std::optional<LogSummary> summary_;
    std::optional<WorkFacts> own_facts_;
};

}  // namespace

const char* doctor_status_name(DoctorStatus status) {
    switch (status) {
        case DoctorStatus::Ok: return "ok";
        case DoctorStatus::Warning: return "warning";
        case DoctorStatus::Error: return "error";
    }
    return "error";
}

DoctorReport doctor_command(const FileSystem& fs, const WorkspacePaths& ws, const SchemaSet& schemas,
                            const LogWindows& windows) {
    return Doctor(fs, ws, schemas, windows).run();
}

}  // namespace small
