// Small text helpers shared by the rules and parsers.
#pragma once

#include <string>
#include <string_view>

namespace small {

// Without leading and trailing ASCII white space (as Go's TrimSpace does for ASCII).
inline std::string_view trim(std::string_view s) {
    constexpr std::string_view ws = " \t\r\n\f\v";
    const auto first = s.find_first_not_of(ws);
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(ws) - first + 1);
}

// ASCII lower case (ids, statuses and hex digits are ASCII).
inline std::string lower_ascii(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

}  // namespace small
