// `small progress add` (see the header).
#include "small/ops/session/progress_add.hpp"

#include <cctype>

#include "small/domain/claim_gate.hpp"
#include "small/domain/plan_status_edit.hpp"
#include "small/store/atomic_file.hpp"
#include "small/store/plan_cache.hpp"
#include "small/store/progress_log.hpp"
#include "small/base/text.hpp"
#include "small/store/local_work.hpp"
#include "small/store/workspace_change.hpp"
#include "small/store/workspace_lock.hpp"
#include "small/doc/yaml.hpp"

namespace small {

namespace {

// D14: a task the plan names (meta/ ids are bookkeeping and always allowed).
// Reads the stamped task index, not the plan, so an append stays O(1).
// Fills the result's plan fields.
Status check_task(const FileSystem& fs, const WorkspacePaths& ws, const std::string& task, ProgressAddResult& result) {
    if (result.meta_task) return ok_status();
    Result<PlanIndex> index = load_plan_index(fs, ws);
    if (!index) {
        Error e = index.error();
        e.message = "cannot check task " + task + " against the plan: " + e.message +
                    " (fix the plan first; nothing written)";
        return e;
    }
    const PlanTaskInfo* t = index->find(task);
    if (!t) return unknown_task_error(*index, task, ws);
    if (Status s = refuse_ambiguous_task(fs, ws, *index, task); !s) return s;
    result.task_exists_in_plan = true;
    result.plan_status = t->status;
    return ok_status();
}

// One status per task (design.md): a status the plan does not have yet is
// written to the plan with the entry, as checkpoint writes it.
Result<ProgressAddResult> record_with_plan_status(const FileSystem& fs, const WorkspacePaths& ws,
                                                  const MutationSession& session, const ProgressAddRequest& req,
                                                  ProgressAddResult result) {
    const StatusChange change = status_change_of(req, kDefaultProgressEvidence);
    Result<StatusChangeWritten> written = write_status_change(fs, ws, session, change);
    if (!written) return written.error();
    result.entry = std::move(written->entry);
    result.timestamp = std::move(written->timestamp);
    result.warnings = std::move(written->warnings);
    result.plan_updated = written->plan_written;
    if (written->plan_written) result.plan_status = req.status;
    return result;
}

constexpr StatusFlagRule kProgressAddFlags{kTaskStatuses, "task_id is required (--task must not be blank)",
                                           "pending, in_progress, completed, blocked, or cancelled"};

}  // namespace

Result<TaskStatus> parse_progress_status(std::string_view task, std::string_view text) {
    return parse_status_flag(task, text, kProgressAddFlags);
}

Result<ProgressAddResult> progress_add_command(const FileSystem& fs, const WorkspacePaths& ws, const ProgressAddRequest& req) {
    // 1. Flag values (usage errors, nothing touched).
    if (Result<TaskStatus> s = parse_progress_status(req.task, status_name(req.status)); !s) return s.error();
    const std::string task(trim(req.task));
    Result<EntryTime> when = parse_entry_time(req.at, req.after);
    if (!when) return when.error();

    // 2. The workspace, locked; interrupted writes recovered.
    Result<MutationSession> session =
        begin_mutation(fs, ws, MutationRequest{req.scope, false, req.lock_wait});
    if (!session) return session.error();

    // 3. The entry (D8: replayId of the current run; D9: evidence; D18: dependencies).
    ProgressAddResult result;
    result.meta_task = task.rfind("meta/", 0) == 0;
    EntryFields fields{req.evidence, req.verification, req.command, req.test, req.link, req.commit, req.notes};
    YamlValue entry = build_progress_entry(task, req.status, fields, kDefaultProgressEvidence, session->run_replay_id);
    const std::string probe_stamp = format_timestamp_utc9(probe_instant(*when));
    if (Status v = validate_progress_entry(entry, probe_stamp, ws); !v) return v.error();
    if (Status s = check_task(fs, ws, task, result); !s) return s.error();
    if (result.task_exists_in_plan && !result.plan_status.is(req.status) && fs.file_exists(ws.path_of(kProgressFileName))) {
        return record_with_plan_status(fs, ws, *session, req, std::move(result));
    }
    Result<DependencyGate> gate =
        result.task_exists_in_plan ? gate_on_dependencies(fs, ws, task, req.status, req.force) : DependencyGate{};
    if (!gate) return gate.error();
    if (!gate->warning.empty()) result.warnings.push_back(gate->warning);
    const ClaimContext claimer = claim_context(req.agent, ws);
    Result<ClaimGate> claim = result.task_exists_in_plan ? gate_on_claim(fs, ws, task, req.status, claimer, req.force, req.evidence.value_or(""))
                                                         : ClaimGate{};
    if (!claim) return claim.error();
    TakenClaims undo(fs, ws, claimer);
    undo.add(*claim);
    if (!gate->forced_note.empty() || !claim->note.empty()) {
        fields.notes = notes_with_claim(notes_with_forced(req.notes, *gate), *claim);
        entry = build_progress_entry(task, req.status, fields, kDefaultProgressEvidence, session->run_replay_id);
        if (Status v = validate_progress_entry(entry, probe_stamp, ws); !v) return v.error();
    }

    // 4. Append (or create the log holding the entry).
    const std::string file = ws.path_of(kProgressFileName);
    if (!fs.file_exists(file)) {
        // No log yet: write it whole, atomically, already holding the entry
        // (a crash leaves either no file or the complete one).
        const Instant t = probe_instant(*when);
        YamlValue stamped = YamlValue::object();
        stamped["timestamp"] = format_timestamp_utc9(t);
        for (const auto& [k, v] : entry.items()) stamped[k] = v;
        YamlValue log = YamlValue::object();
        log["small_version"] = "1.0.0";
        log["owner"] = "agent";
        log["entries"] = YamlValue::array({stamped});
        if (Status made = write_file_atomic(fs, ws, file, emit_document(log)); !made) return made.error();
        undo.keep();
        result.created_log = true;
        record_local_work(fs, ws, {stamped});
        result.timestamp = stamped["timestamp"].get<std::string>();
        result.entry = std::move(stamped);
        return result;
    }
    Result<std::optional<Instant>> requested = requested_instant(fs, ws, *when);
    if (!requested) return requested.error();
    Result<AppendResult> appended = append_progress_entry(fs, ws, entry, *requested);
    if (!appended) return appended.error();
    undo.keep();
    result.entry = std::move(appended->entry);
    result.timestamp = appended->timestamp_text;
    if (!appended->clock_warning.empty()) result.warnings.push_back(appended->clock_warning);
    if (std::string w = settle_claim(fs, ws, *claim, claimer); !w.empty()) result.warnings.push_back(w);
    return result;
}

}  // namespace small
