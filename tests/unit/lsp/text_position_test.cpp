// Positions between LSP (0-based, UTF-16) and findings (1-based, code
// points), tokens, words and file URIs.
#include "small/lsp/text_position.hpp"

#include <gtest/gtest.h>

namespace small::lsp {
namespace {

TEST(LspTextPosition, Utf16ColumnsCountSurrogatePairsTwice) {
    // "é" is 2 bytes and 1 unit, "😀" 4 bytes and 2 units.
    const std::string text = "a: \"é😀x\"\r\nsecond\n";
    const LineIndex lines(text);
    EXPECT_EQ(lines.line_count(), 3u);
    EXPECT_EQ(lines.line(0), "a: \"é😀x\"");
    const std::size_t x = text.find('x');
    EXPECT_EQ(lines.position_of(x), (Position{0, 7}));
    EXPECT_EQ(lines.offset_of({0, 7}), x);
    EXPECT_EQ(lines.offset_of({0, 99}), text.find('\r'));  // past the line: its end
    EXPECT_EQ(lines.offset_of({9, 0}), text.size());
    EXPECT_EQ(lines.position_of(text.find("second")), (Position{1, 0}));
}

TEST(LspTextPosition, FindingMarksCountCodePoints) {
    const LineIndex lines("k: \"😀é\" # c\n");
    EXPECT_EQ(lines.from_mark(1, 6), (Position{0, 6}));  // the 6th code point, after the emoji: unit 6
    EXPECT_EQ(lines.from_mark(0, 0), (Position{0, 0}));  // the whole file
    EXPECT_EQ(lines.from_mark(7, 1), (Position{1, 0}));  // past the end: the last line
}

TEST(LspTextPosition, TokensEndWhereYamlEndsThem) {
    EXPECT_EQ(token_end("status: \"done\" # c", 8), 14u);
    EXPECT_EQ(token_end("status: done  # c", 8), 12u);
    EXPECT_EQ(token_end("deps: [a, b]", 7), 8u);
    EXPECT_EQ(token_end("stauts: x", 0), 6u);
    EXPECT_EQ(token_end("t: 'it''s' x", 3), 10u);
    EXPECT_EQ(token_start("s: \"done\"", 4), 3u);  // the reader marks after the quote
    EXPECT_EQ(token_start("s: done", 3), 3u);
    EXPECT_EQ(token_start("s: \"\"x", 5), 5u);     // a closing quote is not taken in
}

TEST(LspTextPosition, WordsAreTaskIdsWithoutAKeysColon) {
    const std::string line = "  depends_on: [\"task-1\", \"ns/t.2\"]";
    auto [b, e] = word_at(line, line.find("task-1") + 2);
    EXPECT_EQ(line.substr(b, e - b), "task-1");
    std::tie(b, e) = word_at(line, line.find("ns/t.2"));
    EXPECT_EQ(line.substr(b, e - b), "ns/t.2");
    std::tie(b, e) = word_at(line, 4);
    EXPECT_EQ(line.substr(b, e - b), "depends_on");
    std::tie(b, e) = word_at("  x: ", 0);
    EXPECT_EQ(b, e);
}

TEST(LspTextPosition, FileUrisRoundTripAndOthersAreRefused) {
    EXPECT_EQ(path_of_uri("file:///a%20b/c%C3%A9.yml"), "/a b/cé.yml");
    EXPECT_EQ(path_of_uri("file://localhost/x"), "/x");
    EXPECT_EQ(uri_of_path("/a b/cé.yml"), "file:///a%20b/c%C3%A9.yml");
    EXPECT_EQ(path_of_uri(uri_of_path("/w/.small/plan #1.yml")), "/w/.small/plan #1.yml");
    EXPECT_FALSE(path_of_uri("untitled:Untitled-1"));
    EXPECT_FALSE(path_of_uri("file://other-host/x"));
    EXPECT_FALSE(path_of_uri("file:///a%2"));
    EXPECT_FALSE(path_of_uri("file:///a%00b"));  // a NUL would cut the path
}

}  // namespace
}  // namespace small::lsp
