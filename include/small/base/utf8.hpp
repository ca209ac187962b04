// Strict UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
// U+10FFFF), shared by the YAML reader, the writer and canonical JSON.
#pragma once

#include <cstddef>
#include <string_view>

namespace small {

// Length of the valid sequence at s[pos] with its code point in `cp`, or 0
// when the bytes there are not UTF-8.
std::size_t decode_utf8(std::string_view s, std::size_t pos, char32_t& cp);

// Offset of the first byte that is not part of valid UTF-8, or npos.
std::size_t find_invalid_utf8(std::string_view s);

inline bool is_valid_utf8(std::string_view s) { return find_invalid_utf8(s) == std::string_view::npos; }

}  // namespace small
