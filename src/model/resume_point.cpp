// Where a run stands (see the header).
#include "small/model/resume_point.hpp"
#include "small/model/workspace.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "small/base/text.hpp"
#include "small/model/plan_model.hpp"
#include "small/model/replay_id.hpp"

namespace small {

namespace {

const TaskWork* work_of(const WorkFacts& facts, const std::string& id) {
    const auto it = facts.find(id);
    return it == facts.end() ? nullptr : &it->second;
}

// The plan indexed by id, so that a plan of 10,000 tasks costs one pass, not
// one scan per lookup; and whether this checkout's own work is known
// (store/local_work: some task has `here`).
//
// With `Settled::Elsewhere`, a task another side settled (D21) has the
// status it was settled with, so it is not offered again here; but its work
// is not here until that side is merged, so a task that depends on it still
// waits (settled_elsewhere). Otherwise the plan's status is the task's status
// (every write that records a status sets it in the plan too; design.md
// "One status per task").
enum class Settled { AsWritten, Elsewhere };

class Outline {
public:
    Outline(std::vector<PlanTaskOutline> tasks, const WorkFacts& facts, Settled settled = Settled::Elsewhere)
        : tasks_(std::move(tasks)) {
        by_id_.reserve(tasks_.size());
        for (PlanTaskOutline& t : tasks_) {
            if (!by_id_.emplace(t.id, &t).second) shared_.insert(t.id);  // the first of an id, as a scan finds
            const TaskWork* w = work_of(facts, t.id);
            const bool open = t.status.is(TaskStatus::Pending) || t.status.is(TaskStatus::InProgress);
            if (settled == Settled::Elsewhere && w && open && w->settled_as && !is_settled(w->last_status)) {
                t.status = *w->settled_as;
                elsewhere_.insert(t.id);
            }
        }
        own_work_known_ = std::any_of(facts.begin(), facts.end(), [](const auto& f) { return f.second.here; });
    }
    Outline(const Outline&) = delete;
    Outline& operator=(const Outline&) = delete;

    auto begin() const { return tasks_.begin(); }
    auto end() const { return tasks_.end(); }
    const PlanTaskOutline* find(std::string_view id) const {
        const auto it = by_id_.find(id);
        return it == by_id_.end() ? nullptr : it->second;
    }
    bool own_work_known() const { return own_work_known_; }
    // Issue 41: an id two tasks share (INV-P11), never offered as ready.
    bool shared(std::string_view id) const { return shared_.count(id) != 0; }
    // D21: settled on another side whose plan has not arrived here.
    bool settled_elsewhere(std::string_view id) const { return elsewhere_.count(id) != 0; }

private:
    std::vector<PlanTaskOutline> tasks_;
    std::unordered_map<std::string_view, const PlanTaskOutline*> by_id_;
    std::unordered_set<std::string_view> shared_, elsewhere_;
    bool own_work_known_ = false;
};

const PlanTaskOutline* find(const Outline& plan, std::string_view id) { return plan.find(id); }

// A dependency completed only on another side is not met here: its work
// arrives with the merge (the write gates read this plan too).
std::vector<std::string> unmet(const Outline& plan, const PlanTaskOutline& t) {
    std::vector<std::string> out;
    for (const std::string& d : t.depends_on) {
        const PlanTaskOutline* dep = find(plan, d);
        if (!dep || !dep->status.is(TaskStatus::Completed) || plan.settled_elsewhere(d)) out.push_back(d);
    }
    return out;
}

bool has_work(const WorkFacts& facts, const std::string& id) {
    const TaskWork* w = work_of(facts, id);
    return w && !w->last_status.empty();
}

// Started by other checkouts' entries only, while this checkout's own work is known.
bool started_elsewhere(const Outline& plan, const WorkFacts& facts, const std::string& id) {
    const TaskWork* w = work_of(facts, id);
    return plan.own_work_known() && w && !w->here && has_work(facts, id);
}

bool ready(const Outline& plan, std::string_view id) {
    const PlanTaskOutline* t = find(plan, id);
    return t && !is_done(t->status) && !plan.shared(id) && unmet(plan, *t).empty();
}

constexpr const char* kElsewhere = "In progress in another checkout: ";

std::string titled(const PlanTaskOutline& t) { return t.title.empty() ? t.id : t.id + ": " + t.title; }

// "task-3 (blocked)", "task-9 (not in the plan)". A blocked dependency's
// reason is on its own line (shown once).
std::string dependency_text(const Outline& plan, const std::string& id) {
    const PlanTaskOutline* t = find(plan, id);
    if (!t) return id + " (not in the plan)";
    return id + " (" + t->status.word() + (plan.settled_elsewhere(id) ? " on another side, not merged here" : "") + ")";
}

std::string waits_text(const Outline& plan, const std::vector<std::string>& ids) {
    std::string out;
    for (const std::string& id : ids) out += (out.empty() ? "" : ", ") + dependency_text(plan, id);
    return out;
}

std::vector<StartedTask> started_tasks(const Outline& plan, const WorkFacts& facts) {
    std::vector<StartedTask> out;
    for (const PlanTaskOutline& t : plan) {
        if (t.id.empty() || is_settled(t.status) || !has_work(facts, t.id)) continue;
        out.push_back({t.id, t.title, t.status, work_of(facts, t.id)->last_status, unmet(plan, t),
                       started_elsewhere(plan, facts, t.id)});
    }
    return out;
}

// The plan's tasks in the order work is suggested (sort_by_priority).
std::vector<const PlanTaskOutline*> by_priority(const Outline& plan) {
    std::vector<const PlanTaskOutline*> out;
    for (const PlanTaskOutline& t : plan) out.push_back(&t);
    sort_by_priority(out);
    return out;
}

// The current task and whether it is started (see the header's rules):
// a ready task in progress (by the plan or its newest work entry), the
// newest work first; else a ready task with other work; else the first
// ready pending task (by priority, then plan order); tasks started only in
// other checkouts last.
std::optional<std::pair<std::string, bool>> pick_work(const Outline& plan, const WorkFacts& facts) {
    const auto free = [&](const PlanTaskOutline& t) {
        const TaskWork* w = work_of(facts, t.id);
        return !w || w->claimed_by.empty();
    };
    const auto mine = [&](const PlanTaskOutline& t) { return free(t) && !started_elsewhere(plan, facts, t.id); };
    const auto newest = [&](auto&& eligible) -> const PlanTaskOutline* {
        const PlanTaskOutline* best = nullptr;
        std::size_t best_seq = 0;
        for (const PlanTaskOutline& t : plan) {
            if (t.id.empty() || t.status.is(TaskStatus::Blocked) || !ready(plan, t.id) || !eligible(t)) continue;
            const TaskWork* w = work_of(facts, t.id);
            const std::size_t seq = w && !w->last_status.empty() ? w->last_seq : 0;
            if (!best || seq > best_seq) best = &t, best_seq = seq;
        }
        return best;
    };
    const auto held = [&](const PlanTaskOutline& t) {
        const TaskWork* w = work_of(facts, t.id);
        return w && !w->held_until.empty();
    };
    // Started: the plan says in_progress (one status per task), or the newest
    // entry says completed while the plan does not (`apply` without
    // --auto-checkpoint): complete it. Work that stopped short (blocked, then
    // reopened by a human) is started again, not completed from where it stood.
    const auto started = [&](const PlanTaskOutline& t) {
        const TaskWork* w = work_of(facts, t.id);
        return t.status.is(TaskStatus::InProgress) || (w && w->last_status.is(TaskStatus::Completed));
    };
    for (const PlanTaskOutline& t : plan) {  // a claim says what this agent works on
        if (!t.id.empty() && held(t) && !t.status.is(TaskStatus::Blocked) && ready(plan, t.id)) {
            return std::make_pair(t.id, started(t));
        }
    }
    const PlanTaskOutline* active = newest([&](const PlanTaskOutline& t) { return mine(t) && t.status.is(TaskStatus::InProgress); });
    if (!active) active = newest([&](const PlanTaskOutline& t) { return mine(t) && started(t); });
    if (active) return std::make_pair(active->id, true);
    if (const PlanTaskOutline* worked = newest([&](const PlanTaskOutline& t) { return mine(t) && has_work(facts, t.id); })) {
        return std::make_pair(worked->id, false);
    }
    for (const PlanTaskOutline* t : by_priority(plan)) {
        if (t->status.is(TaskStatus::Pending) && !t->id.empty() && mine(*t) && ready(plan, t->id)) {
            return std::make_pair(t->id, false);
        }
    }
    if (const PlanTaskOutline* other = newest([&](const PlanTaskOutline& t) { return free(t) && !mine(t); })) {
        return std::make_pair(other->id, true);
    }
    return std::nullopt;
}

NextAction checkpoint(const std::string& id, TaskStatus status, const char* evidence = nullptr) {
    NextAction a{"checkpoint", {{"task", id}, {"status", std::string(status_name(status))}}, "", ""};
    if (evidence) a.args.push_back({"evidence", evidence, true});
    return a;
}

std::string reason_of(const WorkFacts& facts, const std::string& id) {
    const TaskWork* w = work_of(facts, id);
    return w && !w->blocked_reason.empty() ? w->blocked_reason : std::string("no reason recorded");
}

// The action that ends the session: no tool, the reason, and the line to
// show. `detail` (a blocked reason, whose leases) is cut so that the whole
// line fits kStopLineBytes with its longest ending: the instruction is never
// the part that is cut (the handoff's step keeps the whole detail).
void stop(NextAction& a, const std::string& lead, const std::string& detail = "", const std::string& close = "") {
    const std::size_t longest_ending = std::max(kStopWriteHandoff.size(), kStopHandoffWritten.size());
    const std::size_t fixed = std::string_view("stop: ").size() + lead.size() + close.size() + longest_ending;
    const std::size_t room = kStopLineBytes > fixed + 24 ? kStopLineBytes - fixed : 24;
    a = NextAction{};
    a.stop = lead + one_line(detail, room) + close;
    a.note = "stop: " + a.stop + std::string(kStopWriteHandoff);
}

// Nothing can move: name the first dependency that keeps a task waiting
// and how to drop it.
void explain_stuck(const Outline& plan, ResumePoint& r) {
    r.kind = ResumeKind::Stuck;
    r.summary = "Run stuck: no task can start; every open task waits on a dependency that cannot complete.";
    for (const PlanTaskOutline& t : plan) {
        if (is_done(t.status) || t.id.empty()) continue;
        const std::vector<std::string> waits = unmet(plan, t);
        if (waits.empty()) continue;
        r.steps.push_back("Re-plan " + titled(t) + ": it waits on " + waits_text(plan, waits));
        const auto droppable = std::find_if(waits.begin(), waits.end(), [&](const std::string& d) {
            return !plan.settled_elsewhere(d);  // merged, it completes: never re-planned away
        });
        if (r.action.tool.empty() && droppable != waits.end()) {
            r.action = {"plan", {{"undepend", t.id + ":" + *droppable}}, "", ""};
        }
    }
}

// What is left waits on tasks another side settled (D21) whose work is not
// merged here: merging that side is the way on, not re-planning.
bool explain_waits_on_merge(const Outline& plan, const WorkFacts& facts, ResumePoint& r) {
    for (const PlanTaskOutline& t : plan) {
        if (is_done(t.status) || t.id.empty()) continue;
        const std::vector<std::string> waits = unmet(plan, t);
        if (waits.empty() || !std::all_of(waits.begin(), waits.end(), [&](const std::string& d) {
                return plan.settled_elsewhere(d);
            })) {
            continue;
        }
        const TaskWork* w = work_of(facts, waits.front());
        r.kind = ResumeKind::Stop;
        r.summary = "Run waits on a merge: " + titled(t) + " waits on work done on another side.";
        r.steps.insert(r.steps.begin(), "Merge the side that settled " + waits.front() + " (" +
                                            (w ? w->settled_by : std::string("another side")) + "), then resume " +
                                            t.id);
        stop(r.action, t.id + " waits on " + waits.front() + ", settled on another side and not merged here");
        return true;
    }
    return false;
}

// Every ready task is held by another agent (D19): nothing to take now,
// and no step that would be refused. Names the leases to wait for.
bool explain_all_claimed(const Outline& plan, const WorkFacts& facts, ResumePoint& r) {
    std::string held;
    for (const PlanTaskOutline& t : plan) {
        const TaskWork* w = work_of(facts, t.id);
        if (t.id.empty() || !w || w->claimed_by.empty() || is_settled(t.status) || !ready(plan, t.id)) continue;
        held += (held.empty() ? "" : "; ") + t.id + " (" + w->claimed_by + ")";
    }
    if (held.empty()) return false;
    r.kind = ResumeKind::Stop;
    r.summary = "Every ready task is claimed by another agent.";
    r.steps.insert(r.steps.begin(), "Wait for a lease to end, or take a task another agent releases: " + held);
    stop(r.action, "every ready task is claimed by another agent: ", held);
    return true;
}

// "Waits on a human: task-3: Provision redis — ops to provision redis (a
// human unblocks it: small plan --pending task-3)": unblocking is a human's
// action, never the agent's next step.
std::string human_wait_step(const Outline& plan, const WorkFacts& facts, const PlanTaskOutline& t) {
    std::string step = std::string(kWaitsOnHumanStep) + titled(t) + " — " + reason_of(facts, t.id);
    if (const std::vector<std::string> waits = unmet(plan, t); !waits.empty()) {
        step += " (it also waits on " + waits_text(plan, waits) + ")";
    }
    return step + " (a human unblocks it: small plan --pending " + t.id + ")";
}

void add_blocked_steps(const Outline& plan, const WorkFacts& facts, ResumePoint& r) {
    for (const PlanTaskOutline& t : plan) {
        if (!t.status.is(TaskStatus::Blocked) || t.id.empty() || t.id == r.current) continue;
        r.steps.push_back(human_wait_step(plan, facts, t));
    }
}

// "Also ready: task-2: Design widget; task-4" — the ready tasks nobody has
// started besides the current one, so a session (or a second agent) sees
// what else it can take. At most five are named.
void add_also_ready_step(const Outline& plan, const WorkFacts& facts, ResumePoint& r) {
    constexpr std::size_t kNamed = 5;
    std::string named;
    std::size_t count = 0;
    for (const PlanTaskOutline* t : by_priority(plan)) {
        const TaskWork* w = work_of(facts, t->id);
        if (t->id.empty() || t->id == r.current || t->status.is(TaskStatus::Blocked) || has_work(facts, t->id) ||
            !ready(plan, t->id) || (w && !w->claimed_by.empty())) {
            continue;
        }
        if (count++ < kNamed) named += (named.empty() ? "" : "; ") + titled(*t);
    }
    if (count == 0) return;
    if (count > kNamed) named += "; and " + std::to_string(count - kNamed) + " more";
    r.steps.push_back("Also ready: " + named);
}

// Tasks another side settled (D21), named so nobody works on them here;
// their plan arrives with a merge of that side.
void add_settled_elsewhere_steps(const std::vector<PlanTaskOutline>& raw_plan, const WorkFacts& facts, ResumePoint& r) {
    constexpr std::size_t kNamed = 3;
    std::size_t count = 0;
    for (const PlanTaskOutline& t : raw_plan) {
        const TaskWork* w = work_of(facts, t.id);
        if (!w || !w->settled_as || is_settled(t.status) || is_settled(w->last_status)) continue;
        if (count++ < kNamed) r.steps.push_back("Settled on another side: " + titled(t) + " — " + w->settled_by + " (merge that side to get its work)");
    }
    if (count > kNamed) r.steps.push_back("Settled on other sides: " + std::to_string(count - kNamed) + " more (small ready skips them)");
}

void put_first(std::vector<std::string>& steps, const std::string& prefix) {
    const auto it = std::find_if(steps.begin(), steps.end(), [&](const std::string& s) { return s.rfind(prefix, 0) == 0; });
    if (it != steps.end()) std::rotate(steps.begin(), it, it + 1);
}

}  // namespace

std::vector<BlockedTask> blocked_tasks(const std::vector<PlanTaskOutline>& plan, const WorkFacts& facts) {
    std::vector<BlockedTask> out;
    for (const PlanTaskOutline& t : Outline(plan, facts)) {
        if (!t.status.is(TaskStatus::Blocked) || t.id.empty()) continue;
        const TaskWork* w = work_of(facts, t.id);
        out.push_back({t.id, t.title, w ? w->blocked_reason : std::string()});
    }
    return out;
}

bool is_ready(const std::vector<PlanTaskOutline>& plan, std::string_view id) {
    return ready(Outline(plan, {}, Settled::AsWritten), id);
}

std::vector<std::string> ready_task_ids(const std::vector<PlanTaskOutline>& raw_plan, const WorkFacts& facts) {
    const Outline plan(raw_plan, facts);
    std::vector<std::string> out;
    for (const PlanTaskOutline& t : plan) {
        if (t.id.empty() || find(plan, t.id) != &t || is_settled(t.status) || !ready(plan, t.id)) continue;
        out.push_back(t.id);
    }
    return out;
}

std::string describe_started(const StartedTask& t) {
    return t.id + (t.title.empty() ? "" : ": " + t.title) + " (" + t.plan_status.word() + ")";
}

ResumePoint resume_point(const std::vector<PlanTaskOutline>& raw_plan, const WorkFacts& facts) {
    ResumePoint r;
    const Outline plan(raw_plan, facts);
    r.started = started_tasks(plan, facts);
    if (!r.started.empty()) {
        const Outline as_written(raw_plan, facts, Settled::AsWritten);
        for (StartedTask& t : r.started) t.plan_status = find(as_written, t.id)->status;
    }
    const bool any_task = std::any_of(plan.begin(), plan.end(), [](const PlanTaskOutline& t) { return !t.id.empty(); });
    if (!any_task) {
        r.summary = "No tasks yet.";
        r.steps.push_back("Add the first task: small plan --add \"<title>\"");
        r.action = {"plan", {{"add", "<first task>", true}}, "", ""};
        return r;
    }
    add_settled_elsewhere_steps(raw_plan, facts, r);
    if (std::all_of(plan.begin(), plan.end(), [](const PlanTaskOutline& t) { return is_done(t.status); })) {
        r.kind = ResumeKind::Complete;
        r.summary = "Run complete. All plan tasks completed.";
        r.action.note = "nothing: the run is complete (new work: small plan --add \"<title>\"; a new run: small reset)";
        return r;
    }
    // Started tasks first (D13): ready ones to resume, the others waiting.
    for (const StartedTask& t : r.started) {
        const TaskWork* w = work_of(facts, t.id);
        const std::string claim = w ? w->claimed_by : std::string();
        r.steps.push_back(!t.waits_on.empty() ? "Wait: " + describe_started(t) + " waits on " +
                                                    waits_text(plan, t.waits_on)
                          : !claim.empty() ? "Claimed by " + claim + ": " + describe_started(t)
                          : t.elsewhere    ? kElsewhere + describe_started(t)
                                           : "Resume " + describe_started(t));
    }
    if (const auto work = pick_work(plan, facts)) {
        r.kind = ResumeKind::Work;
        std::tie(r.current, r.current_started) = *work;
        const PlanTaskOutline& t = *find(plan, r.current);
        const bool taken_over = started_elsewhere(plan, facts, r.current);
        const std::string lead = (taken_over ? std::string(kElsewhere) : std::string("Resume ")) + r.current +
                                 (t.title.empty() ? " " : ":");
        if (has_work(facts, r.current)) put_first(r.steps, lead);
        else r.steps.insert(r.steps.begin(), (r.current_started ? "Continue with " : "Start ") + titled(t));
        if (const TaskWork* w = work_of(facts, r.current); w && !w->held_until.empty()) {
            r.steps.front() += " (held by " + w->held_until + ")";
        }
        r.summary = "Run in progress. Next task: " + r.current +
                    (taken_over ? " (started in another checkout; nothing else is ready)." : ".");
        // Taking over another checkout's task starts it here; it is not done by us yet.
        r.action = r.current_started && !taken_over
                       ? checkpoint(r.current, TaskStatus::Completed, "<what proves it is done>")
                       : checkpoint(r.current, TaskStatus::InProgress);
        add_also_ready_step(plan, facts, r);
        add_blocked_steps(plan, facts, r);
        return r;
    }
    for (const PlanTaskOutline& t : plan) {
        if (!t.status.is(TaskStatus::Blocked) || t.id.empty() || !unmet(plan, t).empty()) continue;
        r.kind = ResumeKind::Stop;
        r.current = t.id;
        r.steps.insert(r.steps.begin(), human_wait_step(plan, facts, t));
        r.summary = "Run waits on a human: " + titled(t) + ".";
        stop(r.action, t.id + " waits on a human (", reason_of(facts, t.id), ")");
        add_blocked_steps(plan, facts, r);
        return r;
    }
    if (explain_all_claimed(plan, facts, r)) return r;
    if (explain_waits_on_merge(plan, facts, r)) return r;
    explain_stuck(plan, r);
    return r;
}

std::string cli_line(const NextAction& a) {
    if (a.tool.empty()) return a.note;  // a stop's note starts "stop: "
    std::string line = "small " + (a.tool == "progress_add" ? std::string("progress add") : a.tool);
    for (const NextAction::Arg& arg : a.args) {
        if (a.tool == "claim" && arg.name == "task") {  // `small claim TASK`: an operand
            line += ' ' + shell_quote(arg.value);
            continue;
        }
        std::string flag = arg.name;
        std::replace(flag.begin(), flag.end(), '_', '-');
        line += " --" + flag;
        if (arg.value.empty()) continue;  // a switch (--strict)
        line += ' ';
        if (arg.placeholder) line.append(1, '"').append(arg.value).append(1, '"');
        else line += shell_quote(arg.value);
    }
    return line;
}

// --- the log and the handoff's source ---

namespace {

constexpr std::string_view kSourcePrefix = "# small: computed from plan ";
constexpr std::string_view kMinePrefix = ", mine ";

}  // namespace

namespace {

bool is_status_decision(std::string_view id, const WrittenStatus& status, std::string_view evidence) {
    if (!status.known() || id.empty()) return false;
    const std::string head = "Updated task " + std::string(id) + " to " + status.word();
    if (!evidence.starts_with(head)) return false;
    const std::string_view via = evidence.substr(head.size());
    return via.starts_with(" via small plan --") || via == kViaMcpPlanTool || via.starts_with(kViaBoard);
}

}  // namespace

void add_entry_facts(LogFacts& f, const EntryText& e, std::size_t seq, const std::string& run_id) {
    const std::string id(trim(e.task_id)), evidence(trim(e.evidence)), notes(trim(e.notes));
    if (id.empty()) return;
    if (is_bookkeeping_entry(id, evidence, notes)) {
        // A human's status decision (`small plan --pending` after a block) is
        // not work, but it supersedes the status the task's work last wrote:
        // every view (resume point, ready, claim, board) then reads the same
        // status as the plan. A task without work keeps none (not started).
        WrittenStatus status(lower_ascii(trim(e.status)));
        const auto it = f.tasks.find(id);
        if (it != f.tasks.end() && !it->second.last_status.empty() && is_status_decision(id, status, evidence)) {
            it->second.last_status = std::move(status);
            it->second.last_seq = seq;
        }
        return;
    }
    ++f.work_entries;
    if (std::string ts(trim(e.timestamp)); !ts.empty()) f.newest_work = std::move(ts);
    WrittenStatus status(lower_ascii(trim(e.status)));
    TaskWork& w = f.tasks[id];
    if (status.is(TaskStatus::Blocked)) w.blocked_reason = one_line(evidence.empty() ? notes : evidence, 200);
    if (!run_id.empty() && lower_ascii(trim(e.replay_id)) != run_id) return;
    w.last_status = std::move(status);
    w.last_seq = seq;
}

EntryText entry_text(const YamlValue& entry) {
    const auto text = [&](const char* key) {
        const auto it = entry.find(key);
        return it != entry.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    return {text("task_id"), text("status"), text("evidence"), text("notes"), text("timestamp"), text("replayId")};
}

EntryText entry_text(NodeRef e) {
    const auto text = [&](const char* key) { return std::string(e.find(key).as_string()); };
    return {text("task_id"), text("status"), text("evidence"), text("notes"), text("timestamp"), text("replayId")};
}

LogFacts log_facts(NodeRef progress_root, const std::string& run_id) {
    LogFacts f;
    const NodeRef entries = progress_root.find("entries");
    for (std::size_t i = 0; entries.is_sequence() && i < entries.size(); ++i) {
        add_entry_facts(f, entry_text(entries.item(i)), i + 1, run_id);
    }
    f.entries = entries.is_sequence() ? entries.size() : 0;
    return f;
}

Result<LogFacts> read_log_facts(const FileSystem& fs, const std::string& path, const std::string& display,
                                const std::string& run_id) {
    LogFacts f;
    Status read = for_each_log_entry(
        fs, path, display, [&] { f = LogFacts{}; },
        [&](NodeRef entry) {
            add_entry_facts(f, entry_text(entry), ++f.entries, run_id);
            return true;
        });
    if (!read) return read.error();
    return f;
}

std::string plan_outline_digest(const std::vector<PlanTaskOutline>& plan) {
    std::string text;
    for (const PlanTaskOutline& t : plan) {
        text += t.id + '\x1f' + t.status.word() + '\x1f' + t.title;
        for (const std::string& d : t.depends_on) text += '\x1f' + d;
        text += '\x1e';
    }
    return sha256_hex(text).substr(0, 16);
}

HandoffSource handoff_source(const std::vector<PlanTaskOutline>& plan, const LogFacts& facts,
                             const WorkFacts& with_here) {
    std::string own;  // sorted: WorkFacts is an ordered map
    for (const auto& [id, w] : with_here) {
        if (w.here) own += id + '\x1e';
    }
    return {plan_outline_digest(plan), facts.work_entries, facts.newest_work,
            own.empty() ? std::string() : sha256_hex(own).substr(0, 8)};
}

std::string source_comment(const HandoffSource& s) {
    return std::string(kSourcePrefix) + s.plan_digest + ", " + std::to_string(s.work_entries) +
           " work entries, newest " + (s.newest.empty() ? std::string("none") : s.newest) +
           (s.mine.empty() ? std::string() : std::string(kMinePrefix) + s.mine) + "\n";
}

std::optional<HandoffSource> parse_source_comment(std::string_view text) {
    if (text.substr(0, kSourcePrefix.size()) != kSourcePrefix) return std::nullopt;
    text.remove_prefix(kSourcePrefix.size());
    const std::string_view line = text.substr(0, text.find('\n'));
    const std::size_t comma = line.find(", ");
    const std::size_t count_end = line.find(" work entries, newest ");
    if (comma == std::string_view::npos || count_end == std::string_view::npos || count_end < comma + 2) {
        return std::nullopt;
    }
    const std::string_view count = line.substr(comma + 2, count_end - comma - 2);
    if (count.empty() || count.size() > 19 || !std::all_of(count.begin(), count.end(), [](char c) {
            return c >= '0' && c <= '9';
        })) {
        return std::nullopt;
    }
    HandoffSource s;
    s.plan_digest = std::string(line.substr(0, comma));
    s.work_entries = std::stoull(std::string(count));
    std::string_view newest = line.substr(count_end + 22);
    if (const std::size_t mine = newest.find(kMinePrefix); mine != std::string_view::npos) {
        s.mine = std::string(newest.substr(mine + kMinePrefix.size()));
        newest = newest.substr(0, mine);
    }
    s.newest = std::string(newest);
    if (s.newest == "none") s.newest.clear();
    return s;
}

std::string staleness(const std::optional<HandoffSource>& was, const HandoffSource& now) {
    if (!was) return "";
    // A handoff is computed from shared data only (the plan and the log), so
    // which checkout wrote it does not make it stale; an older handoff's
    // `mine` digest is read and ignored.
    if (was->plan_digest == now.plan_digest && was->work_entries == now.work_entries && was->newest == now.newest) {
        return "";
    }
    std::string why;
    if (was->plan_digest != now.plan_digest) why = "the plan changed";
    if (was->work_entries != now.work_entries || was->newest != now.newest) {
        if (!why.empty()) why += " and ";
        if (now.work_entries > was->work_entries) {
            const std::uint64_t n = now.work_entries - was->work_entries;
            why += std::to_string(n) + " work entr" + (n == 1 ? "y was" : "ies were") + " added";
        } else {
            why += "the progress log changed";
        }
        if (!now.newest.empty() && now.newest != was->newest) why += " (newest " + now.newest + ")";
    }
    return why + " since it was written";
}

}  // namespace small
