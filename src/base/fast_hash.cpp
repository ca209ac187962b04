#include "small/base/fast_hash.hpp"

// Header-only use of Debian's libxxhash-dev (see CMakeLists.txt).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <new>

namespace small {

namespace {

std::string hex(XXH128_hash_t h) {
    static const char digits[] = "0123456789abcdef";
    std::string out(32, '0');
    for (int i = 0; i < 16; ++i) {
        const auto byte = static_cast<unsigned>(((i < 8 ? h.high64 : h.low64) >> (8 * (7 - i % 8))) & 0xff);
        out[2 * i] = digits[byte >> 4];
        out[2 * i + 1] = digits[byte & 15];
    }
    return out;
}

XXH3_state_t* state(void* p) { return static_cast<XXH3_state_t*>(p); }

}  // namespace

std::string fast_hash_hex(std::string_view data) { return hex(XXH3_128bits(data.data(), data.size())); }

FastHasher::FastHasher() : state_(XXH3_createState()) {
    if (!state_) throw std::bad_alloc();
    XXH3_128bits_reset(state(state_));
}

FastHasher::~FastHasher() { XXH3_freeState(state(state_)); }

void FastHasher::update(std::string_view data) { XXH3_128bits_update(state(state_), data.data(), data.size()); }

std::string FastHasher::digest() const { return hex(XXH3_128bits_digest(state(state_))); }

}  // namespace small
