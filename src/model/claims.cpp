// Claims as leases (see the header for the rules).
#include "small/model/claims.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <map>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "small/base/text.hpp"
#include "small/base/utf8.hpp"

namespace small {

namespace {

Instant plus_seconds(Instant t, std::int64_t s) { return {t.seconds + s, t.nanos}; }

bool same_host(const Claim& c, std::string_view host) { return c.host.empty() || c.host == host; }

// How far ahead of this clock a record may be before it is "absurd" (D21):
// a lease of the longest ttl, plus the clock skew.
constexpr std::int64_t kLongestLeaseSeconds = 30 * 86400;
constexpr std::size_t kMaxReasonBytes = 1000;

nlohmann::ordered_json claim_json(const Claim& c, bool with_local) {
    nlohmann::ordered_json j;
    j["task"] = c.task;
    j["agent"] = c.agent;
    j["host"] = c.host;
    j["claimed_at"] = format_timestamp_utc9(c.claimed_at);
    j["renewed_at"] = format_timestamp_utc9(c.renewed_at);
    j["expires_at"] = format_timestamp_utc9(c.expires_at);
    j["ttl_seconds"] = c.ttl_seconds;
    if (with_local) {
        j["published"] = c.published;
        j["published_until"] = format_timestamp_utc9(c.published_until);
        if (!c.checkout.empty()) j["checkout"] = c.checkout;
    }
    return j;
}

nlohmann::ordered_json settlement_json(const Settlement& s, bool with_local) {
    nlohmann::ordered_json j;
    j["task"] = s.task;
    j["status"] = std::string(status_name(s.status));
    j["agent"] = s.agent;
    j["side"] = s.side;
    j["at"] = format_timestamp_utc9(s.at);
    if (!s.reason.empty()) j["reason"] = s.reason;
    if (with_local) j["published"] = s.published;
    return j;
}

// Reads a record's fields; every failure names the record and the field.
class RecordReader {
public:
    RecordReader(const nlohmann::json& j, std::string where) : j_(j), where_(std::move(where)) {}

    Result<std::string> text(const char* key, bool required, const std::function<std::string(std::string_view)>& check) const {
        if (!j_.contains(key) || !j_[key].is_string()) {
            if (!required) return std::string();
            return Error::invalid(where_ + ": `" + key + "` is missing");
        }
        std::string v = j_[key].get<std::string>();
        if (v.empty() && !required) return v;
        if (std::string why = check(v); !why.empty()) return Error::invalid(where_ + ": `" + key + "` " + why);
        return v;
    }
    Result<Instant> time(const char* key) const {
        if (!j_.contains(key) || !j_[key].is_string()) return Error::invalid(where_ + ": `" + key + "` is missing");
        Result<Instant> t = parse_progress_timestamp(j_[key].get<std::string>());
        if (!t) return Error::invalid(where_ + ": `" + key + "`: " + t.error().message);
        return t;
    }
    bool flag(const char* key, bool otherwise) const {
        return j_.contains(key) && j_[key].is_boolean() ? j_[key].get<bool>() : otherwise;
    }
    const std::string& where() const { return where_; }

private:
    const nlohmann::json& j_;
    std::string where_;
};

Result<Claim> claim_from_json(const nlohmann::json& j, const std::string& where, Instant now) {
    if (!j.is_object()) return Error::invalid(where + " is not an object");
    const RecordReader r(j, where);
    Claim c;
    Result<std::string> task = r.text("task", true, unsafe_task_id_reason);
    if (!task) return task.error();
    c.task = *task;
    const RecordReader named(j, where + " (" + c.task + ")");
    Result<std::string> agent = named.text("agent", true, unsafe_name_reason);
    Result<std::string> host = named.text("host", false, unsafe_name_reason);
    for (const Result<std::string>* t : {&agent, &host}) {
        if (!*t) return t->error();
    }
    c.agent = *agent;
    c.host = *host;
    Result<Instant> claimed = named.time("claimed_at");
    Result<Instant> renewed = named.time("renewed_at");
    Result<Instant> expires = named.time("expires_at");
    for (const Result<Instant>* t : {&claimed, &renewed, &expires}) {
        if (!*t) return t->error();
    }
    c.claimed_at = *claimed;
    c.renewed_at = *renewed;
    c.expires_at = *expires;
    if (!j.contains("ttl_seconds") || !j["ttl_seconds"].is_number_integer()) {
        return Error::invalid(named.where() + ": `ttl_seconds` is missing");
    }
    c.ttl_seconds = j["ttl_seconds"].get<std::int64_t>();
    if (c.ttl_seconds <= 0 || c.ttl_seconds > kLongestLeaseSeconds) {
        return Error::invalid(named.where() + ": `ttl_seconds` " + std::to_string(c.ttl_seconds) +
                              " is outside 1 second to 30 days");
    }
    if (c.renewed_at < c.claimed_at) return Error::invalid(named.where() + ": renewed before it was claimed");
    // The lease runs ttl_seconds from its last renewal: an end further out was not written by small.
    if (plus_seconds(c.renewed_at, c.ttl_seconds + 1) < c.expires_at) {
        return Error::invalid(named.where() + ": the lease ends at " + format_timestamp_short(c.expires_at) +
                              ", more than its ttl (" + lease_length_text(c.ttl_seconds) + ") after its renewal at " +
                              format_timestamp_short(c.renewed_at));
    }
    if (plus_seconds(now, kLongestLeaseSeconds + kClaimSkewSeconds) < c.expires_at) {
        return Error::invalid(named.where() + ": the lease ends at " + format_timestamp_short(c.expires_at) +
                              ", more than 30 days ahead of this clock");
    }
    c.published = r.flag("published", true);
    if (j.contains("published_until") && j["published_until"].is_string()) {
        if (Result<Instant> t = parse_progress_timestamp(j["published_until"].get<std::string>())) c.published_until = *t;
    }
    if (j.contains("checkout") && j["checkout"].is_string()) c.checkout = j["checkout"].get<std::string>();
    return c;
}

std::string settled_status_reason(std::string_view word) {
    const std::optional<TaskStatus> s = parse_task_status(word);
    return s && is_settled(*s) ? "" : "is not completed, blocked or cancelled";
}

Result<Settlement> settlement_from_json(const nlohmann::json& j, const std::string& where, Instant now) {
    if (!j.is_object()) return Error::invalid(where + " is not an object");
    const RecordReader r(j, where);
    Settlement s;
    Result<std::string> task = r.text("task", true, unsafe_task_id_reason);
    if (!task) return task.error();
    s.task = *task;
    const RecordReader named(j, where + " (" + s.task + ")");
    Result<std::string> status = named.text("status", true, settled_status_reason);
    Result<std::string> agent = named.text("agent", true, unsafe_name_reason);
    Result<std::string> side = named.text("side", false, unsafe_name_reason);
    Result<std::string> reason =
        named.text("reason", false, [](std::string_view v) { return unsafe_text_reason(v, kMaxReasonBytes); });
    for (const Result<std::string>* t : {&status, &agent, &side, &reason}) {
        if (!*t) return t->error();
    }
    s.status = *parse_task_status(*status);
    s.agent = *agent;
    s.side = *side;
    s.reason = *reason;
    Result<Instant> at = named.time("at");
    if (!at) return at.error();
    s.at = *at;
    if (plus_seconds(now, kClaimSkewSeconds) < s.at) {
        return Error::invalid(named.where() + ": settled at " + format_timestamp_short(s.at) + ", ahead of this clock");
    }
    s.published = r.flag("published", true);
    return s;
}

// Records that share a task are all left out: neither can be trusted.
template <typename Record>
void keep_one_per_task(std::vector<Record>& records, const std::string& name, const char* what,
                       std::vector<std::string>& problems) {
    std::map<std::string, int> count;
    for (const Record& r : records) ++count[r.task];
    for (const auto& [task, n] : count) {
        if (n > 1) {
            problems.push_back(name + ": " + std::to_string(n) + " " + what + " records for " + task +
                               ": all left out (one per task)");
        }
    }
    std::erase_if(records, [&](const Record& r) { return count[r.task] > 1; });
}

constexpr const char* kRepairHint =
    " (ignored; the next claim or release rewrites the table without it)";

}  // namespace

std::string unsafe_text_reason(std::string_view name, std::size_t max_bytes) {
    if (name.empty()) return "is empty";
    if (name.size() > max_bytes) return "is longer than " + std::to_string(max_bytes) + " bytes";
    if (!is_valid_utf8(name)) return "is not valid UTF-8";
    if (name.front() == ' ' || name.back() == ' ') return "starts or ends with a space";
    for (std::size_t i = 0; i < name.size();) {
        char32_t cp = 0;
        const std::size_t n = decode_utf8(name, i, cp);
        const bool control = cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0);
        const bool bidi = (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f;
        if (control || bidi) return "holds a control character";
        i += n ? n : 1;
    }
    return {};
}

std::string unsafe_name_reason(std::string_view name) { return unsafe_text_reason(name, 200); }

std::string unsafe_task_id_reason(std::string_view id) {
    if (id.empty()) return "is empty";
    if (id.size() > 128) return "is longer than 128 bytes";
    for (const char c : id) {
        const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!word && std::string_view("._-:/@+#").find(c) == std::string_view::npos) {
            return "holds a character outside letters, digits and . _ - : / @ + #";
        }
    }
    return {};
}

const Claim* ClaimTable::find(std::string_view task) const {
    const auto it = std::lower_bound(claims.begin(), claims.end(), task,
                                     [](const Claim& c, std::string_view t) { return c.task < t; });
    return it != claims.end() && it->task == task ? &*it : nullptr;
}

void ClaimTable::put(Claim claim) {
    const auto it = std::lower_bound(claims.begin(), claims.end(), claim.task,
                                     [](const Claim& c, const std::string& t) { return c.task < t; });
    if (it != claims.end() && it->task == claim.task) {
        *it = std::move(claim);
    } else {
        claims.insert(it, std::move(claim));
    }
}

bool ClaimTable::erase(std::string_view task) {
    const auto it = std::find_if(claims.begin(), claims.end(), [&](const Claim& c) { return c.task == task; });
    if (it == claims.end()) return false;
    claims.erase(it);
    return true;
}

const Settlement* ClaimTable::settlement(std::string_view task) const {
    const auto it = std::find_if(settled.begin(), settled.end(), [&](const Settlement& s) { return s.task == task; });
    return it == settled.end() ? nullptr : &*it;
}

void ClaimTable::settle(Settlement s) {
    const auto it = std::lower_bound(settled.begin(), settled.end(), s.task,
                                     [](const Settlement& a, const std::string& t) { return a.task < t; });
    if (it != settled.end() && it->task == s.task) {
        *it = std::move(s);
    } else {
        settled.insert(it, std::move(s));
    }
}

bool ClaimTable::unsettle(std::string_view task) {
    return std::erase_if(settled, [&](const Settlement& s) { return s.task == task; }) > 0;
}

std::string claims_json(const ClaimTable& table, bool with_local) {
    const auto list = [&](const auto& records, const auto& to_json) {
        std::string out = "[";
        for (std::size_t i = 0; i < records.size(); ++i) out += (i ? ",\n  " : "\n  ") + to_json(records[i], with_local).dump();
        return out + (records.empty() ? "]" : "\n]");
    };
    std::string out = "{\"version\": 1, \"last_task_number\": " + std::to_string(table.last_task_number);
    if (with_local && table.synced_at.seconds) out += ", \"synced_at\": \"" + format_timestamp_utc9(table.synced_at) + "\"";
    if (with_local && table.block_from) {
        out += ", \"block_from\": " + std::to_string(table.block_from) + ", \"block_to\": " + std::to_string(table.block_to);
    }
    out += ", \"claims\": " + list(table.claims, claim_json);
    out += ", \"settled\": " + list(table.settled, settlement_json);
    return out + "}\n";
}

Result<ClaimTable> parse_claims_json(std::string_view text, const std::string& name, Instant now,
                                     std::vector<std::string>* problems) {
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("claims") || !doc["claims"].is_array()) {
        return Error::invalid(name + " is not a claims table (a JSON object with a `claims` list)");
    }
    std::vector<std::string> found;
    ClaimTable table;
    const auto read_list = [&](const char* key, const char* what, auto& into, const auto& from_json) {
        if (!doc.contains(key) || !doc[key].is_array()) return;
        for (std::size_t i = 0; i < doc[key].size(); ++i) {
            auto record = from_json(doc[key][i], name + ": " + what + " " + std::to_string(i + 1), now);
            if (record) {
                into.push_back(std::move(*record));
            } else {
                found.push_back(record.error().message + kRepairHint);
            }
        }
        keep_one_per_task(into, name, what, found);
        std::sort(into.begin(), into.end(), [](const auto& a, const auto& b) { return a.task < b.task; });
    };
    read_list("claims", "claim", table.claims, claim_from_json);
    read_list("settled", "settlement", table.settled, settlement_from_json);
    if (doc.contains("last_task_number") && doc["last_task_number"].is_number_integer()) {
        const std::int64_t n = doc["last_task_number"].get<std::int64_t>();
        if (n >= 0 && n <= 1'000'000'000) {
            table.last_task_number = n;
        } else {
            found.push_back(name + ": last_task_number " + std::to_string(n) + " is out of range" + kRepairHint);
        }
    }
    if (doc.contains("block_from") && doc["block_from"].is_number_integer() && doc.contains("block_to") &&
        doc["block_to"].is_number_integer()) {
        table.block_from = doc["block_from"].get<std::int64_t>();
        table.block_to = doc["block_to"].get<std::int64_t>();
    }
    if (doc.contains("synced_at") && doc["synced_at"].is_string()) {
        if (Result<Instant> t = parse_progress_timestamp(doc["synced_at"].get<std::string>())) table.synced_at = *t;
    }
    if (problems) problems->insert(problems->end(), found.begin(), found.end());
    return table;
}

Instant lease_end(const Claim& claim, std::string_view this_host) {
    return same_host(claim, this_host) ? claim.expires_at : plus_seconds(claim.expires_at, kClaimSkewSeconds);
}

LeaseState lease_state(const Claim& claim, Instant now, std::string_view this_host) {
    const Instant latest = plus_seconds(now, kClaimSkewSeconds);
    if (claim.claimed_at > latest || claim.renewed_at > latest) return LeaseState::FromFuture;
    return now < lease_end(claim, this_host) ? LeaseState::Live : LeaseState::Expired;
}

namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

// The first whole second after `now` of the lattice start + k * step.
Instant next_on_lattice(std::int64_t start, std::int64_t step, Instant now) {
    return Instant{start + (floor_div(now.seconds - start, step) + 1) * step, 0};
}

}  // namespace

Instant claims_steady_until(const ClaimTable& table, Instant now, std::string_view this_host) {
    Instant until{std::numeric_limits<std::int64_t>::max(), 0};
    const auto bound = [&](Instant at) {
        if (now < at && at < until) until = at;
    };
    for (const Claim& c : table.claims) {
        bound(lease_end(c, this_host));                      // live -> expired
        bound(plus_seconds(c.claimed_at, -kClaimSkewSeconds));  // from the future -> live
        bound(plus_seconds(c.renewed_at, -kClaimSkewSeconds));
    }
    if (!table.claims.empty()) bound(next_on_lattice(0, 86400, now));  // "14:05 UTC" loses or gains its date
    // Ages are counted in whole seconds and shown in minutes or larger units.
    if (table.synced_at.seconds != 0) bound(next_on_lattice(table.synced_at.seconds, 60, now));
    return until;
}

bool is_mine(const Claim& claim, const ClaimContext& ctx) {
    if (claim.agent == ctx.agent) return true;
    return ctx.implicit && !claim.checkout.empty() && claim.checkout == ctx.checkout;
}

std::string describe_claim(const Claim& claim) {
    return claim.agent + " holds " + claim.task + " until " + format_timestamp_short(claim.expires_at);
}

std::string describe_settlement(const Settlement& s) {
    std::string out = std::string(status_name(s.status)) + " by " + s.agent;
    if (!s.side.empty()) out += " on " + s.side;
    return out + " at " + format_timestamp_short(s.at);
}

std::string lease_length_text(std::int64_t seconds) {
    std::string out;
    for (const auto& [size, unit] : {std::pair<std::int64_t, char>{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}}) {
        if (seconds >= size) {
            out += std::to_string(seconds / size) + unit;
            seconds %= size;
        }
    }
    return out.empty() ? "0s" : out;
}

std::string lease_until_text(const Claim& claim, Instant now) {
    const std::string at = format_timestamp_short(claim.expires_at);  // 2026-11-27T14:05:09.5Z
    const std::string hm = at.substr(11, 5);
    const bool same_day = at.substr(0, 10) == format_timestamp_short(now).substr(0, 10);
    return same_day ? hm + " UTC" : at.substr(0, 10) + " " + hm + " UTC";
}

std::string claimed_text(const Claim& claim, Instant now) {
    return "task " + claim.task + " is claimed by " + claim.agent + " until " + format_timestamp_short(claim.expires_at) +
           " (" + lease_until_text(claim, now) + ")";
}

const Claim* held_by_other(const ClaimTable& table, std::string_view task, const ClaimContext& ctx) {
    const Claim* c = table.find(task);
    if (!c || is_mine(*c, ctx)) return nullptr;
    return lease_state(*c, ctx.now, ctx.host) == LeaseState::Expired ? nullptr : c;
}

ClaimDecision decide_claim(const ClaimTable& table, std::string_view task, std::int64_t ttl_seconds,
                           const ClaimContext& ctx, bool force) {
    ClaimDecision d;
    d.claim = Claim{std::string(task), ctx.agent, ctx.host, ctx.now, ctx.now, plus_seconds(ctx.now, ttl_seconds),
                    ttl_seconds, true, {}, ctx.checkout};
    const Claim* old = table.find(task);
    if (!old) return d;
    d.previous = *old;
    const LeaseState state = lease_state(*old, ctx.now, ctx.host);
    if (state == LeaseState::FromFuture) {
        d.kind = ClaimDecision::Kind::Refused;
        d.message = "the claim on " + old->task + " by " + old->agent + " (host " + old->host + ") is dated " +
                    format_timestamp_short(old->renewed_at) + ", more than " + duration_text(kClaimSkewSeconds) +
                    " ahead of this clock (" + format_timestamp_short(ctx.now) +
                    "): one of the two clocks is wrong; fix it, or `small release " + old->task +
                    " --force` once you know the claim is void";
        if (!force) return d;
    } else if (is_mine(*old, ctx) && state == LeaseState::Live) {
        d.kind = ClaimDecision::Kind::Renewed;
        d.claim.agent = old->agent;  // a guessed name renews the holder's claim under the holder's name
        d.claim.claimed_at = old->claimed_at;
        return d;
    } else if (state == LeaseState::Live && !force) {
        d.kind = ClaimDecision::Kind::Refused;
        d.message = claimed_text(*old, ctx.now) + "; take another (`small ready`), wait for the lease to end, or --force";
        return d;
    }
    d.kind = ClaimDecision::Kind::TakenOver;
    d.message.clear();
    return d;
}

std::optional<Claim> renewed_claim(const ClaimTable& table, std::string_view task, const ClaimContext& ctx) {
    const Claim* c = table.find(task);
    if (!c || !is_mine(*c, ctx) || lease_state(*c, ctx.now, ctx.host) != LeaseState::Live) return std::nullopt;
    Claim r = *c;
    r.renewed_at = ctx.now;
    r.expires_at = plus_seconds(ctx.now, r.ttl_seconds);
    r.host = ctx.host;
    return r;
}

std::vector<Claim> drop_expired(ClaimTable& table, Instant now, std::string_view this_host) {
    std::vector<Claim> dropped;
    std::erase_if(table.claims, [&](const Claim& c) {
        if (lease_state(c, now, this_host) != LeaseState::Expired) return false;
        dropped.push_back(c);
        return true;
    });
    std::erase_if(table.settled, [&](const Settlement& s) { return plus_seconds(s.at, kSettlementKeepSeconds) < now; });
    return dropped;
}

void carry_unpublished(const ClaimTable& local, ClaimTable& remote, const ClaimContext& ctx,
                       std::vector<std::string>& warnings) {
    for (const Claim& mine : local.claims) {
        if (mine.published) continue;
        const ClaimContext as_holder{mine.agent, ctx.host, ctx.now, mine.checkout, false};
        if (const Claim* other = held_by_other(remote, mine.task, as_holder)) {
            warnings.push_back("the offline claim of " + mine.task + " by " + mine.agent +
                               " was not published: the remote says " + describe_claim(*other) +
                               " (dropped here; `small ready` lists what is free)");
            continue;
        }
        if (const Settlement* s = remote.settlement(mine.task); s && s->at > mine.renewed_at) {
            warnings.push_back("the offline claim of " + mine.task + " by " + mine.agent +
                               " was not published: the task was " + describe_settlement(*s) + " (dropped here)");
            continue;
        }
        Claim published = mine;
        published.published = true;
        remote.put(std::move(published));
    }
    for (const Settlement& mine : local.settled) {
        const Settlement* there = mine.published ? nullptr : remote.settlement(mine.task);
        if (mine.published || (there && there->at >= mine.at)) continue;
        Settlement published = mine;
        published.published = true;
        // Settling releases the claim (D19): a settlement made while the
        // remote was out of reach takes the lease it ended with it, as the
        // online settle would have (a claim made after it stays).
        if (const Claim* c = remote.find(mine.task); c && !(mine.at < c->claimed_at)) remote.erase(mine.task);
        remote.settle(std::move(published));
    }
    remote.last_task_number = std::max(remote.last_task_number, local.last_task_number);
}

void mark_unpublished_changes(const ClaimTable& before, ClaimTable& after) {
    for (Claim& c : after.claims) {
        const Claim* old = before.find(c.task);
        if (!old || !(*old == c)) c.published = false;
    }
    for (Settlement& s : after.settled) {
        const Settlement* old = before.settlement(s.task);
        if (!old || !(*old == s)) s.published = false;
    }
}

std::vector<ReadyTask> ready_queue(const std::vector<PlanTaskOutline>& plan, const WorkFacts& facts,
                                   const ClaimTable& claims, const ClaimContext& ctx) {
    std::vector<ReadyTask> out;
    const std::vector<std::string> ids = ready_task_ids(plan, facts);
    std::size_t next = 0;
    for (const PlanTaskOutline& t : plan) {
        if (next == ids.size()) break;
        if (t.id != ids[next]) continue;
        ++next;
        const auto work = facts.find(t.id);
        if (work != facts.end() && is_settled(work->second.last_status)) continue;
        if (claims.settlement(t.id) || held_by_other(claims, t.id, ctx)) continue;
        ReadyTask r{t.id, t.title, t.status, t.priority, std::nullopt, false};
        if (const Claim* c = claims.find(t.id); c && is_mine(*c, ctx) && lease_state(*c, ctx.now, ctx.host) == LeaseState::Live) {
            r.mine = *c;
        }
        const bool in_progress = t.status.is(TaskStatus::InProgress) ||
                                 (work != facts.end() && work->second.last_status.is(TaskStatus::InProgress));
        r.started_unclaimed = in_progress && !r.mine;
        out.push_back(std::move(r));
    }
    std::stable_sort(out.begin(), out.end(), [](const ReadyTask& a, const ReadyTask& b) {
        const std::optional<std::int64_t> pa = task_priority(a.priority), pb = task_priority(b.priority);
        if (pa.has_value() != pb.has_value()) return pa.has_value();
        return pa && *pa < *pb;
    });
    return out;
}

std::string this_host_name() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
    return buf;
}

std::string default_agent_name(std::string_view place) {
    for (const char* var : {"SMALL_AGENT"}) {
        const char* v = std::getenv(var);
        if (v && !trim(v).empty()) return std::string(trim(v));
    }
    std::string user = "agent";
    for (const char* var : {"USER", "LOGNAME"}) {
        const char* v = std::getenv(var);
        if (v && !trim(v).empty()) {
            user = std::string(trim(v));
            break;
        }
    }
    return user + "@" + this_host_name() + (place.empty() ? "" : ":" + std::string(place));
}

Result<std::int64_t> parse_lease_duration(std::string_view text) {
    const std::string_view s = trim(text);
    const auto bad = [&] {
        return Error::usage("--ttl must be a duration such as 90s, 45m, 2h, 1h30m or 1d (at most 30 days), got \"" +
                            std::string(text) + "\"");
    };
    std::int64_t total = 0;
    std::size_t i = 0;
    if (s.empty()) return bad();
    while (i < s.size()) {
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v);
        if (ec != std::errc() || v < 0 || v > 1'000'000'000) return bad();
        i = static_cast<std::size_t>(end - s.data());
        std::int64_t unit = 1;
        if (i < s.size()) {
            switch (ascii_lower(s[i])) {
                case 's': unit = 1; break;
                case 'm': unit = 60; break;
                case 'h': unit = 3600; break;
                case 'd': unit = 86400; break;
                default: return bad();
            }
            ++i;
        } else if (total != 0) {
            return bad();  // "1h30": a unit is needed after the first number
        }
        total += v * unit;
        if (total > 30 * 86400) return bad();
    }
    if (total <= 0) return bad();
    return total;
}

}  // namespace small
