#include "small/model/replay_id.hpp"

#include <nettle/sha2.h>
#include <nettle/version.h>

#include <algorithm>
#include <cstdint>

#include "small/doc/jcs.hpp"

namespace small {

// Nettle rather than OpenSSL's libcrypto: the digest is the same (SHA-NI on
// x86_64 either way), but a dynamically linked libcrypto cost ~2.6 M
// instructions of relocations at every start-up (docs/performance.md).
namespace {

std::string hex_digest(sha256_ctx& ctx) {
    uint8_t digest[SHA256_DIGEST_SIZE];
#if NETTLE_VERSION_MAJOR >= 4
    sha256_digest(&ctx, digest);  // nettle 4 dropped the length argument
#else
    sha256_digest(&ctx, sizeof digest, digest);
#endif
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * SHA256_DIGEST_SIZE);
    for (uint8_t byte : digest) {
        out.push_back(kHex[byte >> 4]);
        out.push_back(kHex[byte & 0xf]);
    }
    return out;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
    sha256_ctx ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, data.size(), reinterpret_cast<const uint8_t*>(data.data()));
    return hex_digest(ctx);
}

struct Sha256Hasher::State {
    sha256_ctx ctx;
};

Sha256Hasher::Sha256Hasher() : state_(std::make_unique<State>()) { sha256_init(&state_->ctx); }
Sha256Hasher::~Sha256Hasher() = default;

void Sha256Hasher::update(std::string_view data) {
    sha256_update(&state_->ctx, data.size(), reinterpret_cast<const uint8_t*>(data.data()));
    bytes_ += data.size();
}

std::string Sha256Hasher::hex() {
    std::string out = hex_digest(state_->ctx);  // nettle starts the context over
    bytes_ = 0;
    return out;
}

namespace {

// Canonical JSON of one manifest member, with its file (or name) in errors.
Result<std::string> canonical_member(NodeRef node, std::string_view name, const std::string& file) {
    if (!node.valid()) return Error::invalid("replay id needs the " + std::string(name) + " document");
    auto json = canonical_json(node);
    if (!json) {
        Error e = json.error();
        if (file.empty()) e.message = std::string(name) + ": " + e.message;
        e.file = file;
        return e;
    }
    return json;
}

}  // namespace

Result<std::string> compute_replay_id(NodeRef intent, NodeRef plan, NodeRef constraints, const ManifestFiles& files) {
    auto intent_json = canonical_member(intent, "intent", files.intent);
    if (!intent_json) return intent_json.error();
    auto plan_json = canonical_member(plan, "plan", files.plan);
    if (!plan_json) return plan_json.error();

    // The member names are ASCII, so writing them in byte order already is
    // the JCS (UTF-16) order: constraints < intent < plan.
    std::string manifest = "{";
    if (constraints.valid()) {
        auto constraints_json = canonical_member(constraints, "constraints", files.constraints);
        if (!constraints_json) return constraints_json.error();
        manifest += "\"constraints\":" + *constraints_json + ",";
    }
    manifest += "\"intent\":" + *intent_json + ",\"plan\":" + *plan_json + "}";

    std::string preimage = "SMALL|";
    preimage += kProtocolVersion;
    preimage += "|";
    preimage += manifest;
    return sha256_hex(preimage);
}

bool is_valid_replay_id(std::string_view id) {
    const auto is_hex_digit = [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    };
    return id.size() == 64 && std::all_of(id.begin(), id.end(), is_hex_digit);
}

}  // namespace small
