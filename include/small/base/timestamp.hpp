// Progress timestamps: RFC 3339 with 1-9 fractional digits and `Z` or
// `+HH:MM`/`-HH:MM` (D9). Order compares instants.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "small/base/result.hpp"

namespace small {

struct Instant {
    std::int64_t seconds = 0;  // since 1970-01-01T00:00:00Z
    std::uint32_t nanos = 0;   // 0..999'999'999
    auto operator<=>(const Instant&) const = default;
};

// Parses a progress timestamp. On failure the error message is the reason,
// one of (fragments are relied on by users and tests):
//   "timestamp is required (RFC3339Nano with fractional seconds)"   (empty/blank)
//   "timestamp must include fractional seconds"
//   "timestamp must be RFC3339Nano: <what is wrong>"
Result<Instant> parse_progress_timestamp(std::string_view raw);

// UTC with exactly nine fractional digits: 2025-01-15T10:00:00.123456789Z.
std::string format_timestamp_utc9(Instant t);

// UTC, Go RFC3339Nano style (trailing fractional zeros trimmed, no fraction
// when zero): used when re-printing instants in messages.
std::string format_timestamp_short(Instant t);

// `t` plus one nanosecond (the bump that keeps timestamps strictly increasing).
Instant plus_one_ns(Instant t);

// The system clock as an Instant.
Instant current_instant();

// How far ahead of the clock an entry may be dated before `lint` warns
// (INV-R8) and a write stamped after it says so: the clocks of two machines
// drift by seconds, a mistyped year is decades.
inline constexpr std::int64_t kFutureToleranceSeconds = 5 * 60;

// True when `t` lies more than kFutureToleranceSeconds after `now`.
bool too_far_ahead(Instant t, Instant now);

// A span in words, rounded down to its largest unit: "3 minutes",
// "1 hour", "12 days", "72 years" (365-day years).
std::string duration_text(std::int64_t seconds);

// RFC 3339 with optional fraction (0-9 digits), `Z`/`z` or an offset: what
// `progress migrate` accepts. Stricter readers use parse_progress_timestamp.
Result<Instant> parse_lenient_timestamp(std::string_view raw);

}  // namespace small
