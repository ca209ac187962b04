// Insecure link detection (strict mode): plain http:// URLs in string values.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace small {

// The first insecure http:// URL in `text`, or nothing. With
// `allow_loopback` (progress entries), URLs whose host is exactly localhost,
// 127.0.0.1, 0.0.0.0 or [::1] are allowed.
std::optional<std::string> find_insecure_link(std::string_view text, bool allow_loopback);

}  // namespace small

namespace small {

// Why `url` is not a well-formed absolute URI (RFC 3986 syntax only, no
// network): a scheme, no spaces or control characters, `%` followed by two
// hex digits, a non-empty host after `//` (http and https need one).
// Nothing when it is well-formed.
std::optional<std::string> link_syntax_problem(std::string_view url);

}  // namespace small
