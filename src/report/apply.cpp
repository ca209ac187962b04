// The JSON body of `small apply` (see the header).
#include "small/report/apply.hpp"

#include "small/report/envelope.hpp"
#include "small/report/findings.hpp"
#include "small/report/session.hpp"

namespace small {

namespace {

nlohmann::json log_json(const ApplyResult& r) {
    if (!r.log) return nullptr;
    const CommandLog& l = *r.log;
    return {{"replay_id", l.replay_id},
            {"command_ref", l.command_ref},
            {"output_ref", r.process ? nlohmann::json(l.output_ref) : nlohmann::json(nullptr)},
            {"command_sha256", l.sha256},
            {"command_summary", l.summary}};
}

nlohmann::json run_json(const ApplyResult& r) {
    if (!r.process) return nullptr;
    const ProcessResult& p = *r.process;
    return {{"status", status_name(r.status.value())},
            {"exit_code", p.exit_code},
            {"signal", p.term_signal ? nlohmann::json(signal_name(*p.term_signal)) : nlohmann::json(nullptr)},
            {"timed_out", p.timed_out},
            {"killed_after_grace", p.killed_after_grace},
            {"interrupted_by",
             p.interrupted_by ? nlohmann::json(signal_name(*p.interrupted_by)) : nlohmann::json(nullptr)},
            {"duration_ms", p.duration.count()},
            {"output_bytes", p.output.total()},
            {"output_truncated", p.output.truncated()}};
}

}  // namespace

int apply_exit_code(const ApplyResult& r) {
    if (r.exit_code != 0) return r.exit_code;
    return r.record_error ? exit_code_for(r.record_error->kind) : kExitOk;
}

std::optional<nlohmann::json> apply_error_json(const ApplyResult& r) {
    const std::string unrecorded =
        r.record_error ? "the command ran, but recording it failed: " + r.record_error->describe() : "";
    if (r.exit_code != 0) {
        std::string msg = "the command failed with exit code " + std::to_string(r.exit_code);
        if (!unrecorded.empty()) msg += "; " + unrecorded;
        return error_json("command", msg);
    }
    if (!r.record_error) return std::nullopt;
    nlohmann::json e = error_document(*r.record_error);
    e["error"]["message"] = unrecorded;
    return e;
}

nlohmann::json apply_json(const ApplyResult& r, const WorkspacePaths& ws) {
    nlohmann::json entries = nlohmann::json::array();
    for (const YamlValue& e : r.entries) entries.push_back(sorted_json(e));
    return {{"workspace", ws.root},
            {"dry_run", r.dry_run},
            {"cmd", r.cmd.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.cmd)},
            {"task_id", r.task.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.task)},
            {"progress_mode", progress_mode_name(r.mode)},
            {"executed", r.process.has_value()},
            {"run", run_json(r)},
            {"command_log", log_json(r)},
            {"entries", entries},
            {"checkpointed", r.checkpointed},
            {"handoff", r.handoff ? handoff_json(*r.handoff, ws) : nlohmann::json(nullptr)},
            {"warnings", r.warnings}};
}

}  // namespace small
