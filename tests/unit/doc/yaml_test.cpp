// The YAML loader (DECISIONS D2): YAML 1.2 core-schema scalar typing, marks,
// error positions and messages, anchors/aliases, limits, source slices.
#include "small/doc/yaml.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "small/doc/document.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using testing::contains;

Document parse_ok(std::string text, const YamlLimits& limits = {}) {
    auto result = parse_yaml(text, "test.yml", limits);
    EXPECT_TRUE(result.ok()) << "input: " << text << "\nerror: " << (result.ok() ? "" : result.error().describe());
    if (!result.ok()) return Document();
    return std::move(result).value();
}

Error parse_err(std::string text, const YamlLimits& limits = {}) {
    auto result = parse_yaml(text, "test.yml", limits);
    EXPECT_FALSE(result.ok()) << "input was accepted: " << text;
    if (result.ok()) return Error::invalid("<accepted>");
    return result.error();
}

// Parses "v: <text>" and returns the kind of the value.
struct Value {
    Document doc;
    NodeRef node() const { return doc.root().find("v"); }
};

Value parse_value(std::string_view scalar_yaml) {
    Value v{parse_ok("v: " + std::string(scalar_yaml) + "\n")};
    EXPECT_TRUE(v.doc.root().is_mapping()) << scalar_yaml;
    EXPECT_TRUE(v.node().valid()) << scalar_yaml;
    return v;
}

// ------------------------------------------------------------ resolve_plain_scalar

TEST(ScalarResolve, CoreNullForms) {
    for (const char* text : {"", "~", "null", "Null", "NULL"}) {
        EXPECT_EQ(resolve_plain_scalar(text).kind, NodeKind::Null) << "'" << text << "'";
    }
    for (const char* text : {"nULL", "NuLl", "nil", "None", "none", "~~"}) {
        EXPECT_EQ(resolve_plain_scalar(text).kind, NodeKind::String) << text;
    }
}

TEST(ScalarResolve, CoreBooleans) {
    for (const char* text : {"true", "True", "TRUE"}) {
        const PlainScalar s = resolve_plain_scalar(text);
        EXPECT_EQ(s.kind, NodeKind::Bool) << text;
        EXPECT_TRUE(s.boolean) << text;
    }
    for (const char* text : {"false", "False", "FALSE"}) {
        const PlainScalar s = resolve_plain_scalar(text);
        EXPECT_EQ(s.kind, NodeKind::Bool) << text;
        EXPECT_FALSE(s.boolean) << text;
    }
    for (const char* text : {"tRUE", "fAlse", "TRue"}) {
        EXPECT_EQ(resolve_plain_scalar(text).kind, NodeKind::String) << text;
    }
}

TEST(ScalarResolve, Yaml11BooleansAreStrings) {
    for (const char* text : {"yes", "no", "on", "off", "y", "n", "Y", "N", "Yes", "NO", "On", "OFF"}) {
        EXPECT_EQ(resolve_plain_scalar(text).kind, NodeKind::String) << text;
    }
}

TEST(ScalarResolve, DecimalIntegers) {
    const std::pair<const char*, std::int64_t> cases[] = {
        {"0", 0},      {"-0", 0},     {"+0", 0},  {"7", 7},   {"0777", 777}, {"007", 7},
        {"+5", 5},     {"-3", -3},    {"42", 42}, {"-0012", -12},
        {"9223372036854775807", std::numeric_limits<std::int64_t>::max()},
        {"-9223372036854775808", std::numeric_limits<std::int64_t>::min()},
    };
    for (const auto& [text, expected] : cases) {
        const PlainScalar s = resolve_plain_scalar(text);
        EXPECT_EQ(s.kind, NodeKind::Int) << text;
        EXPECT_EQ(s.integer, expected) << text;
    }
}

TEST(ScalarResolve, OctalAndHexIntegers) {
    const std::pair<const char*, std::int64_t> cases[] = {
        {"0o17", 15}, {"0o0", 0}, {"0o777", 511}, {"0x1F", 31}, {"0x1f", 31}, {"0xff", 255}, {"0x0", 0},
        {"0x7FFFFFFFFFFFFFFF", std::numeric_limits<std::int64_t>::max()},
    };
    for (const auto& [text, expected] : cases) {
        const PlainScalar s = resolve_plain_scalar(text);
        EXPECT_EQ(s.kind, NodeKind::Int) << text;
        EXPECT_EQ(s.integer, expected) << text;
    }
    // Not core-schema integers: no sign on 0o/0x, lower-case prefixes only, no
    // YAML 1.1 binary or sexagesimal forms, no empty digit runs.
    for (const char* text : {"0o", "0x", "0o8", "0xG", "0x1G", "-0x1F", "+0o7", "0X1F", "0O17", "0b101", "190:20:30",
                             "1:2"}) {
        EXPECT_EQ(resolve_plain_scalar(text).kind, NodeKind::String) << text;
    }
}

TEST(ScalarResolve, IntegersBeyondInt64BecomeFloats) {
    const std::pair<const char*, double> cases[] = {
        {"9223372036854775808", 9223372036854775808.0},
        {"-9223372036854775809", -9223372036854775809.0},
        {"99999999999999999999", 1e20},
        {"0x10000000000000000", 18446744073709551616.0},
        {"0o1000000000000000000000", 9223372036854775808.0},
    };
    for (const auto& [text, expected] : cases) {
        const PlainScalar s = resolve_plain_scalar(text);
        EXPECT_EQ(s.kind, NodeKind::Float) << text;
        EXPECT_DOUBLE_EQ(s.real, expected) << text;
    }
}

TEST(ScalarResolve, UnderscoresAndCommasAreStrings) {
    for (const char* text : {"1_000", "1,000", "0x_1F", "1_0.5", "1 000"}) {
        EXPECT_EQ(resolve_plain_scalar(text).kind, NodeKind::String) << text;
    }
}

TEST(ScalarResolve, CoreFloats) {
    const std::pair<const char*, double> cases[] = {
        {"1.0", 1.0},   {"1e3", 1000.0}, {"1E3", 1000.0},   {".5", 0.5},    {"-.5", -0.5},
        {"+.5", 0.5},   {"1.", 1.0},     {"-1.5", -1.5},    {"+1.5e-2", 0.015}, {"2.5E+2", 250.0},
        {"0.0", 0.0},   {"6.02e23", 6.02e23}, {"1.0e0", 1.0}, {"00.25", 0.25},
    };
    for (const auto& [text, expected] : cases) {
        const PlainScalar s = resolve_plain_scalar(text);
        EXPECT_EQ(s.kind, NodeKind::Float) << text;
        EXPECT_DOUBLE_EQ(s.real, expected) << text;
    }
}

TEST(ScalarResolve, InfinityAndNaN) {
    for (const char* text : {".inf", ".Inf", ".INF", "+.inf", "+.Inf"}) {
        const PlainScalar s = resolve_plain_scalar(text);
        EXPECT_EQ(s.kind, NodeKind::Float) << text;
        EXPECT_TRUE(std::isinf(s.real) && s.real > 0) << text;
    }
    for (const char* text : {"-.inf", "-.Inf", "-.INF"}) {
        const PlainScalar s = resolve_plain_scalar(text);
        EXPECT_EQ(s.kind, NodeKind::Float) << text;
        EXPECT_TRUE(std::isinf(s.real) && s.real < 0) << text;
    }
    for (const char* text : {".nan", ".NaN", ".NAN"}) {
        const PlainScalar s = resolve_plain_scalar(text);
        EXPECT_EQ(s.kind, NodeKind::Float) << text;
        EXPECT_TRUE(std::isnan(s.real)) << text;
    }
    for (const char* text : {"-.nan", "+.nan", ".nAn", ".iNf", "inf", "-inf", "nan", "NaN", "Infinity", ".infinity"}) {
        EXPECT_EQ(resolve_plain_scalar(text).kind, NodeKind::String) << text;
    }
}

TEST(ScalarResolve, FloatOverflowIsInfinityNotZero) {
    // strtod semantics: a finite-looking literal too large for a double is
    // +/-infinity (JSON output then reports it), never silently 0.
    const PlainScalar big = resolve_plain_scalar("1e999");
    EXPECT_EQ(big.kind, NodeKind::Float);
    EXPECT_TRUE(std::isinf(big.real) && big.real > 0) << "1e999 resolved to " << big.real;
    const PlainScalar neg = resolve_plain_scalar("-1e999");
    EXPECT_EQ(neg.kind, NodeKind::Float);
    EXPECT_TRUE(std::isinf(neg.real) && neg.real < 0) << "-1e999 resolved to " << neg.real;
    const PlainScalar tiny = resolve_plain_scalar("1e-999");
    EXPECT_EQ(tiny.kind, NodeKind::Float);
    EXPECT_EQ(tiny.real, 0.0);
}

TEST(ScalarResolve, NearNumbersAreStrings) {
    for (const char* text : {"1.0.0", ".", "-", "+", "+-1", "e3", "1e", "1e+", "1.5x", "1.5 ", " 1", "--1", "1-2",
                             "0x1F.0", "1..2", "v1.0", "1e3.5"}) {
        EXPECT_EQ(resolve_plain_scalar(text).kind, NodeKind::String) << "'" << text << "'";
    }
}

TEST(ScalarResolve, TimestampsAreStrings) {
    for (const char* text : {"2025-01-01", "2025-01-15T10:00:00.123Z", "2025-01-01 10:00:00",
                             "2001-12-14t21:59:43.10-05:00", "2025-01-15T10:00:00.123456789+02:00", "12:30:00"}) {
        EXPECT_EQ(resolve_plain_scalar(text).kind, NodeKind::String) << text;
    }
}

// ------------------------------------------------------------ typing through parse_yaml

TEST(YamlTyping, PlainScalarsFollowTheCoreSchema) {
    EXPECT_TRUE(parse_value("~").node().is_null());
    EXPECT_TRUE(parse_value("null").node().is_null());
    EXPECT_TRUE(parse_value("NULL").node().is_null());
    EXPECT_TRUE(parse_value("").node().is_null());
    EXPECT_TRUE(parse_value("True").node().is_bool());
    EXPECT_TRUE(parse_value("True").node().as_bool());
    EXPECT_TRUE(parse_value("FALSE").node().is_bool());
    EXPECT_FALSE(parse_value("FALSE").node().as_bool());
    EXPECT_EQ(parse_value("yes").node().as_string(), "yes");
    EXPECT_EQ(parse_value("off").node().as_string(), "off");
    EXPECT_EQ(parse_value("y").node().as_string(), "y");
    EXPECT_EQ(parse_value("0777").node().as_int(), 777);
    EXPECT_TRUE(parse_value("0777").node().is_int());
    EXPECT_EQ(parse_value("007").node().as_int(), 7);
    EXPECT_EQ(parse_value("+5").node().as_int(), 5);
    EXPECT_EQ(parse_value("-3").node().as_int(), -3);
    EXPECT_EQ(parse_value("0o17").node().as_int(), 15);
    EXPECT_EQ(parse_value("0x1F").node().as_int(), 31);
    EXPECT_EQ(parse_value("1_000").node().as_string(), "1_000");
    EXPECT_TRUE(parse_value("1.0").node().is_float());
    EXPECT_DOUBLE_EQ(parse_value("1.0").node().as_double(), 1.0);
    EXPECT_DOUBLE_EQ(parse_value("1e3").node().as_double(), 1000.0);
    EXPECT_TRUE(parse_value("1e3").node().is_float());
    EXPECT_DOUBLE_EQ(parse_value(".5").node().as_double(), 0.5);
    const Value ninf = parse_value("-.inf");
    EXPECT_TRUE(ninf.node().is_float());
    EXPECT_TRUE(std::isinf(ninf.node().as_double()) && ninf.node().as_double() < 0);
    const Value nan = parse_value(".NaN");
    EXPECT_TRUE(nan.node().is_float());
    EXPECT_TRUE(std::isnan(nan.node().as_double()));
    EXPECT_EQ(parse_value("1.0.0").node().as_string(), "1.0.0");
    const Value big = parse_value("12345678901234567890");
    EXPECT_TRUE(big.node().is_float());
    EXPECT_DOUBLE_EQ(big.node().as_double(), 12345678901234567890.0);
}

TEST(YamlTyping, TimestampLookingScalarsAreStrings) {
    EXPECT_EQ(parse_value("2025-01-01").node().as_string(), "2025-01-01");
    EXPECT_EQ(parse_value("2025-01-15T10:00:00.123Z").node().as_string(), "2025-01-15T10:00:00.123Z");
    EXPECT_EQ(parse_value("2025-01-01 10:00:00").node().as_string(), "2025-01-01 10:00:00");
    EXPECT_TRUE(parse_value("2025-01-01").node().is_string());
}

TEST(YamlTyping, ScalarTextKeepsTheWrittenForm) {
    EXPECT_EQ(parse_value("0x1F").node().scalar_text(), "0x1F");
    EXPECT_EQ(parse_value("1.0").node().scalar_text(), "1.0");
    EXPECT_EQ(parse_value("TRUE").node().scalar_text(), "TRUE");
    EXPECT_EQ(parse_value("~").node().scalar_text(), "~");
}

TEST(YamlTyping, QuotedScalarsAreStrings) {
    const Document doc = parse_ok(
        "a: '123'\nb: \"true\"\nc: \"null\"\nd: ''\ne: \"1.5\"\nf: '~'\ng: \"2025-01-01\"\n");
    const NodeRef root = doc.root();
    EXPECT_EQ(root.find("a").as_string(), "123");
    EXPECT_TRUE(root.find("a").is_string());
    EXPECT_EQ(root.find("b").as_string(), "true");
    EXPECT_TRUE(root.find("b").is_string());
    EXPECT_EQ(root.find("c").as_string(), "null");
    EXPECT_TRUE(root.find("d").is_string());
    EXPECT_EQ(root.find("d").as_string(), "");
    EXPECT_EQ(root.find("e").as_string(), "1.5");
    EXPECT_EQ(root.find("f").as_string(), "~");
    EXPECT_EQ(root.find("g").as_string(), "2025-01-01");
}

TEST(YamlTyping, BlockScalarsAreStrings) {
    const Document doc = parse_ok("lit: |\n  123\nfold: >-\n  1.5\nkeep: |+\n  true\n\nend: x\n");
    const NodeRef root = doc.root();
    EXPECT_TRUE(root.find("lit").is_string());
    EXPECT_EQ(root.find("lit").as_string(), "123\n");
    EXPECT_TRUE(root.find("fold").is_string());
    EXPECT_EQ(root.find("fold").as_string(), "1.5");
    EXPECT_TRUE(root.find("keep").is_string());
    EXPECT_EQ(root.find("keep").as_string(), "true\n\n");
    EXPECT_EQ(root.find("end").as_string(), "x");
}

TEST(YamlTyping, StrTagForcesString) {
    const Document doc = parse_ok("d: !!str 2025-01-01\nn: !!str 123\nb: !!str true\nz: !!str null\nx: ! 42\n");
    const NodeRef root = doc.root();
    EXPECT_TRUE(root.find("d").is_string());
    EXPECT_EQ(root.find("d").as_string(), "2025-01-01");
    EXPECT_TRUE(root.find("n").is_string());
    EXPECT_EQ(root.find("n").as_string(), "123");
    EXPECT_TRUE(root.find("b").is_string());
    EXPECT_EQ(root.find("b").as_string(), "true");
    EXPECT_TRUE(root.find("z").is_string());
    EXPECT_EQ(root.find("z").as_string(), "null");
    // The non-specific tag "!" on a plain scalar also means "string".
    EXPECT_TRUE(root.find("x").is_string());
    EXPECT_EQ(root.find("x").as_string(), "42");
}

TEST(YamlTyping, KeysAreTypedButFoundByText) {
    const Document doc = parse_ok("1: one\ntrue: yes\nnull: nothing\n");
    const NodeRef root = doc.root();
    ASSERT_EQ(root.size(), 3u);
    EXPECT_TRUE(root.key_node(0).is_int());
    EXPECT_TRUE(root.key_node(1).is_bool());
    EXPECT_TRUE(root.key_node(2).is_null());
    EXPECT_EQ(root.find("1").as_string(), "one");
    EXPECT_EQ(root.find("true").as_string(), "yes");
    EXPECT_EQ(root.find("null").as_string(), "nothing");
}

// ------------------------------------------------------------ marks

TEST(YamlMarks, BlockStyle) {
    const Document doc = parse_ok("a: 1\nbb:\n  c: x\n  d: [1, 22]\n");
    const NodeRef root = doc.root();
    ASSERT_TRUE(root.is_mapping());
    EXPECT_EQ(root.key_node(0).mark().line, 1u);
    EXPECT_EQ(root.key_node(0).mark().column, 1u);
    EXPECT_EQ(root.value(0).mark().line, 1u);
    EXPECT_EQ(root.value(0).mark().column, 4u);
    EXPECT_EQ(root.key_node(1).mark().line, 2u);
    EXPECT_EQ(root.key_node(1).mark().column, 1u);
    const NodeRef bb = root.find("bb");
    ASSERT_TRUE(bb.is_mapping());
    EXPECT_EQ(bb.key_node(0).mark().line, 3u);
    EXPECT_EQ(bb.key_node(0).mark().column, 3u);
    EXPECT_EQ(bb.value(0).mark().line, 3u);
    EXPECT_EQ(bb.value(0).mark().column, 6u);
    EXPECT_EQ(bb.key_node(1).mark().line, 4u);
    EXPECT_EQ(bb.key_node(1).mark().column, 3u);
    const NodeRef d = bb.find("d");
    ASSERT_TRUE(d.is_sequence());
    EXPECT_EQ(d.mark().line, 4u);
    EXPECT_EQ(d.mark().column, 6u);
    EXPECT_EQ(d.item(0).mark().line, 4u);
    EXPECT_EQ(d.item(0).mark().column, 7u);
    EXPECT_EQ(d.item(1).mark().line, 4u);
    EXPECT_EQ(d.item(1).mark().column, 10u);
}

TEST(YamlMarks, BlockSequenceItems) {
    const Document doc = parse_ok("items:\n  - id: t1\n    status: done\n  - id: t2\n");
    const NodeRef items = doc.root().find("items");
    ASSERT_TRUE(items.is_sequence());
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(items.item(0).find("id").mark().line, 2u);
    EXPECT_EQ(items.item(0).find("id").mark().column, 9u);
    EXPECT_EQ(items.item(0).key_node(1).mark().line, 3u);
    EXPECT_EQ(items.item(0).key_node(1).mark().column, 5u);
    EXPECT_EQ(items.item(0).find("status").mark().column, 13u);
    EXPECT_EQ(items.item(1).key_node(0).mark().line, 4u);
    EXPECT_EQ(items.item(1).key_node(0).mark().column, 5u);
}

TEST(YamlMarks, FlowStyle) {
    const Document doc = parse_ok("{a: 1, b: [x, yy], c: {d: e}}");
    const NodeRef root = doc.root();
    ASSERT_TRUE(root.is_mapping());
    EXPECT_EQ(root.mark().line, 1u);
    EXPECT_EQ(root.mark().column, 1u);
    EXPECT_EQ(root.key_node(0).mark().column, 2u);
    EXPECT_EQ(root.value(0).mark().column, 5u);
    EXPECT_EQ(root.key_node(1).mark().column, 8u);
    const NodeRef b = root.find("b");
    EXPECT_EQ(b.mark().column, 11u);
    EXPECT_EQ(b.item(0).mark().column, 12u);
    EXPECT_EQ(b.item(1).mark().column, 15u);
    const NodeRef c = root.find("c");
    EXPECT_EQ(c.mark().column, 23u);
    EXPECT_EQ(c.find("d").mark().column, 27u);
    EXPECT_EQ(c.find("d").mark().line, 1u);
}

TEST(YamlMarks, MultiLineFlowAndBlockScalars) {
    const Document doc = parse_ok("text: |\n  one\n  two\nlist: [\n  a,\n  b\n  ]\nlast: z\n");
    const NodeRef root = doc.root();
    EXPECT_EQ(root.find("list").item(0).mark().line, 5u);
    EXPECT_EQ(root.find("list").item(0).mark().column, 3u);
    EXPECT_EQ(root.find("list").item(1).mark().line, 6u);
    EXPECT_EQ(root.find("last").mark().line, 8u);
    EXPECT_EQ(root.find("last").mark().column, 7u);
}

TEST(YamlMarks, ValueAfterByteOrderMark) {
    const Document doc = parse_ok("\xEF\xBB\xBFkey: value\nnext: 2\n");
    const NodeRef root = doc.root();
    ASSERT_TRUE(root.is_mapping());
    EXPECT_EQ(root.key(0), "key");  // the BOM is not part of the key
    EXPECT_EQ(root.find("key").as_string(), "value");
    EXPECT_EQ(root.key_node(0).mark().line, 1u);
    EXPECT_EQ(root.key_node(0).mark().column, 1u);
    EXPECT_EQ(root.find("key").mark().line, 1u);
    EXPECT_EQ(root.find("key").mark().column, 6u);
    EXPECT_EQ(root.find("next").mark().line, 2u);
    EXPECT_EQ(root.find("next").mark().column, 7u);
}

TEST(YamlMarks, CrlfLineEndings) {
    const Document doc = parse_ok("a: 1\r\nb: two\r\n\r\nc:\r\n  - x\r\n  - y\r\n");
    const NodeRef root = doc.root();
    ASSERT_TRUE(root.is_mapping());
    EXPECT_EQ(root.find("b").as_string(), "two");  // no stray \r
    EXPECT_EQ(root.find("b").mark().line, 2u);
    EXPECT_EQ(root.find("b").mark().column, 4u);
    EXPECT_EQ(root.key_node(2).mark().line, 4u);
    const NodeRef c = root.find("c");
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c.item(0).as_string(), "x");
    EXPECT_EQ(c.item(1).as_string(), "y");
    EXPECT_EQ(c.item(1).mark().line, 6u);
    EXPECT_EQ(c.item(1).mark().column, 5u);
}

TEST(YamlMarks, CrlfErrorLine) {
    const Error e = parse_err("a: 1\r\nb: 2\r\na: 3\r\n");
    EXPECT_EQ(e.line, 3u);
    EXPECT_EQ(e.column, 1u);
}

TEST(YamlMarks, EmptyValuesHaveAPosition) {
    const Document doc = parse_ok("a:\nb: 1\nlist:\n  - \n  - x\nflow: {k: , j}\n");
    const NodeRef root = doc.root();
    ASSERT_TRUE(root.find("a").is_null());
    EXPECT_EQ(root.find("a").mark().line, 1u);
    EXPECT_GE(root.find("a").mark().column, 2u);
    const NodeRef list = root.find("list");
    ASSERT_TRUE(list.item(0).is_null());
    EXPECT_EQ(list.item(0).mark().line, 4u);
    EXPECT_GE(list.item(0).mark().column, 3u);
    const NodeRef flow = root.find("flow");
    EXPECT_EQ(flow.find("k").mark().line, 6u);
    EXPECT_GE(flow.find("k").mark().column, 9u);
    EXPECT_EQ(flow.find("j").mark().line, 6u);
    EXPECT_GE(flow.find("j").mark().column, 13u);
    const Document bare = parse_ok("---\n");
    if (bare.root().valid()) {
        EXPECT_EQ(bare.root().mark().line, 1u);
    }
}

TEST(YamlMarks, ColumnsCountCharactersNotBytes) {
    // Columns in messages are what an editor shows: characters.
    const Document doc = parse_ok("\xC3\xA9t\xC3\xA9: \xC3\xBC\nk: v\n");  // "été: ü"
    const NodeRef root = doc.root();
    EXPECT_EQ(root.key(0), "\xC3\xA9t\xC3\xA9");
    EXPECT_EQ(root.value(0).mark().column, 6u);
}

// ------------------------------------------------------------ errors

TEST(YamlErrors, DuplicateKeyAtTopLevel) {
    const Error e = parse_err("a: 1\nb: 2\na: 3\n");
    EXPECT_EQ(e.kind, Error::Kind::Invalid);
    EXPECT_EQ(e.file, "test.yml");
    EXPECT_EQ(e.line, 3u);
    EXPECT_EQ(e.column, 1u);
    EXPECT_TRUE(contains(e.message, "duplicate key \"a\"")) << e.message;
    EXPECT_TRUE(contains(e.message, "line 1")) << e.message;
    EXPECT_EQ(e.describe().rfind("test.yml:3:1: ", 0), 0u) << e.describe();
}

TEST(YamlErrors, DuplicateKeyNested) {
    const Error e = parse_err("top:\n  x: 1\n  y: 2\n  x: 3\n");
    EXPECT_EQ(e.line, 4u);
    EXPECT_EQ(e.column, 3u);
    EXPECT_TRUE(contains(e.message, "\"x\"")) << e.message;
    EXPECT_TRUE(contains(e.message, "line 2")) << e.message;
}

TEST(YamlErrors, DuplicateKeyInsideSequenceItem) {
    const Error e = parse_err("entries:\n  - task: a\n  - task: b\n    note: x\n    task: c\n");
    EXPECT_EQ(e.line, 5u);
    EXPECT_EQ(e.column, 5u);
    EXPECT_TRUE(contains(e.message, "\"task\"")) << e.message;
    EXPECT_TRUE(contains(e.message, "line 3")) << e.message;
}

TEST(YamlErrors, DuplicateKeyInFlowMapping) {
    const Error e = parse_err("{a: 1, a: 2}");
    EXPECT_EQ(e.line, 1u);
    EXPECT_EQ(e.column, 8u);
    EXPECT_TRUE(contains(e.message, "duplicate key \"a\"")) << e.message;
}

TEST(YamlErrors, DuplicateKeyWrittenDifferently) {
    // Keys are compared by their text after unescaping: 'a' and "a" and a are one key.
    const Error quoted = parse_err("a: 1\n'a': 2\n");
    EXPECT_EQ(quoted.line, 2u);
    EXPECT_TRUE(contains(quoted.message, "\"a\"")) << quoted.message;
    const Error escaped = parse_err("ab: 1\n\"a\\x62\": 2\n");
    EXPECT_EQ(escaped.line, 2u);
    // 1 and "1" both become the JSON member "1".
    const Error numeric = parse_err("1: a\n\"1\": b\n");
    EXPECT_EQ(numeric.line, 2u);
}

TEST(YamlErrors, SameKeyInDifferentMappingsIsFine) {
    const Document doc = parse_ok("a: {x: 1}\nb: {x: 2}\nc:\n  - x: 3\n  - x: 4\n");
    EXPECT_EQ(doc.root().find("b").find("x").as_int(), 2);
    EXPECT_EQ(doc.root().find("c").item(1).find("x").as_int(), 4);
}

TEST(YamlErrors, UnterminatedQuote) {
    const Error dq = parse_err("a: \"abc\nb: 2\n");
    EXPECT_EQ(dq.kind, Error::Kind::Invalid);
    EXPECT_EQ(dq.file, "test.yml");
    EXPECT_GE(dq.line, 1u);
    EXPECT_GE(dq.column, 1u);
    EXPECT_TRUE(contains(dq.message, "YAML syntax error")) << dq.message;
    const Error sq = parse_err("a: 'abc\n");
    EXPECT_GE(sq.line, 1u);
    EXPECT_GE(sq.column, 1u);
    EXPECT_TRUE(contains(sq.message, "YAML syntax error")) << sq.message;
}

TEST(YamlErrors, BadIndentation) {
    const Error dedent = parse_err("a:\n  b: 1\n c: 2\n");
    EXPECT_EQ(dedent.kind, Error::Kind::Invalid);
    EXPECT_EQ(dedent.file, "test.yml");
    EXPECT_GE(dedent.line, 1u);
    EXPECT_GE(dedent.column, 1u);
    EXPECT_TRUE(contains(dedent.message, "YAML syntax error")) << dedent.message;
    EXPECT_TRUE(contains(dedent.message, "indentation")) << dedent.message;
    const Error over = parse_err("a: 1\n  b: 2\n");
    EXPECT_GE(over.line, 1u);
    EXPECT_GE(over.column, 1u);
}

TEST(YamlErrors, TabIndentation) {
    const Error e = parse_err("a:\n\tb: 1\n");
    EXPECT_EQ(e.kind, Error::Kind::Invalid);
    EXPECT_EQ(e.file, "test.yml");
    EXPECT_GE(e.line, 1u);
    EXPECT_GE(e.column, 1u);
    EXPECT_TRUE(contains(e.message, "tab")) << e.message;
}

TEST(YamlErrors, SyntaxErrorPositionsAreExact) {
    // A one-line input: the error cannot be on line 2.
    const Error at = parse_err("a: @x");
    EXPECT_EQ(at.line, 1u);
    EXPECT_EQ(at.column, 4u);
    const Error nested = parse_err("a: b: c");
    EXPECT_EQ(nested.line, 1u);
    const Error dedent = parse_err("a:\n  b: 1\n c: 2\n");
    EXPECT_EQ(dedent.line, 3u);
    EXPECT_EQ(dedent.column, 2u);
    const Error tab = parse_err("a:\n\tb: 1\n");
    EXPECT_EQ(tab.line, 2u);
    EXPECT_EQ(tab.column, 1u);
    const Error seq = parse_err("summary: ok\nnext:\n  - a\n - b\n");
    EXPECT_EQ(seq.line, 4u);
    EXPECT_EQ(seq.column, 2u);
    const Error over = parse_err("a: 1\n  b: 2\n");
    EXPECT_EQ(over.line, 1u);  // the multi-line plain key "1 b" starts at 1:4
    EXPECT_EQ(over.column, 4u);
}

TEST(YamlErrors, InvalidUtf8NamesTheByte) {
    const Error e = parse_err("a: ok\nb: x\xff\n");
    EXPECT_EQ(e.kind, Error::Kind::Invalid);
    EXPECT_EQ(e.file, "test.yml");
    EXPECT_EQ(e.line, 2u);
    EXPECT_EQ(e.column, 5u);
    EXPECT_TRUE(contains(e.message, "UTF-8")) << e.message;
    EXPECT_TRUE(contains(e.message, "byte 10")) << e.message;
}

TEST(YamlErrors, InvalidUtf8ColumnsCountCharacters) {
    const Error e = parse_err("\xC3\xA9: \xC3\n");  // "é: " then a truncated sequence
    EXPECT_EQ(e.line, 1u);
    EXPECT_EQ(e.column, 4u);
}

TEST(YamlErrors, InvalidUtf8Forms) {
    for (const char* bad : {"a: \xC0\xAF\n",          // overlong '/'
                            "a: \xED\xA0\x80\n",      // UTF-16 surrogate
                            "a: \xF4\x90\x80\x80\n",  // above U+10FFFF
                            "a: \x80\n",              // lone continuation byte
                            "a: \xE2\x82\n",          // truncated
                            "a: \xF8\x88\x80\x80\x80\n"}) {
        const Error e = parse_err(bad);
        EXPECT_EQ(e.line, 1u) << bad;
        EXPECT_EQ(e.column, 4u) << bad;
        EXPECT_TRUE(contains(e.message, "UTF-8")) << e.message;
    }
    // Valid multi-byte text (2, 3 and 4 bytes) is accepted.
    const Document doc = parse_ok("a: \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\n");
    EXPECT_EQ(doc.root().find("a").as_string(), "\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
}

TEST(YamlErrors, UnknownAlias) {
    const Error e = parse_err("a: 1\nb: *nope\n");
    EXPECT_EQ(e.kind, Error::Kind::Invalid);
    EXPECT_EQ(e.line, 2u);
    EXPECT_TRUE(contains(e.message, "*nope")) << e.message;
    EXPECT_TRUE(contains(e.message, "unknown anchor")) << e.message;
}

TEST(YamlErrors, SelfReferentialAliasIsAnError) {
    const Error e = parse_err("a: &x [1, *x]\n");
    EXPECT_EQ(e.line, 1u);
    EXPECT_TRUE(contains(e.message, "*x")) << e.message;
}

TEST(YamlErrors, AliasErrorPointsAtTheStar) {
    const Error e = parse_err("a: 1\nb: *nope\n");
    EXPECT_EQ(e.line, 2u);
    EXPECT_EQ(e.column, 4u);
    const Error self = parse_err("a: &x [1, *x]\n");
    EXPECT_EQ(self.column, 11u);
}

TEST(YamlErrors, ComplexKeys) {
    const Error block = parse_err("? [a, b]\n: 1\n");
    EXPECT_EQ(block.line, 1u);
    EXPECT_EQ(block.column, 3u);
    EXPECT_TRUE(contains(block.message, "mapping keys must be plain text")) << block.message;
    const Error mapping_key = parse_err("? {k: v}\n: 1\n");
    EXPECT_EQ(mapping_key.line, 1u);
    EXPECT_TRUE(contains(mapping_key.message, "mapping keys must be plain text")) << mapping_key.message;
    const Error flow = parse_err("x: {[a]: 1}\n");
    EXPECT_EQ(flow.line, 1u);
    EXPECT_TRUE(contains(flow.message, "mapping keys must be plain text")) << flow.message;
    const Error alias = parse_err("m: &m {k: v}\nn: {*m : 1}\n");
    EXPECT_EQ(alias.line, 2u);
    EXPECT_TRUE(contains(alias.message, "mapping keys must be plain text")) << alias.message;
}

TEST(YamlErrors, AliasToScalarIsAllowedAsKey) {
    const Document doc = parse_ok("a: &k name\nm: {*k : 1}\n");
    EXPECT_EQ(doc.root().find("m").find("name").as_int(), 1);
}

TEST(YamlErrors, DepthLimit) {
    YamlLimits limits;
    limits.max_depth = 3;
    const Document ok = parse_ok("a: {b: {c: 1}}\n", limits);
    EXPECT_EQ(ok.root().find("a").find("b").find("c").as_int(), 1);
    const Error e = parse_err("a: {b: {c: {d: 1}}}\n", limits);
    EXPECT_EQ(e.line, 1u);
    EXPECT_EQ(e.column, 12u);
    EXPECT_TRUE(contains(e.message, "deeper than 3")) << e.message;
    const Error block = parse_err("a:\n  b:\n    - - x\n", limits);
    EXPECT_EQ(block.line, 3u);
    EXPECT_TRUE(contains(block.message, "deeper than 3")) << block.message;
}

TEST(YamlErrors, DefaultDepthLimitStopsDeepNesting) {
    const std::string deep = std::string(5000, '[') + std::string(5000, ']');
    const Error e = parse_err(deep);
    EXPECT_EQ(e.line, 1u);
    EXPECT_TRUE(contains(e.message, "deeper than 256")) << e.message;
    const std::string fine = std::string(200, '[') + "1" + std::string(200, ']');
    const Document doc = parse_ok(fine);
    NodeRef n = doc.root();
    for (int i = 0; i < 200; ++i) {
        ASSERT_TRUE(n.is_sequence()) << i;
        n = n.item(0);
    }
    EXPECT_EQ(n.as_int(), 1);
}

TEST(YamlErrors, AliasBombWithSmallLimit) {
    YamlLimits limits;
    limits.max_alias_nodes = 1000;
    const std::string bomb =
        "a: &a [1,2,3,4,5,6,7,8,9,10]\n"
        "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
        "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
        "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n";
    const Error e = parse_err(bomb, limits);
    EXPECT_EQ(e.kind, Error::Kind::Invalid);
    EXPECT_EQ(e.line, 3u);
    EXPECT_TRUE(contains(e.message, "1000")) << e.message;
    EXPECT_TRUE(contains(e.message, "alias")) << e.message;
    // The first two lines alone stay under the limit.
    const Document doc = parse_ok(bomb.substr(0, bomb.find("c:")), limits);
    EXPECT_EQ(doc.root().find("b").size(), 10u);
    EXPECT_EQ(doc.root().find("b").item(9).item(9).as_int(), 10);
}

TEST(YamlErrors, BillionLaughsWithDefaultLimitsFailsFast) {
    std::string bomb = "l0: &l0 [lol,lol,lol,lol,lol,lol,lol,lol,lol,lol]\n";
    for (int i = 1; i <= 9; ++i) {
        const std::string prev = "*l" + std::to_string(i - 1);
        bomb += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
        for (int k = 0; k < 10; ++k) bomb += (k ? "," : "") + prev;
        bomb += "]\n";
    }
    // CPU time of this process, not wall-clock: a loaded machine must not fail it.
    const auto cpu_now = [] {
        timespec ts{};
        ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
    };
    const auto start = cpu_now();
    const Error e = parse_err(bomb);
    const auto elapsed = cpu_now() - start;
    EXPECT_TRUE(contains(e.message, "alias")) << e.message;
    // Aliases may add 1M nodes: the sixth line (l5, 1.1M) crosses the budget.
    EXPECT_GE(e.line, 6u);
    EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), 2000);
}

TEST(YamlErrors, ErrorsCarryTheFileLabel) {
    auto result = parse_yaml("a: 1\na: 2\n", ".small/plan.small.yml");
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().file, ".small/plan.small.yml");
    EXPECT_EQ(result.error().describe().rfind(".small/plan.small.yml:2:1: duplicate key", 0), 0u)
        << result.error().describe();
}

// ------------------------------------------------------------ anchors, documents

TEST(YamlAnchors, AliasToScalar) {
    const Document doc = parse_ok("a: &x hello\nb: *x\nc: &n 42\nd: *n\n");
    EXPECT_EQ(doc.root().find("b").as_string(), "hello");
    EXPECT_TRUE(doc.root().find("d").is_int());
    EXPECT_EQ(doc.root().find("d").as_int(), 42);
}

TEST(YamlAnchors, AliasToSequence) {
    const Document doc = parse_ok("a: &s [1, two]\nb: *s\n");
    const NodeRef b = doc.root().find("b");
    ASSERT_TRUE(b.is_sequence());
    ASSERT_EQ(b.size(), 2u);
    EXPECT_EQ(b.item(0).as_int(), 1);
    EXPECT_EQ(b.item(1).as_string(), "two");
}

TEST(YamlAnchors, AliasToMapping) {
    const Document doc = parse_ok("base: &m\n  k: v\n  n: 1\nuse: *m\nlist: [*m, *m]\n");
    const NodeRef use = doc.root().find("use");
    ASSERT_TRUE(use.is_mapping());
    ASSERT_EQ(use.size(), 2u);
    EXPECT_EQ(use.find("k").as_string(), "v");
    EXPECT_EQ(use.find("n").as_int(), 1);
    EXPECT_EQ(doc.root().find("list").item(1).find("k").as_string(), "v");
}

TEST(YamlAnchors, RedefinedAnchorUsesTheLatest) {
    const Document doc = parse_ok("a: &x 1\nb: *x\nc: &x 2\nd: *x\n");
    EXPECT_EQ(doc.root().find("b").as_int(), 1);
    EXPECT_EQ(doc.root().find("d").as_int(), 2);
}

TEST(YamlDocuments, OnlyTheFirstDocumentIsUsed) {
    const Document doc = parse_ok("a: 1\n---\nb: 2\n");
    ASSERT_TRUE(doc.root().is_mapping());
    EXPECT_EQ(doc.root().size(), 1u);
    EXPECT_EQ(doc.root().find("a").as_int(), 1);
    EXPECT_FALSE(doc.root().find("b").valid());
    const Document explicit_start = parse_ok("---\nfirst: yes\n...\n---\nsecond: no\n");
    EXPECT_EQ(explicit_start.root().size(), 1u);
    EXPECT_EQ(explicit_start.root().find("first").as_string(), "yes");
}

TEST(YamlDocuments, EmptyInputIsAnEmptyDocument) {
    for (const char* text : {"", "# just a comment\n", "# one\n\n# two\n", "\n\n\n", "   \n"}) {
        auto result = parse_yaml(text, "empty.yml");
        ASSERT_TRUE(result.ok()) << "'" << text << "': " << result.error().describe();
        EXPECT_TRUE(result->empty()) << "'" << text << "'";
        EXPECT_FALSE(result->root().valid()) << "'" << text << "'";
    }
}

TEST(YamlDocuments, TopLevelSequenceAndScalar) {
    const Document list = parse_ok("- a\n- b\n- 3\n");
    ASSERT_TRUE(list.root().is_sequence());
    EXPECT_EQ(list.root().size(), 3u);
    EXPECT_EQ(list.root().item(2).as_int(), 3);
    EXPECT_EQ(list.root().mark().line, 1u);
    const Document scalar = parse_ok("hello\n");
    EXPECT_TRUE(scalar.root().is_string());
    EXPECT_EQ(scalar.root().as_string(), "hello");
}

TEST(YamlDocuments, CommentsAreIgnored) {
    const Document doc = parse_ok("# head\na: 1 # trailing\n# mid\nb: 'x # not a comment'\n");
    EXPECT_EQ(doc.root().size(), 2u);
    EXPECT_EQ(doc.root().find("a").as_int(), 1);
    EXPECT_EQ(doc.root().find("b").as_string(), "x # not a comment");
}

// ------------------------------------------------------------ source slices

TEST(YamlSource, DocumentKeepsTheInputBytes) {
    const std::string input = "name: hello world\nlist:\n  - alpha\n";
    const Document doc = parse_ok(input);
    EXPECT_EQ(doc.source(), input);
    const std::string_view v = doc.root().find("name").as_string();
    EXPECT_EQ(v, "hello world");
    EXPECT_EQ(v, std::string_view(doc.source()).substr(6, 11));
    EXPECT_EQ(doc.root().find("list").item(0).as_string(), "alpha");
}

TEST(YamlSource, TextSurvivesMovingTheDocument) {
    // A short input lives in std::string's inline buffer: moving the
    // document moves the bytes, so scalar text must not point at the old copy.
    Document first = parse_ok("a: b\nc: [d]\n");
    Document moved = std::move(first);
    Document again;
    again = std::move(moved);
    EXPECT_EQ(again.root().find("a").as_string(), "b");
    EXPECT_EQ(again.root().key(1), "c");
    EXPECT_EQ(again.root().find("c").item(0).as_string(), "d");
}

TEST(YamlSource, EscapedAndFoldedScalarsAreUnescaped) {
    const Document doc = parse_ok(
        "tab: \"a\\tb\"\n"
        "uni: \"\\u00e9\\U0001F600\"\n"
        "nl: \"x\\ny\"\n"
        "sq: 'it''s'\n"
        "plain: one\n  two\n"
        "dq: \"line\n  folded\"\n");
    const NodeRef root = doc.root();
    EXPECT_EQ(root.find("tab").as_string(), std::string_view("a\tb", 3));
    EXPECT_EQ(root.find("uni").as_string(), "\xC3\xA9\xF0\x9F\x98\x80");
    EXPECT_EQ(root.find("nl").as_string(), "x\ny");
    EXPECT_EQ(root.find("sq").as_string(), "it's");
    EXPECT_EQ(root.find("plain").as_string(), "one two");
    EXPECT_EQ(root.find("dq").as_string(), "line folded");
}

TEST(YamlSource, LargeTopLevelSequence) {
    // A large top-level block sequence (the shape of a long progress log)
    // parses to the same tree with exact marks, whatever path the loader takes.
    std::string input = "entries:\n";
    const int n = 4000;
    for (int i = 0; i < n; ++i) {
        input += "  - task: t" + std::to_string(i) + "\n    n: " + std::to_string(i) + "\n    note: \"q\\t" +
                 std::to_string(i) + "\"\n";
    }
    input += "tail: end\n";
    const Document doc = parse_ok(input);
    const NodeRef entries = doc.root().find("entries");
    ASSERT_TRUE(entries.is_sequence());
    ASSERT_EQ(entries.size(), static_cast<std::size_t>(n));
    for (int i : {0, 1, 777, n / 2, n - 1}) {
        const NodeRef e = entries.item(static_cast<std::size_t>(i));
        EXPECT_EQ(e.find("task").as_string(), "t" + std::to_string(i));
        EXPECT_EQ(e.find("n").as_int(), i);
        EXPECT_EQ(e.find("note").as_string(), "q\t" + std::to_string(i));
        EXPECT_EQ(e.find("task").mark().line, static_cast<std::uint32_t>(2 + 3 * i));
        EXPECT_EQ(e.find("task").mark().column, 11u);
        EXPECT_EQ(e.key_node(1).mark().line, static_cast<std::uint32_t>(3 + 3 * i));
    }
    EXPECT_EQ(doc.root().find("tail").as_string(), "end");
    EXPECT_EQ(doc.root().find("tail").mark().line, static_cast<std::uint32_t>(2 + 3 * n));

    // A duplicate key deep inside is still reported at its exact position.
    std::string broken = input;
    const std::string needle = "  - task: t3000\n";
    const std::size_t at = broken.find(needle);
    ASSERT_NE(at, std::string::npos);
    broken.insert(at + needle.size(), "    task: again\n");
    const Error e = parse_err(broken);
    EXPECT_EQ(e.line, static_cast<unsigned>(2 + 3 * 3000 + 1));
    EXPECT_EQ(e.column, 5u);
    EXPECT_TRUE(contains(e.message, "duplicate key \"task\"")) << e.message;
}

// Merge keys: YAML 1.1, but the reference's reader honours them (compatibility).
TEST(YamlMerge, MergeKeyCopiesMissingMembersOnly) {
    const Document doc = parse_ok("base: &b\n  x: 1\n  y: 2\nm:\n  <<: *b\n  y: 3\n");
    const NodeRef m = doc.root().find("m");
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m.find("x").as_int(), 1);
    EXPECT_EQ(m.find("y").as_int(), 3);  // explicit keys win
    EXPECT_FALSE(m.find("<<").valid());
}

TEST(YamlMerge, ListOfMappingsMergesInOrder) {
    const Document doc = parse_ok("a: &a {x: 1}\nb: &b {x: 2, y: 2}\nm:\n  <<: [*a, *b]\n");
    const NodeRef m = doc.root().find("m");
    EXPECT_EQ(m.find("x").as_int(), 1);  // the first source wins
    EXPECT_EQ(m.find("y").as_int(), 2);
}

TEST(YamlMerge, QuotedKeyIsAnOrdinaryKey) {
    const Document doc = parse_ok("m:\n  \"<<\": 5\n");
    EXPECT_EQ(doc.root().find("m").find("<<").as_int(), 5);
}

TEST(YamlMerge, MergingAScalarIsAnError) {
    const Error e = parse_err("m:\n  <<: 5\n");
    EXPECT_EQ(e.line, 2u);
    EXPECT_TRUE(contains(e.message, "merge key")) << e.message;
}

TEST(YamlTags, CoreTagsForceTheirType) {
    const Document doc = parse_ok("f: !!float 1\ni: !!int 7\n");
    EXPECT_EQ(doc.root().find("f").kind(), NodeKind::Float);
    EXPECT_EQ(doc.root().find("i").kind(), NodeKind::Int);
    const Error e = parse_err("i: !!int abc\n");
    EXPECT_TRUE(contains(e.message, "cannot be read as !!int")) << e.message;
}

}  // namespace
}  // namespace small
