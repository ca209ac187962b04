// ready, claim, release, claims (see the header).
#include "small/ops/session/claim.hpp"

#include "small/base/text.hpp"
#include "small/domain/claim_gate.hpp"
#include "small/domain/progress_entry.hpp"
#include "small/store/claim_store.hpp"
#include "small/store/log_facts_cache.hpp"
#include "small/store/plan_cache.hpp"
#include "small/store/progress_log.hpp"
#include "small/store/workspace_change.hpp"

#include <algorithm>

namespace small {

namespace {

ClaimContext context_of(const ClaimOptions& o, const WorkspacePaths& ws) {
    ClaimContext ctx = claim_context(o.agent, ws);
    if (o.now) ctx.now = *o.now;
    return ctx;
}

struct PlanAndFacts {
    std::vector<PlanTaskOutline> plan;
    WorkFacts facts;
};

Result<PlanAndFacts> plan_and_facts(const FileSystem& fs, const WorkspacePaths& ws, const std::string& run_id) {
    Result<std::optional<std::vector<PlanTaskOutline>>> plan = load_plan_outline(fs, ws);
    if (!plan) return plan.error();
    PlanAndFacts out;
    if (*plan) out.plan = std::move(**plan);
    if (fs.file_exists(ws.path_of(kProgressFileName))) {
        Result<LogFacts> facts = cached_log_facts(fs, ws, run_id);
        if (!facts) return facts.error();
        out.facts = std::move(facts->tasks);
    }
    return out;
}

std::string run_id_of(const FileSystem& fs, const WorkspacePaths& ws) {
    if (!fs.file_exists(ws.path_of(kWorkspaceFileName))) return {};
    Result<WorkspaceMetadata> meta = load_workspace_metadata(fs, ws);
    return meta && !meta->run_id_error ? meta->run_replay_id : std::string();
}

const PlanTaskOutline* plan_task(const std::vector<PlanTaskOutline>& plan, std::string_view id) {
    for (const PlanTaskOutline& t : plan) {
        if (t.id == id) return &t;
    }
    return nullptr;
}

// Claiming needs a task that can be taken now (D18): in the plan, not
// settled, its dependencies completed (unless forced).
Status check_claimable(const PlanAndFacts& pf, const std::string& task, bool force) {
    const PlanTaskOutline* t = plan_task(pf.plan, task);
    if (!t) return Error::invalid("task " + task + " is not in the plan; `small ready` lists the tasks to take");
    const auto work = pf.facts.find(task);
    const WrittenStatus& last = work == pf.facts.end() ? t->status : work->second.last_status;
    if (is_settled(t->status) || (!last.empty() && is_settled(last))) {
        const std::string word = is_settled(t->status) ? t->status.word() : last.word();
        return Error::invalid("task " + task + " is " + word + ": nothing to claim; `small ready` lists the tasks to take");
    }
    if (force) return ok_status();
    std::vector<std::string> waits;
    for (const std::string& d : t->depends_on) {
        const PlanTaskOutline* dep = plan_task(pf.plan, d);
        if (!dep || !dep->status.is(TaskStatus::Completed)) waits.push_back(d);
    }
    if (waits.empty()) return ok_status();
    std::string list;
    for (const std::string& w : waits) list += (list.empty() ? "" : ", ") + w;
    return Error::invalid("task " + task + " waits on " + list + " (not completed); claim a ready task (`small ready`) or --force");
}

// The audit line of a claim or release: a bookkeeping entry (never work, D18).
Status record_in_log(const FileSystem& fs, const WorkspacePaths& ws, const PlanAndFacts& pf, const std::string& run_id,
                     const std::string& task, const std::string& evidence, const std::string& notes) {
    if (!fs.file_exists(ws.path_of(kProgressFileName))) return ok_status();
    const PlanTaskOutline* t = plan_task(pf.plan, task);
    EntryFields fields;
    fields.evidence = evidence;
    fields.notes = notes;
    YamlValue entry = build_progress_entry(task, t ? t->status : WrittenStatus(TaskStatus::Pending), fields, evidence, run_id);
    Result<std::vector<AppendResult>> appended = append_progress_entries(fs, ws, {entry}, std::nullopt, false);
    return appended ? ok_status() : Status(appended.error());
}

// How old this side's knowledge of the other sides is, when it matters:
// the table was exchanged with a remote before, or holds what no remote has.
std::string knowledge_note(const ClaimTable& table, Instant now, bool has_remote) {
    std::size_t unpublished = 0;
    for (const Claim& c : table.claims) unpublished += c.published ? 0 : 1;
    for (const Settlement& s : table.settled) unpublished += s.published ? 0 : 1;
    std::string out;
    if (table.synced_at.seconds) {
        const std::int64_t age = std::max<std::int64_t>(0, now.seconds - table.synced_at.seconds);
        if (age >= 60) out = "the claims were last exchanged with the remote " + duration_text(age) + " ago (" + format_timestamp_short(table.synced_at) + "); `small claims` refreshes them";
    } else if (has_remote) {
        // Never exchanged: as stale as a table can be (D21).
        out = "the claims were never fetched from the remote: another agent may hold a task listed here; `small claims` fetches them, and `small claim` exchanges with the remote before it grants one";
    }
    if (unpublished && has_remote) {
        out += (out.empty() ? "" : "; ") + std::to_string(unpublished) + " record(s) on this machine are not published yet (the next exchange with a remote publishes them)";
    }
    return out;
}

std::string remote_note(const ClaimsUpdate& u) {
    if (u.published) return "published to " + u.remote;
    return u.remote.empty() ? "no remote: this machine only" : "offline: not published to " + u.remote;
}

}  // namespace

Result<ReadyResult> ready_command(const FileSystem& fs, const WorkspacePaths& ws, const ClaimOptions& options) {
    if (Status s = require_small_dir(fs, ws); !s) return s.error();
    const ClaimContext ctx = context_of(options, ws);
    Result<PlanAndFacts> pf = plan_and_facts(fs, ws, run_id_of(fs, ws));
    if (!pf) return pf.error();
    std::vector<std::string> notes;
    Result<ClaimTable> table = read_claim_table(fs, locate_claim_store(fs, ws), &notes);
    if (!table) return table.error();
    ReadyResult out{ctx.agent, ready_queue(pf->plan, pf->facts, *table, ctx), {}, std::move(notes)};
    for (const Claim& c : table->claims) {
        if (is_mine(c, ctx) && lease_state(c, ctx.now, ctx.host) == LeaseState::Live) out.held.push_back(c);
    }
    // A table that was ever exchanged names a remote; asking git's config
    // instead would load libgit2, which costs `ready` 60 M instructions.
    // A table never exchanged asks the repository's config file (no libgit2).
    const bool has_remote = table->synced_at.seconds != 0 || claims_remote_likely(fs, locate_claim_store(fs, ws));
    if (std::string age = knowledge_note(*table, ctx.now, has_remote); !age.empty()) out.notes.push_back(age);
    return out;
}

Result<ClaimResult> claim_command(const FileSystem& fs, const WorkspacePaths& ws, const std::string& task,
                                  std::int64_t ttl_seconds, const ClaimOptions& options) {
    const ClaimContext ctx = context_of(options, ws);
    if (Status s = check_agent_name(ctx); !s) return s.error();
    if (std::string why = unsafe_task_id_reason(task); !task.empty() && !why.empty()) {
        return Error::invalid("the task id " + why + "; claims take ids of letters, digits and . _ - : / @ + #");
    }
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{options.scope, false, options.lock_wait});
    if (!session) return session.error();
    Result<PlanAndFacts> pf = plan_and_facts(fs, ws, session->run_replay_id);
    if (!pf) return pf.error();
    if (!task.empty()) {
        if (Status s = check_claimable(*pf, task, options.force); !s) return s.error();
        PlanIndex ids{true, {}};  // issue 41: an id two tasks share is refused, both lines named
        for (const PlanTaskOutline& t : pf->plan) ids.tasks.push_back({t.id, t.status});
        if (Status s = refuse_ambiguous_task(fs, ws, ids, task); !s) return s.error();
    }
    ClaimResult out;
    const auto decide = [&](ClaimTable& table) -> Status {
        std::string chosen = task;
        if (chosen.empty()) {  // --next: a ready task the agent holds, else the first free one
            const std::vector<ReadyTask> ready = ready_queue(pf->plan, pf->facts, table, ctx);
            if (ready.empty()) return Error::invalid("nothing is ready for " + ctx.agent + ": every open task is claimed, blocked (waits on a human), waits on a dependency, or is settled (`small claims`, `small status`)");
            const auto held = std::find_if(ready.begin(), ready.end(), [](const ReadyTask& r) { return r.mine.has_value(); });
            // A task in progress nobody holds may be someone's work: taken last.
            const auto fresh = std::find_if(ready.begin(), ready.end(), [](const ReadyTask& r) { return !r.started_unclaimed; });
            chosen = held != ready.end() ? held->id : fresh != ready.end() ? fresh->id : ready.front().id;
        }
        if (const Settlement* s = table.settlement(chosen)) {
            if (!options.force) {
                return Error::invalid("task " + chosen + " was " + describe_settlement(*s) +
                                      ": nothing to claim; `small ready` lists the tasks to take, --force claims it anyway");
            }
            table.unsettle(chosen);  // forced: the task is open again, everywhere the claims reach
        }
        ClaimDecision d = decide_claim(table, chosen, ttl_seconds, ctx, options.force);
        if (d.kind == ClaimDecision::Kind::Refused && !options.force) return Error::invalid(d.message);
        if (d.kind == ClaimDecision::Kind::Refused) d.kind = ClaimDecision::Kind::TakenOver;
        table.put(d.claim);
        out.kind = d.kind;
        out.claim = d.claim;
        out.previous = d.previous;
        return ok_status();
    };
    const std::string summary = ctx.agent + " claims " + (task.empty() ? std::string("the next ready task") : task);
    Result<ClaimsUpdate> update = update_claims(fs, ws, ctx, options.offline, summary, decide, options.lock_wait);
    if (!update) return update.error();
    out.remote = update->remote;
    out.published = update->published;
    out.claim.published = update->published;
    out.warnings = update->warnings;
    const Claim& c = out.claim;
    std::string verb = out.kind == ClaimDecision::Kind::Renewed ? "Renewed the claim on " : "Claimed ";
    std::string notes = "small claim: " + c.agent + " on " + c.host + ", lease " + lease_length_text(c.ttl_seconds) + ", " +
                        remote_note(*update);
    if (out.kind == ClaimDecision::Kind::TakenOver && out.previous) {
        notes += "; took over from " + out.previous->agent + " (lease until " + format_timestamp_short(out.previous->expires_at) + ")";
    }
    if (Status s = record_in_log(fs, ws, *pf, session->run_replay_id, c.task,
                                 verb + c.task + " for " + c.agent + " until " + format_timestamp_short(c.expires_at) +
                                     " via small claim",
                                 notes);
        !s) {
        out.warnings.push_back("the claim stands, but its progress entry was not written: " + s.error().message);
    }
    return out;
}

Result<ReleaseResult> release_command(const FileSystem& fs, const WorkspacePaths& ws, const std::string& task,
                                      const ClaimOptions& options) {
    const ClaimContext ctx = context_of(options, ws);
    if (Status s = check_agent_name(ctx); !s) return s.error();
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{options.scope, false, options.lock_wait});
    if (!session) return session.error();
    Result<PlanAndFacts> pf = plan_and_facts(fs, ws, session->run_replay_id);
    if (!pf) return pf.error();
    ReleaseResult out;
    const auto drop = [&](ClaimTable& table) -> Status {
        const Claim* c = table.find(task);
        if (!c) return Error::invalid("task " + task + " has no claim (`small claims` lists them)");
        const LeaseState state = lease_state(*c, ctx.now, ctx.host);
        if (!is_mine(*c, ctx) && state != LeaseState::Expired && !options.force) {
            return Error::invalid(describe_claim(*c) + "; only its holder releases it, or --force");
        }
        out.released = *c;
        table.erase(task);
        return ok_status();
    };
    Result<ClaimsUpdate> update =
        update_claims(fs, ws, ctx, options.offline, ctx.agent + " releases " + task, drop, options.lock_wait);
    if (!update) return update.error();
    out.remote = update->remote;
    out.published = update->published;
    out.warnings = update->warnings;
    const std::string by = is_mine(out.released, ctx) ? "" : " (held by " + out.released.agent + ")";
    if (Status s = record_in_log(fs, ws, *pf, session->run_replay_id, task,
                                 "Released the claim on " + task + " for " + ctx.agent + by + " via small release",
                                 "small release: claimed at " + format_timestamp_short(out.released.claimed_at) +
                                     ", last renewed at " + format_timestamp_short(out.released.renewed_at) + ", " +
                                     remote_note(*update));
        !s) {
        out.warnings.push_back("the release stands, but its progress entry was not written: " + s.error().message);
    }
    return out;
}

Result<ClaimsResult> claims_command(const FileSystem& fs, const WorkspacePaths& ws, const ClaimOptions& options) {
    if (Status s = require_small_dir(fs, ws); !s) return s.error();
    const ClaimContext ctx = context_of(options, ws);
    const ClaimStore store = locate_claim_store(fs, ws);
    ClaimsResult out{ctx.agent, store.file, {}, {}, {}, {}, false};
    Result<std::optional<RemoteRef>> remote = claims_remote(fs, store);
    if (!remote) out.notes.push_back(remote.error().message);
    if (!options.offline && remote && *remote) {
        // An exchange with the remote: fetches its table and publishes what
        // this machine holds unpublished (D21); unreachable is said, not fatal.
        const auto nothing = [](ClaimTable&) { return ok_status(); };
        Result<ClaimsUpdate> synced = update_claims(fs, ws, ctx, false, ctx.agent + " syncs the claims", nothing, options.lock_wait);
        if (synced) {
            out.remote = synced->remote;
            out.synced = synced->published;
            out.notes = synced->warnings;
        } else if (synced.error().kind == Error::Kind::System) {
            out.notes.push_back("the remote was not reached: " + synced.error().message);
        } else {
            return synced.error();
        }
    }
    Result<ClaimTable> table = read_claim_table(fs, store, out.synced ? nullptr : &out.notes);
    if (!table) return table.error();
    const std::set<std::string, std::less<>> done = done_task_ids(fs, ws);
    for (const Claim& c : table->claims) {
        out.claims.push_back({c, lease_state(c, ctx.now, ctx.host), is_mine(c, ctx), done.count(c.task) != 0});
    }
    out.settled = table->settled;
    // Listed as people count (task-8 before task-12); the table itself stays in text order.
    std::stable_sort(out.claims.begin(), out.claims.end(),
                     [](const ClaimView& a, const ClaimView& b) { return natural_less(a.claim.task, b.claim.task); });
    std::stable_sort(out.settled.begin(), out.settled.end(),
                     [](const Settlement& a, const Settlement& b) { return natural_less(a.task, b.task); });
    if (!out.synced) {
        if (std::string age = knowledge_note(*table, ctx.now, remote && *remote); !age.empty()) out.notes.push_back(age);
    }
    out.has_remote = remote && *remote;
    out.synced_at = table->synced_at;
    return out;
}

}  // namespace small
