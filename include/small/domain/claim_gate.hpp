// D19 at write time: what another agent's claim means for an entry that
// records a status for a task (progress add, checkpoint), and what the
// entry does to the writer's own claim.
//   * Starting (in_progress) or completing a task another agent holds a live
//     claim on is refused, naming the holder and the expiry, unless forced.
//   * The claimant's entry renews its lease; an entry that settles the task
//     (completed, blocked, cancelled) releases the claim, whoever wrote it.
//   * The entry's notes say so ("claim: …; <notes>"), so the log stays the
//     audit trail.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/claims.hpp"
#include "small/model/layout.hpp"
#include "small/model/task_status.hpp"

namespace small {

// One change of the claims table, made under its lock: to the remote's
// table when a remote is configured (fetched, changed, pushed with
// compare-and-swap, and done again when the push loses a race), else to
// this machine's; the result is stored here. `change` returning an error
// aborts (the table read is still stored here: it is the newest known).
// Offline (or without a remote), changed claims are kept unpublished; the
// next published change carries them, or reports the remote's conflicting
// claim and drops ours (never merged silently).
struct ClaimsUpdate {
    std::string remote;  // "" when none was used
    bool published = false;
    std::vector<std::string> warnings;
};
using ClaimChange = std::function<Status(ClaimTable&)>;
Result<ClaimsUpdate> update_claims(const FileSystem& fs, const WorkspacePaths& ws, const ClaimContext& ctx, bool offline,
                                   const std::string& summary, const ClaimChange& change,
                                   std::chrono::milliseconds lock_wait);

// The agent a write acts for: `agent` when given (trimmed), else
// default_agent_name(); this host and clock.
// Without `agent` and $SMALL_AGENT the name is user@host:<workspace root>,
// so two checkouts (worktrees) of one user on one machine are two agents.
ClaimContext claim_context(const std::optional<std::string>& agent, const WorkspacePaths& ws);
// Usage error when the agent's name is outside the safe set (D21).
Status check_agent_name(const ClaimContext& ctx);
// How a settlement names this side: "main (host:/path/to/checkout)".
std::string side_name(const FileSystem& fs, const WorkspacePaths& ws, const ClaimContext& ctx);

struct ClaimGate {
    std::optional<Claim> renew;         // the writer's claim, renewed
    std::optional<Claim> release;       // the claim the entry ends (task settled)
    std::optional<Settlement> settle;   // the settlement the entry records for other sides (D21)
    std::optional<Settlement> reopen;   // another side's settlement the entry lifts
    std::string note;                   // what the entry's notes record; "" when no claim is involved
    std::string warning;                // the start could not claim, or the completion ask, through the remote (settle_claim reports it)
    std::optional<Claim> taken;         // the claim this gate put on the remote (a start or completion claims first)
};

// Gives back the claims gates took for a call that then fails (a refused
// second task, a failed write): without it, the claim of a call that wrote
// nothing stood on every side for its lease. keep() once the call's entry is
// written; otherwise the destructor releases each taken claim still as it was
// put (best effort: an unreachable remote lets the lease end it).
class TakenClaims {
public:
    TakenClaims(const FileSystem& fs, const WorkspacePaths& ws, ClaimContext ctx);
    TakenClaims(const TakenClaims&) = delete;
    TakenClaims& operator=(const TakenClaims&) = delete;
    ~TakenClaims();
    void add(const ClaimGate& gate);
    void keep() { taken_.clear(); }
    // A failed write whose change stands (journaled, or its entries written) keeps the claims too.
    void keep_if_it_stands(const Error& e) {
        if (e.change_stands) keep();
    }

private:
    void give_back_all() const;
    const FileSystem& fs_;
    const WorkspacePaths& ws_;
    ClaimContext ctx_;
    std::vector<Claim> taken_;
};

// Reads the claims table (no lock); Invalid when another live claim forbids
// the write, or the task was completed or cancelled on another side, and
// `force` is false. `evidence` gives a blocked task's reason.
// Starting a task (in_progress) where a claims remote is configured claims
// it first, through the remote (D19, D21: two sides never start one task):
// the writer's own live published claim needs no exchange; another agent's
// live claim, or a settlement elsewhere, refuses the start (Invalid, the fix
// names `small claim`), and what the exchange learned is stored either way.
// An unreachable remote does not stop the start: `warning` says it is
// unclaimed there. Completing a task there claims it on the remote first, as
// a start does (unless the writer holds the task's published live claim), so
// a claim another machine published refuses it; an unreachable remote only
// warns. A task another agent completed or cancelled (this table's record)
// refuses a completion; the same agent completing again does not.
Result<ClaimGate> gate_on_claim(const FileSystem& fs, const WorkspacePaths& ws, const std::string& task, TaskStatus status,
                                const ClaimContext& ctx, bool force, const std::string& evidence = {});

// A gate made for one status whose entry ended with another (`apply`: gated
// as completed, a failed command records blocked): the settlement it
// publishes says what was recorded.
void settle_as(ClaimGate& gate, TaskStatus status, std::string_view evidence);

// The live claims of the table, marked on the resume facts (D19):
// TaskWork::claimed_by for another agent's, held_until for `ctx.agent`'s.
// Returns the lines the primer shows ("you hold task-3 until 14:05 UTC",
// "bob holds task-2 until 15:00 UTC"), the agent's own first. Nothing when
// there is no table; an unreadable one is one line saying so.
// A lease on a task this checkout's plan (or the task's newest work) has
// completed or cancelled is moot: it is neither marked nor listed.
std::vector<std::string> mark_claims(const FileSystem& fs, const WorkspacePaths& ws, const ClaimContext& ctx,
                                     WorkFacts& facts);

// The tasks this checkout's plan has completed or cancelled: a claim on one
// is no live hold (status --all, claims, the primer, the board say so alike).
std::set<std::string, std::less<>> done_task_ids(const FileSystem& fs, const WorkspacePaths& ws);

// The primer's and `ready`'s line for a table never exchanged with the
// configured claims remote: another agent may hold any task it offers.
inline constexpr std::string_view kClaimsNeverFetched =
    "(claims not yet fetched from the remote: another agent may hold these tasks; `small claims` fetches them, `small claim` exchanges first)";

// Whether this side's claims travel through a remote: its table was
// exchanged with one, or one is configured (claims_remote_likely; no
// libgit2). Then the next step for a task nobody holds is `small claim`.
bool claims_shared_by_remote(const FileSystem& fs, const WorkspacePaths& ws);

// `facts` with the claims of this agent (claim_context(nullopt)) marked:
// what a handoff and the resume point read (D19).
WorkFacts claimed_facts(const FileSystem& fs, const WorkspacePaths& ws, WorkFacts facts);

// `notes` with the gate's note in front ("claim: …; <notes>").
std::optional<std::string> notes_with_claim(const std::optional<std::string>& notes, const ClaimGate& gate);

// After the entry is written: renews or releases in the table, records or
// lifts the settlement, under its lock. Best effort for the remote (a
// renewal is published when less than half of the published lease is left;
// a release or settlement is published): a failure there is returned as a
// warning, never undoing the entry (the next exchange publishes it).
std::string settle_claim(const FileSystem& fs, const WorkspacePaths& ws, const ClaimGate& gate, const ClaimContext& ctx);

// --- Task ids reserved across sides (D21) ---
// `plan --add` keeps the reference's `task-<N>` form, but N is above every
// number this side can see taken elsewhere — every worktree's plan and every
// local branch's committed plan of the repository, and the highest number
// reserved in the claims table (shared by the worktrees; with a claims
// remote, the remote's table, changed with the same compare-and-swap as a
// claim). The reservation is made before the plan is written, so two sides
// adding at once never get the same N.
struct TaskIdReservation {
    std::int64_t floor = 0;  // the new ids are task-<floor+1> .. task-<floor+count>
    std::string warning;     // the remote was not reached: reserved on this machine only
};

// Reserves `count` numbers above `plan_max` (this plan's largest). Outside
// git there is one side: nothing is recorded and floor is plan_max.
Result<TaskIdReservation> reserve_task_numbers(const FileSystem& fs, const WorkspacePaths& ws, const ClaimContext& ctx,
                                               std::int64_t plan_max, std::int64_t count);

}  // namespace small
