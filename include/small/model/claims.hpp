// Claims as leases (D19): which agent works on which task until when, and
// the decisions made on them — pure, clock and host passed in, so the rules
// are tested without waiting. Where the table lives is store/claim_store;
// who may write what is domain/claim_gate.
//
// Rules:
//   * A claim is live from when it was made until `expires_at`; the lease is
//     renewed by the claimant's work entries and ends when the task settles
//     or the claimant releases it. Exactly one live claim per task.
//   * Times are the claimer's wall clock. A claim stamped on another host is
//     given kClaimSkewSeconds of grace before it counts as expired, and one
//     stamped more than that ahead of this clock is "from the future": it is
//     refused (never honoured, never overwritten silently: the command that
//     meets it names it and the skew).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/result.hpp"
#include "small/base/timestamp.hpp"
#include "small/model/plan_summary.hpp"
#include "small/model/resume_point.hpp"
#include "small/model/task_status.hpp"

namespace small {

// How long a lease lasts when --ttl is not given, and how much another
// host's clock may differ from ours (the same tolerance as a future-dated
// progress entry, D8).
inline constexpr std::int64_t kDefaultLeaseSeconds = 60 * 60;
inline constexpr std::int64_t kClaimSkewSeconds = kFutureToleranceSeconds;

struct Claim {
    std::string task, agent;
    std::string host;  // the machine whose clock stamped the times
    Instant claimed_at, renewed_at, expires_at;
    std::int64_t ttl_seconds = kDefaultLeaseSeconds;
    // Local only: false until a remote accepted it (made offline, or before
    // the repository had a remote); the next exchange publishes it (D21).
    bool published = true;
    // Local only: the lease end the remote last accepted (renewals made here
    // between publishes move expires_at, not this).
    Instant published_until{};
    // Local only: the checkout (workspace root) the claim was made in, so a
    // later command there without --agent acts as its holder.
    std::string checkout{};
    bool operator==(const Claim&) const = default;
};

// A task settled (completed, blocked, cancelled) on some side (D21): kept
// where the claims live until the settling side's plan arrives by merge, so
// no other side offers the task again meanwhile.
struct Settlement {
    std::string task;
    TaskStatus status = TaskStatus::Completed;
    std::string agent, side;  // who settled it, and where ("main on host-a")
    std::string reason;       // a blocked task's reason (first line of its evidence)
    Instant at;
    bool published = true;  // local only, as Claim::published
    bool operator==(const Settlement&) const = default;
};

// Every claim, one per task, sorted by task id; the settlements, one per
// task; the highest task-<N> reserved by `plan --add` on any side (D21).
struct ClaimTable {
    std::vector<Claim> claims;
    std::vector<Settlement> settled;
    std::int64_t last_task_number = 0;
    Instant synced_at{};  // local only: the last exchange with the remote (0: never)
    // Local only: numbers the remote reserved for this machine and no add
    // used yet (block_from..block_to; 0: none), D21.
    std::int64_t block_from = 0, block_to = 0;
    const Claim* find(std::string_view task) const;
    void put(Claim claim);           // replaces the task's claim
    bool erase(std::string_view task);
    const Settlement* settlement(std::string_view task) const;
    void settle(Settlement s);       // replaces the task's settlement
    bool unsettle(std::string_view task);
    bool operator==(const ClaimTable&) const = default;
};

// Deterministic JSON ({"version":1,"claims":[...],"settled":[...]}, sorted,
// one record a line); `with_local` adds the fields only this machine keeps.
std::string claims_json(const ClaimTable& table, bool with_local);
// `name` is how the source is named in messages ("origin:refs/small/claims").
// The table is input (D21): a record that fails validation (unsafe names,
// a lease longer than its ttl or far ahead of `now`, two records for one
// task) is left out and described in `problems`, with a repair hint; only a
// text that is no claims table at all is an error.
Result<ClaimTable> parse_claims_json(std::string_view text, const std::string& name, Instant now,
                                     std::vector<std::string>* problems = nullptr);

// Names from other machines (agents, hosts, sides) and task ids held to a
// safe set: valid UTF-8, no control or bidirectional-override characters,
// no leading or trailing space, at most 200 bytes; a task id is also one
// word of letters, digits and . _ - : / @ + #. "" when fine, else why not.
std::string unsafe_name_reason(std::string_view name);
std::string unsafe_text_reason(std::string_view text, std::size_t max_bytes);
std::string unsafe_task_id_reason(std::string_view id);

enum class LeaseState { Live, Expired, FromFuture };
LeaseState lease_state(const Claim& claim, Instant now, std::string_view this_host);
// When the lease stops counting here: expires_at, plus the skew grace for
// another host's claim.
Instant lease_end(const Claim& claim, std::string_view this_host);

// The clock and identity a decision is made with.
struct ClaimContext {
    std::string agent;
    std::string host;
    Instant now;
    // Where the command runs (the workspace root), and whether `agent` was
    // only guessed (no --agent, no $SMALL_AGENT): a guessed agent acts as the
    // holder of claims made in this same checkout.
    std::string checkout{};
    bool implicit = false;
};
// Whether `claim` is the asking agent's own (by name, or made in this
// checkout when the name was only guessed).
bool is_mine(const Claim& claim, const ClaimContext& ctx);

// "completed by alice on main (host-a) at 2026-…Z".
std::string describe_settlement(const Settlement& s);
// Exact lease lengths as --ttl takes them: "90s" -> "1m30s", "1h30m", "2h", "1d".
std::string lease_length_text(std::int64_t seconds);

// "alice holds task-3 until 14:05:09Z (2026-11-27)"; "(expired)" after.
std::string describe_claim(const Claim& claim);
// "task task-3 is claimed by alice until 2026-…Z (14:05 UTC)": the start of
// every refusal a live claim causes.
std::string claimed_text(const Claim& claim, Instant now);
// "14:05" in UTC for the primer; the date too when it is not `now`'s day.
std::string lease_until_text(const Claim& claim, Instant now);

// The first moment after `now` at which what the table says could read
// differently by the clock alone (issue 39: an answer built from it is
// kept until then): a lease ending or no longer from the future, the next
// UTC day (lease_until_text), the next whole minute of the table's age
// since its last exchange (the "as of N minutes ago" notes). A table
// without claims and never exchanged never changes by the clock. Records
// parse_claims_json left out are not known here: the caller keeps nothing
// built from such a table (one may become valid later).
Instant claims_steady_until(const ClaimTable& table, Instant now, std::string_view this_host);

// The live claim on `task` held by another agent (nullptr when none).
const Claim* held_by_other(const ClaimTable& table, std::string_view task, const ClaimContext& ctx);

// What claiming `task` does.
struct ClaimDecision {
    enum class Kind {
        Granted,   // nobody held it
        Renewed,   // the agent held it already: the lease starts again
        TakenOver, // the previous lease expired (or --force): `previous` is replaced
        Refused,   // another agent's live claim, or a claim from the future
    };
    Kind kind = Kind::Granted;
    Claim claim;                    // the new claim (Granted, Renewed, TakenOver)
    std::optional<Claim> previous;  // what was there
    std::string message;            // Refused: why, naming the holder and expiry
};
ClaimDecision decide_claim(const ClaimTable& table, std::string_view task, std::int64_t ttl_seconds,
                           const ClaimContext& ctx, bool force);

// A work entry by the claimant renews its lease (same ttl from now).
// Returns the renewed claim, nullopt when `agent` holds no live claim on it.
std::optional<Claim> renewed_claim(const ClaimTable& table, std::string_view task, const ClaimContext& ctx);

// Drops the table's expired claims (never a claim from the future) and
// settlements older than kSettlementKeepSeconds; returns the claims dropped.
std::vector<Claim> drop_expired(ClaimTable& table, Instant now, std::string_view this_host);
inline constexpr std::int64_t kSettlementKeepSeconds = 30 * 86400;

// Our unpublished records (claims, settlements, the reserved id) carried
// onto `remote`, the table just fetched; an offline claim on a task the
// remote has another agent's live claim on (or settled) is not carried, and
// `warnings` says so.
void carry_unpublished(const ClaimTable& local, ClaimTable& remote, const ClaimContext& ctx,
                       std::vector<std::string>& warnings);
// Marks as unpublished what `after` changed since `before`.
void mark_unpublished_changes(const ClaimTable& before, ClaimTable& after);

// --- The ready queue ---

// A task an agent may take now (D18 readiness, D19 claims): not settled in
// the plan nor by its newest work entry, every dependency completed, and no
// live claim by another agent. Plan order, or by `priority` where tasks have
// one (model/plan_summary's task_priority).
struct ReadyTask {
    std::string id, title;
    WrittenStatus status;
    std::string priority;         // as written ("" none)
    std::optional<Claim> mine;    // the asking agent's live claim on it
    // In progress by the plan or its newest work entry, yet nobody holds a
    // live claim on it: someone (perhaps on another side) may be working on
    // it. Listed, but said, and `claim --next` takes it last.
    bool started_unclaimed = false;
};
std::vector<ReadyTask> ready_queue(const std::vector<PlanTaskOutline>& plan, const WorkFacts& facts,
                                   const ClaimTable& claims, const ClaimContext& ctx);

// --- Names and durations ---

// The agent name when --agent is not given: $SMALL_AGENT, else
// user@host:<place> (user from $USER, else $LOGNAME, else "agent"; place:
// the workspace root, so each checkout is its own agent; omitted when empty).
std::string default_agent_name(std::string_view place = {});
// This machine's name (gethostname; "localhost" when it cannot be told).
std::string this_host_name();

// "90s", "45m", "2h", "1d", "1h30m", or plain seconds: Usage error otherwise
// (also for zero or more than 30 days).
Result<std::int64_t> parse_lease_duration(std::string_view text);

}  // namespace small
