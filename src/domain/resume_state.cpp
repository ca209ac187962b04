// The resume point as it is now (see the header).
#include "small/domain/resume_state.hpp"

#include <algorithm>

#include "small/domain/claim_gate.hpp"
#include "small/store/local_work.hpp"
#include "small/store/log_facts_cache.hpp"
#include "small/store/plan_cache.hpp"

namespace small {

Result<ResumeState> load_resume_state(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id) {
    ResumeState s;
    Result<std::optional<std::vector<PlanTaskOutline>>> plan = load_plan_outline(fs, ws);
    if (!plan) return plan.error();
    if (*plan) s.plan = std::move(**plan);
    Result<LogFacts> facts = cached_log_facts(fs, ws, run_id);
    if (!facts) return facts.error();
    s.facts = std::move(*facts);
    const WorkFacts mine = with_local_work(fs, ws, run_id, s.facts.tasks);
    WorkFacts claimed = mine;  // the resume point names what this agent holds or may take (D19)
    s.claims = mark_claims(fs, ws, claim_context(std::nullopt, ws), claimed);
    for (const auto& [id, work] : claimed) {
        if (!work.claimed_by.empty() || work.settled_as) s.taken.insert(id);  // held by another, or settled elsewhere (D21)
    }
    s.point = resume_point(s.plan, claimed);
    // D19: where the claims travel through a remote, a task nobody holds is
    // claimed before it is started (the start would claim it too, but the
    // claim names the holder when another agent won it meanwhile).
    const NextAction& a = s.point.action;
    const bool starts = a.tool == "checkpoint" &&
                        std::any_of(a.args.begin(), a.args.end(), [](const NextAction::Arg& g) {
                            return g.name == "status" && g.value == "in_progress";
                        });
    if (s.point.kind == ResumeKind::Work && starts && !s.point.current.empty()) {
        const auto w = claimed.find(s.point.current);
        const bool held = w != claimed.end() && !w->second.held_until.empty();
        if (!held && claims_shared_by_remote(fs, ws)) s.point.action = NextAction{"claim", {{"task", s.point.current, false}}, "", ""};
    }
    s.now = handoff_source(s.plan, s.facts);  // as the handoff records it: shared data only
    const std::string handoff = ws.artifact_path(ArtifactType::Handoff);
    s.handoff_exists = fs.file_exists(handoff);
    if (s.handoff_exists) {
        if (Result<FileRange> head = fs.read_range(handoff, 0, 512)) {
            s.recorded = parse_source_comment(head->bytes);
            s.stale = staleness(s.recorded, s.now);
        }
    }
    return s;
}

NextAction next_step(const ResumeState& state) {
    const bool handoff_current = state.handoff_exists && state.stale.empty() && state.recorded;
    if (state.point.kind == ResumeKind::Complete && !handoff_current) return NextAction{"handoff", {}, "", ""};
    NextAction a = state.point.action;
    if (!a.stop.empty() && handoff_current) a.note = "stop: " + a.stop + std::string(kStopHandoffWritten);
    return a;
}

std::string pinned_run_of(const FileSystem& fs, const WorkspacePaths& ws) {
    if (!fs.file_exists(ws.path_of(kWorkspaceFileName))) return {};
    Result<WorkspaceMetadata> meta = load_workspace_metadata(fs, ws);
    return meta && !meta->run_id_error ? meta->run_replay_id : std::string();
}

Result<PlanGraph> load_plan_graph(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id) {
    Result<std::optional<std::vector<PlanTaskOutline>>> plan = load_plan_outline(fs, ws);
    if (!plan) return plan.error();
    if (!*plan) {
        Error e = Error::system("no plan: " + ws.artifact_display(ArtifactType::Plan) + " does not exist");
        e.hint = "run `small init` to create the workspace, or pass --dir";
        return e;
    }
    WorkFacts facts;
    if (fs.file_exists(ws.path_of(kProgressFileName))) {
        Result<LogFacts> read = cached_log_facts(fs, ws, run_id);
        if (!read) return read.error();
        facts = std::move(read->tasks);
    }
    return plan_graph(**plan, claimed_facts(fs, ws, std::move(facts)));
}

}  // namespace small
