// The canonical item reader must build exactly the document libfyaml's
// loader builds (kinds, values, texts, lines, columns) or decline. Pieces
// are generated at random from canonical lines and near-misses; the test
// also proves that both the reader and its libfyaml graft ran.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "small/doc/yaml.hpp"
#include "yaml_internal.hpp"

namespace small {
namespace {

// `b` read `line_shift` lines further down than `a`.
void expect_same(NodeRef a, NodeRef b, const std::string& where, std::uint32_t line_shift = 0) {
    ASSERT_EQ(a.kind(), b.kind()) << where;
    ASSERT_EQ(a.mark().line, b.mark().line + line_shift) << where;
    ASSERT_EQ(a.mark().column, b.mark().column) << where;
    ASSERT_EQ(a.scalar_text(), b.scalar_text()) << where;
    ASSERT_EQ(a.as_bool(), b.as_bool()) << where;
    ASSERT_EQ(a.as_int(), b.as_int()) << where;
    if (a.is_float() && a.as_double() == a.as_double()) {
        ASSERT_EQ(a.as_double(), b.as_double()) << where;
    }
    ASSERT_EQ(a.size(), b.size()) << where;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a.is_mapping()) {
            expect_same(a.key_node(i), b.key_node(i), where + "/" + std::string(a.key(i)) + "(key)", line_shift);
            expect_same(a.value(i), b.value(i), where + "/" + std::string(a.key(i)), line_shift);
        } else {
            expect_same(a.item(i), b.item(i), where + "/" + std::to_string(i), line_shift);
        }
    }
}

struct Outcome {
    bool read = false;  // the reader returned a document
    CanonicalStats stats;
};

// The reader's items equal those libfyaml reads from the piece in a file
// (under `entries:`, followed by `following`), or the reader declined; a
// piece libfyaml refuses there is always declined.
Outcome check_piece(const std::string& piece, const std::string& following = "") {
    Outcome out;
    const Result<Document> reference = parse_yaml_events("entries:\n" + piece + following, "t.yml", YamlLimits{});
    ParseStats stats;
    std::optional<Document> fast = read_canonical_items(piece, following, "t.yml", YamlLimits{}, &stats, &out.stats);
    out.read = fast.has_value();
    if (!fast) return out;
    EXPECT_TRUE(reference.ok()) << "accepted what libfyaml refuses:\n" << piece << following << "\n"
                                << reference.error().describe();
    if (!reference.ok()) return out;
    const NodeRef items = reference->root().find("entries");
    const NodeRef read = fast->root();
    const bool one_more = following.find_first_not_of(' ') < following.size() && following[following.find_first_not_of(' ')] == '-';
    EXPECT_EQ(items.size(), read.size() + (one_more ? 1 : 0));
    for (std::size_t i = 0; i < read.size() && i < items.size(); ++i) {
        expect_same(items.item(i), read.item(i), "/" + std::to_string(i), 1);
    }
    EXPECT_EQ(stats.alias_nodes, 0u);
    if (::testing::Test::HasFailure()) ADD_FAILURE() << "piece:\n" << piece << following;
    return out;
}

const std::vector<std::string> kKeys = {
    "timestamp", "task_id", "status", "evidence", "replayId", "notes", "k", "_x", "a-b", "command_sha256",
    // near-misses
    "null", "Null", "true", "TRUE", "false", "False", "on", "y", "~", "1a", "-a", "a b", "a.b", "\"q\"", "'q'",
    "<<", "k ", "é", "?x", "&a k", "!!str k", "[a]", "{a: 1}"};

const std::vector<std::string> kValues = {
    "\"2026-01-01T00:00:00.000000001Z\"", "\"task-1\"", "\"completed\"", "\"Completed step 3; tests passed\"",
    "\"\"", "\"a\"", "\" lead and trail \"", "\"caf\xC3\xA9 \xE2\x80\x94 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80\"",
    "\"say \\\"hi\\\"\"", "\"back\\\\slash\"", "\"two\\nlines\"", "\"tab\\there\"", "\"cr\\r\"", "\"a: b # c\"",
    "\"#hash\"", "\"http://example.com/x\"", "\"ends with backslash\\\\\"",
    // near-misses
    "\"\\u00e9\"", "\"\\x41\"", "\"\\0\"", "\"\\/\"", "\"\\ \"", "\"\\_\"", "\"\\N\"", "\"\\L\"", "\"\\e\"",
    "\"raw\ttab\"", "\"raw\x01" "ctl\"", "\"del\x7F\"", "\"nel\xC2\x85x\"", "\"c1\xC2\x80x\"", "\"ls\xE2\x80\xA8x\"",
    "\"ps\xE2\x80\xA9x\"", "\"bom\xEF\xBB\xBFx\"", "\"nc\xEF\xBF\xBEx\"", "\"nbsp\xC2\xA0x\"",
    "\"unterminated", "\"a\" # comment", "\"a\"  ", "\"a\" ", "\"a\"x", "\"a\"\"b\"", "'single'", "''", "plain",
    "plain words here", "42", "-7", "0x1F", "1.5", ".inf", "true", "null", "~", "", "&anc \"x\"", "*anc",
    "!!str 12", "!!int \"12\"", "[a, b]", "{a: 1}", "|\n      block\n      text", ">\n      folded", "\"multi\n      line\"",
    "plain\n      continued", "\"a\\\n      b\""};

std::string pick(std::mt19937& rng, const std::vector<std::string>& v, std::size_t canonical, int near_miss_percent) {
    const bool miss = static_cast<int>(rng() % 100) < near_miss_percent;
    return miss ? v[rng() % v.size()] : v[rng() % canonical];
}

// One item: `- key: value` and member lines, now and then a line of
// another shape.
std::string random_item(std::mt19937& rng, const std::string& indent, int near_miss_percent, bool crlf = false) {
    static const std::vector<std::string> kOddLines = {
        "", "# comment", "  # indented comment", "\t", "   ", "\r", "#", "---", "..."};
    std::string out;
    const std::size_t members = 1 + rng() % 6;
    std::vector<std::string> keys(kKeys.begin(), kKeys.begin() + 10);
    std::shuffle(keys.begin(), keys.end(), rng);
    for (std::size_t m = 0; m < members; ++m) {
        // Distinct keys, but for near-misses (a duplicate among them).
        const std::string key = static_cast<int>(rng() % 100) < near_miss_percent ? pick(rng, kKeys, 10, near_miss_percent) : keys[m];
        const std::string value = pick(rng, kValues, 17, near_miss_percent);
        std::string lead = m == 0 ? indent + "- " : indent + "  ";
        if (static_cast<int>(rng() % 400) < near_miss_percent) lead += " ";
        if (static_cast<int>(rng() % 400) < near_miss_percent) lead.pop_back();
        std::string line = lead + key + ": " + value;
        if (value.empty()) line.pop_back();  // `key:` with nothing after it
        if (static_cast<int>(rng() % 800) < near_miss_percent) line = lead + key + ":  " + value;
        if (static_cast<int>(rng() % 800) < near_miss_percent) line = lead + key + ":" + value;
        out += line + (crlf || static_cast<int>(rng() % 800) < near_miss_percent ? "\r\n" : "\n");
        if (static_cast<int>(rng() % 800) < near_miss_percent) out += kOddLines[rng() % kOddLines.size()] + "\n";
    }
    if (static_cast<int>(rng() % 1600) < near_miss_percent) out = indent + "-\n";
    if (static_cast<int>(rng() % 1600) < near_miss_percent) out = indent + "- " + pick(rng, kValues, 17, 100) + "\n";
    if (static_cast<int>(rng() % 1600) < near_miss_percent) out = indent + "-   k: \"v\"\n";
    return out;
}

std::string random_piece(std::mt19937& rng, const std::string& indent, int near_miss_percent) {
    std::string piece;
    const std::size_t items = 1 + rng() % 12;
    const bool crlf = rng() % 5 == 0;  // a log checked out with CRLF line ends
    for (std::size_t i = 0; i < items; ++i) piece += random_item(rng, indent, near_miss_percent, crlf);
    if (rng() % 4 == 0 && !piece.empty()) piece.pop_back();  // no final line break
    return piece;
}

TEST(YamlCanonical, RandomPiecesReadAsLibfyamlReadsThem) {
    std::mt19937 rng(39);
    std::size_t accepted = 0, declined = 0, read = 0, grafted = 0;
    for (int round = 0; round < 6000; ++round) {
        const std::string indent(std::vector<std::size_t>{0, 2, 4}[rng() % 3], ' ');
        const int near_miss_percent = std::vector<int>{0, 2, 10, 40}[rng() % 4];
        const std::string piece = random_piece(rng, indent, near_miss_percent);
        // What may follow a piece: the next item's first line, the next key, nothing.
        const std::vector<std::string> following = {"", indent + "- k: \"v\"\n", indent + "- plain\n",
                                                     indent + "- [a]\n", indent + "- k: v", "extra: 1\n", "extra:\n"};
        const Outcome o = check_piece(piece.back() == '\n' ? piece : piece + "\n", following[rng() % following.size()]);
        if (::testing::Test::HasFailure()) return;
        (o.read ? accepted : declined) += 1;
        read += o.stats.items_read;
        grafted += o.stats.items_grafted;
        const Outcome at_end = check_piece(piece);
        if (::testing::Test::HasFailure()) return;
        (at_end.read ? accepted : declined) += 1;
    }
    // Both ways must have run, and a piece must sometimes be declined.
    EXPECT_GT(accepted, 1000u);
    EXPECT_GT(declined, 100u);
    EXPECT_GT(read, 10000u);
    EXPECT_GT(grafted, 500u);
}

TEST(YamlCanonical, WriterOutputIsReadWithoutLibfyaml) {
    const std::string piece =
        "  - timestamp: \"2026-01-01T00:00:00.000000000Z\"\n"
        "    task_id: \"task-1\"\n"
        "    evidence: \"ran \\\"make test\\\" \xE2\x80\x94 ok: yes # 3\"\n"
        "  - task_id: \"task-2\"\n"
        "    notes: \"\"\n";
    const Outcome o = check_piece(piece);
    EXPECT_TRUE(o.read);
    EXPECT_EQ(o.stats.items_read, 2u);
    EXPECT_EQ(o.stats.items_grafted, 0u);
}

TEST(YamlCanonical, OtherItemsAreGraftedFromLibfyaml) {
    const std::string piece =
        "  - task_id: \"task-1\"\n"
        "  - task_id: task-2  # plain, with a comment\n"
        "    evidence: {kind: test, passed: true}\n"
        "\n"
        "  - task_id: \"task-3\"\n"
        "    notes: |\n"
        "      - not an item\n";
    const Outcome o = check_piece(piece);
    EXPECT_TRUE(o.read);
    EXPECT_EQ(o.stats.items_read, 1u);
    EXPECT_EQ(o.stats.items_grafted, 2u);
}

// Grafts set libfyaml up item by item: a piece where they are more than a
// quarter of the items is left to one parse of the whole piece.
TEST(YamlCanonical, PiecesOfMostlyOtherItemsAreLeftToLibfyaml) {
    std::string mostly_plain, mostly_canonical;
    for (int i = 0; i < 40; ++i) mostly_plain += "  - task_id: task-" + std::to_string(i) + "\n";
    for (int i = 0; i < 120; ++i) {
        mostly_canonical += i % 6 == 0 ? "  - task_id: task-" + std::to_string(i) + "\n"
                                       : "  - task_id: \"task-" + std::to_string(i) + "\"\n";
    }
    EXPECT_FALSE(check_piece(mostly_plain).read);
    const Outcome o = check_piece(mostly_canonical);
    EXPECT_TRUE(o.read);
    EXPECT_EQ(o.stats.items_grafted, 20u);
}

TEST(YamlCanonical, WhatCouldReadDifferentlyInContextIsDeclined) {
    // An alias to another item, an empty item (placed by the token before
    // it), a lone CR (a line break '\n' does not count), a duplicate key.
    for (const std::string& piece : {
             std::string("  - a: &x \"1\"\n  - b: *x\n"),
             std::string("  - a: \"1\"\n  -\n"),
             std::string("  - a: \"1\"\r  - b: 2\n"),
             std::string("  - a: \"1\"\n    a: \"2\"\n"),
         }) {
        const Outcome o = check_piece(piece);
        EXPECT_FALSE(o.read) << piece;
    }
}

TEST(YamlCanonical, LogsReadThroughTheReaderMatchTheSequentialParse) {
    std::mt19937 rng(7);
    std::string text = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";
    while (text.size() < (3u << 20)) {
        const std::string item = random_item(rng, "  ", 2);
        // One item, no syntax error, no alias, no line that ends the document or the block.
        const Result<Document> alone = parse_yaml_events(item, "t.yml", YamlLimits{});
        const bool plain = item.find_first_of("&*") == std::string::npos && item.find("\n---") == std::string::npos &&
                           item.find("\n...") == std::string::npos && item.find("\n\t") == std::string::npos;
        if (alone && alone->root().is_sequence() && alone->root().size() == 1 && plain) text += item;
    }
    YamlLimits sequential;
    sequential.parallel = false;
    const Result<Document> one = parse_yaml(text, "t.yml", sequential);
    std::string copy = text;
    const std::optional<Document> split = parse_yaml_split(copy, "t.yml", YamlLimits{});
    ASSERT_TRUE(one.ok()) << one.error().describe();
    ASSERT_GT(one->root().find("entries").size(), 10000u);
    ASSERT_TRUE(split.has_value());
    expect_same(one->root(), split->root(), "");
}

}  // namespace
}  // namespace small
