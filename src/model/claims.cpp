// Claims as leases (see the header for the rules).
#include "small/model/claims.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "small/base/text.hpp"

namespace small {

namespace {

Instant plus_seconds(Instant t, std::int64_t s) { return {t.seconds + s, t.nanos}; }

bool same_host(const Claim& c, std::string_view host) { return c.host.empty() || c.host == host; }

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
    }
    return j;
}

Result<Instant> claim_time(const nlohmann::json& j, const char* key, const std::string& where) {
    if (!j.contains(key) || !j[key].is_string()) return Error::invalid(where + ": `" + key + "` is missing");
    Result<Instant> t = parse_progress_timestamp(j[key].get<std::string>());
    if (!t) return Error::invalid(where + ": `" + key + "`: " + t.error().message);
    return t;
}

Result<Claim> claim_from_json(const nlohmann::json& j, const std::string& where) {
    if (!j.is_object()) return Error::invalid(where + " is not an object");
    Claim c;
    for (const auto& [key, out] : {std::pair<const char*, std::string*>{"task", &c.task}, {"agent", &c.agent}}) {
        if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty()) {
            return Error::invalid(where + ": `" + key + "` is missing");
        }
        *out = j[key].get<std::string>();
    }
    if (j.contains("host") && j["host"].is_string()) c.host = j["host"].get<std::string>();
    Result<Instant> claimed = claim_time(j, "claimed_at", where);
    Result<Instant> renewed = claim_time(j, "renewed_at", where);
    Result<Instant> expires = claim_time(j, "expires_at", where);
    for (const Result<Instant>* t : {&claimed, &renewed, &expires}) {
        if (!*t) return t->error();
    }
    c.claimed_at = *claimed;
    c.renewed_at = *renewed;
    c.expires_at = *expires;
    if (j.contains("ttl_seconds") && j["ttl_seconds"].is_number_integer()) c.ttl_seconds = j["ttl_seconds"].get<std::int64_t>();
    if (j.contains("published") && j["published"].is_boolean()) c.published = j["published"].get<bool>();
    if (j.contains("published_until") && j["published_until"].is_string()) {
        if (Result<Instant> t = parse_progress_timestamp(j["published_until"].get<std::string>())) c.published_until = *t;
    }
    return c;
}

}  // namespace

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

std::string claims_json(const ClaimTable& table, bool with_local) {
    std::string out = "{\"version\": 1, \"claims\": [";
    for (std::size_t i = 0; i < table.claims.size(); ++i) {
        out += (i ? ",\n  " : "\n  ") + claim_json(table.claims[i], with_local).dump();
    }
    out += table.claims.empty() ? "]}\n" : "\n]}\n";
    return out;
}

Result<ClaimTable> parse_claims_json(std::string_view text, const std::string& name) {
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("claims") || !doc["claims"].is_array()) {
        return Error::invalid(name + " is not a claims table (a JSON object with a `claims` list)");
    }
    ClaimTable table;
    for (std::size_t i = 0; i < doc["claims"].size(); ++i) {
        Result<Claim> c = claim_from_json(doc["claims"][i], name + ": claim " + std::to_string(i + 1));
        if (!c) return c.error();
        table.put(std::move(*c));
    }
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

std::string describe_claim(const Claim& claim) {
    return claim.agent + " holds " + claim.task + " until " + format_timestamp_short(claim.expires_at);
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
    if (!c || c->agent == ctx.agent) return nullptr;
    return lease_state(*c, ctx.now, ctx.host) == LeaseState::Expired ? nullptr : c;
}

ClaimDecision decide_claim(const ClaimTable& table, std::string_view task, std::int64_t ttl_seconds,
                           const ClaimContext& ctx, bool force) {
    ClaimDecision d;
    d.claim = Claim{std::string(task), ctx.agent, ctx.host, ctx.now, ctx.now, plus_seconds(ctx.now, ttl_seconds), ttl_seconds, true};
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
    } else if (old->agent == ctx.agent && state == LeaseState::Live) {
        d.kind = ClaimDecision::Kind::Renewed;
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
    if (!c || c->agent != ctx.agent || lease_state(*c, ctx.now, ctx.host) != LeaseState::Live) return std::nullopt;
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
    return dropped;
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
        if (held_by_other(claims, t.id, ctx)) continue;
        ReadyTask r{t.id, t.title, t.status, t.priority, std::nullopt};
        if (const Claim* c = claims.find(t.id); c && c->agent == ctx.agent &&
                                                lease_state(*c, ctx.now, ctx.host) == LeaseState::Live) {
            r.mine = *c;
        }
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
