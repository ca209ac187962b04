#include "small/view/graph_focus.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "small/base/text.hpp"

namespace small {

namespace {

constexpr std::size_t kFar = std::numeric_limits<std::size_t>::max();

using Adjacency = std::unordered_map<std::string, std::vector<std::string>>;

// Hops from `centre` along `next` (dependencies, or dependents), at most
// `depth`, merged into `hops` (the smaller count wins).
void walk(const Adjacency& next, const std::string& centre, std::size_t depth,
          std::unordered_map<std::string, std::size_t>& hops) {
    std::unordered_map<std::string, std::size_t> seen{{centre, 0}};
    std::vector<std::string> frontier{centre};
    for (std::size_t d = 1; d <= depth && !frontier.empty(); ++d) {
        std::vector<std::string> reached;
        for (const std::string& id : frontier) {
            const auto it = next.find(id);
            if (it == next.end()) continue;
            for (const std::string& n : it->second) {
                if (seen.emplace(n, d).second) reached.push_back(n);
            }
        }
        frontier = std::move(reached);
    }
    for (const auto& [id, d] : seen) {
        const auto [at, added] = hops.emplace(id, d);
        if (!added) at->second = std::min(at->second, d);
    }
}

// Hops from the centre of every task --task and --depth choose (all tasks at 0 without --task).
Result<std::unordered_map<std::string, std::size_t>> hops_of(const PlanGraph& graph, const GraphFocus& focus) {
    std::unordered_map<std::string, std::size_t> hops;
    if (focus.task.empty()) {
        for (const GraphTask& t : graph.tasks) hops.emplace(t.id, 0);
        return hops;
    }
    std::vector<std::string> ids;
    for (const GraphTask& t : graph.tasks) ids.push_back(t.id);
    if (std::find(ids.begin(), ids.end(), focus.task) == ids.end()) {
        std::string msg = "task " + visible(focus.task) + " is not in the plan, so there is nothing around it to show.";
        if (const std::vector<std::string> close = closest_matches(focus.task, ids); !close.empty()) {
            msg += " Did you mean ";
            for (std::size_t i = 0; i < close.size(); ++i) msg += (i ? ", " : "") + close[i];
            msg += "?";
        }
        Error e = Error::invalid(msg);
        e.hint = "`small plan show` lists the task ids";
        return e;
    }
    Adjacency deps, dependents;
    for (const GraphEdge& e : graph.edges) {
        if (e.missing) continue;
        deps[e.to].push_back(e.from);
        dependents[e.from].push_back(e.to);
    }
    hops.emplace(focus.task, 0);
    walk(deps, focus.task, focus.depth, hops);
    walk(dependents, focus.task, focus.depth, hops);
    return hops;
}

// The open tasks and the tasks they depend on.
std::unordered_set<std::string> open_work(const PlanGraph& graph) {
    std::unordered_set<std::string> open;
    for (const GraphTask& t : graph.tasks) {
        if (!is_done(t.status)) open.insert(t.id);
    }
    std::unordered_set<std::string> keep = open;
    for (const GraphEdge& e : graph.edges) {
        if (!e.missing && open.count(e.to)) keep.insert(e.from);
    }
    return keep;
}

struct Candidate {
    const GraphTask* task;
    std::size_t hops, position, recency;  // recency: rank in `recent` (kFar when absent)
};

bool more_relevant(const Candidate& a, const Candidate& b) {
    if (a.hops != b.hops) return a.hops < b.hops;
    const bool a_done = is_done(a.task->status), b_done = is_done(b.task->status);
    if (a_done != b_done) return !a_done;
    if (!a_done) return a.position < b.position;
    if (a.recency != b.recency) return a.recency < b.recency;
    return a.position > b.position;  // later in the plan: likely settled later
}

std::string count_of(std::size_t n, std::string_view one, std::string_view many) {
    return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace

std::size_t FocusedGraph::left_out_total() const {
    std::size_t n = 0;
    for (const auto& [status, count] : left_out) n += count;
    return n;
}

Result<FocusedGraph> focus_graph(const PlanGraph& graph, const GraphFocus& focus, const std::vector<std::string>& recent) {
    Result<std::unordered_map<std::string, std::size_t>> hops = hops_of(graph, focus);
    if (!hops) return hops.error();
    const std::unordered_set<std::string> open = focus.open ? open_work(graph) : std::unordered_set<std::string>{};
    std::unordered_map<std::string, std::size_t> recency;
    for (std::size_t i = 0; i < recent.size(); ++i) recency.emplace(recent[i], i);
    std::vector<Candidate> chosen;
    for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
        const GraphTask& t = graph.tasks[i];
        const auto h = hops->find(t.id);
        const bool centre = t.id == focus.task;  // shown even when settled
        if (h == hops->end() || (focus.open && !centre && !open.count(t.id))) continue;
        const auto r = recency.find(t.id);
        chosen.push_back({&t, h->second, i, r == recency.end() ? kFar : r->second});
    }
    std::stable_sort(chosen.begin(), chosen.end(), more_relevant);
    FocusedGraph out;
    out.in_plan = graph.tasks.size();
    out.chosen = chosen.size();
    std::unordered_set<std::string> shown;
    std::map<std::string, std::size_t> settled_kept;
    for (const Candidate& c : chosen) {
        const std::string& status = c.task->status.word();
        const bool folded = focus.settled_newest && is_done(c.task->status) && settled_kept[status] >= focus.settled_newest;
        if (folded || (focus.limit && shown.size() >= focus.limit)) {
            ++out.left_out[status];
            continue;
        }
        if (is_done(c.task->status)) ++settled_kept[status];
        shown.insert(c.task->id);
    }
    for (const GraphTask& t : graph.tasks) {
        if (shown.count(t.id)) out.graph.tasks.push_back(t);
    }
    std::unordered_set<std::string> missing;
    for (const GraphEdge& e : graph.edges) {
        if (!shown.count(e.to) || !(e.missing || shown.count(e.from))) continue;
        out.graph.edges.push_back(e);
        if (e.missing) missing.insert(e.from);
    }
    for (const std::string& id : graph.missing) {
        if (missing.count(id)) out.graph.missing.push_back(id);
    }
    for (const std::vector<std::string>& cycle : graph.cycles) {
        if (std::any_of(cycle.begin(), cycle.end(), [&](const std::string& id) { return shown.count(id) > 0; })) {
            out.graph.cycles.push_back(cycle);
        }
    }
    out.graph.critical_path = graph.critical_path;
    return out;
}

std::string focus_scope(const FocusedGraph& shown, const GraphFocus& focus) {
    if (!focus.open && focus.task.empty()) return {};
    std::string what;
    if (focus.task.empty()) what = "the open ones and what they wait on";
    else if (!focus.open) what = focus.task + " and " + count_of(focus.depth, "hop", "hops") + " of its dependencies and dependents";
    else what = "the open ones within " + count_of(focus.depth, "hop", "hops") + " of " + focus.task + " and what they wait on";
    return std::to_string(shown.chosen) + " of " + count_of(shown.in_plan, "task", "tasks") + ": " + what;
}

std::string left_out_sentence(const FocusedGraph& shown, std::string_view how) {
    const std::size_t total = shown.left_out_total();
    if (total == 0) return {};
    std::string by_status;
    for (const auto& [status, n] : shown.left_out) by_status += (by_status.empty() ? "" : ", ") + std::to_string(n) + " " + status;
    return std::to_string(total) + " not shown (" + by_status + "): " + std::string(how);
}

std::string focus_note(const FocusedGraph& shown, const GraphFocus& focus) {
    const std::string scope = focus_scope(shown, focus), cut = left_out_sentence(shown);
    if (scope.empty() || cut.empty()) return scope + cut;
    return scope + "; " + cut;
}

void add_focus_json(nlohmann::json& doc, const FocusedGraph& shown, const GraphFocus& focus) {
    doc["tasks_in_plan"] = shown.in_plan;
    doc["tasks_shown"] = shown.graph.tasks.size();
    doc["left_out"] = {{"count", shown.left_out_total()}, {"by_status", shown.left_out}};
    doc["note"] = focus_note(shown, focus);
}

}  // namespace small
