// Claims at write time, and the one way the claims table changes (see the header).
#include "small/domain/claim_gate.hpp"

#include <random>
#include <thread>

#include "small/base/text.hpp"
#include "small/store/claim_store.hpp"
#include "small/store/workspace_lock.hpp"

namespace small {

namespace {

// How many times a change is decided again after losing a push race; each
// loss means another agent's change landed, so this bounds contention, not
// failures.
constexpr int kPublishAttempts = 40;

// Our unpublished claims carried onto the remote's table, unless the remote
// holds a live claim by someone else on the task (then reported, dropped).
void carry_unpublished(const ClaimTable& local, ClaimTable& remote, const ClaimContext& ctx,
                       std::vector<std::string>& warnings) {
    for (const Claim& mine : local.claims) {
        if (mine.published) continue;
        if (const Claim* other = held_by_other(remote, mine.task, ClaimContext{mine.agent, ctx.host, ctx.now})) {
            warnings.push_back("the offline claim of " + mine.task + " by " + mine.agent +
                               " was not published: the remote says " + describe_claim(*other) +
                               " (dropped here; `small ready` lists what is free)");
            continue;
        }
        Claim published = mine;
        published.published = true;
        remote.put(std::move(published));
    }
}

void mark_unpublished_changes(const ClaimTable& before, ClaimTable& after) {
    for (Claim& c : after.claims) {
        const Claim* old = before.find(c.task);
        if (!old || !(*old == c)) c.published = false;
    }
}

Result<ClaimsUpdate> update_remote(const FileSystem& fs, const ClaimStore& store, const RemoteRef& remote,
                                   const ClaimTable& local, const ClaimContext& ctx, const std::string& summary,
                                   const ClaimChange& change) {
    ClaimsUpdate out{remote.remote, false, {}};
    std::minstd_rand jitter(static_cast<unsigned>(ctx.now.nanos ^ std::hash<std::string>{}(ctx.agent)));
    for (int attempt = 0; attempt < kPublishAttempts; ++attempt) {
        Result<RefText> read = fetch_ref_text(remote);
        if (!read) {
            Error e = read.error();
            e.message += " (nothing changed; retry when the remote is reachable, or use --offline)";
            return e;
        }
        ClaimTable remote_table;
        if (!read->tip.empty()) {
            Result<ClaimTable> parsed = table_of_message(read->message, remote.remote + ":" + remote.ref);
            if (!parsed) return parsed.error();
            remote_table = std::move(*parsed);
        }
        ClaimTable table = remote_table;
        std::vector<std::string> warnings;
        carry_unpublished(local, table, ctx, warnings);
        if (Status s = change(table); !s) return s.error();  // nothing pushed: the local table stays as it was
        (void)drop_expired(table, ctx.now, ctx.host);  // after: a decision names the lease it replaces
        Result<bool> pushed = table == remote_table
                                  ? Result<bool>(true)
                                  : push_ref_text(remote, read->tip, claims_message(table, summary), ctx.agent);
        if (!pushed) return pushed.error();
        if (*pushed) {
            for (Claim& c : table.claims) c.published_until = c.expires_at;
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

}  // namespace

Result<ClaimsUpdate> update_claims(const FileSystem& fs, const WorkspacePaths& ws, const ClaimContext& ctx, bool offline,
                                   const std::string& summary, const ClaimChange& change,
                                   std::chrono::milliseconds lock_wait) {
    const ClaimStore store = locate_claim_store(fs, ws);
    Result<std::optional<RemoteRef>> remote = claims_remote(fs, store);  // before the lock: it is held briefly
    if (!remote) return remote.error();
    Result<std::unique_ptr<HeldLock>> lock = lock_claim_store(fs, store, lock_wait);
    if (!lock) return lock.error();
    Result<ClaimTable> local = read_claim_table(fs, store);
    if (!local) return local.error();
    if (*remote && !offline) return update_remote(fs, store, **remote, *local, ctx, summary, change);
    ClaimTable table = *local;
    if (Status s = change(table); !s) return s.error();
    (void)drop_expired(table, ctx.now, ctx.host);
    if (*remote) mark_unpublished_changes(*local, table);
    if (Status w = write_claim_table(fs, store, table); !w) return w.error();
    return ClaimsUpdate{*remote ? (*remote)->remote : "", false, {}};
}

ClaimContext claim_context(const std::optional<std::string>& agent, const WorkspacePaths& ws) {
    std::string name = agent ? std::string(trim(*agent)) : std::string();
    if (name.empty()) name = default_agent_name(ws.root);
    return ClaimContext{std::move(name), this_host_name(), current_instant()};
}

Result<ClaimGate> gate_on_claim(const FileSystem& fs, const WorkspacePaths& ws, const std::string& task, TaskStatus status,
                                const ClaimContext& ctx, bool force) {
    ClaimGate gate;
    const ClaimStore store = locate_claim_store(fs, ws);
    if (!fs.file_exists(store.file)) return gate;  // no claims ever: nothing to check
    Result<ClaimTable> table = read_claim_table(fs, store);
    if (!table) return table.error();
    const Claim* claim = table->find(task);
    if (!claim || lease_state(*claim, ctx.now, ctx.host) == LeaseState::Expired) return gate;
    const bool other = claim->agent != ctx.agent;
    const bool starts_or_completes = status == TaskStatus::InProgress || status == TaskStatus::Completed;
    if (other && starts_or_completes && !force) {
        return Error::invalid(claimed_text(*claim, ctx.now) + "; nothing written. Take another task (`small ready`), ask " +
                              claim->agent + " to `small release " + task + "`, or --force");
    }
    if (is_settled(status)) {
        gate.release = *claim;
        gate.note = "claim: releases " + claim->agent + "'s claim" + (other ? " (forced)" : "");
    } else if (!other) {
        gate.renew = renewed_claim(*table, task, ctx);
        if (gate.renew) gate.note = "claim: " + ctx.agent + " holds it until " + format_timestamp_short(gate.renew->expires_at);
    } else if (force) {
        gate.note = "claim: forced past " + claim->agent + "'s claim (until " + format_timestamp_short(claim->expires_at) + ")";
    }
    return gate;
}

std::vector<std::string> mark_claims(const FileSystem& fs, const WorkspacePaths& ws, const ClaimContext& ctx,
                                     WorkFacts& facts) {
    const ClaimStore store = locate_claim_store(fs, ws);
    if (!fs.file_exists(store.file)) return {};
    Result<ClaimTable> table = read_claim_table(fs, store);
    if (!table) return {table.error().message};
    std::vector<std::string> mine, others;
    for (const Claim& c : table->claims) {
        if (lease_state(c, ctx.now, ctx.host) == LeaseState::Expired) continue;
        const std::string until = "until " + lease_until_text(c, ctx.now);
        if (c.agent == ctx.agent) {
            facts[c.task].held_until = c.agent + " " + until;
            mine.push_back("You (" + c.agent + ") hold " + c.task + " " + until);
        } else {
            facts[c.task].claimed_by = c.agent + " " + until;
            others.push_back(c.agent + " holds " + c.task + " " + until);
        }
    }
    mine.insert(mine.end(), others.begin(), others.end());
    return mine;
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
    if (!gate.renew && !gate.release) return {};
    const std::string task = gate.renew ? gate.renew->task : gate.release->task;
    const auto failed = [&](const Error& e) { return "the claim on " + task + " was not updated: " + e.message; };
    if (gate.renew) {
        // A renewal goes to the remote only when the lease published there
        // is half spent: most entries stay local and fast.
        const ClaimStore store = locate_claim_store(fs, ws);
        Result<std::unique_ptr<HeldLock>> lock = lock_claim_store(fs, store, default_lock_wait());
        if (!lock) return failed(lock.error());
        Result<ClaimTable> table = read_claim_table(fs, store);
        if (!table) return failed(table.error());
        const Claim* c = table->find(task);
        if (!c || c->agent != ctx.agent) return {};
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
    const std::string summary = gate.renew ? ctx.agent + " renews " + task : ctx.agent + " releases " + task + " (settled)";
    const auto settle = [&](ClaimTable& table) {
        const Claim* c = table.find(task);
        if (!gate.renew) {
            // Only the claim the gate saw: another agent's newer claim stays.
            if (c && c->agent == gate.release->agent && c->claimed_at == gate.release->claimed_at) table.erase(task);
        } else if (c && c->agent == ctx.agent) {
            table.put(*gate.renew);
        }
        return ok_status();
    };
    Result<ClaimsUpdate> done = update_claims(fs, ws, ctx, false, summary, settle, default_lock_wait());
    if (!done && done.error().kind == Error::Kind::System) {
        // The remote is out of reach: settle here; the next published change carries it.
        Result<ClaimsUpdate> local = update_claims(fs, ws, ctx, true, summary, settle, default_lock_wait());
        if (local) return "the remote was not reached (" + done.error().message + "); the claim on " + task +
                          " changed on this machine only";
    }
    if (!done) return failed(done.error());
    std::string warnings;
    for (const std::string& w : done->warnings) warnings += (warnings.empty() ? "" : "; ") + w;
    return warnings;
}

}  // namespace small
