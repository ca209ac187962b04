// Replay ids (D3): lowercase hex(sha256("SMALL|1.0.0|" + JCS(manifest)))
// with manifest = {"intent": ..., "plan": ..., "constraints": ...}; the
// constraints member is left out when that file does not exist.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "small/doc/document.hpp"
#include "small/base/result.hpp"

namespace small {

inline constexpr std::string_view kProtocolVersion = "1.0.0";

// Lower-case hex SHA-256 of `data` (nettle).
std::string sha256_hex(std::string_view data);

// The same of bytes given piece by piece (a file streamed through a buffer).
class Sha256Hasher {
public:
    Sha256Hasher();
    ~Sha256Hasher();
    Sha256Hasher(const Sha256Hasher&) = delete;
    Sha256Hasher& operator=(const Sha256Hasher&) = delete;
    void update(std::string_view data);
    std::uint64_t bytes() const { return bytes_; }  // given since the start
    // The digest of everything given; the hasher then starts over.
    std::string hex();

private:
    struct State;
    std::unique_ptr<State> state_;
    std::uint64_t bytes_ = 0;
};

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
