// The workspace's resume point as it is now (model/resume_point) and whether
// the handoff still says the same (D18): what `status`, `status --brief`,
// `doctor`, MCP `resume` and `handoff` read. The per-task facts come from
// store/log_facts_cache, the plan's outline from store/plan_cache.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/plan_graph.hpp"
#include "small/model/resume_point.hpp"
#include "small/model/workspace.hpp"

namespace small {

struct ResumeState {
    std::vector<PlanTaskOutline> plan;
    LogFacts facts;
    ResumePoint point;
    HandoffSource now;                      // what a handoff written now records
    bool handoff_exists = false;
    std::optional<HandoffSource> recorded;  // what the handoff records (nullopt: nothing)
    std::string stale;                      // why it is stale; "" when fresh or unknown
    std::vector<std::string> claims;        // D19: the live claims, this agent's first (domain/claim_gate mark_claims)
    std::set<std::string, std::less<>> taken;  // tasks another agent holds a live claim on, or another side settled (D21)
};

// Errors: the plan or the log does not parse (Invalid, positioned), System.
// A missing plan or log reads as empty.
Result<ResumeState> load_resume_state(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id);

// The one step to take now: the resume point's, except that a complete run
// whose handoff is missing, stale or of unknown origin has one write left
// (the handoff), and a stop says whether the handoff still needs writing.
// Never a step that changes nothing (D18).
NextAction next_step(const ResumeState& state);

// The run whose work entries count: workspace.small.yml's run.replay_id,
// "" when there is none or it cannot be read (every run's entries count).
std::string pinned_run_of(const FileSystem& fs, const WorkspacePaths& ws);

// The plan's dependency graph as the work and the live claims show it now
// (model/plan_graph), for `graph`, `board` and `report`; `run_id` names the
// run whose work entries count. Errors: no plan (System, with a hint), the
// plan or the log does not parse (Invalid, positioned).
Result<PlanGraph> load_plan_graph(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id);

}  // namespace small
