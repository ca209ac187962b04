// The caches' hash (base/fast_hash): XXH3-128 as 32 hex digits, the same
// whether the bytes come at once or in pieces.
#include <gtest/gtest.h>

#include <string>

#include "small/base/fast_hash.hpp"

namespace small {
namespace {

TEST(FastHash, IsXxh3With128BitsHighHalfFirst) {
    // XXH3_128bits("") of the xxHash reference: high64 99aa06d3014798d8, low64 6001c324468d497f.
    EXPECT_EQ(fast_hash_hex(""), "99aa06d3014798d86001c324468d497f");
    EXPECT_EQ(fast_hash_hex("abc"), "06b05ab6733a618578af5f94892f3950");
}

TEST(FastHash, AnyChangedByteChangesTheHash) {
    std::string text(1 << 20, 'x');
    const std::string before = fast_hash_hex(text);
    text[text.size() / 2] = 'y';
    EXPECT_NE(fast_hash_hex(text), before);
}

TEST(FastHasher, PiecesHashAsTheWholeAndADigestMidWayIsThePrefixs) {
    const std::string text = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries: []\n" + std::string(5000, 'z');
    FastHasher h;
    EXPECT_EQ(h.digest(), fast_hash_hex(""));
    h.update(text.substr(0, 17));
    EXPECT_EQ(h.digest(), fast_hash_hex(text.substr(0, 17)));
    h.update(text.substr(17, 300));
    h.update(text.substr(317));
    EXPECT_EQ(h.digest(), fast_hash_hex(text));
}

}  // namespace
}  // namespace small
