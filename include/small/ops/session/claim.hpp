// `small ready`, `small claim`, `small release`, `small claims` (D19): the
// tasks an agent may take now, and leases on them shared by every worktree
// of the repository and, through its git remote, by every machine.
//
// A claim or release takes the workspace lock (its audit entry goes to the
// progress log) and then the claims table's lock. With a remote, the change
// is published before the command returns: the remote's table is fetched,
// the decision made on it, and pushed with compare-and-swap; a push that
// loses a race fetches and decides again, so exactly one agent wins a task.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/base/result.hpp"
#include "small/model/claims.hpp"
#include "small/model/workspace.hpp"

namespace small {

struct ClaimOptions {
    std::optional<std::string> agent;  // default_agent_name() when absent
    bool force = false;                // take a live claim over / release another agent's
    bool offline = false;              // do not publish (a later publish reports conflicts)
    std::optional<Instant> now;        // the clock (tests); the system clock when absent
    WorkspaceScope scope = WorkspaceScope::Root;
    std::chrono::milliseconds lock_wait{10'000};
};

struct ReadyResult {
    std::string agent;
    std::vector<ReadyTask> tasks;  // see model/claims ready_queue
    std::vector<Claim> held;       // the agent's live claims, table order
    std::vector<std::string> notes;  // records of the table left out, how old its knowledge is
};
// Read-only, no lock. System error without .small/; Invalid when the plan
// or the claims table cannot be read.
Result<ReadyResult> ready_command(const FileSystem& fs, const WorkspacePaths& ws, const ClaimOptions& options);

struct ClaimResult {
    ClaimDecision::Kind kind = ClaimDecision::Kind::Granted;
    Claim claim;
    std::optional<Claim> previous;  // the claim replaced (renewed, taken over)
    std::string remote;             // where it was published ("" none)
    bool published = false;
    std::vector<std::string> warnings;  // an offline claim the remote refused, a claim from the future
};
// `task` empty: the first task of the agent's ready queue (`claim --next`);
// Invalid "nothing is ready" when there is none. Errors: Invalid when the
// task is unknown, settled, waits on dependencies (unless forced) or is
// held by another agent (the message names the holder and the expiry: exit
// 1); System when the remote cannot be reached (nothing claimed: retry, or
// --offline).
Result<ClaimResult> claim_command(const FileSystem& fs, const WorkspacePaths& ws, const std::string& task,
                                  std::int64_t ttl_seconds, const ClaimOptions& options);

struct ReleaseResult {
    Claim released;
    std::string remote;
    bool published = false;
    std::vector<std::string> warnings;
};
// Invalid when the task has no claim, or another agent's live one (unless forced).
Result<ReleaseResult> release_command(const FileSystem& fs, const WorkspacePaths& ws, const std::string& task,
                                      const ClaimOptions& options);

struct ClaimView {
    Claim claim;
    LeaseState state = LeaseState::Live;
    bool mine = false;
    bool settled = false;  // the task is completed or cancelled here: the lease holds nothing
};
struct ClaimsResult {
    std::string agent, table;  // the asking agent; where the table is
    std::vector<ClaimView> claims;
    std::vector<Settlement> settled;  // tasks settled on some side (D21)
    std::vector<std::string> notes;   // the remote not reached, records left out, the table's age
    std::string remote;               // the remote exchanged with ("" none)
    bool synced = false;              // the table was just exchanged with `remote`
    bool has_remote = false;          // a claims remote is configured (records may be unpublished)
    Instant synced_at{};              // the last exchange (0: never)
};
// The table after an exchange with the claims remote (fetched, this
// machine's unpublished records published); with --offline, or when the
// remote cannot be reached, this machine's table and how old it is.
Result<ClaimsResult> claims_command(const FileSystem& fs, const WorkspacePaths& ws, const ClaimOptions& options);

}  // namespace small
