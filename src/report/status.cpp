// status's JSON body (see the header).
#include "small/report/status.hpp"

#include "small/report/findings.hpp"

namespace small {

nlohmann::json progress_item_json(const ProgressItem& item) {
    nlohmann::json j = {{"timestamp", item.timestamp}, {"task_id", item.task_id}, {"status", item.status}};
    const auto optional = [&j](const char* key, const std::string& value) {
        if (!value.empty()) j[key] = value;
    };
    optional("evidence", item.evidence);
    optional("notes", item.notes);
    optional("command_summary", item.command_summary);
    optional("command_ref", item.command_ref);
    optional("command_sha256", item.command_sha256);
    return j;
}

nlohmann::json progress_items_json(const std::vector<ProgressItem>& items) {
    nlohmann::json out = nlohmann::json::array();
    for (const ProgressItem& item : items) out.push_back(progress_item_json(item));
    return out;
}

nlohmann::json problems_json(const std::vector<Error>& problems) {
    std::vector<Finding> findings;
    for (const Error& e : problems) {
        Finding f = finding_from_error(e, 0);
        if (!e.rule.empty()) f.rule = e.rule;
        f.hint = e.hint;
        f.severity = Severity::Warning;
        findings.push_back(std::move(f));
    }
    return findings_json(findings);
}

nlohmann::json status_json(const StatusReport* r, const std::string& version, bool audit) {
    nlohmann::json artifacts = nlohmann::json::object();
    for (std::size_t i = 0; i < kArtifactTypes.size(); ++i) {
        artifacts[std::string(artifact_name(kArtifactTypes[i]))] = r && r->artifacts[i];
    }
    nlohmann::json doc = {{"version", version},
                          {"progress_mode", audit ? "audit" : "signal"},
                          {"small_dir_exists", r != nullptr && r->small_dir_exists},
                          {"artifacts", artifacts}};
    if (!r || !r->small_dir_exists) return doc;
    if (r->plan) {
        nlohmann::json plan = {{"total_tasks", r->plan->total_tasks},
                               {"tasks_by_status", r->plan->tasks_by_status},
                               {"next_actionable", r->plan->next_actionable}};
        if (!r->plan->first_incomplete.empty()) plan["first_incomplete"] = r->plan->first_incomplete;
        doc["plan"] = std::move(plan);
    }
    if (!r->next_task.empty()) doc["next_task"] = r->next_task;
    if (!r->blocked.empty()) {
        nlohmann::json blocked = nlohmann::json::array();
        for (const StatusReport::Blocked& b : r->blocked) blocked.push_back({{"id", b.id}, {"reason", b.reason}});
        doc["blocked"] = std::move(blocked);
    }
    if (r->artifacts[static_cast<std::size_t>(ArtifactType::Handoff)]) {
        doc["handoff"] = {{"recorded", r->handoff_recorded},
                          {"stale", !r->handoff_stale.empty()},
                          {"why", r->handoff_stale.empty() ? nlohmann::json() : nlohmann::json(r->handoff_stale)}};
    }
    if (!r->replay_id.empty()) doc["replay_id"] = r->replay_id;
    if (!r->recent.empty()) doc["recent_progress"] = progress_items_json(r->recent);
    doc["more_progress"] = r->more_progress;
    doc["warnings"] = problems_json(r->problems);
    return doc;
}

}  // namespace small
