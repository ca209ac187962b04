// The parallel parse of large files must give exactly the document (kinds,
// texts, marks) that one sequential parse gives, or fall back to it.
#include <gtest/gtest.h>

#include <string>

#include "small/doc/yaml.hpp"
#include "yaml_internal.hpp"

namespace small {
namespace {

void expect_same(NodeRef a, NodeRef b, const std::string& where) {
    ASSERT_EQ(a.kind(), b.kind()) << where;
    ASSERT_EQ(a.mark().line, b.mark().line) << where;
    ASSERT_EQ(a.mark().column, b.mark().column) << where;
    ASSERT_EQ(a.scalar_text(), b.scalar_text()) << where;
    ASSERT_EQ(a.size(), b.size()) << where;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a.is_mapping()) {
            ASSERT_EQ(a.key(i), b.key(i)) << where;
            expect_same(a.key_node(i), b.key_node(i), where + "/" + std::string(a.key(i)) + "(key)");
            expect_same(a.value(i), b.value(i), where + "/" + std::string(a.key(i)));
        } else {
            expect_same(a.item(i), b.item(i), where + "/" + std::to_string(i));
        }
    }
}

// The cut-and-splice path itself must succeed on these shapes (no silent fallback).
void expect_split_path_taken(std::string text) {
    EXPECT_TRUE(parse_yaml_split(text, "t.yml", YamlLimits{}).has_value());
}

void expect_split_matches_sequential(const std::string& text) {
    YamlLimits sequential;
    sequential.parallel = false;
    Result<Document> one = parse_yaml(text, "t.yml", sequential);
    Result<Document> split = parse_yaml(text, "t.yml");
    ASSERT_EQ(one.ok(), split.ok());
    if (!one.ok()) {
        EXPECT_EQ(one.error().describe(), split.error().describe());
        return;
    }
    expect_same(one->root(), split->root(), "");
}

// ~3 MB progress-like log with the features a cut must survive.
std::string big_log(const std::string& indent, bool crlf, bool trailing_key) {
    const std::string nl = crlf ? "\r\n" : "\n";
    std::string s = "# a comment" + nl + "small_version: \"1.0.0\"" + nl + "owner: agent" + nl + "entries:  # log" + nl;
    for (int i = 0; i < 24000; ++i) {
        s += indent + "- timestamp: \"2026-01-01T00:00:00." + std::to_string(100000000 + i) + "Z\"" + nl;
        s += indent + "  task_id: task-" + std::to_string(i % 7) + nl;
        if (i % 5 == 0) s += indent + "  evidence: |" + nl + indent + "    - not an item" + nl + indent + "    second line" + nl;
        else if (i % 5 == 1) s += indent + "  evidence: \"esc\\taped \\u00e9\"" + nl;
        else if (i % 5 == 2) s += indent + "  evidence: {a: 1, b: [x, y]}" + nl;
        else if (i % 5 == 3) s += nl + "# interleaved comment" + nl + indent + "  evidence: plain" + nl + indent + "    continued" + nl;
        else s += indent + "  evidence: 'single'" + nl;
    }
    if (trailing_key) s += "extra:" + nl + "  key: value" + nl;
    return s;
}

TEST(YamlSplit, IndentedSequenceMatchesSequential) {
    expect_split_path_taken(big_log("  ", false, false));
    expect_split_matches_sequential(big_log("  ", false, false));
}
TEST(YamlSplit, IndentlessSequenceMatchesSequential) {
    expect_split_path_taken(big_log("", false, false));
    expect_split_matches_sequential(big_log("", false, false));
}
TEST(YamlSplit, CrlfMatchesSequential) {
    expect_split_path_taken(big_log("    ", true, false));
    expect_split_matches_sequential(big_log("    ", true, false));
}
TEST(YamlSplit, KeysAfterTheBlockKeepTheirPositions) {
    expect_split_path_taken(big_log("  ", false, true));
    expect_split_matches_sequential(big_log("  ", false, true));
}
TEST(YamlSplit, SmallFilesAreNotSplit) {
    std::string text = "entries:\n  - a\n";
    EXPECT_FALSE(parse_yaml_split(text, "t", {}).has_value());
}

TEST(YamlSplit, ErrorInAPieceIsReportedExactlyAsSequential) {
    std::string text = big_log("  ", false, false);
    const std::size_t at = text.find("task-3", text.size() / 2);
    text.insert(at, "\"unterminated ");
    expect_split_matches_sequential(text);
    EXPECT_FALSE(parse_yaml(text, "t.yml").ok());
}

TEST(YamlSplit, DuplicateKeyInAPieceIsAnError) {
    std::string text = big_log("  ", false, false);
    const std::size_t at = text.find("\n    task_id:", text.size() / 2);
    text.insert(at + 1, "    task_id: dup\n");
    Result<Document> r = parse_yaml(text, "t.yml");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("duplicate key"), std::string::npos);
    expect_split_matches_sequential(text);
}

TEST(YamlSplit, AliasAcrossPiecesFallsBackAndResolves) {
    std::string text = big_log("  ", false, false);
    const std::size_t first = text.find("evidence: 'single'");
    text.replace(first, 18, "evidence: &ev 'single'");
    const std::size_t late = text.find("evidence: 'single'", text.size() - 200000);
    text.replace(late, 18, "evidence: *ev");
    Result<Document> r = parse_yaml(text, "t.yml");
    ASSERT_TRUE(r.ok()) << r.error().describe();
    expect_split_matches_sequential(text);
}

// 2048 items of 1 KB: two pieces on any machine, cut before item 1024.
std::string two_piece_log(const std::string& item_1023, const std::string& item_1024) {
    std::string s = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";
    for (int i = 0; i < 2048; ++i) {
        if (i == 1023) s += item_1023;
        else if (i == 1024) s += item_1024;
        else s += "  - task_id: \"task-1\"\n    notes: \"" + std::string(1000, 'x') + "\"\n";
    }
    return s;
}

TEST(YamlSplit, TextLibfyamlRefusesBeforeAnotherItemFailsAtAPieceEnd) {
    // Alone (at the end of its input) libfyaml reads this item; before the next one it refuses it.
    const std::string text = two_piece_log("  - 'q':\n    a-b:\"x\"\n", "  - task_id: \"task-2\"\n");
    EXPECT_FALSE(parse_yaml(text, "t.yml").ok());
    expect_split_matches_sequential(text);
}

TEST(YamlSplit, EmptyItemAtAPieceStartIsPlacedAsSequential) {
    // An empty item is placed at the end of the token before it: the previous item's.
    const std::string text = two_piece_log("  - task_id: \"task-1\"\n", "  -\n");
    ASSERT_TRUE(parse_yaml(text, "t.yml").ok());
    expect_split_matches_sequential(text);
}

}  // namespace
}  // namespace small
