// The JSON bodies of ready, claim, release and claims (without the
// envelope), shared by the CLI and the MCP server, and the one-line text of
// a claim both print.
#pragma once

#include <nlohmann/json.hpp>

#include "small/ops/session/claim.hpp"

namespace small {

nlohmann::json claim_record_json(const Claim& c, Instant now);
nlohmann::json ready_json(const ReadyResult& r, Instant now);
nlohmann::json claim_json(const ClaimResult& r, Instant now);
nlohmann::json release_json(const ReleaseResult& r);
nlohmann::json settlement_record_json(const Settlement& s);
nlohmann::json claims_json(const ClaimsResult& r, Instant now);

// "Claimed task-3 for alice until 14:05 UTC (lease 1h, published to origin)".
std::string claim_line(const ClaimResult& r, Instant now);
// "task-3: Title (you hold it until 14:05 UTC)".
std::string ready_line(const ReadyTask& t, Instant now);

}  // namespace small
