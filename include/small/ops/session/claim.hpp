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
};
struct ClaimsResult {
    std::string agent, table;  // the asking agent; where the table is
    std::vector<ClaimView> claims;
};
// Read-only: the table on this machine (as published by the last claim or
// release; `claim`/`release` fetch the remote's).
Result<ClaimsResult> claims_command(const FileSystem& fs, const WorkspacePaths& ws, const ClaimOptions& options);

}  // namespace small
