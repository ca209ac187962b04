// A fast non-cryptographic hash (XXH3-128, libxxhash) for caches that must
// notice any change to many megabytes at memory speed; never for ids that
// the protocol defines (those are SHA-256, model/replay_id).
#pragma once

#include <string>
#include <string_view>

namespace small {

// XXH3-128 of `data`, as 32 lowercase hex digits.
std::string fast_hash_hex(std::string_view data);

// The same hash over bytes that arrive in pieces: digest() may be taken
// between pieces (the hash of everything so far) and hashing go on.
class FastHasher {
public:
    FastHasher();
    ~FastHasher();
    FastHasher(const FastHasher&) = delete;
    FastHasher& operator=(const FastHasher&) = delete;
    void update(std::string_view data);
    std::string digest() const;

private:
    void* state_;
};

}  // namespace small
