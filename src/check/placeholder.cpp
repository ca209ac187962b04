// Placeholders are not data (see the header).
#include "small/check/placeholder.hpp"

#include <string>

#include "small/base/text.hpp"

namespace small {

namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool is_blank_char(char c) {
    return is_letter(c) || (c >= '0' && c <= '9') || c == ' ' || c == '-' || c == '_' || c == '\'' || c == '.' ||
           c == ',' || c == ':';
}

}  // namespace

bool is_placeholder(std::string_view value) {
    const std::string_view v = trim(value);
    if (v.size() < 3 || v.front() != '<' || v.back() != '>' || !is_letter(v[1])) return false;
    for (const char c : v.substr(1, v.size() - 2)) {
        if (!is_blank_char(c)) return false;
    }
    return true;
}

Status refuse_placeholder(std::string_view field, std::string_view value) {
    if (!is_placeholder(value)) return ok_status();
    Error e = Error::usage(std::string(field) + " is the placeholder \"" + one_line(trim(value), 80) +
                           "\", not a value: nothing written");
    e.hint = "replace it with the real " + std::string(field) + " (what actually happened, in your own words)";
    return e;
}

}  // namespace small
