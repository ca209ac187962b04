#include "small/base/timestamp.hpp"

#include <gtest/gtest.h>

#include <string>

#include "support/fixtures.hpp"

namespace small {
namespace {

using testing::contains;

Instant parse_ok(std::string_view text) {
    auto result = parse_progress_timestamp(text);
    EXPECT_TRUE(result.ok()) << text << ": " << (result.ok() ? "" : result.error().message);
    return result.ok() ? *result : Instant{};
}

std::string reason(std::string_view text) {
    auto result = parse_progress_timestamp(text);
    EXPECT_FALSE(result.ok()) << text << " was accepted";
    return result.ok() ? std::string() : result.error().message;
}

// ---- blank input ----

TEST(Timestamp, EmptyIsRequired) {
    EXPECT_EQ(reason(""), "timestamp is required (RFC3339Nano with fractional seconds)");
    EXPECT_TRUE(contains(reason("   \t\n"), "is required"));
}

TEST(Timestamp, ErrorsAreInvalidKind) {
    auto result = parse_progress_timestamp("bad");
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().kind, Error::Kind::Invalid);
}

// ---- the fraction pre-check ----

TEST(Timestamp, MissingFractionFailsPreCheck) {
    for (const char* text : {"2025-01-01T00:00:00Z", "2025-01-01 00:00:00.5Z",
                             "2025-01-01t00:00:00.5Z", "2025-01-01T00:00:00,5Z",
                             "2025-01-01T00:00:00+02:00", "not-a-time", "bad"}) {
        EXPECT_EQ(reason(text), "timestamp must include fractional seconds") << text;
    }
}

TEST(Timestamp, FractionFragmentPresentInPreCheckReason) {
    EXPECT_TRUE(contains(reason("2025-01-01T00:00:00Z"), "fractional seconds"));
}

// ---- the strict grammar ----

void expect_grammar_error(std::string_view text, std::string_view fragment) {
    const std::string why = reason(text);
    EXPECT_TRUE(why.starts_with("timestamp must be RFC3339Nano: ")) << text << " -> " << why;
    EXPECT_TRUE(contains(why, fragment)) << text << " -> " << why;
}

TEST(Timestamp, RejectsLowerCaseZ) {
    expect_grammar_error("2025-01-01T00:00:00.5z", "offset must be Z or ±HH:MM");
}

TEST(Timestamp, RejectsOffsetWithoutColon) {
    expect_grammar_error("2025-01-01T00:00:00.5+0200", "offset must be Z or ±HH:MM");
}

TEST(Timestamp, RejectsMissingOffset) {
    expect_grammar_error("2025-01-01T00:00:00.5", "offset must be Z or ±HH:MM");
}

TEST(Timestamp, RejectsOffsetOutOfRange) {
    expect_grammar_error("2025-01-01T00:00:00.5+24:00", "offset hour out of range");
    expect_grammar_error("2025-01-01T00:00:00.5-01:60", "offset minute out of range");
}

TEST(Timestamp, RejectsDotWithoutDigits) {
    expect_grammar_error("2025-01-01T00:00:00.Z", "fractional seconds must have 1 to 9 digits");
}

TEST(Timestamp, RejectsTenFractionalDigits) {
    expect_grammar_error("2025-01-01T00:00:00.1234567890Z",
                         "fractional seconds must have 1 to 9 digits");
}

TEST(Timestamp, RejectsSecond60AndHour24) {
    expect_grammar_error("2025-06-30T23:59:60.0Z", "second out of range");
    expect_grammar_error("2025-01-01T24:00:00.0Z", "hour out of range");
    expect_grammar_error("2025-01-01T00:60:00.0Z", "minute out of range");
}

TEST(Timestamp, RejectsBadDays) {
    expect_grammar_error("2025-02-30T00:00:00.0Z", "day out of range for month");
    expect_grammar_error("2023-02-29T00:00:00.0Z", "day out of range for month");
    expect_grammar_error("1900-02-29T00:00:00.0Z", "day out of range for month");
    expect_grammar_error("2025-04-31T00:00:00.0Z", "day out of range for month");
    expect_grammar_error("2025-01-00T00:00:00.0Z", "day out of range for month");
    expect_grammar_error("2025-01-32T00:00:00.0Z", "day out of range for month");
}

TEST(Timestamp, RejectsBadMonths) {
    expect_grammar_error("2025-13-01T00:00:00.0Z", "month out of range");
    expect_grammar_error("2025-00-01T00:00:00.0Z", "month out of range");
}

TEST(Timestamp, RejectsOneDigitMonthOrDay) {
    expect_grammar_error("2025-1-01T00:00:00.0Z", "month must be two digits");
    expect_grammar_error("2025-01-1T00:00:00.0Z", "day must be two digits");
}

TEST(Timestamp, RejectsLeadingPlusAndShortYear) {
    expect_grammar_error("+2025-01-01T00:00:00.0Z", "year must be four digits");
    expect_grammar_error("25-01-01T00:00:00.0Z", "year must be four digits");
}

TEST(Timestamp, RejectsTrailingGarbage) {
    expect_grammar_error("2025-01-01T00:00:00.0Zjunk", "unexpected text after the offset");
    expect_grammar_error("2025-01-01T00:00:00.0+02:00:00", "unexpected text after the offset");
}

TEST(Timestamp, RejectsSeparatorProblemsInsideTime) {
    expect_grammar_error("2025-01-01 T00:00:00.5Z", "expected 'T'");
    expect_grammar_error("2025-01-01T00:00.5:00Z", "expected ':' after the minute");
}

TEST(Timestamp, AllGrammarErrorsMentionRfc3339Nano) {
    EXPECT_TRUE(contains(reason("2025-02-30T00:00:00.0Z"), "RFC3339Nano"));
}

// ---- accepted forms ----

TEST(Timestamp, AcceptsLeapDays) {
    parse_ok("2024-02-29T00:00:00.0Z");
    parse_ok("2000-02-29T00:00:00.0Z");
}

TEST(Timestamp, AcceptsOffsetsWithColon) {
    parse_ok("2025-01-01T00:00:00.5+02:00");
    parse_ok("2025-01-01T00:00:00.5-00:00");
    parse_ok("2025-01-01T00:00:00.5+23:59");
    parse_ok("2025-01-01T00:00:00.5-23:59");
}

TEST(Timestamp, AcceptsOneToNineFractionalDigits) {
    parse_ok("2025-01-01T00:00:00.1Z");
    parse_ok("2025-01-01T00:00:00.123456789Z");
}

TEST(Timestamp, TrimsSurroundingWhitespace) {
    EXPECT_EQ(parse_ok("  2025-01-01T00:00:00.5Z \n"), parse_ok("2025-01-01T00:00:00.5Z"));
}

TEST(Timestamp, AcceptsYearRangeEdges) {
    EXPECT_EQ(format_timestamp_utc9(parse_ok("0000-01-01T00:00:00.0Z")),
              "0000-01-01T00:00:00.000000000Z");
    EXPECT_EQ(format_timestamp_utc9(parse_ok("9999-12-31T23:59:59.999999999Z")),
              "9999-12-31T23:59:59.999999999Z");
}

// ---- instants ----

TEST(Timestamp, EpochIsZero) {
    const Instant t = parse_ok("1970-01-01T00:00:00.0Z");
    EXPECT_EQ(t.seconds, 0);
    EXPECT_EQ(t.nanos, 0u);
}

TEST(Timestamp, KnownInstant) {
    // 2025-01-15T10:00:00Z == 1736935200 (date -u -d ... +%s).
    EXPECT_EQ(parse_ok("2025-01-15T10:00:00.0Z").seconds, 1736935200);
    EXPECT_EQ(parse_ok("1969-12-31T23:59:59.5Z").seconds, -1);
}

TEST(Timestamp, OffsetsAreApplied) {
    EXPECT_EQ(parse_ok("2025-01-01T12:00:00.0+02:00"), parse_ok("2025-01-01T10:00:00.0Z"));
    EXPECT_EQ(parse_ok("2025-01-01T05:30:00.0-04:30"), parse_ok("2025-01-01T10:00:00.0Z"));
    EXPECT_EQ(parse_ok("2025-01-01T10:00:00.0-00:00"), parse_ok("2025-01-01T10:00:00.0Z"));
}

TEST(Timestamp, OrderingComparesInstantsAcrossOffsets) {
    EXPECT_GT(parse_ok("2025-01-01T12:00:04.0+02:00"), parse_ok("2025-01-01T10:00:03.0Z"));
    EXPECT_LT(parse_ok("2025-01-01T11:00:00.0+02:00"), parse_ok("2025-01-01T10:00:00.0Z"));
}

TEST(Timestamp, OffsetCrossesDateBoundary) {
    EXPECT_EQ(format_timestamp_utc9(parse_ok("2025-01-01T01:00:00.0+02:00")),
              "2024-12-31T23:00:00.000000000Z");
    EXPECT_EQ(format_timestamp_utc9(parse_ok("2024-02-28T23:00:00.0-02:00")),
              "2024-02-29T01:00:00.000000000Z");
}

TEST(Timestamp, NanosecondPrecision) {
    EXPECT_EQ(parse_ok("2025-01-01T00:00:00.000000001Z").nanos, 1u);
    EXPECT_EQ(parse_ok("2025-01-01T00:00:00.5Z").nanos, 500'000'000u);
    EXPECT_EQ(parse_ok("2025-01-01T00:00:00.123456789Z").nanos, 123'456'789u);
    EXPECT_LT(parse_ok("2025-01-01T00:00:00.000000001Z"),
              parse_ok("2025-01-01T00:00:00.000000002Z"));
    EXPECT_EQ(parse_ok("2025-01-01T00:00:00.1Z"), parse_ok("2025-01-01T00:00:00.100000000Z"));
}

// ---- formatting ----

TEST(Timestamp, FormatUtc9AlwaysHasNineDigits) {
    EXPECT_EQ(format_timestamp_utc9(parse_ok("2025-01-15T10:00:00.123Z")),
              "2025-01-15T10:00:00.123000000Z");
    EXPECT_EQ(format_timestamp_utc9(Instant{0, 0}), "1970-01-01T00:00:00.000000000Z");
}

TEST(Timestamp, FormatShortTrimsZeros) {
    EXPECT_EQ(format_timestamp_short(parse_ok("2025-01-15T10:00:00.120Z")),
              "2025-01-15T10:00:00.12Z");
    EXPECT_EQ(format_timestamp_short(parse_ok("2025-01-15T10:00:00.000Z")),
              "2025-01-15T10:00:00Z");
    EXPECT_EQ(format_timestamp_short(parse_ok("2025-01-15T12:00:00.000000001+02:00")),
              "2025-01-15T10:00:00.000000001Z");
}

TEST(Timestamp, FormatRoundTrips) {
    for (const char* text : {"2025-01-15T10:00:00.123456789Z", "2024-02-29T23:59:59.000000001Z",
                             "1999-12-31T00:00:00.500000000Z", "1960-07-04T12:34:56.789000000Z"}) {
        const Instant t = parse_ok(text);
        EXPECT_EQ(format_timestamp_utc9(t), text);
        EXPECT_EQ(parse_ok(format_timestamp_utc9(t)), t);
        EXPECT_EQ(parse_ok(format_timestamp_short(t).insert(19, t.nanos ? "" : ".0")), t);
    }
}

TEST(Timestamp, RoundTripAcrossManyDays) {
    // Every day over ~30 years, including leap days, survives parse/format.
    for (std::int64_t day = -3650; day < 7300; day += 1) {
        const Instant t{day * 86'400 + 3661, 42};
        EXPECT_EQ(parse_ok(format_timestamp_utc9(t)), t);
    }
}

}  // namespace
}  // namespace small
