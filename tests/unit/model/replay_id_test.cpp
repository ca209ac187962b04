// Replay ids: sha256("SMALL|1.0.0|" + JCS(manifest)). The known answers are
// the ids pinned by the conformance corpus (cases/replayid/*); the documents
// are rebuilt here by hand from those workspaces' YAML files (YAML 1.2 core
// schema) so the tests do not depend on the loader.
#include "small/model/replay_id.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "small/doc/document.hpp"
#include "support/fixtures.hpp"
#include "small/doc/jcs.hpp"

namespace small {
namespace {

using testing::Tree;

// ---------------------------------------------------------------- corpus workspaces

struct IntentText {
    std::string intent = "Ship the replay id";
    std::vector<std::string> success_criteria = {"ids are stable"};
};

Document intent_doc(const IntentText& text = {}) {
    Tree t;
    t.map()
        .key("small_version").str("1.0.0")
        .key("owner").str("human")
        .key("intent").str(text.intent)
        .key("scope").map()
            .key("include").seq().str("src/**").end()
            .key("exclude").seq().str("vendor/**").end()
        .end()
        .key("success_criteria").seq();
    for (const auto& c : text.success_criteria) t.str(c);
    return t.end().end().done();
}

// The corpus plan; `extra_task1_members` appends members to task-1.
Document plan_doc(const std::function<void(Tree&)>& extra_task1_members = {},
                  std::string_view task1_title = "Compute ids") {
    Tree t;
    t.map().key("small_version").str("1.0.0").key("owner").str("agent").key("tasks").seq();
    t.map().key("id").str("task-1").key("title").str(task1_title).key("status").str("pending");
    if (extra_task1_members) extra_task1_members(t);
    t.end();
    t.map().key("id").str("task-2").key("title").str("Pin ids").key("status").str("pending");
    t.key("depends_on").seq().str("task-1").end();
    t.end();
    return t.done();  // finish() closes the tasks list and the root mapping
}

Document constraints_doc() {
    return Tree()
        .map()
        .key("small_version").str("1.0.0")
        .key("owner").str("human")
        .key("constraints").seq()
            .map()
                .key("id").str("no-secrets")
                .key("rule").str("No secrets in .small artifacts")
                .key("severity").str("error")
            .end()
        .end()
        .end()
        .done();
}

std::string id_of(const Document& intent, const Document& plan, const Document* constraints) {
    auto id = compute_replay_id(intent.root(), plan.root(), constraints ? constraints->root() : NodeRef());
    EXPECT_TRUE(id.ok()) << (id.ok() ? "" : id.error().message);
    return id.ok() ? *id : std::string();
}

TEST(ReplayId, Corpus001Basic) {
    const Document constraints = constraints_doc();
    EXPECT_EQ(id_of(intent_doc(), plan_doc(), &constraints),
              "58d626edfb45a45d426e91fc788d7ac26f95dcfb35991ad2d7258f829ab5f36f");
}

TEST(ReplayId, Corpus006ConstraintsAbsent) {
    EXPECT_EQ(id_of(intent_doc(), plan_doc(), nullptr),
              "d59f827024e3f31cfa5e25efb69cd447496841578db48025ebcf23a723fd1d4c");
}

TEST(ReplayId, Corpus010UnicodeStrings) {
    IntentText text;
    text.intent = "Caf\xC3\xA9 \xE2\x98\x95 \xE2\x80\x94 \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xF0\x9F\x98\x80 "
                  "na\xC3\xAFve \xCE\xA9mega";
    text.success_criteria = {"Gr\xC3\xBC\xC3\x9F" "e", "emoji \xF0\x9F\x8E\x89 ok"};
    const Document constraints = constraints_doc();
    EXPECT_EQ(id_of(intent_doc(text), plan_doc(), &constraints),
              "3ed058bdb71ab77800312b6067cecf034dd4edbcde5a5a5d4c8e64c35d80380e");
}

TEST(ReplayId, Corpus011Utf16KeyOrder) {
    const Document plan = plan_doc([](Tree& t) {
        t.key("labels").map()
            .key("\xEF\xAC\x81").str("ligature")  // U+FB01
            .key("\xF0\x9F\x98\x80").str("emoji")  // U+1F600
            .key("a").str("ascii")
            .key("\xC3\xA9").str("e-acute")
            .key("Z").str("upper")
            .key("aa").str("double")
        .end();
    });
    const Document constraints = constraints_doc();
    EXPECT_EQ(id_of(intent_doc(), plan, &constraints),
              "ee3c16874279d646ccae7aecd991d2e058b5b710a9ba7b216bdc090e30ff52df");
}

TEST(ReplayId, Corpus012Numbers) {
    const Document plan = plan_doc([](Tree& t) {
        t.key("estimate").integer(3, "3")
            .key("weight").real(2.5, "2.5")
            .key("ratio").real(1.0, "1.0")
            .key("big").real(1e21, "1e21")
            .key("large").real(1e20, "1e+20")
            .key("small").real(0.000001, "0.000001")
            .key("tiny").real(1e-7, "1e-7")
            .key("neg").real(-0.5, "-0.5")
            .key("zero").integer(0, "0")
            .key("negzero").real(-0.0, "-0.0")
            .key("maxsafe").integer(9007199254740991, "9007199254740991")
            .key("third").real(0.3333333333333333, "0.3333333333333333");
    });
    const Document constraints = constraints_doc();
    EXPECT_EQ(id_of(intent_doc(), plan, &constraints),
              "45c8eb0e1d59698d92f81325934b8b6f7b7c14d0e268728abbc90e566c7c8cbd");
}

TEST(ReplayId, Corpus013CoreSchemaIntegers) {
    const Document plan = plan_doc([](Tree& t) {
        t.key("hexint").integer(31, "0x1F")
            .key("octint").integer(15, "0o17")
            .key("leading_zero").integer(7, "007")
            .key("plus").integer(5, "+5");
    });
    const Document constraints = constraints_doc();
    EXPECT_EQ(id_of(intent_doc(), plan, &constraints),
              "ef8d3da5134a3d867a1b7a40139893142741b02cdbe189951879459b4aa2cda5");
}

TEST(ReplayId, Corpus016StringEscapes) {
    const Document plan = plan_doc({}, "Say \"hi\"\\ then\ttab\nnewline \x01 ctrl del");
    const Document constraints = constraints_doc();
    EXPECT_EQ(id_of(intent_doc(), plan, &constraints),
              "a8c9dc5351c01e299f71f00177434bfb3196977b61e2b383184fc5d0d2eb68d0");
}

// ---------------------------------------------------------------- properties

// FIPS 180-2 test vectors: the low-level SHA256_* path gives the standard digest.
TEST(ReplayId, Sha256HexMatchesKnownAnswers) {
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Bytes given piece by piece (a file streamed through a buffer) hash as
// the same bytes given at once; the hasher starts over after each digest.
TEST(ReplayId, Sha256HasherMatchesTheWholeDigest) {
    const std::string text = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    for (std::size_t cut = 0; cut <= text.size(); cut += 7) {
        Sha256Hasher h;
        h.update(std::string_view(text).substr(0, cut));
        h.update(std::string_view(text).substr(cut));
        EXPECT_EQ(h.bytes(), text.size());
        EXPECT_EQ(h.hex(), sha256_hex(text)) << "cut at " << cut;
    }
    Sha256Hasher h;
    for (int i = 0; i < 1000; ++i) h.update(std::string(1000, 'a'));
    EXPECT_EQ(h.hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    EXPECT_EQ(h.bytes(), 0u);
    EXPECT_EQ(h.hex(), sha256_hex("")) << "started over";
}

TEST(ReplayId, IsDefinedOverTheCanonicalManifest) {
    const Document intent = Tree().map().key("b").integer(2, "2").key("a").str("x").end().done();
    const Document plan = Tree().seq().end().done();
    const Document constraints = Tree().map().end().done();
    const std::string manifest = R"({"constraints":{},"intent":{"a":"x","b":2},"plan":[]})";
    EXPECT_EQ(id_of(intent, plan, &constraints), sha256_hex("SMALL|1.0.0|" + manifest));
    EXPECT_EQ(id_of(intent, plan, nullptr), sha256_hex(R"(SMALL|1.0.0|{"intent":{"a":"x","b":2},"plan":[]})"));
}

TEST(ReplayId, ChangingOneValueChangesTheId) {
    const Document constraints = constraints_doc();
    const std::string base = id_of(intent_doc(), plan_doc(), &constraints);
    IntentText changed_intent;
    changed_intent.intent = "Ship the replay id!";
    EXPECT_NE(id_of(intent_doc(changed_intent), plan_doc(), &constraints), base);
    EXPECT_NE(id_of(intent_doc(), plan_doc({}, "Compute ids."), &constraints), base);
    EXPECT_NE(id_of(intent_doc(), plan_doc(), nullptr), base);
}

TEST(ReplayId, KeyOrderDoesNotMatter) {
    const Document constraints = constraints_doc();
    const Document reordered_intent = Tree()
        .map()
        .key("success_criteria").seq().str("ids are stable").end()
        .key("scope").map()
            .key("exclude").seq().str("vendor/**").end()
            .key("include").seq().str("src/**").end()
        .end()
        .key("intent").str("Ship the replay id")
        .key("owner").str("human")
        .key("small_version").str("1.0.0")
        .end()
        .done();
    EXPECT_EQ(id_of(reordered_intent, plan_doc(), &constraints),
              "58d626edfb45a45d426e91fc788d7ac26f95dcfb35991ad2d7258f829ab5f36f");
}

TEST(ReplayId, IntAndEqualFloatHashTheSame) {
    // JCS sees numbers as doubles: 1 and 1.0 are the same value.
    const Document plan_int = Tree().map().key("n").integer(1, "1").end().done();
    const Document plan_float = Tree().map().key("n").real(1.0, "1.0").end().done();
    const Document intent = intent_doc();
    EXPECT_EQ(id_of(intent, plan_int, nullptr), id_of(intent, plan_float, nullptr));
}

TEST(ReplayId, IsAValidReplayId) {
    const Document intent = intent_doc();
    const std::string id = id_of(intent, plan_doc(), nullptr);
    EXPECT_TRUE(is_valid_replay_id(id));
}

TEST(ReplayId, FailsWhenAMemberCannotBeCanonicalized) {
    const Document bad = Tree().map().key("x").real(std::numeric_limits<double>::infinity(), ".inf").end().done();
    const Document good = intent_doc();
    const auto in_plan = compute_replay_id(good.root(), bad.root(), NodeRef());
    ASSERT_FALSE(in_plan.ok());
    EXPECT_NE(in_plan.error().message.find("plan"), std::string::npos) << in_plan.error().message;
    const auto in_constraints = compute_replay_id(good.root(), good.root(), bad.root());
    ASSERT_FALSE(in_constraints.ok());
    EXPECT_NE(in_constraints.error().message.find("constraints"), std::string::npos);
}

TEST(ReplayId, FailsWithoutIntentOrPlan) {
    const Document doc = intent_doc();
    EXPECT_FALSE(compute_replay_id(NodeRef(), doc.root(), NodeRef()).ok());
    EXPECT_FALSE(compute_replay_id(doc.root(), NodeRef(), NodeRef()).ok());
}

// ---------------------------------------------------------------- sha256_hex

TEST(Sha256Hex, KnownVectors) {
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Hex, HandlesEmbeddedNulBytes) {
    const std::string with_nul("a\0b", 3);
    EXPECT_NE(sha256_hex(with_nul), sha256_hex("a"));
    EXPECT_EQ(sha256_hex(with_nul).size(), 64u);
}

// ---------------------------------------------------------------- is_valid_replay_id

TEST(IsValidReplayId, AcceptsExactly64HexDigits) {
    const std::string lower(64, 'a');
    EXPECT_TRUE(is_valid_replay_id(lower));
    EXPECT_TRUE(is_valid_replay_id("58d626edfb45a45d426e91fc788d7ac26f95dcfb35991ad2d7258f829ab5f36f"));
    EXPECT_TRUE(is_valid_replay_id("58D626EDFB45A45D426E91FC788D7AC26F95DCFB35991AD2D7258F829AB5F36F"));
    EXPECT_TRUE(is_valid_replay_id(std::string(32, '0') + std::string(32, 'F')));
}

TEST(IsValidReplayId, RejectsWrongLengths) {
    EXPECT_FALSE(is_valid_replay_id(""));
    EXPECT_FALSE(is_valid_replay_id(std::string(63, 'a')));
    EXPECT_FALSE(is_valid_replay_id(std::string(65, 'a')));
}

TEST(IsValidReplayId, RejectsNonHexCharacters) {
    std::string id(64, 'a');
    for (char bad : {'g', 'G', 'z', ' ', '/', '.', '-', '\0', '\n'}) {
        id[10] = bad;
        EXPECT_FALSE(is_valid_replay_id(id)) << "accepted character code " << static_cast<int>(bad);
    }
    EXPECT_FALSE(is_valid_replay_id("../" + std::string(61, 'a')));
}

}  // namespace
}  // namespace small
