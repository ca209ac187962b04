#include "small/model/plan_graph.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

namespace small {

namespace {

WrittenStatus shown_status(const PlanTaskOutline& t, const WorkFacts& facts) {
    const auto work = facts.find(t.id);
    if (!is_settled(t.status) && work != facts.end() && !work->second.last_status.empty()) return work->second.last_status;
    return t.status.empty() ? WrittenStatus(TaskStatus::Pending) : t.status;
}

// Tarjan's strongly connected components, iteratively: the sets of two or
// more tasks (or one that depends on itself) are the cycles.
class Cycles {
public:
    explicit Cycles(const std::vector<std::vector<std::size_t>>& deps) : deps_(deps), n_(deps.size()) {
        index_.assign(n_, kNone);
        low_.assign(n_, 0);
        on_stack_.assign(n_, false);
        component_.assign(n_, kNone);
        for (std::size_t v = 0; v < n_; ++v) {
            if (index_[v] == kNone) visit(v);
        }
    }
    // The component of each task (kNone when in no cycle).
    std::vector<std::size_t> cyclic_component() const {
        std::vector<std::size_t> sizes(components_, 0);
        for (std::size_t v = 0; v < n_; ++v) ++sizes[component_[v]];
        std::vector<std::size_t> out(n_, kNone);
        for (std::size_t v = 0; v < n_; ++v) {
            const bool self = std::find(deps_[v].begin(), deps_[v].end(), v) != deps_[v].end();
            if (sizes[component_[v]] > 1 || self) out[v] = component_[v];
        }
        return out;
    }
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

private:
    void visit(std::size_t root) {
        std::vector<std::pair<std::size_t, std::size_t>> frames{{root, 0}};  // task, next dependency
        enter(root);
        while (!frames.empty()) {
            auto& [v, next] = frames.back();
            if (next < deps_[v].size()) {
                const std::size_t w = deps_[v][next++];
                if (index_[w] == kNone) {
                    enter(w);
                    frames.emplace_back(w, 0);
                } else if (on_stack_[w]) {
                    low_[v] = std::min(low_[v], index_[w]);
                }
                continue;
            }
            if (low_[v] == index_[v]) close(v);
            const std::size_t done = v;
            frames.pop_back();
            if (!frames.empty()) low_[frames.back().first] = std::min(low_[frames.back().first], low_[done]);
        }
    }
    void enter(std::size_t v) {
        index_[v] = low_[v] = counter_++;
        stack_.push_back(v);
        on_stack_[v] = true;
    }
    void close(std::size_t v) {
        std::size_t w;
        do {
            w = stack_.back();
            stack_.pop_back();
            on_stack_[w] = false;
            component_[w] = components_;
        } while (w != v);
        ++components_;
    }

    const std::vector<std::vector<std::size_t>>& deps_;
    std::size_t n_;
    std::vector<std::size_t> index_, low_, component_, stack_;
    std::vector<bool> on_stack_;
    std::size_t counter_ = 0, components_ = 0;
};

// The longest chain of open tasks (not done), dependencies first, over the
// tasks in no cycle. Ties: the chain whose last task Kahn's order reaches
// first, each task's predecessor the earliest in the plan (deterministic).
std::vector<std::size_t> critical_path(const std::vector<std::vector<std::size_t>>& deps, const std::vector<bool>& open,
                                       const std::vector<std::size_t>& cyclic) {
    const std::size_t n = deps.size();
    std::vector<std::size_t> indegree(n, 0);  // open dependencies a task waits on
    std::vector<std::vector<std::size_t>> dependents(n);
    const auto counts = [&](std::size_t v) { return open[v] && cyclic[v] == Cycles::kNone; };
    for (std::size_t v = 0; v < n; ++v) {
        if (!counts(v)) continue;
        for (const std::size_t d : deps[v]) {
            if (!counts(d) || d == v) continue;
            dependents[d].push_back(v);
            ++indegree[v];
        }
    }
    std::vector<std::size_t> length(n, 1), previous(n, Cycles::kNone), order;
    for (std::size_t v = 0; v < n; ++v) {
        if (counts(v) && indegree[v] == 0) order.push_back(v);
    }
    for (std::size_t i = 0; i < order.size(); ++i) {  // Kahn's order: dependencies before dependents
        const std::size_t v = order[i];
        for (const std::size_t w : dependents[v]) {
            if (length[v] + 1 > length[w] || (length[v] + 1 == length[w] && v < previous[w])) {
                length[w] = length[v] + 1;
                previous[w] = v;
            }
            if (--indegree[w] == 0) order.push_back(w);
        }
    }
    std::size_t end = Cycles::kNone;
    for (const std::size_t v : order) {
        if (end == Cycles::kNone || length[v] > length[end]) end = v;
    }
    std::vector<std::size_t> path;
    for (std::size_t v = end; v != Cycles::kNone; v = previous[v]) path.push_back(v);
    std::reverse(path.begin(), path.end());
    return path;
}

}  // namespace

PlanGraph plan_graph(const std::vector<PlanTaskOutline>& plan, const WorkFacts& facts) {
    PlanGraph g;
    std::unordered_map<std::string_view, std::size_t> index;
    std::vector<const PlanTaskOutline*> tasks;
    for (const PlanTaskOutline& t : plan) {
        if (t.id.empty() || !index.emplace(t.id, tasks.size()).second) continue;  // the first of each id
        tasks.push_back(&t);
    }
    std::vector<std::vector<std::size_t>> deps(tasks.size());
    std::set<std::string> missing_seen;
    for (std::size_t v = 0; v < tasks.size(); ++v) {
        for (const std::string& d : tasks[v]->depends_on) {
            const auto it = index.find(d);
            if (it != index.end()) deps[v].push_back(it->second);
            else if (missing_seen.insert(d).second) g.missing.push_back(d);
        }
    }
    const std::vector<std::size_t> cyclic = Cycles(deps).cyclic_component();
    std::vector<bool> open_task(tasks.size());
    const std::vector<std::string> ready = ready_task_ids(plan, facts);
    const std::set<std::string_view> ready_set(ready.begin(), ready.end());
    for (std::size_t v = 0; v < tasks.size(); ++v) {
        const PlanTaskOutline& t = *tasks[v];
        GraphTask task;
        task.id = t.id;
        task.title = t.title;
        task.status = shown_status(t, facts);
        const auto work = facts.find(t.id);
        // Ready to start: an in_progress task is already under way.
        task.ready = ready_set.count(t.id) && !(work != facts.end() && is_settled(work->second.last_status)) &&
                     !task.status.is(TaskStatus::InProgress);
        task.in_cycle = cyclic[v] != Cycles::kNone;
        if (work != facts.end()) {  // claimed_by: another agent's claim; held_until: the asker's own
            task.mine = work->second.claimed_by.empty() && !work->second.held_until.empty();
            task.claim = task.mine ? work->second.held_until : work->second.claimed_by;
            if (task.status.is(TaskStatus::Blocked)) task.blocked_reason = work->second.blocked_reason;
        }
        open_task[v] = !is_done(task.status);
        g.tasks.push_back(std::move(task));
    }
    std::vector<std::size_t> position(tasks.size(), Cycles::kNone);
    std::vector<std::size_t> path = critical_path(deps, open_task, cyclic);
    if (path.size() < 2) path.clear();  // one task is no chain: nothing is critical when all can run at once
    for (std::size_t i = 0; i < path.size(); ++i) {
        position[path[i]] = i;
        g.tasks[path[i]].critical = true;
        g.critical_path.push_back(g.tasks[path[i]].id);
    }
    std::map<std::size_t, std::vector<std::string>> cycles;
    for (std::size_t v = 0; v < tasks.size(); ++v) {
        if (cyclic[v] != Cycles::kNone) cycles[cyclic[v]].push_back(tasks[v]->id);
        for (const std::string& d : tasks[v]->depends_on) {
            const auto it = index.find(d);
            GraphEdge e{d, tasks[v]->id, it == index.end()};
            if (!e.missing) {
                const std::size_t u = it->second;
                e.in_cycle = cyclic[u] != Cycles::kNone && cyclic[u] == cyclic[v];
                e.critical = position[u] != Cycles::kNone && position[v] == position[u] + 1;
            }
            g.edges.push_back(std::move(e));
        }
    }
    for (auto& [component, ids] : cycles) g.cycles.push_back(std::move(ids));
    std::stable_sort(g.cycles.begin(), g.cycles.end(), [&](const auto& a, const auto& b) {
        return index.at(a.front()) < index.at(b.front());
    });
    return g;
}

std::vector<std::string> board_columns(const PlanGraph& graph) {
    std::vector<std::string> columns;
    for (const TaskStatus s : {TaskStatus::Pending, TaskStatus::InProgress, TaskStatus::Blocked, TaskStatus::Completed,
                               TaskStatus::Cancelled}) {
        columns.emplace_back(status_name(s));
    }
    for (const GraphTask& t : graph.tasks) {
        if (std::find(columns.begin(), columns.end(), t.status.word()) == columns.end()) columns.push_back(t.status.word());
    }
    return columns;
}

}  // namespace small
