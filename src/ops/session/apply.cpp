// `small apply` (see the header).
#include "small/ops/session/apply.hpp"

#include <cstdio>

#include "small/base/text.hpp"
#include "small/base/utf8.hpp"
#include "small/model/plan_model.hpp"
#include "small/store/plan_cache.hpp"
#include "small/domain/claim_gate.hpp"
#include "small/domain/progress_entry.hpp"
#include "small/store/progress_log.hpp"
#include "small/domain/run_state.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

ProgressMode progress_mode_from(const char* env_value) {
    if (env_value && lower_ascii(trim(env_value)) == "audit") return ProgressMode::Audit;
    return ProgressMode::Signal;
}

const char* progress_mode_name(ProgressMode mode) { return mode == ProgressMode::Audit ? "audit" : "signal"; }

namespace {

bool is_meta(const std::string& id) { return id.rfind("meta/", 0) == 0; }

constexpr const char* kWithheldCommand =
    "the command line fails the entry checks (a secret or an http:// link): the entries carry its sha256 and "
    "command_ref only, not its text";

// Which entries this apply writes (authoring.md §0.14; signal mode records
// any --task, not only task-<digits> ids: every execution of a task leaves a trace).
struct Recording {
    std::string task;         // entry task id, "" when nothing is recorded
    bool start = false;       // audit: an in_progress entry before the run
    bool completion = false;  // after the run (or the dry-run entry)
};

Recording recording_for(const ApplyRequest& req, const std::string& task) {
    Recording r;
    const bool audit = req.mode == ProgressMode::Audit;
    if (task.empty() && !audit) return r;
    r.task = task.empty() ? kApplyMetaTask : task;
    r.start = audit;
    r.completion = true;
    return r;
}

Status check_flags(const ApplyRequest& req, const std::string& task, bool has_cmd) {
    if (req.task && task.empty()) return Error::usage("--task must not be blank");
    if (req.auto_checkpoint && task.empty()) return Error::usage("--auto-checkpoint requires --task");
    if (req.auto_checkpoint && req.dry_run) return Error::usage("--auto-checkpoint cannot be used with --dry-run");
    if (req.auto_progress && req.dry_run) return Error::usage("--auto-progress cannot be used with --dry-run");
    if ((req.auto_progress || req.auto_checkpoint || req.timeout) && !has_cmd) {
        return Error::usage("--auto-progress, --auto-checkpoint and --timeout need --cmd (without a command apply "
                            "only does a dry run)");
    }
    if (req.auto_checkpoint && is_meta(task)) {
        return Error::usage("--auto-checkpoint needs a plan task; " + task + " is a meta/ id");
    }
    if (req.timeout && req.timeout->count() <= 0) return Error::usage("--timeout must be a positive number of seconds");
    return ok_status();
}

// Go-style double-quoted text: quotes, backslashes and control characters escaped.
std::string go_quoted(std::string_view s) {
    std::string out = "\"";
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') out += std::string("\\") + ch;
        else if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (c == '\t') out += "\\t";
        else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

std::string seconds_text(std::chrono::milliseconds ms) {
    const long long v = ms.count();
    if (v % 1000 == 0) return std::to_string(v / 1000) + "s";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3gs", static_cast<double>(v) / 1000.0);
    return buf;
}

// The end of the output for the evidence: trailing newlines trimmed, the
// last kEvidenceOutputBytes kept (errors are at the end), whole UTF-8
// characters only. nullopt when the output is not text.
std::optional<std::string> output_tail(const HeadTailCapture& c, bool& cut) {
    std::string s = c.last(kEvidenceOutputBytes + 1024);
    cut = c.total() > s.size();
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    if (s.size() > kEvidenceOutputBytes) {
        s.erase(0, s.size() - kEvidenceOutputBytes);
        cut = true;
    }
    std::size_t skip = 0;
    while (skip < s.size() && skip < 3 && (static_cast<unsigned char>(s[skip]) & 0xC0) == 0x80) ++skip;
    s.erase(0, skip);
    if (!is_valid_utf8(s)) return std::nullopt;
    return s;
}

// What the entries say about a finished run.
struct Outcome {
    TaskStatus status = TaskStatus::Blocked;
    std::string evidence, notes, exit_evidence;
    std::string withheld_evidence;  // --auto-progress without the output
};

std::string how_it_ended(const ProcessResult& p, const ApplyRequest& req) {
    std::string s;
    if (p.timed_out) {
        s += "; timed out after " + seconds_text(*req.timeout) + ", SIGTERM sent to its process group";
        if (p.killed_after_grace) s += ", SIGKILL after " + seconds_text(req.kill_grace);
    }
    if (p.interrupted_by) s += "; interrupted: " + signal_name(*p.interrupted_by) + " forwarded to its process group";
    return s;
}

Outcome describe(const ProcessResult& p, const ApplyRequest& req, std::vector<std::string>& warnings) {
    Outcome o;
    const int code = p.exit_code;
    o.status = code == 0 ? TaskStatus::Completed : TaskStatus::Blocked;
    const std::string end = how_it_ended(p, req);
    if (code == 0) {
        o.evidence = "Command completed successfully";
        o.notes = "apply: exit code 0" + end;
    } else if (p.term_signal) {
        o.evidence = "Command killed by " + signal_name(*p.term_signal) + " (exit code " + std::to_string(code) + ")";
        o.notes = "apply: killed by " + signal_name(*p.term_signal) + ", exit code " + std::to_string(code) + end;
    } else {
        o.evidence = "Command failed with exit code " + std::to_string(code);
        o.notes = "apply: failed with exit code " + std::to_string(code) + end;
    }
    o.exit_evidence = "exit_code=" + std::to_string(code);
    if (!req.auto_progress) return o;
    o.notes = "apply: exit code " + std::to_string(code) + end;
    o.withheld_evidence = o.exit_evidence;
    bool cut = false;
    const std::optional<std::string> tail = output_tail(p.output, cut);
    if (!tail) {
        warnings.push_back("the output is not UTF-8 text; it is kept in the command log, not in the evidence");
        o.withheld_evidence += " output withheld (not UTF-8 text)";
    } else if (!trim(*tail).empty()) {
        o.exit_evidence += " output=" + go_quoted(*tail);
        if (cut) o.exit_evidence += " truncated=true limit=" + std::to_string(kEvidenceOutputBytes);
    }
    o.evidence = o.exit_evidence;
    return o;
}

YamlValue make_entry(const std::string& task, TaskStatus status, const std::string& evidence, const std::string& notes,
                     const std::string& run_id, const std::optional<CommandLog>& log) {
    EntryFields f;
    f.evidence = evidence;
    if (!notes.empty()) f.notes = notes;
    YamlValue e = build_progress_entry(task, status, f, "", run_id);
    if (log) add_command_fields(e, *log);
    return e;
}

Status validate_now(const YamlValue& entry, const WorkspacePaths& ws) {
    return validate_progress_entry(entry, format_timestamp_utc9(current_instant()), ws);
}

std::string progress_display(const WorkspacePaths& ws) { return ws.display_of(kProgressFileName); }

// Phase 1, under the lock: what must hold before anything runs.
struct Prepared {
    Recording rec;
    std::string run_id;
    std::string log_id;         // run id, else the handoff's valid id, else ""
    bool withhold_command = false;  // the command text fails the entry checks
    std::string forced_note;        // --force past unmet dependencies (D18): the completed entries say so
    std::optional<ClaimGate> claim;  // D19: --task's claim (another agent's refuses the run), settled after it
    ClaimContext claimer;
};

// The log as entries show it: without the command text when it is withheld.
std::optional<CommandLog> entry_log(const std::optional<CommandLog>& log, const Prepared& p) {
    if (!log || !p.withhold_command) return log;
    CommandLog l = *log;
    l.summary.clear();
    return l;
}

std::string dry_run_notes(const std::string& cmd, const Prepared& p) {
    if (cmd.empty()) return "apply --dry-run";
    if (p.withhold_command) return "apply --dry-run (command text withheld; see command_ref)";
    return "apply --dry-run (cmd: " + go_quoted(command_summary(cmd)) + ")";
}

// prepare() but the claim: every refusal that needs no remote comes first.
Result<Prepared> prepare_unclaimed(const FileSystem& fs, const WorkspacePaths& ws, const MutationSession& session,
                                   const ApplyRequest& req, const std::string& task, bool dry) {
    if (!fs.file_exists(ws.path_of(kProgressFileName))) {
        return Error::system(progress_display(ws) + " not found; run `small init` first");
    }
    if (!task.empty() && !is_meta(task)) {
        Result<PlanIndex> index = load_plan_index(fs, ws);
        if (!index) return index.error();
        if (Status s = require_plan_task(*index, task, ws); !s) return s.error();
        if (Status s = refuse_ambiguous_task(fs, ws, *index, task); !s) return s.error();
    }
    if (req.auto_checkpoint) {
        Result<Document> plan = load_valid_plan_document(fs, ws);
        if (!plan) return plan.error();
    }
    Prepared p;
    if (!dry && !task.empty()) {
        Result<DependencyGate> gate = gate_on_dependencies(fs, ws, task, TaskStatus::Completed, req.force);
        if (!gate) {
            Error e = gate.error();
            e.message += " (apply records the task completed when the command succeeds, so nothing was run)";
            return e;
        }
        p.forced_note = gate->forced_note;
    }
    p.rec = recording_for(req, task);
    p.run_id = session.run_replay_id;
    p.log_id = p.run_id.empty() ? old_replay_id(old_handoff(fs, ws)) : p.run_id;
    const bool has_cmd = !req.cmd.empty();
    if (has_cmd && p.rec.completion && p.log_id.empty()) {
        return Error::invalid("cannot record the command log: no replay id (run `small plan --add` or `small "
                              "checkpoint` to start a run); nothing was run");
    }
    // Every entry this run can write must pass the checks now: an entry
    // refused after the run would be lost. A command line that fails them
    // (a secret, an http:// link) is kept out of the entries: they carry
    // its hash and command_ref only.
    if (!p.rec.completion) return p;
    CommandLog probe;
    probe.summary = command_summary(req.cmd);
    probe.sha256 = std::string(64, '0');
    probe.command_ref = std::string(kCommandLogsDirName) + "/" + std::string(64, '0') + "/commands/x.txt";
    const auto check = [&](const Prepared& q) {
        const std::optional<CommandLog> log = has_cmd ? entry_log(probe, q) : std::nullopt;
        const TaskStatus status = dry ? TaskStatus::Pending : TaskStatus::Completed;
        const std::string notes = dry ? dry_run_notes(req.cmd, q) : "apply: exit code 0";
        return validate_now(make_entry(q.rec.task, status, "Command completed", notes, q.run_id, log), ws);
    };
    const Status first = check(p);
    if (first) return p;
    if (!has_cmd) return first.error();
    p.withhold_command = true;
    if (!check(p)) return first.error();
    return p;
}

// The run's preparation; a real run on a plan task claims it last (D19: another
// agent's claim refuses the run), so no later refusal leaves the claim taken.
Result<Prepared> prepare(const FileSystem& fs, const WorkspacePaths& ws, const MutationSession& session,
                         const ApplyRequest& req, const std::string& task, bool dry) {
    Result<Prepared> p = prepare_unclaimed(fs, ws, session, req, task, dry);
    if (!p || dry || task.empty() || is_meta(task)) return p;
    p->claimer = claim_context(req.agent, ws);
    Result<ClaimGate> claim = gate_on_claim(fs, ws, task, TaskStatus::Completed, p->claimer, req.force);
    if (!claim) {
        Error e = claim.error();
        e.message += " (apply records the task when the command ends, so nothing was run)";
        return e;
    }
    p->claim = std::move(*claim);
    return p;
}

// The entries as written; a stamp forced past a future-dated entry (D8) is a warning.
std::vector<YamlValue> written_entries(CommittedChange& committed, std::vector<std::string>& warnings) {
    std::vector<YamlValue> out;
    for (AppendResult& a : committed.appended) {
        if (!a.clock_warning.empty()) warnings.push_back(a.clock_warning);
        out.push_back(std::move(a.entry));
    }
    return out;
}

Result<std::vector<YamlValue>> append_entries(const FileSystem& fs, const WorkspacePaths& ws, std::vector<YamlValue> entries,
                                              std::vector<std::string>& warnings,
                                              std::optional<Instant> at = std::nullopt) {
    WorkspaceChange change;
    change.entries = std::move(entries);
    change.first_at = at;
    Result<CommittedChange> committed = commit_workspace_change(fs, ws, change);
    if (!committed) return committed.error();
    return written_entries(*committed, warnings);
}

// The log's first instant: now, after the last entry (so the start entry,
// when there is one, is stamped with the log's own instant).
Result<Instant> log_instant(const FileSystem& fs, const WorkspacePaths& ws) {
    Result<ProgressTail> tail = read_tail(fs, ws);
    if (!tail) return tail.error();
    return next_timestamp(current_instant(), *tail);
}

Result<ApplyResult> dry_run(const FileSystem& fs, const WorkspacePaths& ws, const ApplyRequest& req,
                            const std::string& task, ApplyResult result) {
    const bool writes = recording_for(req, task).completion;
    MutationRequest m{req.scope, false, req.lock_wait};
    m.read_only = !writes;
    Result<MutationSession> session = begin_mutation(fs, ws, m);
    if (!session) return session.error();
    Result<Prepared> p = prepare(fs, ws, *session, req, task, true);
    if (!p) return p.error();
    if (!writes) return result;
    Result<Instant> at = log_instant(fs, ws);
    if (!at) return at.error();
    if (!req.cmd.empty()) {
        Result<CommandLog> log = create_command_log(fs, ws, p->log_id, req.cmd, *at);
        if (!log) return log.error();
        result.log = *log;
    }
    if (p->withhold_command) result.warnings.push_back(kWithheldCommand);
    Result<std::vector<YamlValue>> written =
        append_entries(fs, ws, {make_entry(p->rec.task, TaskStatus::Pending, "Dry-run: no command executed",
                                       dry_run_notes(req.cmd, *p), p->run_id, entry_log(result.log, *p))},
                       result.warnings);
    if (!written) return written.error();
    result.entries = std::move(*written);
    result.entry_task = p->rec.task;
    return result;
}

// Phase 3: the run recorded (completion entry, --auto-checkpoint), under
// the lock. Returns the run id the workspace is pinned to afterwards.
Result<std::string> record_run(const FileSystem& fs, const WorkspacePaths& ws, const MutationSession& session,
                               const ApplyRequest& req, const Prepared& p, const Outcome& o, ApplyResult& result) {
    WorkspaceChange change;
    std::string run_id = session.run_replay_id;
    std::string forced = o.status == TaskStatus::Completed ? p.forced_note : std::string();
    if (p.claim && !p.claim->note.empty()) forced = p.claim->note + (forced.empty() ? "" : "; " + forced);
    const std::string notes = forced.empty() ? o.notes : forced + "; " + o.notes;
    YamlValue checkpoint_entry;
    PlanIndex index;
    if (req.auto_checkpoint) {
        Result<Document> plan = load_valid_plan_document(fs, ws);
        if (!plan) return plan.error();
        const NodeRef node = find_task_node(*plan, result.task);
        index = plan_index_of(*plan);
        if (!node) return unknown_task_error(index, result.task, ws);
        std::string fallback;
        const std::string text = plan_text_with_status(*plan, node, o.status, &fallback);
        if (!fallback.empty()) result.warnings.push_back(ws.artifact_display(ArtifactType::Plan) + fallback);
        Result<RunPin> pin = pin_run(fs, ws, session, text);
        if (!pin) return pin.error();
        if (!pin->warning.empty()) result.warnings.push_back(pin->warning);
        run_id = pin->replay_id;
        checkpoint_entry = make_entry(result.task, o.status, o.exit_evidence, forced, run_id, std::nullopt);
        if (!validate_now(checkpoint_entry, ws)) {
            checkpoint_entry = make_entry(result.task, o.status, o.withheld_evidence, forced, run_id, std::nullopt);
        }
        change.files.push_back({ws.path_of(kPlanFileName), text});
        if (pin->pinned) change.files.push_back({ws.path_of(kWorkspaceFileName), pin->workspace_text});
        for (PlanTaskInfo& t : index.tasks) {
            if (t.id == result.task) t.status = o.status;
        }
    }
    if (p.rec.completion) {
        const std::optional<CommandLog> log = entry_log(result.log, p);
        YamlValue entry = make_entry(p.rec.task, o.status, o.evidence, notes, run_id, log);
        if (!validate_now(entry, ws)) {
            result.warnings.push_back("the output failed the entry checks (e.g. a secret or an http:// link); it is "
                                      "kept in the command log, not in the evidence");
            entry = make_entry(p.rec.task, o.status, o.withheld_evidence + " output withheld (see the command log)",
                               notes, run_id, log);
        }
        change.entries.push_back(std::move(entry));
    }
    if (req.auto_checkpoint) change.entries.push_back(std::move(checkpoint_entry));
    if (change.entries.empty()) return run_id;
    Result<CommittedChange> committed = commit_workspace_change(fs, ws, change);
    if (!committed) return committed.error();
    for (YamlValue& e : written_entries(*committed, result.warnings)) result.entries.push_back(std::move(e));
    if (req.auto_checkpoint) {
        if (!committed->was_skipped(ws.artifact_path(ArtifactType::Plan))) remember_valid_plan(fs, ws, index);
        result.checkpointed = true;
    }
    return run_id;
}

ProcessOptions process_options(const WorkspacePaths& ws, const ApplyRequest& req) {
    ProcessOptions o;
    o.argv = {"/bin/sh", "-c", req.cmd};  // not a login shell: no profile files
    o.cwd = ws.root;
    o.timeout = req.timeout;
    o.kill_grace = req.kill_grace;
    o.stdout_sink = req.stdout_sink;
    o.stderr_sink = req.stderr_sink;
    o.capture_limit = kOutputCaptureBytes;
    o.forward_signals = req.forward_signals;
    return o;
}

std::string truncation_marker(const HeadTailCapture& c) {
    return "\n[small: " + std::to_string(c.total() - kOutputCaptureBytes) +
           " bytes of output omitted here; the log keeps the first and last " +
           std::to_string(kOutputCaptureBytes / 2) + " bytes]\n";
}

// Phase 3 as a whole: the output saved, the run recorded, the handoff.
void finish(const FileSystem& fs, const WorkspacePaths& ws, const ApplyRequest& req, const Prepared& p,
            const Outcome& o, ApplyResult& result) {
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, false, req.lock_wait});
    if (!session) {
        result.record_error = session.error();
        return;
    }
    const HeadTailCapture& out = result.process->output;
    if (result.log) {
        if (Status s = write_command_output(fs, ws, *result.log, out.text(truncation_marker(out))); !s) {
            result.warnings.push_back("could not save the output: " + s.error().message);
        }
    }
    Result<std::string> run_id = record_run(fs, ws, *session, req, p, o, result);
    if (!run_id) {
        result.record_error = run_id.error();
        return;
    }
    if (p.claim && (p.rec.completion || req.auto_checkpoint)) {  // an entry about the task was written
        ClaimGate gate = *p.claim;
        settle_as(gate, o.status, o.evidence);  // a failed command is recorded blocked, not completed
        if (std::string w = settle_claim(fs, ws, gate, p.claimer); !w.empty()) result.warnings.push_back(w);
    }
    if (!req.handoff || result.exit_code != 0) return;
    session->run_replay_id = *run_id;  // a checkpoint may have pinned it just now
    Result<HandoffResult> h = regenerate_handoff(fs, ws, *session, HandoffOptions{});
    if (h) result.handoff = std::move(*h);
    else result.warnings.push_back("failed to generate the handoff: " + h.error().message);
}

}  // namespace

Result<ApplyResult> apply_command(const FileSystem& fs, const WorkspacePaths& ws, const ApplyRequest& req) {
    const std::string task = req.task ? std::string(trim(*req.task)) : std::string();
    const bool has_cmd = !trim(req.cmd).empty();
    if (Status s = check_flags(req, task, has_cmd); !s) return s.error();
    ApplyResult result;
    result.cmd = has_cmd ? req.cmd : std::string();
    result.task = task;
    result.mode = req.mode;
    result.dry_run = req.dry_run || !has_cmd;
    ApplyRequest effective = req;
    effective.cmd = result.cmd;
    if (result.dry_run) return dry_run(fs, ws, effective, task, std::move(result));

    Prepared prepared;
    std::optional<TakenClaims> taken;  // given back unless the run is recorded
    {
        Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, false, req.lock_wait});
        if (!session) return session.error();
        Result<Prepared> p = prepare(fs, ws, *session, effective, task, false);
        if (!p) return p.error();
        prepared = std::move(*p);
        if (prepared.claim) taken.emplace(fs, ws, prepared.claimer).add(*prepared.claim);
        Result<Instant> at = log_instant(fs, ws);
        if (!at) return at.error();
        if (!prepared.log_id.empty()) {
            Result<CommandLog> log = create_command_log(fs, ws, prepared.log_id, req.cmd, *at);
            if (!log) return log.error();
            result.log = *log;
        }
        if (prepared.rec.start) {
            Result<std::vector<YamlValue>> written =
                append_entries(fs, ws,
                               {make_entry(prepared.rec.task, TaskStatus::InProgress, "Apply started",
                                           "apply: execution started", prepared.run_id, entry_log(result.log, prepared))},
                               result.warnings, result.log ? result.log->at : *at);
            if (!written) {
                if (taken) taken->keep_if_it_stands(written.error());
                return written.error();
            }
            if (taken) taken->keep();  // the log says the task is in progress: the claim stays with it
            result.entries = std::move(*written);
        }
        result.entry_task = prepared.rec.task;
        if (prepared.withhold_command) result.warnings.push_back(kWithheldCommand);
    }  // the lock is released here: the command may write progress itself

    if (req.before_run) req.before_run();
    Result<ProcessResult> ran = run_process(process_options(ws, effective));
    if (!ran) return ran.error();
    result.process = std::move(*ran);
    result.exit_code = result.process->exit_code;
    const Outcome outcome = describe(*result.process, effective, result.warnings);
    result.status = outcome.status;
    finish(fs, ws, effective, prepared, outcome, result);
    if (taken && (!result.record_error || result.record_error->change_stands)) taken->keep();
    return result;
}

}  // namespace small
