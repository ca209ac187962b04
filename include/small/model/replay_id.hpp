// Replay ids (D3): lowercase hex(sha256("SMALL|1.0.0|" + JCS(manifest)))
// with manifest = {"intent": ..., "plan": ..., "constraints": ...}; the
// constraints member is left out when that file does not exist.
#pragma once

#include <string>
#include <string_view>

#include "small/doc/document.hpp"
#include "small/base/result.hpp"

namespace small {

inline constexpr std::string_view kProtocolVersion = "1.0.0";

// Lower-case hex SHA-256 of `data` (nettle).
std::string sha256_hex(std::string_view data);

// How the members' files are named in errors ("" leaves the file out and
// names the member instead, e.g. "intent: number ...").
struct ManifestFiles {
    std::string intent, plan, constraints;
};

// `constraints` may be an invalid NodeRef (file absent). Errors (a value
// that has no canonical JSON, e.g. `.inf`) carry the value's line:column.
Result<std::string> compute_replay_id(NodeRef intent, NodeRef plan, NodeRef constraints,
                                     const ManifestFiles& files = {});

// True for exactly 64 hex digits (either case). Checked before an id is
// ever used as a path component.
bool is_valid_replay_id(std::string_view id);

}  // namespace small
