// Placeholders are not data (model/placeholder): every blank small prints is
// recognised, and values people really write are not.
#include "small/check/placeholder.hpp"

#include <gtest/gtest.h>

namespace small {
namespace {

TEST(Placeholder, EveryBlankSmallPrintsIsOne) {
    for (const char* blank : {"<what proves it is done>", "<what unblocked it>", "<title>", "<first task>",
                              "<what this run is for>", "<task-id>", "<summary>", "<why it is blocked>",
                              "  <what proves it>  ", "<its title>", "<the reason>", "<text>"}) {
        EXPECT_TRUE(is_placeholder(blank)) << blank;
    }
}

TEST(Placeholder, ValuesPeopleWriteAreNot) {
    for (const char* value : {"...", "…", "<br/>", "<!-- BEGIN SMALL HARNESS v1.0.0 -->", "<>", "< spaced>",
                              "make test passes", "<b>bold</b>", "see <https://example.com>", "<1>",
                              "tests pass <fast>", "---", "", "<a <b>>", "<x\ny>"}) {
        EXPECT_FALSE(is_placeholder(value)) << value;
    }
}

TEST(Placeholder, TheRefusalNamesTheFieldAndTheBlank) {
    EXPECT_TRUE(refuse_placeholder("evidence", "make test passes"));
    const Status s = refuse_placeholder("evidence", "<what unblocked it>");
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().kind, Error::Kind::Usage);
    EXPECT_EQ(s.error().message, "evidence is the placeholder \"<what unblocked it>\", not a value: nothing written");
    EXPECT_NE(s.error().hint.find("real evidence"), std::string::npos) << s.error().hint;
}

}  // namespace
}  // namespace small
