// RFC 8785 (JCS) canonicalization: number vectors from RFC 8785 Appendix B,
// the §3.2.2 and §3.2.3 examples, escaping and rejection cases.
#include "small/doc/jcs.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <string>

#include "small/doc/document.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using testing::Tree;

std::string canonical(const Document& doc) {
    auto json = canonical_json(doc.root());
    EXPECT_TRUE(json.ok()) << (json.ok() ? "" : json.error().message);
    return json.ok() ? *json : std::string("<error>");
}

double from_bits(std::uint64_t bits) { return std::bit_cast<double>(bits); }

// ---------------------------------------------------------------- numbers

struct NumberVector {
    std::uint64_t bits;
    const char* expected;
};

// RFC 8785 Appendix B (finite values).
constexpr NumberVector kRfcNumberVectors[] = {
    {0x0000000000000000, "0"},
    {0x8000000000000000, "0"},
    {0x0000000000000001, "5e-324"},
    {0x8000000000000001, "-5e-324"},
    {0x7fefffffffffffff, "1.7976931348623157e+308"},
    {0xffefffffffffffff, "-1.7976931348623157e+308"},
    {0x4340000000000000, "9007199254740992"},
    {0xc340000000000000, "-9007199254740992"},
    {0x4430000000000000, "295147905179352830000"},
    {0x44b52d02c7e14af5, "9.999999999999997e+22"},
    {0x44b52d02c7e14af6, "1e+23"},
    {0x44b52d02c7e14af7, "1.0000000000000001e+23"},
    {0x444b1ae4d6e2ef4e, "999999999999999700000"},
    {0x444b1ae4d6e2ef4f, "999999999999999900000"},
    {0x444b1ae4d6e2ef50, "1e+21"},
    {0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
    {0x3eb0c6f7a0b5ed8d, "0.000001"},
    {0x41b3de4355555553, "333333333.3333332"},
    {0x41b3de4355555554, "333333333.33333325"},
    {0x41b3de4355555555, "333333333.3333333"},
    {0x41b3de4355555556, "333333333.3333334"},
    {0x41b3de4355555557, "333333333.33333343"},
    {0xbecbf647612f3696, "-0.0000033333333333333333"},
    {0x43143ff3c1cb0959, "1424953923781206.2"},
    {0x3fd5555555555555, "0.3333333333333333"},
};

TEST(EcmascriptNumber, MatchesRfc8785AppendixB) {
    for (const auto& v : kRfcNumberVectors) {
        EXPECT_EQ(format_ecmascript_number(from_bits(v.bits)), v.expected) << std::hex << "bits 0x" << v.bits;
    }
}

TEST(EcmascriptNumber, RfcVectorsThroughCanonicalJson) {
    for (const auto& v : kRfcNumberVectors) {
        EXPECT_EQ(canonical(Tree().real(from_bits(v.bits)).done()), v.expected);
    }
}

TEST(EcmascriptNumber, NotationBoundaries) {
    EXPECT_EQ(format_ecmascript_number(1), "1");
    EXPECT_EQ(format_ecmascript_number(-1), "-1");
    EXPECT_EQ(format_ecmascript_number(1.0), "1");
    EXPECT_EQ(format_ecmascript_number(2.5), "2.5");
    EXPECT_EQ(format_ecmascript_number(-0.5), "-0.5");
    EXPECT_EQ(format_ecmascript_number(100), "100");
    EXPECT_EQ(format_ecmascript_number(1e20), "100000000000000000000");
    EXPECT_EQ(format_ecmascript_number(1e21), "1e+21");
    EXPECT_EQ(format_ecmascript_number(1.5e21), "1.5e+21");
    EXPECT_EQ(format_ecmascript_number(1e-6), "0.000001");
    EXPECT_EQ(format_ecmascript_number(1.5e-6), "0.0000015");
    EXPECT_EQ(format_ecmascript_number(1e-7), "1e-7");
    EXPECT_EQ(format_ecmascript_number(1.5e-7), "1.5e-7");
    EXPECT_EQ(format_ecmascript_number(-1.5e-7), "-1.5e-7");
    EXPECT_EQ(format_ecmascript_number(0.1), "0.1");
    EXPECT_EQ(format_ecmascript_number(0.1 + 0.2), "0.30000000000000004");
    EXPECT_EQ(format_ecmascript_number(123.456), "123.456");
    EXPECT_EQ(format_ecmascript_number(1e300), "1e+300");
    EXPECT_EQ(format_ecmascript_number(-0.0), "0");
}

TEST(EcmascriptNumber, NonFiniteRenderAsEcmascriptDoes) {
    EXPECT_EQ(format_ecmascript_number(std::numeric_limits<double>::quiet_NaN()), "NaN");
    EXPECT_EQ(format_ecmascript_number(std::numeric_limits<double>::infinity()), "Infinity");
    EXPECT_EQ(format_ecmascript_number(-std::numeric_limits<double>::infinity()), "-Infinity");
}

TEST(CanonicalJson, IntegersAreConvertedToDoubles) {
    EXPECT_EQ(canonical(Tree().integer(0).done()), "0");
    EXPECT_EQ(canonical(Tree().integer(-42).done()), "-42");
    EXPECT_EQ(canonical(Tree().integer(9007199254740991).done()), "9007199254740991");
    // 2^53 + 1 is not a double; it rounds to 2^53 as in JavaScript.
    EXPECT_EQ(canonical(Tree().integer(9007199254740993).done()), "9007199254740992");
    EXPECT_EQ(canonical(Tree().integer(std::numeric_limits<std::int64_t>::max()).done()),
              "9223372036854776000");
    EXPECT_EQ(canonical(Tree().integer(std::numeric_limits<std::int64_t>::min()).done()),
              "-9223372036854776000");
}

TEST(CanonicalJson, RejectsNonFiniteNumbers) {
    for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                       -std::numeric_limits<double>::infinity(), from_bits(0x7fffffffffffffff),
                       from_bits(0x7ff0000000000000)}) {
        const Document doc = Tree().map().key("x").real(bad).end().done();
        const auto json = canonical_json(doc.root());
        ASSERT_FALSE(json.ok());
        EXPECT_EQ(json.error().kind, Error::Kind::Invalid);
        EXPECT_NE(json.error().message.find("cannot be represented in canonical JSON"), std::string::npos)
            << json.error().message;
    }
}

TEST(CanonicalJson, NonFiniteErrorCarriesTheNodePosition) {
    DocumentBuilder b;
    b.begin_mapping({1, 1});
    b.add_string("x", {2, 3});
    b.add_float(std::numeric_limits<double>::infinity(), {2, 6}, ".inf");
    b.end();
    const Document doc = b.finish();
    const auto json = canonical_json(doc.root());
    ASSERT_FALSE(json.ok());
    EXPECT_EQ(json.error().line, 2u);
    EXPECT_EQ(json.error().column, 6u);
    EXPECT_NE(json.error().message.find(".inf"), std::string::npos);
}

// ---------------------------------------------------------------- literals, structure

TEST(CanonicalJson, Literals) {
    EXPECT_EQ(canonical(Tree().null().done()), "null");
    EXPECT_EQ(canonical(Tree().boolean(true).done()), "true");
    EXPECT_EQ(canonical(Tree().boolean(false).done()), "false");
}

TEST(CanonicalJson, EmptyContainers) {
    EXPECT_EQ(canonical(Tree().map().end().done()), "{}");
    EXPECT_EQ(canonical(Tree().seq().end().done()), "[]");
}

TEST(CanonicalJson, NestedStructuresWithoutWhitespace) {
    const Document doc = Tree()
                             .map()
                             .key("b").seq().integer(1).str("two").seq().end().map().end().end()
                             .key("a").map().key("z").null().key("y").boolean(true).end()
                             .end()
                             .done();
    EXPECT_EQ(canonical(doc), R"({"a":{"y":true,"z":null},"b":[1,"two",[],{}]})");
}

TEST(CanonicalJson, SequencesKeepTheirOrder) {
    EXPECT_EQ(canonical(Tree().seq().str("b").str("a").str("c").end().done()), R"(["b","a","c"])");
}

TEST(CanonicalJson, CanonicalizesASubtree) {
    const Document doc = Tree().map().key("outer").map().key("b").integer(2).key("a").integer(1).end().end().done();
    const auto json = canonical_json(doc.root().find("outer"));
    ASSERT_TRUE(json.ok());
    EXPECT_EQ(*json, R"({"a":1,"b":2})");
}

TEST(CanonicalJson, AbsentNodeIsAnError) {
    EXPECT_FALSE(canonical_json(NodeRef()).ok());
}

// RFC 8785 §3.2.2: the complete example.
TEST(CanonicalJson, Rfc8785Section322Example) {
    const Document doc = Tree()
                             .map()
                             .key("numbers").seq()
                             .real(333333333.33333329).real(1e30).real(4.50).real(2e-3)
                             .real(0.000000000000000000000000001)
                             .end()
                             .key("string").str("\xE2\x82\xAC$\x0F\nA'B\"\\\\\"/")
                             .key("literals").seq().null().boolean(true).boolean(false).end()
                             .end()
                             .done();
    EXPECT_EQ(canonical(doc),
              "{\"literals\":[null,true,false],"
              "\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
              "\"string\":\"\xE2\x82\xAC$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
}

// ---------------------------------------------------------------- member order

// RFC 8785 §3.2.3: names sort by UTF-16 code units, so U+1F600 (D83D DE00)
// comes before U+FB33 even though its code point is larger.
TEST(CanonicalJson, Rfc8785Section323SortingExample) {
    const Document doc = Tree()
                             .map()
                             .key("\xE2\x82\xAC").str("Euro Sign")
                             .key("\r").str("Carriage Return")
                             .key("\xEF\xAC\xB3").str("Hebrew Letter Dalet With Dagesh")
                             .key("1").str("One")
                             .key("\xF0\x9F\x98\x80").str("Emoji: Grinning Face")
                             .key("\xC2\x80").str("Control")
                             .key("\xC3\xB6").str("Latin Small Letter O With Diaeresis")
                             .end()
                             .done();
    EXPECT_EQ(canonical(doc),
              "{\"\\r\":\"Carriage Return\","
              "\"1\":\"One\","
              "\"\xC2\x80\":\"Control\","
              "\"\xC3\xB6\":\"Latin Small Letter O With Diaeresis\","
              "\"\xE2\x82\xAC\":\"Euro Sign\","
              "\"\xF0\x9F\x98\x80\":\"Emoji: Grinning Face\","
              "\"\xEF\xAC\xB3\":\"Hebrew Letter Dalet With Dagesh\"}");
}

TEST(CanonicalJson, SupplementaryCharactersSortBeforeHighBmp) {
    // U+1F600 vs U+FB01 (the "fi" ligature): code point order would put the
    // ligature first; UTF-16 order puts the emoji first.
    const Document doc = Tree()
                             .map()
                             .key("\xEF\xAC\x81").str("ligature")
                             .key("\xF0\x9F\x98\x80").str("emoji")
                             .key("a").str("ascii")
                             .key("\xC3\xA9").str("e-acute")
                             .key("Z").str("upper")
                             .key("aa").str("double")
                             .key("").str("empty")
                             .end()
                             .done();
    EXPECT_EQ(canonical(doc),
              "{\"\":\"empty\",\"Z\":\"upper\",\"a\":\"ascii\",\"aa\":\"double\","
              "\"\xC3\xA9\":\"e-acute\",\"\xF0\x9F\x98\x80\":\"emoji\",\"\xEF\xAC\x81\":\"ligature\"}");
}

TEST(CanonicalJson, KeyOrderOfInputDoesNotMatter) {
    const Document forward = Tree().map().key("a").integer(1).key("b").integer(2).key("c").integer(3).end().done();
    const Document backward = Tree().map().key("c").integer(3).key("b").integer(2).key("a").integer(1).end().done();
    EXPECT_EQ(canonical(forward), canonical(backward));
    EXPECT_EQ(canonical(forward), R"({"a":1,"b":2,"c":3})");
}

TEST(CanonicalJson, KeysAreEscapedLikeStrings) {
    const Document doc = Tree().map().key("q\"k").integer(1).key("tab\t").integer(2).end().done();
    EXPECT_EQ(canonical(doc), R"({"q\"k":1,"tab\t":2})");
}

// ---------------------------------------------------------------- strings

TEST(CanonicalJson, ShortEscapes) {
    EXPECT_EQ(canonical(Tree().str("\"").done()), R"("\"")");
    EXPECT_EQ(canonical(Tree().str("\\").done()), R"("\\")");
    EXPECT_EQ(canonical(Tree().str("\b\f\n\r\t").done()), R"("\b\f\n\r\t")");
}

TEST(CanonicalJson, OtherControlCharactersUseLowercaseUnicodeEscapes) {
    EXPECT_EQ(canonical(Tree().str(std::string_view("\0", 1)).done()), R"("\u0000")");
    EXPECT_EQ(canonical(Tree().str("\x01").done()), R"("\u0001")");
    EXPECT_EQ(canonical(Tree().str("\x0b").done()), R"("\u000b")");
    EXPECT_EQ(canonical(Tree().str("\x1f").done()), R"("\u001f")");
}

TEST(CanonicalJson, EverythingElseIsLiteral) {
    EXPECT_EQ(canonical(Tree().str("/").done()), R"("/")");
    EXPECT_EQ(canonical(Tree().str("\x7f").done()), "\"\x7f\"");
    EXPECT_EQ(canonical(Tree().str("\xE2\x80\xA8\xE2\x80\xA9").done()), "\"\xE2\x80\xA8\xE2\x80\xA9\"");
    EXPECT_EQ(canonical(Tree().str("Gr\xC3\xBC\xC3\x9F" "e \xF0\x9F\x8E\x89").done()),
              "\"Gr\xC3\xBC\xC3\x9F" "e \xF0\x9F\x8E\x89\"");
    EXPECT_EQ(canonical(Tree().str("\xEF\xBF\xBF").done()), "\"\xEF\xBF\xBF\"");          // U+FFFF
    EXPECT_EQ(canonical(Tree().str("\xF4\x8F\xBF\xBF").done()), "\"\xF4\x8F\xBF\xBF\"");  // U+10FFFF
}

TEST(CanonicalJson, MixedEscapes) {
    const Document doc = Tree().str("Say \"hi\"\\ then\ttab\nnewline \x01 ctrl").done();
    EXPECT_EQ(canonical(doc), R"("Say \"hi\"\\ then\ttab\nnewline \u0001 ctrl")");
}

TEST(CanonicalJson, RejectsInvalidUtf8InValues) {
    const char* const invalid[] = {
        "\x80",              // lone continuation byte
        "\xC3",              // truncated sequence
        "\xC3\x28",          // bad continuation
        "\xC0\xAF",          // overlong '/'
        "\xE0\x80\xAF",      // overlong '/'
        "\xED\xA0\x80",      // UTF-16 surrogate D800
        "\xF4\x90\x80\x80",  // above U+10FFFF
        "\xFF",              // never valid
        "ok\xF0\x9F\x98",    // truncated emoji at end
    };
    for (const char* s : invalid) {
        const Document doc = Tree().seq().str(s).end().done();
        const auto json = canonical_json(doc.root());
        ASSERT_FALSE(json.ok()) << "accepted: " << s;
        EXPECT_EQ(json.error().kind, Error::Kind::Invalid);
        EXPECT_NE(json.error().message.find("UTF-8"), std::string::npos) << json.error().message;
    }
}

TEST(CanonicalJson, RejectsInvalidUtf8InKeys) {
    const Document doc = Tree().map().key("a").integer(1).key("bad\xC3").integer(2).end().done();
    const auto json = canonical_json(doc.root());
    ASSERT_FALSE(json.ok());
    EXPECT_NE(json.error().message.find("UTF-8"), std::string::npos);
}

TEST(CanonicalJson, RejectsExcessiveNesting) {
    Tree tree;
    for (int i = 0; i < 5000; ++i) tree.seq();
    const Document doc = tree.done();
    EXPECT_FALSE(canonical_json(doc.root()).ok());
}

}  // namespace
}  // namespace small
