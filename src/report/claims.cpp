// JSON and text of the claims commands (see the header).
#include "small/report/claims.hpp"

namespace small {

namespace {

const char* state_word(LeaseState s) {
    switch (s) {
        case LeaseState::Live: return "live";
        case LeaseState::Expired: return "expired";
        case LeaseState::FromFuture: return "from_future";
    }
    return "live";
}

const char* kind_word(ClaimDecision::Kind k) {
    switch (k) {
        case ClaimDecision::Kind::Granted: return "granted";
        case ClaimDecision::Kind::Renewed: return "renewed";
        case ClaimDecision::Kind::TakenOver: return "taken_over";
        case ClaimDecision::Kind::Refused: return "refused";
    }
    return "granted";
}

std::string where_text(const std::string& remote, bool published) {
    if (published) return "published to " + remote;
    return remote.empty() ? "this machine only" : "offline: not published to " + remote;
}

}  // namespace

nlohmann::json claim_record_json(const Claim& c, Instant now) {
    return {{"task", c.task},
            {"agent", c.agent},
            {"host", c.host},
            {"claimed_at", format_timestamp_utc9(c.claimed_at)},
            {"renewed_at", format_timestamp_utc9(c.renewed_at)},
            {"expires_at", format_timestamp_utc9(c.expires_at)},
            {"ttl_seconds", c.ttl_seconds},
            {"seconds_left", std::max<std::int64_t>(0, c.expires_at.seconds - now.seconds)},
            {"published", c.published}};
}

nlohmann::json ready_json(const ReadyResult& r, Instant now) {
    nlohmann::json tasks = nlohmann::json::array();
    for (const ReadyTask& t : r.tasks) {
        nlohmann::json j = {{"id", t.id}, {"title", t.title}, {"status", t.status.word()}, {"held_by_you", t.mine.has_value()}, {"started_unclaimed", t.started_unclaimed}};
        if (!t.priority.empty()) j["priority"] = t.priority;
        if (t.mine) j["expires_at"] = format_timestamp_utc9(t.mine->expires_at);
        tasks.push_back(std::move(j));
    }
    nlohmann::json held = nlohmann::json::array();
    for (const Claim& c : r.held) held.push_back(claim_record_json(c, now));
    return {{"agent", r.agent}, {"ready", std::move(tasks)}, {"held", std::move(held)}, {"notes", r.notes}};
}

nlohmann::json claim_json(const ClaimResult& r, Instant now) {
    nlohmann::json j = {{"result", kind_word(r.kind)}, {"claim", claim_record_json(r.claim, now)},
                        {"remote", r.remote},      {"published", r.published},
                        {"warnings", r.warnings}};
    if (r.previous) j["previous"] = claim_record_json(*r.previous, now);
    return j;
}

nlohmann::json release_json(const ReleaseResult& r) {
    return {{"released", claim_record_json(r.released, r.released.expires_at)},
            {"remote", r.remote},
            {"published", r.published},
            {"warnings", r.warnings}};
}

nlohmann::json settlement_record_json(const Settlement& s) {
    nlohmann::json j = {{"task", s.task},       {"status", std::string(status_name(s.status))},
                        {"agent", s.agent},     {"side", s.side},
                        {"at", format_timestamp_utc9(s.at)}, {"published", s.published}};
    if (!s.reason.empty()) j["reason"] = s.reason;
    return j;
}

nlohmann::json claims_json(const ClaimsResult& r, Instant now) {
    nlohmann::json list = nlohmann::json::array();
    for (const ClaimView& v : r.claims) {
        nlohmann::json j = claim_record_json(v.claim, now);
        j["state"] = state_word(v.state);
        j["yours"] = v.mine;
        j["settled"] = v.settled;
        list.push_back(std::move(j));
    }
    nlohmann::json settled = nlohmann::json::array();
    for (const Settlement& s : r.settled) settled.push_back(settlement_record_json(s));
    return {{"agent", r.agent},
            {"table", r.table},
            {"claims", std::move(list)},
            {"settled", std::move(settled)},
            {"remote", r.remote},
            {"synced", r.synced},
            {"synced_at", r.synced_at.seconds ? nlohmann::json(format_timestamp_utc9(r.synced_at)) : nlohmann::json(nullptr)},
            {"notes", r.notes}};
}

std::string claim_line(const ClaimResult& r, Instant now) {
    const Claim& c = r.claim;
    std::string verb = r.kind == ClaimDecision::Kind::Renewed ? "Renewed the claim on " : "Claimed ";
    std::string line = verb + c.task + " for " + c.agent + " until " + lease_until_text(c, now) + " (lease " +
                       lease_length_text(c.ttl_seconds) + ", " + where_text(r.remote, r.published) + ")";
    if (r.kind == ClaimDecision::Kind::TakenOver && r.previous) line += "; took it over from " + r.previous->agent;
    return line;
}

std::string ready_line(const ReadyTask& t, Instant now) {
    std::string line = t.id + (t.title.empty() ? "" : ": " + t.title);
    if (!t.priority.empty()) line += " [priority " + t.priority + "]";
    if (t.mine) line += " (you hold it until " + lease_until_text(*t.mine, now) + ")";
    if (t.started_unclaimed) line += " (in progress, unclaimed: someone may be on it; `small claim` asks first)";
    return line;
}

}  // namespace small
