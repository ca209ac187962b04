// Claims at write time, and the one way the claims table changes (see the header).
#include "small/domain/claim_gate.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "small/base/git.hpp"
#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/model/plan_model.hpp"
#include "small/store/claim_store.hpp"
#include "small/store/plan_cache.hpp"
#include "small/store/workspace_lock.hpp"

namespace small {

namespace {

// How many times a change is decided again after losing a push race; each
// loss means another agent's change landed, so this bounds contention, not
// failures.
constexpr int kPublishAttempts = 40;

// How many task numbers one exchange with the claims remote reserves for
// this machine: the adds that follow take them without an exchange.
constexpr std::int64_t kTaskIdBlock = 10;

// A blocked task's reason as a settlement keeps it: the evidence's first
// line, controls turned to spaces, at most 200 bytes (whole characters).
std::string settlement_reason(std::string_view evidence) {
    std::string out(trim(evidence.substr(0, evidence.find('\n'))));
    for (char& c : out) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    }
    if (out.size() > 200) {
        out.resize(200);
        while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
        if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
    }
    out = std::string(trim(out));
    return unsafe_text_reason(out, 200).empty() ? out : std::string();
}

// The fields only this machine keeps (where a claim was made) survive the
// exchange, which rebuilds the table from the remote's.
void keep_local_fields(const ClaimTable& local, ClaimTable& table) {
    if (table.block_from == 0) {
        table.block_from = local.block_from;
        table.block_to = local.block_to;
    }
    for (Claim& c : table.claims) {
        const Claim* here = local.find(c.task);
        if (here && here->agent == c.agent && here->claimed_at == c.claimed_at && c.checkout.empty()) c.checkout = here->checkout;
    }
}

// The table just fetched (with this machine's unpublished records carried
// onto it, still unpublished: no remote accepted them) stored here after a
// change was refused, so what the exchange learned is not lost.
Status store_fetched(const FileSystem& fs, const ClaimStore& store, const ClaimTable& local, ClaimTable fetched,
                     Instant now) {
    for (Claim& c : fetched.claims) {
        const Claim* here = local.find(c.task);
        if (here && !here->published && here->agent == c.agent && here->claimed_at == c.claimed_at &&
            here->renewed_at == c.renewed_at) {
            c.published = false;
        } else {
            c.published_until = c.expires_at;
        }
    }
    for (Settlement& s : fetched.settled) {
        const Settlement* here = local.settlement(s.task);
        if (here && !here->published && here->at == s.at && here->agent == s.agent) s.published = false;
    }
    keep_local_fields(local, fetched);
    fetched.synced_at = now;
    return write_claim_table(fs, store, fetched);
}

// A git killed while it updated a tracking ref (a SIGKILLed `small` takes
// its git with it) leaves `<ref>.lock` behind, and git refuses every later
// fetch into that ref ("cannot lock ref '<ref>': ... File exists"): the
// clone's claims would never reach the remote again, each exchange taken
// for an unreachable remote. Only small fetches into refs/small-remotes/,
// and a fetch holds a ref's lock for milliseconds, so such a lock file that
// stays 2 seconds is stale: removed (the ref is only a cache of the remote's
// tip; the next fetch writes it afresh). Waits at most 3 s for that. True
// when the lock is gone and the fetch is worth one more try.
bool clear_stale_tracking_lock(const FileSystem& fs, const ClaimStore& store, const RemoteRef& remote,
                               const Error& failed) {
    constexpr std::string_view kCannotLock = "cannot lock ref '";
    const std::size_t at = failed.message.find(kCannotLock);
    if (at == std::string::npos) return false;
    const std::size_t from = at + kCannotLock.size(), to = failed.message.find('\'', from);
    if (to == std::string::npos) return false;
    const std::string ref = failed.message.substr(from, to - from);
    const bool ours = ref == remote.tracking || ref.starts_with(remote.tracking + "@");  // claims, claims@<workspace>
    if (!ours || ref.find("..") != std::string::npos) return false;
    const std::string lock = store.root + "/" + ref + ".lock";
    using std::chrono::system_clock;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (true) {
        const std::optional<FileInfo> info = fs.stat(lock);
        if (!info) return true;  // gone meanwhile: a live fetch's, finished
        const auto age = system_clock::now() - system_clock::time_point(std::chrono::seconds(info->mtime_sec));
        if (age >= std::chrono::seconds(2)) return static_cast<bool>(fs.remove_file(store.root, lock, Durability::None));
        if (std::chrono::steady_clock::now() >= give_up) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

Result<ClaimsUpdate> update_remote(const FileSystem& fs, const ClaimStore& store, const RemoteRef& remote,
                                   const ClaimTable& local, const ClaimContext& ctx, const std::string& summary,
                                   const ClaimChange& change) {
    ClaimsUpdate out{remote.remote, false, {}};
    std::minstd_rand jitter(static_cast<unsigned>(ctx.now.nanos ^ std::hash<std::string>{}(ctx.agent)));
    bool cleared_lock = false;
    for (int attempt = 0; attempt < kPublishAttempts; ++attempt) {
        Result<RefText> read = fetch_ref_text(remote);
        if (!read && !cleared_lock && clear_stale_tracking_lock(fs, store, remote, read.error())) {
            cleared_lock = true;
            read = fetch_ref_text(remote);
        }
        if (!read) {
            Error e = read.error();
            e.message += " (nothing changed; retry when the remote is reachable, or use --offline)";
            return e;
        }
        ClaimTable remote_table;
        std::vector<std::string> warnings;
        if (!read->tip.empty()) {
            Result<ClaimTable> parsed =
                table_of_message(read->message, remote.remote + ":" + remote.ref, ctx.now, &warnings);
            if (!parsed) return parsed.error();
            remote_table = std::move(*parsed);
        }
        ClaimTable table = remote_table;
        carry_unpublished(local, table, ctx, warnings);
        const ClaimTable fetched = table;
        if (Status s = change(table); !s) {
            // Refused: nothing is pushed, but what the fetch told is kept
            // here, as `small claims` keeps it, so the next `ready`, start or
            // claim on this side knows it too (D21).
            Error e = s.error();
            if (Status w = store_fetched(fs, store, local, fetched, ctx.now); !w) {
                e.message += " (the claims fetched from " + remote.remote + " were not stored here: " + w.error().message + ")";
            }
            for (const std::string& warning : warnings) e.message += "; " + warning;
            return e;
        }
        (void)drop_expired(table, ctx.now, ctx.host);  // after: a decision names the lease it replaces
        Result<bool> pushed = table == remote_table && warnings.empty()
                                  ? Result<bool>(true)
                                  : push_ref_text(remote, read->tip, claims_message(table, summary), ctx.agent);
        if (!pushed) return pushed.error();
        if (*pushed) {
            keep_local_fields(local, table);
            for (Claim& c : table.claims) c.published_until = c.expires_at;
            table.synced_at = ctx.now;
            if (Status w = write_claim_table(fs, store, table); !w) return w.error();
            out.published = true;
            out.warnings = std::move(warnings);
            return out;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5 + jitter() % (10 * (attempt + 1))));
    }
    return Error::busy("the claims on " + remote.remote + " kept changing while this change was decided " +
                       std::to_string(kPublishAttempts) + " times; nothing changed, retry");
}

// The plan's path below the work tree's top, as branches hold it.
std::string plan_below_top(const ClaimStore& store) {
    const std::string rel = std::string(kSmallDirName) + "/" + std::string(kPlanFileName);
    return store.workspace.empty() ? rel : store.workspace + "/" + rel;
}

// The highest task number of each branch tip's committed plan, cached by
// commit id (a commit never changes) beside the claims table.
std::int64_t highest_on_branches(const FileSystem& fs, const ClaimStore& store, const std::string& rel,
                                 const std::map<std::string, std::string>& tips) {
    const std::string cache_file = store.dir + "/branch-plans.json";
    nlohmann::json cache = nlohmann::json::object();
    if (Result<std::string> text = fs.read_file(cache_file)) {
        cache = nlohmann::json::parse(*text, nullptr, false);
        if (!cache.is_object()) cache = nlohmann::json::object();
    }
    std::optional<GitRepo> repo;
    nlohmann::json kept = nlohmann::json::object();
    std::int64_t best = 0;
    for (const auto& [ref, tip] : tips) {
        if (!cache.contains(tip) || !cache[tip].is_number_integer()) {
            if (!repo) {
                Result<std::optional<GitRepo>> found = GitRepo::discover(store.work_tree);
                if (!found || !*found) return best;
                repo = std::move(**found);
            }
            Result<std::optional<std::string>> text = repo->file_at(tip, rel);
            cache[tip] = text && *text ? highest_task_number_in(**text) : 0;
        }
        kept[tip] = cache[tip];
        best = std::max(best, cache[tip].get<std::int64_t>());
    }
    if (repo) (void)fs.replace_file(FileWrite{store.root, cache_file, store.dir}, kept.dump() + "\n");
    return best;
}

// The other worktrees' plans as they are on disk, and every other local
// branch's committed plan (a branch checked out is read from its work tree).
std::int64_t highest_on_other_sides(const FileSystem& fs, const ClaimStore& store, const std::string& own_root) {
    const std::string rel = plan_below_top(store);
    const std::vector<GitWorkTreeHead> trees = read_work_tree_heads(fs, store.root);
    std::int64_t best = 0;
    std::set<std::string, std::less<>> checked_out;
    for (const GitWorkTreeHead& tree : trees) {
        checked_out.insert(tree.head_ref);
        const std::string plan = tree.root + "/" + rel;
        if (plan.rfind(own_root, 0) == 0) continue;  // this side's plan is the caller's
        if (Result<std::optional<std::string>> text = fs.read_file_if_present(plan); text && *text) {
            best = std::max(best, highest_task_number_in(**text));
        }
    }
    std::map<std::string, std::string> tips = read_branch_tips(fs, store.root);
    std::erase_if(tips, [&](const auto& t) { return checked_out.count(t.first) > 0; });
    return std::max(best, highest_on_branches(fs, store, rel, tips));
}

}  // namespace

namespace {

// A change of this machine's table only (no remote, offline, or a reserved
// block): returns the records left out as invalid.
Result<std::vector<std::string>> change_claims_here(const FileSystem& fs, const ClaimStore& store, const ClaimContext& ctx,
                                                    const ClaimChange& change, std::chrono::milliseconds lock_wait) {
    Result<std::unique_ptr<HeldLock>> lock = lock_claim_store(fs, store, lock_wait);
    if (!lock) return lock.error();
    std::vector<std::string> problems;
    Result<ClaimTable> local = read_claim_table(fs, store, &problems);
    if (!local) return local.error();
    ClaimTable table = *local;
    if (Status s = change(table); !s) return s.error();
    (void)drop_expired(table, ctx.now, ctx.host);
    // No remote accepted what changed (none yet, or offline): the first
    // exchange that reaches one publishes it (D21).
    mark_unpublished_changes(*local, table);
    if (!(table == *local)) {
        if (Status w = write_claim_table(fs, store, table); !w) return w.error();
    }
    return problems;
}

}  // namespace

Result<ClaimsUpdate> update_claims(const FileSystem& fs, const WorkspacePaths& ws, const ClaimContext& ctx, bool offline,
                                   const std::string& summary, const ClaimChange& change,
                                   std::chrono::milliseconds lock_wait) {
    const ClaimStore store = locate_claim_store(fs, ws);
    Result<std::optional<RemoteRef>> remote = claims_remote(fs, store);  // before the lock: it is held briefly
    if (!remote) return remote.error();
    if (!*remote || offline) {
        Result<std::vector<std::string>> problems = change_claims_here(fs, store, ctx, change, lock_wait);
        if (!problems) return problems.error();
        return ClaimsUpdate{*remote ? (*remote)->remote : "", false, std::move(*problems)};
    }
    Result<std::unique_ptr<HeldLock>> lock = lock_claim_store(fs, store, lock_wait);
    if (!lock) return lock.error();
    std::vector<std::string> problems;
    Result<ClaimTable> local = read_claim_table(fs, store, &problems);
    if (!local) return local.error();
    Result<ClaimsUpdate> done = update_remote(fs, store, **remote, *local, ctx, summary, change);
    if (done) done->warnings.insert(done->warnings.begin(), problems.begin(), problems.end());
    return done;
}

ClaimContext claim_context(const std::optional<std::string>& agent, const WorkspacePaths& ws) {
    std::string name = agent ? std::string(trim(*agent)) : std::string();
    const char* env = std::getenv("SMALL_AGENT");
    const bool implicit = name.empty() && (env == nullptr || trim(env).empty());
    if (name.empty()) name = default_agent_name(ws.root);
    return ClaimContext{std::move(name), this_host_name(), current_instant(), normal_dir_path(ws.root), implicit};
}

Status check_agent_name(const ClaimContext& ctx) {
    if (std::string why = unsafe_name_reason(ctx.agent); !why.empty()) {
        return Error::usage("the agent name " + std::string(ctx.implicit ? "guessed from $USER and the host" : "(--agent or $SMALL_AGENT)") +
                            " " + why + "; use letters, digits and punctuation without control characters");
    }
    return ok_status();
}

std::string side_name(const FileSystem& fs, const WorkspacePaths& ws, const ClaimContext& ctx) {
    const GitFacts git = read_git_facts(fs, ws.root);
    std::string where = git.branch.empty() ? (git.sha.empty() ? "a checkout" : "HEAD " + git.sha.substr(0, 12)) : git.branch;
    std::string side = where + " (" + ctx.host + ":" + ctx.checkout + ")";
    return unsafe_name_reason(side).empty() ? side : where;
}

namespace {

// A settlement this agent wrote (a completion run again after a kill is not
// another agent's); a guessed name in the same checkout is the same agent, as for claims.
bool settled_by_me(const Settlement& s, const ClaimContext& ctx, const std::string& side) {
    return s.agent == ctx.agent || (ctx.implicit && !s.side.empty() && s.side == side);
}

// D19: a start where the claims travel through a remote claims the task
// there first (see gate_on_claim). Only `warning` of the result is used.
Result<ClaimGate> claim_to_start(const FileSystem& fs, const WorkspacePaths& ws, const ClaimStore& store,
                                 const std::string& task, const ClaimContext& ctx, const std::string& verb = "start") {
    ClaimGate out;
    if (fs.file_exists(store.file)) {
        // The writer's own live claim the remote accepted: nothing to ask it.
        Result<ClaimTable> here = read_claim_table(fs, store);
        if (!here) return here.error();
        const Claim* c = here->find(task);
        if (c && c->published && is_mine(*c, ctx) && lease_state(*c, ctx.now, ctx.host) == LeaseState::Live) return out;
    }
    Result<std::optional<RemoteRef>> remote = claims_remote(fs, store);
    if (!remote || !*remote) return out;
    const std::string fix = "take another task (`small ready`, `small claim --next`), or `small claim " + task +
                            "` once it is free; --force " + (verb == "start" ? "starts" : "completes") + " it anyway";
    const auto take = [&](ClaimTable& table) -> Status {
        if (const Settlement* s = table.settlement(task); s && s->status != TaskStatus::Blocked &&
                                                    !(verb == "complete" && settled_by_me(*s, ctx, side_name(fs, ws, ctx)))) {
            // A completed or cancelled task never becomes free: no `small claim` later.
            Error e = Error::invalid("task " + task + " was " + describe_settlement(*s) + "; nothing written");
            e.hint = "it is settled for every side, not waiting to be free: take the next ready task (`small ready`, "
                     "`small claim --next`); --force works on it again";
            return e;
        }
        const Claim* c = table.find(task);
        if (c && is_mine(*c, ctx) && lease_state(*c, ctx.now, ctx.host) == LeaseState::Live) return ok_status();
        ClaimDecision d = decide_claim(table, task, kDefaultLeaseSeconds, ctx, false);
        if (d.kind == ClaimDecision::Kind::Refused) {
            Error e = Error::invalid(d.message + "; nothing written (" + (verb == "start" ? "starting" : "completing") +
                                     " a task claims it first)");
            e.hint = fix;
            return e;
        }
        table.put(d.claim);
        out.taken = d.claim;
        return ok_status();
    };
    Result<ClaimsUpdate> done = update_claims(fs, ws, ctx, false, ctx.agent + " claims " + task + " to " + verb + " it",
                                              take, default_lock_wait());
    if (done) return out;
    out.taken.reset();
    if (done.error().kind != Error::Kind::System) return done.error();
    out.warning = "the claims remote was not reached (" + done.error().message + "): " + task + " was " +
                  (verb == "start" ? "started" : "completed") + " without a claim there" +
                  (verb == "start" ? "; `small claim " + task + "` claims it when it is reachable" : "");
    return out;
}

}  // namespace

namespace {
Result<ClaimGate> gate_on_table(const FileSystem& fs, const WorkspacePaths& ws, const ClaimStore& store, const std::string& task,
                                TaskStatus status, const ClaimContext& ctx, bool force, ClaimGate gate);
}  // namespace

Result<ClaimGate> gate_on_claim(const FileSystem& fs, const WorkspacePaths& ws, const std::string& task, TaskStatus status,
                                const ClaimContext& ctx, bool force, const std::string& evidence) {
    ClaimGate gate;
    const ClaimStore store = locate_claim_store(fs, ws);
    // Outside git there is one side: nothing to tell another (D21).
    if (store.in_git && is_settled(status) && unsafe_task_id_reason(task).empty()) {
        const std::string reason = status == TaskStatus::Blocked ? settlement_reason(evidence) : std::string();
        gate.settle = Settlement{task, status, ctx.agent, side_name(fs, ws, ctx), reason, ctx.now, true};
    }
    if (status == TaskStatus::InProgress && !force && store.in_git && unsafe_task_id_reason(task).empty()) {
        if (Result<ClaimGate> claimed = claim_to_start(fs, ws, store, task, ctx); !claimed) {
            return claimed.error();
        } else {
            gate.warning = claimed->warning;
            gate.taken = claimed->taken;
        }
    }
    // A completion without a published claim claims the task on the remote
    // first, as a start does (D19, D21): another agent's claim or settlement
    // refuses it, and of two completions racing, one wins.
    if (status == TaskStatus::Completed && !force && store.in_git && unsafe_task_id_reason(task).empty()) {
        if (Result<ClaimGate> claimed = claim_to_start(fs, ws, store, task, ctx, "complete"); !claimed) {
            return claimed.error();
        } else {
            if (!claimed->warning.empty()) gate.warning += (gate.warning.empty() ? "" : "; ") + claimed->warning;
            gate.taken = claimed->taken;
        }
    }
    TakenClaims undo(fs, ws, ctx);  // a refusal below gives back what the claim above took
    undo.add(gate);
    Result<ClaimGate> checked = gate_on_table(fs, ws, store, task, status, ctx, force, std::move(gate));
    if (checked) undo.keep();
    return checked;
}

namespace {

// gate_on_claim's reading of the claims table, after any claim through the remote.
Result<ClaimGate> gate_on_table(const FileSystem& fs, const WorkspacePaths& ws, const ClaimStore& store, const std::string& task,
                                TaskStatus status, const ClaimContext& ctx, bool force, ClaimGate gate) {
    if (!fs.file_exists(store.file)) return gate;  // no claims ever: nothing to check
    Result<ClaimTable> table = read_claim_table(fs, store);
    if (!table) return table.error();
    if (const Settlement* s = table->settlement(task);
        s && status == TaskStatus::Completed && s->status != TaskStatus::Blocked &&
        !settled_by_me(*s, ctx, side_name(fs, ws, ctx)) && !force) {
        return Error::invalid("task " + task + " was " + describe_settlement(*s) +
                              "; nothing written. Take another task (`small ready`), or --force to complete it again");
    }
    if (const Settlement* s = table->settlement(task); s && !is_settled(status)) {
        // Work on a task another side settled: unblocking is fine (it lifts
        // the block everywhere); reopening finished work needs --force.
        if (s->status != TaskStatus::Blocked && !force) {
            return Error::invalid("task " + task + " was " + describe_settlement(*s) + "; nothing written. Take another task " +
                                  "(`small ready`), or --force to work on it again");
        }
        gate.reopen = *s;
    }
    const Claim* claim = table->find(task);
    if (!claim || lease_state(*claim, ctx.now, ctx.host) == LeaseState::Expired) return gate;
    const bool other = !is_mine(*claim, ctx);
    const bool starts_or_completes = status == TaskStatus::InProgress || status == TaskStatus::Completed;
    if (other && starts_or_completes && !force) {
        std::string self = ctx.implicit ? "; if you are " + claim->agent + ", pass --agent " + claim->agent +
                                              " or set SMALL_AGENT=" + claim->agent
                                        : std::string();
        return Error::invalid(claimed_text(*claim, ctx.now) + "; nothing written. Take another task (`small ready`), ask " +
                              claim->agent + " to `small release " + task + "`, or --force" + self);
    }
    if (is_settled(status)) {
        gate.release = *claim;
        gate.note = "claim: releases " + claim->agent + "'s claim" + (other ? " (forced)" : "");
    } else if (!other) {
        gate.renew = renewed_claim(*table, task, ctx);
        if (gate.renew) gate.note = "claim: " + gate.renew->agent + " holds it until " + format_timestamp_short(gate.renew->expires_at);
    } else if (force) {
        gate.note = "claim: forced past " + claim->agent + "'s claim (until " + format_timestamp_short(claim->expires_at) + ")";
    }
    return gate;
}

}  // namespace

void settle_as(ClaimGate& gate, TaskStatus status, std::string_view evidence) {
    if (!gate.settle) return;
    if (!is_settled(status)) {
        gate.settle.reset();
        return;
    }
    gate.settle->status = status;
    gate.settle->reason = status == TaskStatus::Blocked ? settlement_reason(evidence) : std::string();
}

std::vector<std::string> mark_claims(const FileSystem& fs, const WorkspacePaths& ws, const ClaimContext& ctx,
                                     WorkFacts& facts) {
    const ClaimStore store = locate_claim_store(fs, ws);
    // A table never exchanged with a configured remote knows nothing of the
    // other sides (D21): said, not trusted silently.
    const auto never_fetched = [&](const ClaimTable* t) {
        return (!t || !t->synced_at.seconds) && claims_remote_likely(fs, store);
    };
    if (!fs.file_exists(store.file)) {
        if (never_fetched(nullptr)) return {std::string(kClaimsNeverFetched)};
        return {};
    }
    Result<ClaimTable> table = read_claim_table(fs, store);
    if (!table) return {table.error().message};
    std::vector<std::string> mine, others;
    const std::set<std::string, std::less<>> done = done_task_ids(fs, ws);
    for (const Claim& c : table->claims) {
        if (lease_state(c, ctx.now, ctx.host) == LeaseState::Expired) continue;
        const auto work = facts.find(c.task);
        if (done.count(c.task) || (work != facts.end() && is_done(work->second.last_status))) continue;  // moot
        const std::string until = "until " + lease_until_text(c, ctx.now);
        if (is_mine(c, ctx)) {
            facts[c.task].held_until = c.agent + " " + until;
            mine.push_back("You (" + c.agent + ") hold " + c.task + " " + until);
        } else {
            facts[c.task].claimed_by = c.agent + " " + until;
            others.push_back(c.agent + " holds " + c.task + " " + until);
        }
    }
    for (const Settlement& s : table->settled) {
        TaskWork& w = facts[s.task];
        if (is_settled(w.last_status)) continue;  // this side knows it settled already
        w.settled_as = s.status;
        w.settled_by = describe_settlement(s);
        if (s.status == TaskStatus::Blocked && w.blocked_reason.empty()) w.blocked_reason = s.reason;
    }
    mine.insert(mine.end(), others.begin(), others.end());
    // What this side cannot know is said (D21): the other sides' claims and
    // settlements are as old as the last exchange with the remote.
    constexpr std::int64_t kStaleSeconds = 10 * 60;
    if (table->synced_at.seconds && ctx.now.seconds - table->synced_at.seconds >= kStaleSeconds) {
        mine.push_back("(claims as of " + duration_text(ctx.now.seconds - table->synced_at.seconds) +
                       " ago; `small claims` refreshes them)");
    } else if (never_fetched(&*table)) {
        mine.push_back(std::string(kClaimsNeverFetched));
    }
    return mine;
}

std::set<std::string, std::less<>> done_task_ids(const FileSystem& fs, const WorkspacePaths& ws) {
    std::set<std::string, std::less<>> out;
    Result<std::optional<std::vector<PlanTaskOutline>>> plan = load_plan_outline(fs, ws);
    if (!plan || !*plan) return out;
    for (const PlanTaskOutline& t : **plan) {
        if (!t.id.empty() && is_done(t.status)) out.insert(t.id);
    }
    return out;
}

bool claims_shared_by_remote(const FileSystem& fs, const WorkspacePaths& ws) {
    const ClaimStore store = locate_claim_store(fs, ws);
    if (!store.in_git) return false;
    if (fs.file_exists(store.file)) {
        if (Result<ClaimTable> table = read_claim_table(fs, store); table && table->synced_at.seconds) return true;
    }
    return claims_remote_likely(fs, store);
}

WorkFacts claimed_facts(const FileSystem& fs, const WorkspacePaths& ws, WorkFacts facts) {
    (void)mark_claims(fs, ws, claim_context(std::nullopt, ws), facts);
    return facts;
}

std::optional<std::string> notes_with_claim(const std::optional<std::string>& notes, const ClaimGate& gate) {
    if (gate.note.empty()) return notes;
    const bool blank = !notes || trim(*notes).empty();
    return blank ? gate.note : gate.note + "; " + *notes;
}

std::string settle_claim(const FileSystem& fs, const WorkspacePaths& ws, const ClaimGate& gate, const ClaimContext& ctx) {
    if (!gate.warning.empty()) {
        ClaimGate rest = gate;
        rest.warning.clear();
        const std::string more = settle_claim(fs, ws, rest, ctx);
        return more.empty() ? gate.warning : gate.warning + "; " + more;
    }
    if (!gate.renew && !gate.release && !gate.settle && !gate.reopen) return {};
    const std::string task = gate.renew     ? gate.renew->task
                             : gate.release ? gate.release->task
                             : gate.settle  ? gate.settle->task
                                            : gate.reopen->task;
    const auto failed = [&](const Error& e) { return "the claim on " + task + " was not updated: " + e.message; };
    if (gate.renew && !gate.reopen) {
        // A renewal goes to the remote only when the lease published there
        // is half spent: most entries stay local and fast.
        const ClaimStore store = locate_claim_store(fs, ws);
        Result<std::unique_ptr<HeldLock>> lock = lock_claim_store(fs, store, default_lock_wait());
        if (!lock) return failed(lock.error());
        Result<ClaimTable> table = read_claim_table(fs, store);
        if (!table) return failed(table.error());
        const Claim* c = table->find(task);
        if (!c || !is_mine(*c, ctx)) return {};
        const Instant remote_end = c->published_until.seconds ? c->published_until : c->expires_at;
        const bool half_spent = (remote_end.seconds - ctx.now.seconds) * 2 <= c->ttl_seconds;
        if (!c->published || !half_spent) {
            Claim renewed = *gate.renew;
            renewed.published = c->published;
            renewed.published_until = c->published_until;
            table->put(std::move(renewed));
            const Status w = write_claim_table(fs, store, *table);
            return w ? std::string() : failed(w.error());
        }
        lock->reset();  // update_claims takes it again
    }
    const std::string summary = gate.renew     ? ctx.agent + " renews " + task
                                : gate.settle  ? ctx.agent + " settles " + task + " (" + std::string(status_name(gate.settle->status)) + ")"
                                : gate.reopen  ? ctx.agent + " reopens " + task
                                               : ctx.agent + " releases " + task;
    const auto settle = [&](ClaimTable& table) {
        const Claim* c = table.find(task);
        if (gate.release) {
            // Only the claim the gate saw: another agent's newer claim stays.
            if (c && c->agent == gate.release->agent && c->claimed_at == gate.release->claimed_at) table.erase(task);
        } else if (gate.renew && c && is_mine(*c, ctx)) {
            table.put(*gate.renew);
        }
        if (gate.settle) table.settle(*gate.settle);
        if (gate.reopen) {
            const Settlement* s = table.settlement(task);
            if (s && s->at == gate.reopen->at) table.unsettle(task);
        }
        return ok_status();
    };
    Result<ClaimsUpdate> done = update_claims(fs, ws, ctx, false, summary, settle, default_lock_wait());
    if (!done && done.error().kind == Error::Kind::System) {
        // The remote is out of reach: settle here; the next published change carries it.
        Result<ClaimsUpdate> local = update_claims(fs, ws, ctx, true, summary, settle, default_lock_wait());
        if (local) return "the remote was not reached (" + done.error().message + "); the claims of " + task +
                          " changed on this machine only; the next exchange publishes them";
    }
    if (!done) return failed(done.error());
    std::string warnings;
    for (const std::string& w : done->warnings) warnings += (warnings.empty() ? "" : "; ") + w;
    return warnings;
}

Result<TaskIdReservation> reserve_task_numbers(const FileSystem& fs, const WorkspacePaths& ws, const ClaimContext& ctx,
                                               std::int64_t plan_max, std::int64_t count) {
    TaskIdReservation out{plan_max, {}};
    const ClaimStore store = locate_claim_store(fs, ws);
    if (!store.in_git || count <= 0) return out;
    const std::int64_t elsewhere = std::max(plan_max, highest_on_other_sides(fs, store, normal_dir_path(ws.root) + "/"));
    const std::string summary = ctx.agent + " reserves task ids";
    // First from the block of numbers a remote already granted this machine:
    // no exchange, and no look at git's config, for most adds.
    bool from_block = false;
    const auto take_from_block = [&](ClaimTable& table) {
        const std::int64_t base = std::max(elsewhere, table.block_from - 1);
        from_block = table.block_from > 0 && table.block_to - base >= count;
        if (from_block) {
            out.floor = base;
            table.block_from = base + count + 1;
        }
        return ok_status();
    };
    Result<std::vector<std::string>> here = change_claims_here(fs, store, ctx, take_from_block, default_lock_wait());
    if (!here) return here.error();
    if (from_block) return out;
    Result<std::optional<RemoteRef>> remote = claims_remote(fs, store);
    const auto reserve = [&](ClaimTable& table) {
        out.floor = std::max(elsewhere, table.last_task_number);
        const std::int64_t granted = remote && *remote ? std::max(count, kTaskIdBlock) : count;
        table.last_task_number = out.floor + granted;
        table.block_from = granted > count ? out.floor + count + 1 : 0;
        table.block_to = granted > count ? out.floor + granted : 0;
        return ok_status();
    };
    Result<ClaimsUpdate> done = update_claims(fs, ws, ctx, false, summary, reserve, default_lock_wait());
    if (!done && done.error().kind == Error::Kind::System) {
        const std::string why = done.error().message;
        const auto reserve_here = [&](ClaimTable& table) {
            out.floor = std::max(elsewhere, table.last_task_number);
            table.last_task_number = out.floor + count;
            return ok_status();
        };
        done = update_claims(fs, ws, ctx, true, summary, reserve_here, default_lock_wait());
        if (done) out.warning = "the claims remote was not reached (" + why + "): the new id(s) are reserved on this " +
                                "machine only; should another clone take the same, the merge renames the incoming one";
    }
    if (!done) return done.error();
    return out;
}

TakenClaims::TakenClaims(const FileSystem& fs, const WorkspacePaths& ws, ClaimContext ctx)
    : fs_(fs), ws_(ws), ctx_(std::move(ctx)) {}

void TakenClaims::add(const ClaimGate& gate) {
    if (gate.taken) taken_.push_back(*gate.taken);
}

TakenClaims::~TakenClaims() {
    try {
        give_back_all();
    } catch (...) {  // a destructor: out of memory here leaves the lease to end the claims
    }
}

void TakenClaims::give_back_all() const {
    for (const Claim& claim : taken_) {
        // Only the claim as it was put: one renewed or replaced since is no longer this call's.
        const auto give_back = [&](ClaimTable& table) {
            const Claim* c = table.find(claim.task);
            if (c && c->agent == claim.agent && c->claimed_at == claim.claimed_at) table.erase(claim.task);
            return ok_status();
        };
        const std::string summary = ctx_.agent + " gives back " + claim.task + " (the call that claimed it wrote nothing)";
        Result<ClaimsUpdate> done = update_claims(fs_, ws_, ctx_, false, summary, give_back, default_lock_wait());
        if (!done && done.error().kind == Error::Kind::System) {
            (void)update_claims(fs_, ws_, ctx_, true, summary, give_back, default_lock_wait());
        }
    }
}

}  // namespace small
