#include "small/base/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace small {

std::size_t decode_utf8(std::string_view s, std::size_t pos, char32_t& cp) {
    const auto lead = static_cast<unsigned char>(s[pos]);
    std::size_t len = 0;
    char32_t min_value = 0;
    if (lead < 0x80) {
        cp = lead;
        return 1;
    }
    if ((lead & 0xE0) == 0xC0) len = 2, cp = lead & 0x1F, min_value = 0x80;
    else if ((lead & 0xF0) == 0xE0) len = 3, cp = lead & 0x0F, min_value = 0x800;
    else if ((lead & 0xF8) == 0xF0) len = 4, cp = lead & 0x07, min_value = 0x10000;
    else return 0;  // a stray continuation byte, or 0xF8..0xFF
    if (pos + len > s.size()) return 0;
    for (std::size_t k = 1; k < len; ++k) {
        const auto next = static_cast<unsigned char>(s[pos + k]);
        if ((next & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (next & 0x3F);
    }
    if (cp < min_value || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

std::size_t find_invalid_utf8(std::string_view s) {
    const std::size_t n = s.size();
    std::size_t i = 0;
    while (i < n) {
        // Fast path: 8 ASCII bytes at a time (a 24 MB log is almost all ASCII).
        while (i + 8 <= n) {
            std::uint64_t word;
            std::memcpy(&word, s.data() + i, 8);
            if (word & 0x8080808080808080ULL) break;
            i += 8;
        }
        if (i >= n) break;
        char32_t cp = 0;
        const std::size_t len = decode_utf8(s, i, cp);
        if (len == 0) return i;
        i += len;
    }
    return std::string_view::npos;
}

}  // namespace small
