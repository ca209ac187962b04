// Resource bounds of the YAML loader (deep flow nesting, alias budgets in
// nodes and bytes, bounded echoes of values) and the hints given with
// syntax errors that hand edits cause.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using testing::contains;

// These tests guard against inputs that used to take seconds (and GBs); the
// bounds are 10-100x the normal cost. They count this process's CPU time,
// not wall-clock time, so a loaded machine does not make them fail.
struct Clock {
    using time_point = std::chrono::nanoseconds;
    static time_point now() {
        timespec ts{};
        ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
    }
};

Error parse_err(const std::string& text, const YamlLimits& limits = {}) {
    Result<Document> r = parse_yaml(text, "t.yml", limits);
    EXPECT_FALSE(r.ok()) << "accepted: " << text.substr(0, 200);
    return r.ok() ? Error::invalid("<accepted>") : r.error();
}

long long ms_since(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();  // CPU ms
}

// ------------------------------------------------------------ flow nesting

TEST(YamlLimits, MillionsOfOpenBracketsOnOneLineFailAsEarlyAsBlockNesting) {
    for (const char open : {'[', '{'}) {
        const std::string text = "a: " + std::string(5'000'000, open) + "\n";
        const auto start = Clock::now();
        const Error e = parse_err(text);
        EXPECT_LT(ms_since(start), 1000) << open;  // was 7.7 s and 1.7 GB
        EXPECT_EQ(e.line, 1u);
        if (open == '[') {
            EXPECT_TRUE(contains(e.message, "nesting is deeper than 256 levels")) << e.message;
            EXPECT_EQ(e.column, 4u + 255u);  // the root mapping is the first of the 256 levels
        } else {
            EXPECT_TRUE(contains(e.message, "mapping keys must be plain text")) << e.message;  // `{{`
            EXPECT_EQ(e.column, 5u);
        }
    }
}

TEST(YamlLimits, ADeepLineInsideALargeLogFailsFastOnTheParallelPathToo) {
    std::string text = "small_version: \"1.0.0\"\nentries:\n";
    while (text.size() < (4u << 20)) text += "  - task_id: \"t\"\n    status: \"completed\"\n    evidence: \"ok\"\n";
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    text += "  - evidence: " + std::string(2'000'000, '[') + "\n";
    while (text.size() < (8u << 20)) text += "  - task_id: \"t\"\n    status: \"completed\"\n    evidence: \"ok\"\n";
    const auto start = Clock::now();
    const Error e = parse_err(text);
    EXPECT_LT(ms_since(start), 3000);
    EXPECT_TRUE(contains(e.message, "nesting is deeper than 256 levels")) << e.message;
    EXPECT_EQ(e.line, line);
}

TEST(YamlLimits, BracketsThatAreTextDoNotTripTheEarlyCheck) {
    const std::string brackets(1000, '[');
    const std::string text = "a: \"" + brackets + "\"\nb: '" + brackets + "'\nc: |\n  " + brackets + "\nd: x" + brackets + "\n";
    Result<Document> r = parse_yaml(text, "t.yml");
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->root().find("a").as_string(), brackets);
    EXPECT_EQ(r->root().find("d").as_string(), "x" + brackets);
}

// ------------------------------------------------------------ alias budget

TEST(YamlLimits, AliasesAreBudgetedInBytes) {
    // Few nodes (300k), but 30 GB of text once every alias is expanded.
    std::string text = "s: &s \"" + std::string(100'000, 'x') + "\"\nl: &l [";
    for (int i = 0; i < 1000; ++i) text += i ? ",*s" : "*s";
    text += "]\nm: [";
    for (int i = 0; i < 300; ++i) text += i ? ",*l" : "*l";
    text += "]\n";
    const auto start = Clock::now();
    const Error e = parse_err(text);
    EXPECT_LT(ms_since(start), 1000);
    EXPECT_TRUE(contains(e.message, "aliases expand to more than 16777216 bytes")) << e.message;
    EXPECT_EQ(e.line, 2u);  // 168 copies of 100 KB cross 16 MiB inside `l`
}

TEST(YamlLimits, AliasBudgetDoesNotScaleWithTheFile) {
    // A big file gains no extra budget: its own content is not counted, what aliases add is.
    std::string text = "pad: \"" + std::string(4'000'000, 'p') + "\"\nl0: &l0 [a,b,c,d,e,f,g,h,i,j]\n";
    for (int i = 1; i <= 6; ++i) {
        text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
        for (int k = 0; k < 10; ++k) text += (k ? ",*l" : "*l") + std::to_string(i - 1);
        text += "]\n";
    }
    const Error e = parse_err(text);
    EXPECT_TRUE(contains(e.message, "aliases expand to more than 1000000 nodes")) << e.message;
    EXPECT_EQ(e.line, 7u);  // l5: 1.1M nodes added by aliases in all
}

TEST(YamlLimits, ModestAliasUseIsFine) {
    YamlLimits limits;
    limits.max_alias_bytes = 100;
    Result<Document> r = parse_yaml("base: &b {owner: agent, note: hello}\nx: *b\ny: {<<: *b, note: bye}\n", "t.yml", limits);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->root().find("y").find("owner").as_string(), "agent");
    limits.max_alias_bytes = 30;  // two copies of 20 bytes of text
    EXPECT_TRUE(contains(parse_err("base: &b {owner: agent, note: hello}\nx: *b\ny: *b\n", limits).message,
                         "more than 30 bytes"));
}

TEST(YamlLimits, TheParallelPathSharesOneAliasBudget) {
    // A long block sequence is parsed in pieces; each piece's aliases count
    // against the one budget of the document.
    std::string text = "small_version: \"1.0.0\"\nentries:\n";
    for (int i = 0; i < 20'000; ++i) {
        text += "  - &e" + std::to_string(i) + " {task_id: \"t" + std::to_string(i) + "\", status: done}\n";
        text += "  - *e" + std::to_string(i) + "\n";
    }
    YamlLimits limits;
    limits.max_alias_nodes = 50'000;  // 20,000 aliases of 5 nodes each: 100,000
    const Error e = parse_err(text, limits);
    EXPECT_TRUE(contains(e.message, "more than 50000 nodes")) << e.message;
    limits.max_alias_nodes = 100'000;
    EXPECT_TRUE(parse_yaml(text, "t.yml", limits).ok());
}

// ------------------------------------------------------------ linear cost
// libfyaml's look-ahead costs the square of some constructs' length; the
// pre-scan refuses those before libfyaml reads them. No time is asserted,
// but each input below took 5 to 85 s before, so a regression shows in the
// suite's time.

TEST(YamlLimits, ALongAliasNameBrokenByAnIllegalCharacterIsRefusedAtItsStart) {
    const std::string half(100'000, 'A');  // 200 KB: 18 s before
    Error e = parse_err("x: [*" + half + "\x0e" + half + "]\n");
    EXPECT_EQ(e.file, "t.yml");
    EXPECT_EQ(e.line, 1u);
    EXPECT_EQ(e.column, 5u);  // the '*'
    EXPECT_TRUE(contains(e.message, "the alias name here is broken by the character U+000E after 100000 characters; "
                                    "remove that character"))
        << e.message;
    e = parse_err("a: 1\nx: &" + half + "\u00a0" + half + " 1\n");  // a block anchor, a Unicode space
    EXPECT_EQ(e.line, 2u);
    EXPECT_EQ(e.column, 4u);
    EXPECT_TRUE(contains(e.message, "the anchor name here is broken by the character U+00A0")) << e.message;
}

TEST(YamlLimits, LongValidNamesAndShortBrokenOnesAreLeftToTheParser) {
    const std::string name(5000, 'n');
    Result<Document> r = parse_yaml("a: &" + name + " 1\nb: [*" + name + "]\n", "t.yml");
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->root().find("b").item(0).as_int(), 1);
    // Text that only looks like a name (inside quotes) is not judged by the pre-scan.
    r = parse_yaml("a: \"see *ptr\u00a0here\"\n", "t.yml");
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_TRUE(contains(parse_err("x: [*ab\x0e" "cd]\n").message, "YAML syntax error"));
}

TEST(YamlLimits, LongRunsOfBlanksAfterTokensAreRefusedAtTheRun) {
    const std::string spaces(200'000, ' ');
    const struct {
        std::string text;
        std::uint32_t line, column;
    } cases[] = {
        {"x: &a" + spaces + "1\n", 1, 6},                            // after an anchor: about 85 s before
        {"x: !t" + std::string(200'000, '\t') + "1\n", 1, 6},        // after a tag
        {"x: \"a\"" + spaces + "\n", 1, 7},                          // after a quoted scalar
        {"x: [1]" + spaces + "\n", 1, 7},                            // after a flow collection
        {"x:\n-" + spaces + "1\n", 2, 2},                            // after a block entry
        {"x: {a:" + spaces + "1}\n", 1, 7},                          // after a flow `:`
    };
    for (const auto& c : cases) {
        const Error e = parse_err(c.text);
        EXPECT_EQ(e.line, c.line) << c.text.substr(0, 10);
        EXPECT_EQ(e.column, c.column) << c.text.substr(0, 10);
        EXPECT_TRUE(contains(e.message, "200000 blanks (spaces, tabs, line breaks) in a row")) << e.message;
        EXPECT_TRUE(contains(e.message, "remove most of these blanks")) << e.message;
    }
}

TEST(YamlLimits, ManyBlankLinesInARowAreRefusedAtTheFirst) {
    // The text of a multi-line value is built line by line, each line
    // looking over all blank lines after it: 200,000 of them, about 40 s.
    const std::string lines(200'000, '\n');
    for (const std::string& text : {"x: |\n  a\n" + lines + "  b\n", "x: \"a\n" + lines + "  b\"\n",
                                    "x: a\n" + lines + "  b\n", "x: {a:\n" + lines + "  b}\n"}) {
        const Error e = parse_err(text);
        EXPECT_EQ(e.line, text[3] == '|' ? 3u : 2u) << text.substr(0, 8);
        EXPECT_EQ(e.column, 1u) << text.substr(0, 8);
        EXPECT_TRUE(contains(e.message, "200000 blank lines in a row; the YAML parser's time grows with the square"))
            << e.message;
        EXPECT_TRUE(contains(e.message, "remove most of these lines")) << e.message;
    }
}

TEST(YamlLimits, BlanksThatCostLittleAreFine) {
    // A run of 3000 blanks or blank lines fits the budget of any file; so do many runs of 64.
    std::string text = "x: |\n" + std::string(3000, '\n') + "  text\ny: \"" + std::string(3000, ' ') + "\"\nz:\n";
    for (int i = 0; i < 2'000; ++i) text += "  - &a" + std::to_string(i) + std::string(64, ' ') + "1\n" + std::string(63, '\n');
    const Result<Document> r = parse_yaml(text, "t.yml");
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->root().find("x").as_string(), std::string(3000, '\n') + "text\n");
    EXPECT_EQ(r->root().find("z").size(), 2'000u);
}

TEST(YamlLimits, ALongTagOrDirectiveLineIsRefused) {
    Error e = parse_err("x: !<tag:" + std::string(100'000, 'a') + "\n");  // no closing '>': about 22 s before
    EXPECT_EQ(e.column, 4u);
    EXPECT_TRUE(contains(e.message, "a tag longer than 1024 characters; shorten it")) << e.message;
    e = parse_err("%FOO " + std::string(100'000, 'a') + "\n---\nx: 1\n");  // about 45 s before
    EXPECT_EQ(e.line, 1u);
    EXPECT_EQ(e.column, 1u);
    EXPECT_TRUE(contains(e.message, "a directive line (starting with %) longer than 1024 characters")) << e.message;
}

TEST(YamlLimits, TheParallelPathIsGuardedToo) {
    std::string text = "small_version: \"1.0.0\"\nentries:\n";
    while (text.size() < (4u << 20)) text += "  - task_id: \"t\"\n    status: \"completed\"\n    evidence: \"ok\"\n";
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    const std::string half(100'000, 'A');
    text += "  - evidence: [*" + half + "\x0e" + half + "]\n";
    while (text.size() < (8u << 20)) text += "  - task_id: \"t\"\n    status: \"completed\"\n    evidence: \"ok\"\n";
    const Error e = parse_err(text);
    EXPECT_EQ(e.line, line);
    EXPECT_EQ(e.column, 16u);
    EXPECT_TRUE(contains(e.message, "the alias name here is broken")) << e.message;
}

// ------------------------------------------------------------ bounded echoes

TEST(YamlLimits, ValuesEchoedInMessagesAreCut) {
    const std::string huge(8 << 20, 'k');
    for (const std::string& text : {huge + ": 1\n" + huge + ": 2\n", "a: !!int " + huge + "\n",
                                    "a: *" + huge + "\n"}) {
        const Error e = parse_err(text);
        EXPECT_LT(e.message.size(), 300u) << e.message.substr(0, 300);
        EXPECT_TRUE(contains(e.message, std::string(80, 'k') + "\u2026")) << e.message.substr(0, 300);
    }
}

TEST(YamlLimits, ExcerptCutsAtCharactersNotBytes) {
    EXPECT_EQ(excerpt("short"), "short");
    EXPECT_EQ(excerpt(std::string(80, 'a')), std::string(80, 'a'));
    EXPECT_EQ(excerpt(std::string(81, 'a')), std::string(80, 'a') + "\u2026");
    EXPECT_EQ(excerpt("\u00e9\u00e9\u00e9", 2), "\u00e9\u00e9\u2026");  // never half a character
    EXPECT_EQ(quoted_excerpt("abc", 2), "\"ab\u2026\"");
}

// ------------------------------------------------------------ syntax hints

TEST(YamlHints, AnUnquotedColonOrATabIsNamedOnItsLine) {
    const struct {
        std::string text;
        std::string hint;
    } cases[] = {
        {"tasks:\n  - id: \"task-1\"\n    title: Fix bug: crash on \"start\"\n",
         "the value of \"title\" contains \": \", which YAML reads as another key; quote the value: "
         "title: \"Fix bug: crash on \\\"start\\\"\""},
        {"tasks:\n  - id: \"task-1\"\n\ttitle: x\n", "line 3 is indented with a tab"},
    };
    for (const auto& c : cases) {
        const Error e = parse_err(c.text);
        EXPECT_EQ(e.line, 3u) << c.text;
        EXPECT_TRUE(contains(e.message, "YAML syntax error")) << e.message;
        EXPECT_TRUE(contains(e.hint, c.hint)) << c.text << "\nhint: " << e.hint;
    }
}

TEST(YamlHints, AMisindentedLineIsToldTheColumnOfItsSiblings) {
    struct Case {
        std::string text;
        std::string hint;
    } cases[] = {
        {"tasks:\n  - id: \"task-1\"\n   title: \"x\"\n", "indent it to column 5 like `id` on line 2"},
        {"tasks:\n  - id: \"task-1\"\n    title: \"x\"\n      status: pending\n",
         "indent it to column 5 like `title` on line 3"},
        {"a: 1\n b: 2\n", "indent it to column 1 like `a` on line 1"},
        {"tasks:\n  - id: a\n    steps:\n      - one\n     - two\n", "indent it to column 7 like `-` on line 4"},
        // Lines of a block scalar are text, not structure.
        {"tasks:\n  - id: a\n    notes: |\n       deep text\n   title: x\n", "like `notes` on line 3"},
    };
    for (const Case& c : cases) {
        const Error e = parse_err(c.text);
        EXPECT_TRUE(contains(e.hint, c.hint)) << c.text << "\nmessage: " << e.message << "\nhint: " << e.hint;
    }
}

// Issue 21: a log a merge left with git's conflict markers got "indent it to
// column 1 like `<<<<<<< HEAD`". Markers get no YAML hint: the hint names
// them and says to resolve the merge.
TEST(YamlHints, ConflictMarkersGetNoYamlHint) {
    const std::string entries = "entries:\n  - a: 1\n";
    for (const std::string& text :
         {entries + "<<<<<<< HEAD\n  - b: 2\n=======\n  - c: 3\n>>>>>>> other\n",
          entries + "<<<<<<< .merge_file_5eUPzP\n  - b: 2\n||||||| base\n=======\n  - c: 3\n>>>>>>> .merge_file_x\n",
          entries + "<<<<<<<\n\t- b: 2\n=======\n  - c: 3\n>>>>>>>\n"}) {
        const Error e = parse_err(text);
        EXPECT_TRUE(contains(e.hint, "line 3 starts git's conflict markers")) << text << "\nhint: " << e.hint;
        // Team play: a clone without the merge driver; doctor says how small's rules settle it.
        EXPECT_TRUE(contains(e.hint, "`small doctor` says whether small's merge rules settle it")) << e.hint;
        EXPECT_FALSE(contains(e.hint, "indent")) << e.hint;
        EXPECT_FALSE(contains(e.hint, "tab")) << e.hint;
    }
    // Something like a marker, without the conflict around it, is text.
    EXPECT_FALSE(contains(parse_err("a: 1\n b: 2\n=======\n").hint, "conflict")) << parse_err("a: 1\n b: 2\n").hint;
}

// Where the text does not show the cause, the hint says where to look and
// how to see what changed, and guesses nothing.
TEST(YamlHints, AGenericHintWhenTheTextDoesNotShowTheCause) {
    for (const char* text : {"a: [1, 2\n", "a: \"open\n"}) {
        const Error e = parse_err(text);
        EXPECT_TRUE(contains(e.hint, "the YAML reader stopped at line ")) << text << "\nhint: " << e.hint;
        EXPECT_TRUE(contains(e.hint, "git diff")) << e.hint;
        EXPECT_FALSE(contains(e.hint, "indent it")) << e.hint;
    }
}

}  // namespace
}  // namespace small
