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
