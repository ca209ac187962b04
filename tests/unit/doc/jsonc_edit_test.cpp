// JSON with comments edited in place (VS Code's settings for `hooks install
// vscode`): members added, replaced and removed with every other byte kept.
#include "small/doc/jsonc_edit.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace small {
namespace {

const std::string kFile = ".vscode/settings.json";

std::string set_key(const std::string& text, const std::vector<std::string>& path, const std::string& key,
                const nlohmann::json& value) {
    Result<std::string> r = jsonc_set_member(text, path, key, value, kFile);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().describe());
    return r.ok() ? *r : "";
}

std::string remove_key(const std::string& text, const std::vector<std::string>& path, const std::string& key) {
    Result<std::string> r = jsonc_remove_member(text, path, key, kFile);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().describe());
    return r.ok() ? *r : "";
}

nlohmann::json parse(const std::string& text) {
    Result<nlohmann::json> r = jsonc_parse(text, kFile);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().describe()) << "\n" << text;
    return r.ok() ? *r : nlohmann::json();
}

TEST(Jsonc, ReadsCommentsAndTrailingCommas) {
    const std::string text = "// top\n{\n  /* block\n  comment */ \"a\": [1, 2,], // end\n  \"b\": {\"c\": \"//x\",},\n}\n";
    EXPECT_EQ(parse(text), nlohmann::json::parse(R"({"a": [1, 2], "b": {"c": "//x"}})"));
    EXPECT_EQ(parse("  \n"), nlohmann::json::object());
}

TEST(Jsonc, FaultsNameLineAndColumn) {
    const struct {
        std::string text;
        unsigned line, column;
    } cases[] = {
        {"{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3},   // a missing comma
        {"{\n  \"a\": tru\n}", 2, 8},             // not a value
        {"{\"a\": 1} x", 1, 10},                  // text after the object
        {"[1]", 1, 1},                            // not an object
        {"{\"a\": /* never closed", 1, 7},
        {"{\"a\": \"open\n}", 1, 7},
        {"{\"a\": 01}", 1, 7},
    };
    for (const auto& c : cases) {
        Result<nlohmann::json> r = jsonc_parse(c.text, kFile);
        ASSERT_FALSE(r.ok()) << c.text;
        EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
        EXPECT_EQ(r.error().file, kFile);
        EXPECT_EQ(r.error().line, c.line) << c.text;
        EXPECT_EQ(r.error().column, c.column) << c.text;
        EXPECT_FALSE(r.error().hint.empty());
    }
}

TEST(Jsonc, DeepNestingIsRefusedNotRecursedInto) {
    const std::string deep = "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    EXPECT_FALSE(jsonc_parse(deep, kFile).ok());
}

TEST(Jsonc, NewMemberGoesAfterTheLastOnItsOwnLineKeepingComments) {
    const std::string text = "{\n\t// editor\n\t\"editor.tabSize\": 4, // four\n\t\"x\": {\"y\": true} /* why */\n}\n";
    const std::string out = set_key(text, {}, "k", nlohmann::json::array({"a", "b"}));
    EXPECT_EQ(out, "{\n\t// editor\n\t\"editor.tabSize\": 4, // four\n\t\"x\": {\"y\": true}, /* why */\n"
                   "\t\"k\": [\"a\", \"b\"]\n}\n");
}

TEST(Jsonc, NestedObjectsAreCreatedAndIndentedLikeTheFile) {
    const std::string text = "{\n    \"a\": 1,\n}\n";  // a trailing comma: it stays after the new last member's sibling
    const std::string out = set_key(text, {"yaml.schemas"}, "./s.json", nlohmann::json::array({"**/x.yml"}));
    EXPECT_EQ(out, "{\n    \"a\": 1,\n    \"yaml.schemas\": {\n        \"./s.json\": [\"**/x.yml\"]\n    }\n}\n");
    const std::string again = set_key(out, {"yaml.schemas"}, "./t.json", nlohmann::json::array({"y"}));
    EXPECT_EQ(again, "{\n    \"a\": 1,\n    \"yaml.schemas\": {\n        \"./s.json\": [\"**/x.yml\"],\n"
                     "        \"./t.json\": [\"y\"]\n    }\n}\n");
}

TEST(Jsonc, ExistingValueIsReplacedInPlace) {
    const std::string text = "{ // c\n  \"a\": 1, /* keep */ \"b\": 2\n}";
    EXPECT_EQ(set_key(text, {}, "a", 5), "{ // c\n  \"a\": 5, /* keep */ \"b\": 2\n}");
}

TEST(Jsonc, OneLineObjectsGetOneLineMembers) {
    EXPECT_EQ(set_key("{\"a\": 1}", {}, "b", 2), "{\"a\": 1, \"b\": 2}");
    EXPECT_EQ(set_key("{}", {}, "b", 2), "{\n    \"b\": 2\n}");
    EXPECT_EQ(set_key("", {"o"}, "b", 2), "{\n    \"o\": {\n        \"b\": 2\n    }\n}\n");
}

TEST(Jsonc, CrlfFilesGetCrlfLines) {
    const std::string out = set_key("{\r\n  \"a\": 1\r\n}\r\n", {}, "b", 2);
    EXPECT_EQ(out, "{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}\r\n");
}

TEST(Jsonc, AValueOnThePathThatIsNotAnObjectIsRefused) {
    Result<std::string> r = jsonc_set_member("{\n  \"yaml.schemas\": [1]\n}", {"yaml.schemas"}, "k", 1, kFile);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().line, 2u);
    EXPECT_EQ(r.error().column, 19u);
}

TEST(Jsonc, RemoveTakesTheMemberItsLineAndAnOrphanedComma) {
    const std::string text = "{\n  // keep\n  \"a\": 1,\n  \"b\": 2 // b's note\n}\n";
    EXPECT_EQ(remove_key(text, {}, "b"), "{\n  // keep\n  \"a\": 1\n}\n");
    EXPECT_EQ(remove_key(text, {}, "a"), "{\n  // keep\n  \"b\": 2 // b's note\n}\n");
    EXPECT_EQ(remove_key("{\"a\": 1, \"b\": 2}", {}, "a"), "{\"b\": 2}");
    EXPECT_EQ(remove_key(text, {}, "zzz"), text);
    EXPECT_EQ(remove_key(text, {"nope"}, "a"), text);
}

// Random settings texts: adding then removing a member gives the text back
// (when the last member had a comma, or was not last), and the value read
// is always the edited value.
TEST(Jsonc, RandomEditsReadBackAsTheEditedValue) {
    std::mt19937 rng(7);
    const std::vector<std::string> comments = {"", " // c", " /* d */"};
    for (int round = 0; round < 400; ++round) {
        std::string text = "{\n";
        nlohmann::json expected = nlohmann::json::object();
        const int n = static_cast<int>(rng() % 4);
        for (int i = 0; i < n; ++i) {
            const std::string key = "k" + std::to_string(i);
            text += "  \"" + key + "\": " + std::to_string(i) + (i + 1 < n || rng() % 2 ? "," : "") + comments[rng() % 3] + "\n";
            expected[key] = i;
        }
        text += "}\n";
        ASSERT_EQ(parse(text), expected) << text;
        const std::string added = set_key(text, {"yaml.schemas"}, "./p.json", nlohmann::json::array({"**/p.yml"}));
        nlohmann::json with = expected;
        with["yaml.schemas"]["./p.json"] = nlohmann::json::array({"**/p.yml"});
        ASSERT_EQ(parse(added), with) << added;
        const std::string inner = remove_key(added, {"yaml.schemas"}, "./p.json");
        with["yaml.schemas"] = nlohmann::json::object();
        ASSERT_EQ(parse(inner), with) << inner;
        const std::string back = remove_key(inner, {}, "yaml.schemas");
        ASSERT_EQ(parse(back), expected) << back;
    }
}

}  // namespace
}  // namespace small

namespace small {
namespace {

// Cases a reviewer's random tester found (issue 23's second read).
TEST(JsoncFound, ACommentThatLooksClosedAtItsStartIsStillOneComment) {
    const std::string text = "{\n    \"x\": 1 /*/ // */ }\n";
    const std::string out = set_key(text, {}, "k", 2);
    EXPECT_EQ(parse(out), nlohmann::json::parse(R"({"x": 1, "k": 2})")) << out;
}

TEST(JsoncFound, CrlfAfterALineCommentStaysCrlf) {
    const std::string out = set_key("{\r\n    \"a\": 1 // note\r\n}\r\n", {"o"}, "k", 2);
    EXPECT_EQ(out.find("\r\r"), std::string::npos) << out;
    for (std::size_t at = out.find('\n'); at != std::string::npos; at = out.find('\n', at + 1)) {
        EXPECT_EQ(out[at - 1], '\r') << out;
    }
    EXPECT_NE(out.find("\"a\": 1, // note\r\n"), std::string::npos) << out;
}

TEST(JsoncFound, CommentsInAnEmptyObjectKeepTheirLine) {
    const std::string out = set_key("{ // keep me\n}\n", {}, "k", 2);
    EXPECT_EQ(out, "{ // keep me\n    \"k\": 2\n}\n");
    EXPECT_EQ(remove_key(out, {}, "k"), "{ // keep me\n}\n");
}

TEST(JsoncFound, ACommentBetweenValueAndCommaStays) {
    const std::string text = "{\n    \"a\": 1,\n    \"b\": 2\n    // closing note\n    ,\"zz\": 3\n}\n";
    const std::string out = remove_key(text, {}, "b");
    EXPECT_NE(out.find("// closing note"), std::string::npos) << out;
    EXPECT_EQ(parse(out), nlohmann::json::parse(R"({"a": 1, "zz": 3})")) << out;
}

TEST(JsoncFound, TheLastOfTwoSameNamesIsTheOneEdited) {
    const std::string text = "{\"o\": {\"x\": 1}, \"o\": {\"y\": 2}}";
    const std::string out = set_key(text, {"o"}, "k", 3);
    EXPECT_EQ(parse(out)["o"], nlohmann::json::parse(R"({"y": 2, "k": 3})")) << out;
}

TEST(JsoncFound, AnEmptyObjectAfterItsKeyIsIndentedFromItsLine) {
    const std::string out = set_key("{\n    \"a\": 2,\n    \"o\": {}\n}\n", {"o"}, "k", 1);
    EXPECT_EQ(out, "{\n    \"a\": 2,\n    \"o\": {\n        \"k\": 1\n    }\n}\n");
}

TEST(JsoncFound, CommentsOnlyAndByteOrderMarkFilesAreRead) {
    EXPECT_EQ(parse("// nothing yet\n"), nlohmann::json::object());
    const std::string out = set_key("// nothing yet\n", {}, "k", 1);
    EXPECT_EQ(out, "// nothing yet\n{\n    \"k\": 1\n}\n");
    EXPECT_EQ(parse("\xEF\xBB\xBF{\"a\": 1}"), nlohmann::json::parse(R"({"a": 1})"));
}

}  // namespace
}  // namespace small
