// Which tasks a view shows: `board`, `graph` and the report take the same
// focus. --open: the tasks not settled and the tasks they depend on (what
// they wait on or build on); --task ID --depth N: the task and N hops of its
// dependencies and of its dependents; --limit N: at most N tasks, the most
// relevant first; and the board's fold: each settled status keeps its newest
// few. What was chosen but not shown is counted by status, so that every
// view says it: a view never leaves a task out silently.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "small/base/result.hpp"
#include "small/model/plan_graph.hpp"

namespace small {

struct GraphFocus {
    bool open = false;               // unsettled tasks and the tasks they depend on
    std::string task;                // the centre of `depth` ("" none)
    std::size_t depth = 1;           // hops of dependencies and of dependents around `task`
    std::size_t limit = 0;           // at most this many tasks (0: no limit)
    std::size_t settled_newest = 0;  // each settled status (completed, cancelled) keeps its newest N (0: all)
};

struct FocusedGraph {
    PlanGraph graph;          // the tasks shown (plan order), the edges ending at one, the whole critical path
    std::size_t in_plan = 0;  // tasks in the plan
    std::size_t chosen = 0;   // tasks --open and --task chose, before the limit and the fold
    std::map<std::string, std::size_t> left_out;  // chosen but not shown, by status word
    std::size_t left_out_total() const;
};

// The relevance order the limit keeps: the centre, then by hops from it,
// the open tasks (plan order) before the settled ones, newest first by
// `recent` (task ids, most recently worked on first), then later in the plan
// first. Errors: `task` is not a task of the plan (Invalid, with the closest ids).
Result<FocusedGraph> focus_graph(const PlanGraph& graph, const GraphFocus& focus,
                                 const std::vector<std::string>& recent = {});

// What a focused view shows, for a footer or a caption: "2 of 1000 tasks:
// the open ones and what they wait on"; "" when --open and --task are not given.
std::string focus_scope(const FocusedGraph& shown, const GraphFocus& focus);
// "994 not shown (994 completed): --limit 0 shows all"; "" when
// nothing was left out. `how`: the way to see them all.
std::string left_out_sentence(const FocusedGraph& shown, std::string_view how = "--limit 0 shows all");
// focus_scope and left_out_sentence as one line ("" when the view shows the whole plan).
std::string focus_note(const FocusedGraph& shown, const GraphFocus& focus);

// The keys a focused view's JSON adds: tasks_in_plan, tasks_shown,
// left_out {count, by_status} and note (focus_note).
void add_focus_json(nlohmann::json& doc, const FocusedGraph& shown, const GraphFocus& focus);

}  // namespace small
