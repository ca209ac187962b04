// JSON bodies of the authoring commands (see authoring.hpp).
#include "small/report/authoring.hpp"

#include "small/report/envelope.hpp"
#include "small/report/findings.hpp"
#include "small/report/session.hpp"

namespace small {

nlohmann::json draft_json(const WorkspacePaths& ws, DraftKind kind, const DraftResult& r) {
    return {{"kind", std::string(draft_kind_name(kind))},
            {"workspace", ws.root},
            {"draft", r.draft_path},
            {"source", r.source},
            {"bytes", r.bytes},
            {"acceptable", r.warnings.empty()},
            {"warnings", findings_json(r.warnings)}};
}

nlohmann::json accept_json(const WorkspacePaths& ws, DraftKind kind, const AcceptResult& r) {
    nlohmann::json doc = {{"kind", std::string(draft_kind_name(kind))},
                          {"workspace", ws.root},
                          {"draft", r.draft_path},
                          {"target", r.target_path}};
    if (r.accepted) {
        doc["entry"] = nlohmann::json::parse(r.entry.dump());  // keys sorted, as progress add prints them
    } else {
        doc["errors"] = findings_json(r.problems);
        doc["error"] = {{"kind", "invalid"},
                        {"message", r.problems.empty() ? "draft refused" : r.problems.front().location_text()}};
    }
    return doc;
}

nlohmann::json agents_apply_json(const AgentsApplyResult& r, const std::string& path, bool dry_run, bool print) {
    nlohmann::json doc = {{"file", path},
                          {"action", std::string(agents_action_name(r.action))},
                          {"changed", r.changed()},
                          {"written", r.written},
                          {"dry_run", dry_run}};
    if (!r.previous_version.empty()) doc["previous_version"] = r.previous_version;
    if (print) doc["content"] = r.new_content;
    else if (dry_run) doc["diff"] = agents_apply_diff(r, path);
    return doc;
}

nlohmann::json agents_check_json(const AgentsCheckReport& r) {
    nlohmann::json doc;
    doc["hasFile"] = r.has_file;
    doc["hasBlock"] = r.has_block;
    doc["blockValid"] = r.block_valid;
    if (!r.block_version.empty()) doc["blockVersion"] = r.block_version;
    doc["blockSpan"] = {r.span_begin, r.span_end};
    doc["hasDrift"] = r.has_drift;
    if (!r.passed) doc["error"] = {{"kind", "invalid"}, {"message", r.error.empty() ? "check failed" : r.error}};
    if (!r.recommendation.empty()) doc["recommendation"] = r.recommendation;
    doc["filePath"] = r.file_path;
    return doc;
}

nlohmann::json start_json(const StartResult& r, const WorkspacePaths& ws, nlohmann::json check, int exit_code) {
    nlohmann::json doc = {{"workspace", ws.root},
                          {"created", r.created},
                          {"self_heal", r.self_heal},
                          {"repinned_from", r.repinned_from.empty() ? nlohmann::json() : nlohmann::json(r.repinned_from)},
                          {"replay_id", r.handoff.replay_id},
                          {"handoff", nlohmann::json::parse(r.handoff.handoff.dump())},
                          {"check", std::move(check)}};
    if (r.gitignore) doc["gitignore"] = gitignore_json(*r.gitignore);
    if (exit_code != kExitOk) {
        doc["error"] = {{"kind", exit_code == kExitInvalid ? "invalid" : "system"}, {"message", "strict check failed"}};
    }
    return doc;
}

nlohmann::json agents_print_json(const std::string& format, bool with_markers, const std::string& content) {
    return {{"format", format}, {"with_markers", with_markers}, {"content", content}};
}

}  // namespace small
