// Typo distance and "did you mean" helpers (text.hpp).
#include "small/base/text.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace small {
namespace {

TEST(SplitLines, LinesWithoutBreaksAndTheLastLineEvenWhenEmpty) {
    using V = std::vector<std::string_view>;
    EXPECT_EQ(split_lines(""), V{""});
    EXPECT_EQ(split_lines("a"), V{"a"});
    EXPECT_EQ(split_lines("a\nb"), (V{"a", "b"}));
    EXPECT_EQ(split_lines("a\nb\n"), (V{"a", "b", ""}));
    EXPECT_EQ(split_lines("a\r\n\r\nb"), (V{"a\r", "\r", "b"}));
    EXPECT_EQ(split_lines("a\r\n\r\nb", /*strip_cr=*/true), (V{"a", "", "b"}));
    EXPECT_EQ(split_lines("only\r", true), V{"only"});
}

TEST(OneTypoApart, OneInsertDeleteReplaceOrNeighbourSwap) {
    EXPECT_TRUE(one_typo_apart("stauts", "status"));  // swap
    EXPECT_TRUE(one_typo_apart("ttle", "title"));     // insert
    EXPECT_TRUE(one_typo_apart("steps", "step"));     // delete
    EXPECT_TRUE(one_typo_apart("stetus", "status"));  // replace
    EXPECT_TRUE(one_typo_apart("sttaus", "status"));  // swap in the middle
}

TEST(OneTypoApart, EqualOrFartherIsNot) {
    EXPECT_FALSE(one_typo_apart("status", "status"));
    EXPECT_FALSE(one_typo_apart("sutats", "status"));  // two swaps
    EXPECT_FALSE(one_typo_apart("notes", "steps"));
    EXPECT_FALSE(one_typo_apart("", "id"));
    EXPECT_FALSE(one_typo_apart("stauts", "statuses"));
}

TEST(ClosestMatches, NearestOnlyAndNeverTheWordItself) {
    EXPECT_EQ(closest_matches("--tsk", {"--task", "--test", "--status"}, 1), std::vector<std::string>{"--task"});
    EXPECT_TRUE(closest_matches("add", {"add"}).empty());
    EXPECT_TRUE(closest_matches("zzzzzz", {"add", "migrate"}).empty());
}


TEST(Text, ClosestMatchesKeepsOnlyTheNearest) {
    const std::vector<std::string> ids = {"task-1", "task-2", "task-3", "task-20", "meta/x"};
    EXPECT_EQ(closest_matches("task-22", ids), (std::vector<std::string>{"task-2", "task-20"}));
    EXPECT_EQ(closest_matches("tsak-3", ids), (std::vector<std::string>{"task-3"}));
    EXPECT_EQ(closest_matches("task-1", ids), (std::vector<std::string>{"task-2", "task-3"}));  // never itself
    EXPECT_TRUE(closest_matches("something-else", ids).empty());
    EXPECT_EQ(edit_distance("stauts", "status"), 2u);
    EXPECT_EQ(edit_distance("", "abc"), 3u);
}


// Issue 41: the one output sanitizer.
TEST(Visible, ShowsEveryControlCharacterAsAnEscape) {
    EXPECT_EQ(visible("plain text, ünï ✓"), "plain text, ünï ✓");
    EXPECT_EQ(visible("a\x1b]0;T\a\nb\r\tc\x7f"), "a\\e]0;T\\x07\\nb\\r\\tc\\x7f");
    EXPECT_EQ(visible("\xc2\x9b" "x\xe2\x80\xae" "y\xe2\x80\xa8"), "\\u009bx\\u202ey\\u2028");
    EXPECT_EQ(visible("bad \xff byte"), "bad \\xff byte");
    EXPECT_EQ(visible("::error::x"), "\\::error::x");
    EXPECT_EQ(visible("a ::b"), "a ::b");
}

TEST(Visible, LinesKeepTheirBreaksButNoneStartsAWorkflowCommand) {
    EXPECT_EQ(visible_lines("one\ntwo\tcol"), "one\ntwo\tcol");
    EXPECT_EQ(visible_lines("ok\n::error::fake\n  ::warning::x\r\n"), "ok\n\\::error::fake\n\\  ::warning::x\\r\n");
}

// trim strips exactly " \t\r\n\f\v" at both ends: every short string over
// those, their neighbours ('\b', '\x0e', '\x1f', '!') and a letter.
TEST(Trim, StripsAsciiWhiteSpaceOnly) {
    const std::string alphabet = std::string(" \t\r\n\f\v\b\x0e\x1f!a") + '\0';
    const auto reference = [](std::string_view s) {
        constexpr std::string_view ws = " \t\r\n\f\v";
        const auto first = s.find_first_not_of(ws);
        if (first == std::string_view::npos) return std::string_view();
        return s.substr(first, s.find_last_not_of(ws) - first + 1);
    };
    std::vector<std::string> strings = {""};
    for (int length = 1; length <= 4; ++length) {
        std::vector<std::string> longer;
        for (const std::string& s : strings) {
            for (char c : alphabet) longer.push_back(s + c);
        }
        for (const std::string& s : longer) EXPECT_EQ(trim(s), reference(s)) << s.size();
        strings = std::move(longer);
    }
}

}  // namespace
}  // namespace small

namespace small {
namespace {

TEST(WrapWords, BreaksAtSpacesAndKeepsEveryWord) {
    using V = std::vector<std::string>;
    EXPECT_EQ(wrap_words("", 10), V{});
    EXPECT_EQ(wrap_words("DBA must grant access to the replica", 12), (V{"DBA must", "grant access", "to the", "replica"}));
    EXPECT_EQ(wrap_words("a  b", 10), V{"a b"});  // a run of spaces is one
    // A word longer than a line is broken inside, at character boundaries.
    EXPECT_EQ(wrap_words("see https://example.com/x", 8), (V{"see", "https://", "example.", "com/x"}));
    EXPECT_EQ(wrap_words("\u00e9\u00e9\u00e9\u00e9\u00e9", 2), (V{"\u00e9\u00e9", "\u00e9\u00e9", "\u00e9"}));
    EXPECT_EQ(wrap_words("abc", 0), (V{"a", "b", "c"}));  // width 0 counts as 1
    // A first line of its own width: the later ones leave room for an indent.
    EXPECT_EQ(wrap_words("blocked: DBA must grant it", 8, 12), (V{"blocked: DBA", "must", "grant it"}));
}

TEST(NaturalLess, CountsDigitRunsByValue) {
    std::vector<std::string> ids = {"task-12", "task-8", "task-100", "task-9", "meta/x", "task-1", "task-08"};
    std::sort(ids.begin(), ids.end(), [](const std::string& a, const std::string& b) { return natural_less(a, b); });
    EXPECT_EQ(ids, (std::vector<std::string>{"meta/x", "task-1", "task-08", "task-8", "task-9", "task-12", "task-100"}));
    EXPECT_FALSE(natural_less("task-8", "task-8"));
    EXPECT_TRUE(natural_less("task", "task-1"));
    EXPECT_FALSE(natural_less("task-1", "task"));
    EXPECT_TRUE(natural_less("a99999999999999999999999", "a100000000000000000000000"));  // longer than any integer
}

TEST(JsonNesting, CountsBracketsOutsideStrings) {
    EXPECT_FALSE(json_nesting_deeper_than(R"({"a":[1,{"b":2}]})", 3));
    EXPECT_TRUE(json_nesting_deeper_than(R"({"a":[1,{"b":2}]})", 2));
    EXPECT_FALSE(json_nesting_deeper_than(R"({"a":"[[[[\"[[["})", 1));  // brackets in a string, an escaped quote
    EXPECT_TRUE(json_nesting_deeper_than(std::string(65, '['), 64));
    EXPECT_FALSE(json_nesting_deeper_than("]]]}}}", 0));  // closers alone never go below zero
}

}  // namespace
}  // namespace small

