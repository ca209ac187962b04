// Progress timestamp parsing and formatting (D9).
// Hand-written because it runs once per progress entry on very long logs.
#include "small/base/timestamp.hpp"
#include "small/base/text.hpp"

#include <chrono>
#include <cstdio>

namespace small {
namespace {

constexpr std::int64_t kSecondsPerDay = 86'400;

// The reference's pre-check: the time part (after the first 'T', or the whole
// text when there is none, cut at the first 'Z', '+' or '-') must hold a '.'.
// A '.' in the time: after the 'T', before the offset (Z, + or -).
bool has_fraction_marker(std::string_view s) {
    const auto t = s.find('T');
    for (std::size_t i = t == std::string_view::npos ? 0 : t + 1; i < s.size(); ++i) {
        if (s[i] == 'Z' || s[i] == '+' || s[i] == '-') return false;
        if (s[i] == '.') return true;
    }
    return false;
}

bool is_leap_year(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int y, int m) {
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap_year(y) ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
// days_from_civil), independent of the C library and the local time zone.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146'097 + static_cast<std::int64_t>(doe) - 719'468;
}

struct CivilDate {
    std::int64_t year;
    unsigned month;
    unsigned day;
};

CivilDate civil_from_days(std::int64_t z) {
    z += 719'468;
    const std::int64_t era = (z >= 0 ? z : z - 146'096) / 146'097;
    const auto doe = static_cast<unsigned>(z - era * 146'097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36'524 - doe / 146'096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned d = doy - (153 * mp + 2) / 5 + 1;
    const unsigned m = mp < 10 ? mp + 3 : mp - 9;
    return {static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2 ? 1 : 0), m, d};
}

// Cursor over the timestamp text; each step reports what it expected.
class Scanner {
public:
    explicit Scanner(std::string_view text) : text_(text) {}

    bool at_end() const { return pos_ == text_.size(); }
    char peek() const { return at_end() ? '\0' : text_[pos_]; }

    bool literal(char c) {
        if (peek() != c) return false;
        ++pos_;
        return true;
    }

    // Exactly `width` digits; false (without consuming) otherwise.
    bool fixed_digits(int width, int& out) {
        if (text_.size() - pos_ < static_cast<std::size_t>(width)) return false;
        int value = 0;
        for (int i = 0; i < width; ++i) {
            const char c = text_[pos_ + i];
            if (!is_ascii_digit(c)) return false;
            value = value * 10 + (c - '0');
        }
        pos_ += width;
        out = value;
        return true;
    }

    std::size_t digit_run() const {
        std::size_t n = 0;
        while (pos_ + n < text_.size() && is_ascii_digit(text_[pos_ + n])) ++n;
        return n;
    }

    // 1-9 fractional digits scaled to nanoseconds.
    bool fraction(std::uint32_t& nanos) {
        const std::size_t n = digit_run();
        if (n < 1 || n > 9) return false;
        std::uint32_t value = 0;
        for (std::size_t i = 0; i < 9; ++i)
            value = value * 10 + (i < n ? static_cast<std::uint32_t>(text_[pos_ + i] - '0') : 0);
        pos_ += n;
        nanos = value;
        return true;
    }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
};

struct Fields {
    int year = 0, month = 0, day = 0;
    int hour = 0, minute = 0, second = 0;
    std::uint32_t nanos = 0;
    int offset_seconds = 0;  // local time minus UTC
};

Error grammar_error(const char* what) {
    return Error::invalid(std::string("timestamp must be RFC3339Nano: ") + what);
}

// Reads "NN" and checks it against `max`; returns the problem, if any.
const char* two_digit_field(Scanner& in, int& out, int max, const char* shape,
                            const char* range) {
    if (!in.fixed_digits(2, out)) return shape;
    return out > max ? range : nullptr;
}

const char* parse_date(Scanner& in, Fields& f) {
    if (!in.fixed_digits(4, f.year)) return "year must be four digits";
    if (!in.literal('-')) return "expected '-' after the year";
    if (!in.fixed_digits(2, f.month)) return "month must be two digits";
    if (f.month < 1 || f.month > 12) return "month out of range";
    if (!in.literal('-')) return "expected '-' after the month";
    if (!in.fixed_digits(2, f.day)) return "day must be two digits";
    if (f.day < 1 || f.day > days_in_month(f.year, f.month)) return "day out of range for month";
    return nullptr;
}

const char* parse_time(Scanner& in, Fields& f) {
    if (!in.literal('T')) return "expected 'T' between date and time";
    if (auto e = two_digit_field(in, f.hour, 23, "hour must be two digits", "hour out of range"))
        return e;
    if (!in.literal(':')) return "expected ':' after the hour";
    if (auto e = two_digit_field(in, f.minute, 59, "minute must be two digits",
                                 "minute out of range"))
        return e;
    if (!in.literal(':')) return "expected ':' after the minute";
    // Leap seconds (60) are rejected, as Go's parser does.
    if (auto e = two_digit_field(in, f.second, 59, "second must be two digits",
                                 "second out of range"))
        return e;
    if (!in.literal('.')) return "expected '.' and fractional seconds after the seconds";
    if (!in.fraction(f.nanos)) return "fractional seconds must have 1 to 9 digits";
    return nullptr;
}

const char* parse_offset(Scanner& in, Fields& f) {
    if (in.literal('Z')) return nullptr;
    const char sign = in.peek();
    if (sign != '+' && sign != '-') return "offset must be Z or ±HH:MM";
    in.literal(sign);
    int hours = 0, minutes = 0;
    if (!in.fixed_digits(2, hours) || !in.literal(':') || !in.fixed_digits(2, minutes))
        return "offset must be Z or ±HH:MM";
    if (hours > 23) return "offset hour out of range";
    if (minutes > 59) return "offset minute out of range";
    const int seconds = hours * 3600 + minutes * 60;
    f.offset_seconds = sign == '-' ? -seconds : seconds;
    return nullptr;
}

const char* parse_fields(std::string_view text, Fields& f) {
    Scanner in(text);
    if (auto e = parse_date(in, f)) return e;
    if (auto e = parse_time(in, f)) return e;
    if (auto e = parse_offset(in, f)) return e;
    if (!in.at_end()) return "unexpected text after the offset";
    return nullptr;
}

Instant to_instant(const Fields& f) {
    const std::int64_t days = days_from_civil(f.year, static_cast<unsigned>(f.month),
                                              static_cast<unsigned>(f.day));
    const std::int64_t local = days * kSecondsPerDay + f.hour * 3600 + f.minute * 60 + f.second;
    return {local - f.offset_seconds, f.nanos};
}

// "YYYY-MM-DDTHH:MM:SS" in UTC (years outside 0..9999 keep a sign/extra digits).
std::string format_seconds_utc(std::int64_t seconds) {
    std::int64_t days = seconds / kSecondsPerDay;
    std::int64_t rem = seconds % kSecondsPerDay;
    if (rem < 0) {
        rem += kSecondsPerDay;
        --days;
    }
    const CivilDate date = civil_from_days(days);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%04lld-%02u-%02uT%02d:%02d:%02d",
                  date.year < 0 ? "-" : "",
                  static_cast<long long>(date.year < 0 ? -date.year : date.year), date.month,
                  date.day, static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60),
                  static_cast<int>(rem % 60));
    return buf;
}

std::string nine_digits(std::uint32_t nanos) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%09u", static_cast<unsigned>(nanos));
    return buf;
}

}  // namespace

Result<Instant> parse_progress_timestamp(std::string_view raw) {
    const std::string_view text = trim(raw);
    if (text.empty())
        return Error::invalid("timestamp is required (RFC3339Nano with fractional seconds)");
    if (!has_fraction_marker(text))
        return Error::invalid("timestamp must include fractional seconds");
    Fields fields;
    if (const char* problem = parse_fields(text, fields)) return grammar_error(problem);
    return to_instant(fields);
}

std::string format_timestamp_utc9(Instant t) {
    return format_seconds_utc(t.seconds) + "." + nine_digits(t.nanos) + "Z";
}

std::string format_timestamp_short(Instant t) {
    std::string out = format_seconds_utc(t.seconds);
    if (t.nanos != 0) {
        std::string fraction = nine_digits(t.nanos);
        fraction.erase(fraction.find_last_not_of('0') + 1);
        out += "." + fraction;
    }
    return out + "Z";
}

Instant plus_one_ns(Instant t) {
    if (++t.nanos == 1'000'000'000) {
        t.nanos = 0;
        ++t.seconds;
    }
    return t;
}

Result<Instant> parse_lenient_timestamp(std::string_view raw) {
    std::string text(trim(raw));
    if (text.empty()) return parse_progress_timestamp(text);
    // Upper-case the 'T' and 'Z' designators RFC 3339 allows in lower case.
    if (text.size() > 10 && text[10] == 't') text[10] = 'T';
    if (!text.empty() && text.back() == 'z') text.back() = 'Z';
    const auto t = text.find('T');
    if (t == std::string::npos) {
        return Error::invalid("timestamp must be RFC3339: YYYY-MM-DDTHH:MM:SS[.fraction] then Z or +HH:MM/-HH:MM");
    }
    {
        const auto zone = text.find_first_of("Z+-", t + 1);
        const std::string_view time = std::string_view(text).substr(t + 1, zone == std::string::npos ? std::string::npos : zone - t - 1);
        if (time.find('.') == std::string_view::npos) text.insert(zone == std::string::npos ? text.size() : zone, ".0");
    }
    return parse_progress_timestamp(text);
}

Instant current_instant() {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    Instant t;
    t.seconds = ns / 1'000'000'000;
    t.nanos = static_cast<std::uint32_t>(ns % 1'000'000'000);
    if (ns < 0 && t.nanos != 0) {  // before 1970: keep nanos non-negative
        --t.seconds;
        t.nanos = static_cast<std::uint32_t>(ns % 1'000'000'000 + 1'000'000'000);
    }
    return t;
}

bool too_far_ahead(Instant t, Instant now) {
    return Instant{now.seconds + kFutureToleranceSeconds, now.nanos} < t;
}

std::string duration_text(std::int64_t seconds) {
    struct Unit {
        std::int64_t size;
        const char* name;
    };
    constexpr Unit units[] = {{365 * 86400, "year"}, {86400, "day"}, {3600, "hour"}, {60, "minute"}, {1, "second"}};
    for (const Unit& u : units) {
        if (seconds < u.size && u.size > 1) continue;
        const std::int64_t n = seconds / u.size;
        return std::to_string(n) + " " + u.name + (n == 1 ? "" : "s");
    }
    return "0 seconds";
}

}  // namespace small
