#include "small/model/work_sides.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "small/doc/jcs.hpp"

namespace small {

namespace {

// Each side's tasks by id (the first of a repeated id), so that comparing
// N sides of T tasks costs N·T lookups, not N·T².
using TaskIndex = std::unordered_map<std::string_view, const SideTask*>;

std::vector<TaskIndex> index_sides(const std::vector<WorkSide>& sides) {
    std::vector<TaskIndex> out(sides.size());
    for (std::size_t i = 0; i < sides.size(); ++i) {
        out[i].reserve(sides[i].tasks.size());
        for (const SideTask& t : sides[i].tasks) out[i].try_emplace(t.id, &t);
    }
    return out;
}

const SideTask* find_in(const TaskIndex& index, std::string_view id) {
    const auto it = index.find(id);
    return it == index.end() ? nullptr : it->second;
}

// Every task id of every side: the first side's plan order, then each later
// side's new ids in its order.
std::vector<std::string_view> all_ids(const std::vector<WorkSide>& sides) {
    std::vector<std::string_view> ids;
    std::unordered_set<std::string_view> seen;
    for (const WorkSide& s : sides) {
        for (const SideTask& t : s.tasks) {
            if (!t.id.empty() && seen.insert(t.id).second) ids.push_back(t.id);
        }
    }
    return ids;
}

std::vector<TaskDifference> differences_of(const std::vector<WorkSide>& sides, const std::vector<TaskIndex>& index) {
    std::vector<TaskDifference> out;
    for (const std::string_view id : all_ids(sides)) {
        std::vector<std::string> statuses;
        std::string title;
        bool differs = false;
        std::optional<std::string_view> first;
        for (std::size_t i = 0; i < sides.size(); ++i) {
            const SideTask* t = sides[i].has_workspace ? find_in(index[i], id) : nullptr;
            statuses.push_back(t ? t->status : "");
            if (t && title.empty()) title = t->title;
            if (!sides[i].has_workspace) continue;
            const std::string_view status = t ? std::string_view(t->status) : std::string_view();
            if (first && *first != status) differs = true;
            if (!first) first = status;
        }
        if (differs) out.push_back({std::string(id), std::move(title), std::move(statuses)});
    }
    return out;
}

// The content a side's copy of a task is judged by: its canonical JSON when
// the caller gave it, else its title.
std::string judged_content(const SideTask& t) { return t.content.empty() ? "title:" + t.title : t.content; }

}  // namespace

SidesComparison compare_sides(const std::vector<WorkSide>& sides) {
    SidesComparison c;
    const std::vector<TaskIndex> index = index_sides(sides);
    c.differences = differences_of(sides, index);
    // Who added each id: every side that says so, and the current side when
    // it holds the id (it then added it since that side's merge base too).
    std::map<std::string, std::vector<std::size_t>> adders;
    const auto current = std::find_if(sides.begin(), sides.end(), [](const WorkSide& s) { return s.current; });
    for (std::size_t i = 0; i < sides.size(); ++i) {
        for (const std::string& id : sides[i].added) {
            std::vector<std::size_t>& who = adders[id];
            if (std::find(who.begin(), who.end(), i) == who.end()) who.push_back(i);
            if (current == sides.end() || sides[i].current) continue;
            if (!find_in(index[static_cast<std::size_t>(current - sides.begin())], id)) continue;
            const auto ci = static_cast<std::size_t>(current - sides.begin());
            if (std::find(who.begin(), who.end(), ci) == who.end()) who.push_back(ci);
        }
    }
    for (auto& [id, who] : adders) {
        std::sort(who.begin(), who.end());
        std::set<std::string> contents;
        IdCollision col{id, {}};
        for (std::size_t i : who) {
            const SideTask* t = find_in(index[i], id);
            if (!t) continue;
            contents.insert(judged_content(*t));
            col.holders.push_back({i, t->title});
        }
        if (contents.size() > 1) c.collisions.push_back(std::move(col));
    }
    return c;
}

std::vector<SideTask> side_tasks(const std::vector<PlanTaskOutline>& plan, const WorkFacts& facts) {
    std::vector<SideTask> out;
    out.reserve(plan.size());
    for (const PlanTaskOutline& t : plan) {
        std::string status = t.status.word();
        if (!is_settled(t.status)) {
            const auto f = facts.find(t.id);
            if (f != facts.end() && !f->second.last_status.empty()) status = f->second.last_status.word();
        }
        out.push_back({t.id, t.title, std::move(status), ""});
    }
    return out;
}

std::string entry_identity(NodeRef entry) {
    const auto json = [](NodeRef n) {
        Result<std::string> text = canonical_json(n);
        return text ? *text : std::string();
    };
    if (!entry.is_mapping()) return json(entry);
    std::string out;
    for (std::size_t i = 0; i < entry.size(); ++i) {
        if (entry.key(i) == "timestamp") continue;
        out += std::string(entry.key(i)) + '\x1f' + json(entry.value(i)) + '\x1e';
    }
    return out;
}

}  // namespace small
