// The page's state document: see board_state.hpp.
#include "small/serve/board_state.hpp"

#include <map>
#include <string>
#include <vector>

#include "small/base/timestamp.hpp"
#include "small/doc/node_json.hpp"
#include "small/model/task_status.hpp"
#include "small/ops/inspect/board.hpp"
#include "small/ops/inspect/status_all.hpp"
#include "small/ops/session/claim.hpp"

namespace small::serve {

namespace {

using nlohmann::json;

json task_json(const GraphTask& t, const std::map<std::string, CardEvidence>& evidence) {
    json out = {{"id", t.id}, {"title", t.title}, {"status", t.status.empty() ? "pending" : t.status.word()}};
    if (t.ready) out["ready"] = true;
    if (t.critical) out["critical"] = true;
    if (t.in_cycle) out["cycle"] = true;
    if (!t.claim.empty()) out["claim"] = t.claim;
    if (!t.blocked_reason.empty()) out["reason"] = t.blocked_reason;
    if (const auto e = evidence.find(t.id); e != evidence.end() && !e->second.text.empty()) {
        out["evidence"] = {{"timestamp", e->second.timestamp}, {"status", e->second.status}, {"text", e->second.text}};
    }
    return out;
}

json tasks_and_edges(const BoardReport& board, json& doc) {
    json tasks = json::array();
    json inbox = json::array();
    for (const GraphTask& t : board.graph.tasks) {
        tasks.push_back(task_json(t, board.evidence));
        if (t.status.is(TaskStatus::Blocked)) {
            inbox.push_back({{"id", t.id}, {"title", t.title},
                             {"reason", t.blocked_reason.empty() ? "no reason recorded" : t.blocked_reason}});
        }
    }
    json edges = json::array();
    for (const GraphEdge& e : board.graph.edges) edges.push_back(json::array({e.from, e.to}));
    doc["edges"] = std::move(edges);
    doc["inbox"] = std::move(inbox);
    doc["columns"] = board.columns;
    doc["critical_path"] = board.graph.critical_path;
    doc["run_id"] = board.run_id;
    return tasks;
}

json recent_entries(const BoardReport& board, std::size_t limit) {
    json out = json::array();
    for (const YamlValue& e : board.newest) {
        if (out.size() >= limit) break;
        out.push_back(json::parse(e.dump()));
    }
    return out;
}

// An artifact as JSON, or null with a problem noted (a missing handoff is usual).
json artifact_json(const FileSystem& fs, const WorkspacePaths& ws, ArtifactType type, json& problems) {
    Result<Document> doc = load_yaml_file(fs, ws.artifact_path(type), ws.artifact_display(type));
    if (!doc) {
        problems.push_back(doc.error().message);
        return nullptr;
    }
    return node_to_json<json>(doc->root());
}

json ready_json(const FileSystem& fs, const WorkspacePaths& ws, json& problems) {
    json out = json::array();
    Result<ReadyResult> ready = ready_command(fs, ws, ClaimOptions{});
    if (!ready) {
        problems.push_back("ready queue: " + ready.error().message);
        return out;
    }
    for (const ReadyTask& t : ready->tasks) {
        json item = {{"id", t.id}, {"title", t.title}, {"status", t.status.empty() ? "pending" : t.status.word()}};
        if (!t.priority.empty()) item["priority"] = t.priority;
        if (t.started_unclaimed) item["started_unclaimed"] = true;
        out.push_back(std::move(item));
    }
    return out;
}

// A side: its counts by status and its open tasks (the settled ones are counted only).
json side_json(const WorkSide& side) {
    json counts = json::object();
    json open = json::array();
    for (const SideTask& t : side.tasks) {
        const std::string status = t.status.empty() ? "pending" : t.status;
        counts[status] = counts.value(status, 0) + 1;
        if (status != "completed" && status != "cancelled") open.push_back({{"id", t.id}, {"title", t.title}, {"status", status}});
    }
    json out = {{"name", side.name}, {"worktree", side.worktree}, {"head", side.head}, {"current", side.current},
                {"has_workspace", side.has_workspace}, {"counts", counts}, {"open", open}, {"unmerged", side.unmerged},
                {"added", side.added}, {"problem", side.problem}};
    if (side.newest) {
        out["newest"] = {{"timestamp", side.newest->timestamp}, {"task_id", side.newest->task_id},
                         {"status", side.newest->status}, {"evidence", side.newest->evidence}};
    }
    return out;
}

void add_sides(const FileSystem& fs, const WorkspacePaths& ws, json& doc, json& problems) {
    doc["sides"] = json::array();
    doc["claims"] = json::array();
    Result<StatusAllReport> all = status_all_command(fs, ws);
    if (!all) {
        problems.push_back("sides: " + all.error().message);
        return;
    }
    for (const WorkSide& side : all->sides) doc["sides"].push_back(side_json(side));
    for (const Claim& c : all->claims) {
        doc["claims"].push_back({{"task", c.task}, {"agent", c.agent}, {"expires_at", format_timestamp_short(c.expires_at)}});
    }
    json differences = json::array();
    for (const TaskDifference& d : all->comparison.differences) {
        differences.push_back({{"id", d.id}, {"title", d.title}, {"statuses", d.statuses}});
    }
    doc["differences"] = std::move(differences);
    if (!all->claims_problem.empty()) problems.push_back("claims: " + all->claims_problem);
}

}  // namespace

Result<json> board_state(const FileSystem& fs, const WorkspacePaths& ws, const StateOptions& options) {
    BoardOptions board_options;
    board_options.evidence_window = options.evidence_window;
    Result<BoardReport> board = board_command(fs, ws, board_options);
    if (!board) return board.error();
    json doc = {{"workspace", ws.root}, {"write", options.write}};
    json problems = json::array();
    doc["tasks"] = tasks_and_edges(*board, doc);
    doc["recent"] = recent_entries(*board, options.recent);
    doc["ready"] = ready_json(fs, ws, problems);
    doc["intent"] = artifact_json(fs, ws, ArtifactType::Intent, problems);
    doc["constraints"] = artifact_json(fs, ws, ArtifactType::Constraints, problems);
    doc["handoff"] = artifact_json(fs, ws, ArtifactType::Handoff, problems);
    if (options.sides) add_sides(fs, ws, doc, problems);
    doc["problems"] = std::move(problems);
    return doc;
}

}  // namespace small::serve
