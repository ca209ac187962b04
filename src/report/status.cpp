// status's JSON body (see the header).
#include "small/report/status.hpp"

#include "small/report/claims.hpp"
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
    if (!r->stop.empty()) doc["stop"] = r->stop;
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

namespace {

nlohmann::json side_json(const WorkSide& s) {
    nlohmann::json j = {{"name", s.name},
                        {"worktree", s.worktree.empty() ? nlohmann::json() : nlohmann::json(s.worktree)},
                        {"head", s.head},
                        {"current", s.current},
                        {"has_workspace", s.has_workspace},
                        {"unmerged_entries", s.unmerged},
                        {"added_tasks", s.added}};
    j["newest"] = s.newest ? nlohmann::json{{"timestamp", s.newest->timestamp},
                                            {"task_id", s.newest->task_id},
                                            {"status", s.newest->status},
                                            {"evidence", s.newest->evidence}}
                           : nlohmann::json();
    if (!s.problem.empty()) j["problem"] = s.problem;
    return j;
}

// Statuses by side name; a side without the workspace is left out, one
// whose plan lacks the task says null.
nlohmann::json difference_json(const TaskDifference& d, const std::vector<WorkSide>& sides) {
    nlohmann::json by_side = nlohmann::json::object();
    for (std::size_t i = 0; i < sides.size(); ++i) {
        if (!sides[i].has_workspace) continue;
        by_side[sides[i].name] = d.statuses[i].empty() ? nlohmann::json() : nlohmann::json(d.statuses[i]);
    }
    return {{"id", d.id}, {"title", d.title}, {"statuses", std::move(by_side)}};
}

}  // namespace

nlohmann::json status_all_json(const StatusAllReport& r) {
    nlohmann::json sides = nlohmann::json::array(), diffs = nlohmann::json::array(), cols = nlohmann::json::array(),
                   claims = nlohmann::json::array();
    for (const WorkSide& s : r.sides) sides.push_back(side_json(s));
    for (const TaskDifference& d : r.comparison.differences) diffs.push_back(difference_json(d, r.sides));
    for (const IdCollision& c : r.comparison.collisions) {
        nlohmann::json holders = nlohmann::json::array();
        for (const IdCollision::Holder& h : c.holders) holders.push_back({{"side", r.sides[h.side].name}, {"title", h.title}});
        cols.push_back({{"id", c.id}, {"sides", std::move(holders)}});
    }
    for (const Claim& c : r.claims) claims.push_back(claim_record_json(c, r.now));
    nlohmann::json j = {{"workspace", r.workspace}, {"sides", std::move(sides)},     {"differences", std::move(diffs)},
                        {"collisions", std::move(cols)}, {"claims", std::move(claims)}};
    if (!r.claims_problem.empty()) j["claims_problem"] = r.claims_problem;
    return j;
}

}  // namespace small
