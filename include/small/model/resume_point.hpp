// Where a run stands and the one step that moves it forward (D18), computed
// from the plan and what the progress log says about each task. Pure: the
// handoff, the primer, `status`, `doctor` and MCP `resume` all read it, so
// they never disagree about the next step.
//
// Rules (D18):
//   * A task is ready when it is not settled (completed, cancelled) and every
//     `depends_on` is completed. Only a ready task is ever suggested, to start,
//     complete or unblock; a started task whose dependencies are not complete
//     is named as waiting, never as "resume".
//   * Only work entries (progress add, checkpoint, apply) make a task started;
//     the log lines of plan edits are bookkeeping (is_bookkeeping_entry).
//   * A task's status is the plan's (checkpoint and progress add set it in
//     the plan with the entry). A blocked task carries the reason of the
//     newest entry that blocked it.
//   * Current task: a ready task this agent holds; else the ready task the
//     plan says is in_progress with the newest work entry; else one whose
//     newest entry says completed while the plan does not (`apply` without
//     --auto-checkpoint: complete it); else one with other work (blocked,
//     then reopened: start it again); else the first ready pending task (by
//     `priority`, then plan order).
//   * Stop is an outcome: when nothing is left but blocked tasks (a human
//     unblocks them), tasks other agents hold, or tasks waiting on work
//     another side settled and has not merged here, the step is to write the
//     handoff and end the session (`action.stop` says why); unblocking is
//     never suggested to the agent. For blocked tasks the current task is the
//     first one whose dependencies are complete.
//   * When this checkout's own work is known (some task has `here`), a task
//     that only other checkouts' entries started (merged in from another
//     branch) is never preferred: it is named "In progress in another
//     checkout", and becomes current only when no other task is ready.
//   * A task another agent holds a live claim on (D19, TaskWork::claimed_by)
//     is never current nor "also ready"; a ready task this agent holds is
//     preferred. When every ready task is claimed by others, nothing can be
//     taken now: the step is stop, naming whose leases to wait for.
//   * A run whose tasks are all completed or cancelled is complete: nothing
//     to run but a fresh handoff; never a step that changes nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/doc/document.hpp"
#include "small/doc/yaml_writer.hpp"
#include "small/model/plan_summary.hpp"
#include "small/model/task_status.hpp"

namespace small {

// The one step that moves the run forward, as data: the operation (the CLI
// command and the MCP tool of the same name: checkpoint, progress_add,
// handoff, plan, init, check, status) and its arguments in order. `tool`
// empty: nothing to run (`note` says why; `stop` says why the session should
// end, when it should). `placeholder` arguments are for the agent to fill
// (`<what proves it is done>`); writes refuse them as they are
// (check/placeholder).
struct NextAction {
    struct Arg {
        std::string name, value;  // MCP argument name; the CLI flag is --name (with _ as -)
        bool placeholder = false;
    };
    std::string tool;
    std::vector<Arg> args;
    std::string note;  // why, or what to do when no tool fits
    std::string stop;  // "task-3 waits on a human (ops to provision redis)": end the session
};

// A stop line ("stop: …; write the handoff and end the session") is at most
// this long, so that the primer's last line ("Run next: " + it, at most 160
// bytes) never cuts its instruction; the detail is cut instead.
inline constexpr std::size_t kStopLineBytes = 150;
// How a stop line ends: the handoff still to write, or already written.
inline constexpr std::string_view kStopWriteHandoff = "; write the handoff and end the session";
inline constexpr std::string_view kStopHandoffWritten = "; the handoff is up to date: end the session";

// The step of a task that waits on a human: "Waits on a human: task-3: …".
inline constexpr std::string_view kWaitsOnHumanStep = "Waits on a human: ";

// `small checkpoint --task 'a b' --status completed --evidence "<...>"`, or
// the note when there is no tool (`stop: …` when the action is to stop).
std::string cli_line(const NextAction& a);

// What the progress log says about one task.
struct TaskWork {
    WrittenStatus last_status;   // newest work entry of the current run (empty: not started by an entry)
    std::size_t last_seq = 0;    // that entry's position in the log (larger = newer)
    std::string blocked_reason;  // evidence (else notes) of the newest entry that set it blocked, any run
    bool here = false;           // this checkout wrote work for it (store/local_work); not from the log
    // D19, from the claims table (not from the log): another agent's live
    // claim ("alice until 14:05 UTC"), or this agent's ("bob until 14:05 UTC").
    std::string claimed_by, held_until;
    // D21, from the claims table: the task was settled on another side whose
    // plan has not arrived here yet ("completed by alice on main at …").
    std::optional<TaskStatus> settled_as;
    std::string settled_by;
};
using WorkFacts = std::map<std::string, TaskWork, std::less<>>;

enum class ResumeKind {
    NoTasks,   // the plan has no tasks: add one
    Work,      // `current` is ready: start it or complete it
    Stop,      // only a human (blocked tasks) or other agents (their claims) can move it: stop
    Stuck,     // nothing can move: a dependency is missing from the plan or a cycle
    Complete,  // every task completed or cancelled
};

// A started (work entries, not settled) task, as the handoff lists it (D13).
struct StartedTask {
    std::string id, title;
    WrittenStatus plan_status, last_status;
    std::vector<std::string> waits_on;  // unmet dependencies (empty: ready)
    bool elsewhere = false;             // only other checkouts' entries started it (TaskWork::here)
};

struct ResumePoint {
    ResumeKind kind = ResumeKind::NoTasks;
    std::string current;           // the task to work on or unblock ("" none)
    bool current_started = false;  // in_progress or has work entries: complete it (else start it)
    std::vector<StartedTask> started;  // plan order
    std::vector<std::string> steps;    // the handoff's next_steps, in order
    std::string summary;               // one sentence
    NextAction action;                 // the step to take now
};

ResumePoint resume_point(const std::vector<PlanTaskOutline>& plan, const WorkFacts& facts);

// The blocked tasks, in plan order (blocked in the plan, or settled blocked
// on another side, D21), each with its reason ("" when no entry gave one).
struct BlockedTask {
    std::string id, title, reason;
};
std::vector<BlockedTask> blocked_tasks(const std::vector<PlanTaskOutline>& plan, const WorkFacts& facts);

// Whether `id` may be suggested now: in the plan, not settled, every
// dependency completed.
bool is_ready(const std::vector<PlanTaskOutline>& plan, std::string_view id);
// Every task is_ready names, the first of each id, in plan order, without
// the tasks another side settled (D21): one pass, for the ready queue (model/claims).
std::vector<std::string> ready_task_ids(const std::vector<PlanTaskOutline>& plan, const WorkFacts& facts);

// "task-2: Print the version (in_progress)": the plan's status, the one truth.
std::string describe_started(const StartedTask& t);

// What the progress log says of each task: work entries of run `run_id`
// (every run when empty), blocked reasons of any run, and the count and
// newest timestamp (as written) of the work entries of every run.
struct LogFacts {
    WorkFacts tasks;
    std::uint64_t work_entries = 0;
    std::string newest_work;
    std::uint64_t entries = 0;  // every entry, work or not (an appended entry's position follows)
};
LogFacts log_facts(NodeRef progress_root, const std::string& run_id);
// The same of the log file at `path`, read in windows when it is long
// (memory flat in its length); the whole read's error otherwise.
Result<LogFacts> read_log_facts(const FileSystem& fs, const std::string& path, const std::string& display,
                                const std::string& run_id);

// One entry's fields as written (untrimmed), and the fold log_facts makes of
// the entries in order: an append advances facts without reading the log
// again (store/log_facts_cache). `seq` is the entry's position, from 1.
struct EntryText {
    std::string task_id, status, evidence, notes, timestamp, replay_id;
};
void add_entry_facts(LogFacts& facts, const EntryText& entry, std::size_t seq, const std::string& run_id);
// The fields of an entry as written (a field that is absent or not a string reads "").
EntryText entry_text(const YamlValue& entry);
EntryText entry_text(NodeRef entry);

// --- What a handoff was computed from (D18: stale is visible) ---

// The handoff's first line records the plan (a digest of each task's id,
// title, status and dependencies: what the resume depends on) and the work
// entries of the log (their count and the newest timestamp) it was computed
// from; bookkeeping entries (plan edits, start, reset) change nothing it
// says. A comment, so the schema and the reference see nothing new.
struct HandoffSource {
    std::string plan_digest;  // 16 hex digits
    std::uint64_t work_entries = 0;
    std::string newest;       // newest work entry's timestamp as written ("" = none)
    // Read from an older handoff (", mine <8 hex digits>": the tasks the
    // writing checkout worked on); no longer written, never makes it stale.
    std::string mine;
    bool operator==(const HandoffSource&) const = default;
};

std::string plan_outline_digest(const std::vector<PlanTaskOutline>& plan);
// `with_here`: the facts with this checkout's own tasks marked (store/local_work);
// sets `mine`. The handoff and its staleness check pass none: the committed
// file is computed from shared data only, the same on every checkout.
HandoffSource handoff_source(const std::vector<PlanTaskOutline>& plan, const LogFacts& facts,
                             const WorkFacts& with_here = {});
std::string source_comment(const HandoffSource& s);                                // "# small: computed from …\n"
std::optional<HandoffSource> parse_source_comment(std::string_view handoff_text);  // nullopt: not recorded

// Why a handoff is stale ("" when it is fresh); `was` nullopt (not
// recorded: written by hand or by another tool) is never stale.
std::string staleness(const std::optional<HandoffSource>& was, const HandoffSource& now);

}  // namespace small
