// The scope glob matcher (model/scope_glob) and the link syntax rule of
// `verify --evidence` (check/links).
#include <gtest/gtest.h>

#include "small/check/links.hpp"
#include "small/model/agent_hooks.hpp"
#include "small/model/scope_glob.hpp"

namespace small {
namespace {

bool m(const char* pattern, const char* path) {
    Result<ScopeGlob> g = ScopeGlob::compile(pattern);
    EXPECT_TRUE(g.ok()) << pattern;
    return g && g->matches(path);
}

TEST(ScopeGlob, StarStaysInOneSegment) {
    EXPECT_TRUE(m("src/*.cpp", "src/a.cpp"));
    EXPECT_FALSE(m("src/*.cpp", "src/sub/a.cpp"));
    EXPECT_FALSE(m("*.md", "docs/a.md"));  // anchored at the root
    EXPECT_TRUE(m("*.md", "README.md"));
    EXPECT_TRUE(m("src/?.c", "src/a.c"));
    EXPECT_FALSE(m("src/?.c", "src/ab.c"));
    EXPECT_TRUE(m("src/[ab].c", "src/b.c"));
    EXPECT_FALSE(m("src/[ab].c", "src/c.c"));
    EXPECT_TRUE(m("*", ".hidden"));  // dot files are not special
}

TEST(ScopeGlob, DoubleStarMatchesZeroOrMoreSegments) {
    EXPECT_TRUE(m("src/**", "src/a.cpp"));
    EXPECT_TRUE(m("src/**", "src/a/b/c.cpp"));
    EXPECT_FALSE(m("src/**", "srcx/a.cpp"));
    EXPECT_TRUE(m("**/*.md", "README.md"));
    EXPECT_TRUE(m("**/*.md", "docs/deep/x.md"));
    EXPECT_FALSE(m("**/*.md", "docs/x.mdx"));
    EXPECT_TRUE(m("src/**/test_*.cpp", "src/test_a.cpp"));
    EXPECT_TRUE(m("src/**/test_*.cpp", "src/a/b/test_a.cpp"));
    EXPECT_FALSE(m("src/**/test_*.cpp", "lib/a/test_a.cpp"));
    EXPECT_TRUE(m("**/**/x", "a/x"));
    EXPECT_TRUE(m("**", "anything/at/all"));
}

TEST(ScopeGlob, AFolderPatternCoversEverythingBelow) {
    EXPECT_TRUE(m("src", "src/a/b.c"));
    EXPECT_TRUE(m("src/", "src/a/b.c"));
    EXPECT_TRUE(m("./src", "src/a"));
    EXPECT_TRUE(m("/src", "src/a"));
    EXPECT_FALSE(m("src", "srcs/a"));
    EXPECT_TRUE(m("docs/*", "docs/a/b.md"));
}

TEST(ScopeGlob, BadPatternsAreRefused) {
    EXPECT_FALSE(ScopeGlob::compile("").ok());
    EXPECT_FALSE(ScopeGlob::compile("/").ok());
    EXPECT_FALSE(ScopeGlob::compile("../x").ok());
    EXPECT_FALSE(ScopeGlob::compile("a/../../b").ok());
    EXPECT_NE(ScopeGlob::compile("../x").error().message.find(".."), std::string::npos);
}

TEST(ScopeGlob, ClassifyExcludeWinsAndEmptyIncludeLimitsNothing) {
    Scope s;
    s.include.push_back(*ScopeGlob::compile("src/**"));
    s.exclude.push_back(*ScopeGlob::compile("src/generated/**"));
    EXPECT_EQ(classify_path(s, "src/a.cpp"), DriftKind::None);
    EXPECT_EQ(classify_path(s, "src/generated/x.cpp"), DriftKind::Excluded);
    EXPECT_EQ(classify_path(s, "docs/a.md"), DriftKind::OutsideScope);
    Scope only_exclude;
    only_exclude.exclude.push_back(*ScopeGlob::compile("secrets/**"));
    EXPECT_EQ(classify_path(only_exclude, "docs/a.md"), DriftKind::None);
    EXPECT_EQ(classify_path(only_exclude, "secrets/k"), DriftKind::Excluded);
    EXPECT_EQ(classify_path(Scope{}, "any/thing"), DriftKind::None);
}

TEST(ScopeGlob, SmallsOwnFiles) {
    EXPECT_TRUE(is_small_own_file(".small/plan.small.yml"));
    EXPECT_TRUE(is_small_own_file(".small-runs/x/meta.json"));
    EXPECT_TRUE(is_small_own_file(".small-cache/a"));
    EXPECT_TRUE(is_small_own_file("AGENTS.md"));
    EXPECT_TRUE(is_small_own_file(".gitignore"));
    EXPECT_FALSE(is_small_own_file("docs/AGENTS.md"));
    EXPECT_FALSE(is_small_own_file("src/.gitignore"));
    EXPECT_FALSE(is_small_own_file(".smallfile"));
    EXPECT_FALSE(is_small_own_file("x/.small/plan.small.yml"));
    // The agent settings `small hooks install claude|codex` manages (issue 21).
    EXPECT_TRUE(is_small_own_file(".claude/settings.json"));
    EXPECT_TRUE(is_small_own_file(".codex/hooks.json"));
    EXPECT_FALSE(is_small_own_file(".claude/settings.local.json"));
    EXPECT_FALSE(is_small_own_file("sub/.claude/settings.json"));
    EXPECT_FALSE(is_small_own_file(".gitattributes"));  // small's only when its line is the change
}

TEST(ScopeGlob, AGitattributesChangeIsSmallsWhenOnlyItsMergeLineChanged) {
    const std::string line(kMergeAttributesLine);
    EXPECT_TRUE(is_only_merge_attributes_change(std::nullopt, line + "\n"));
    EXPECT_TRUE(is_only_merge_attributes_change("*.png binary\n", "*.png binary\n" + line + "\n"));
    EXPECT_TRUE(is_only_merge_attributes_change("*.png binary", "*.png binary\n" + line + "\n"));  // the break install adds
    EXPECT_TRUE(is_only_merge_attributes_change("a\r\n", "a\r\n" + line + "\r\n"));
    EXPECT_TRUE(is_only_merge_attributes_change(line + "\n", std::nullopt));  // uninstall
    EXPECT_TRUE(is_only_merge_attributes_change(std::nullopt, std::nullopt));
    EXPECT_FALSE(is_only_merge_attributes_change(std::nullopt, line + "\n*.png binary\n"));
    EXPECT_FALSE(is_only_merge_attributes_change("*.png binary\n", "*.png -binary\n" + line + "\n"));
    EXPECT_FALSE(is_only_merge_attributes_change("x\n", std::nullopt));
}

TEST(LinkSyntax, WellFormedUrlsPass) {
    for (const char* ok : {"https://example.com", "https://example.com:8443/a?b=c#d", "http://[::1]:80/x",
                           "mailto:a@example.com", "file:///tmp/x", "urn:isbn:0451450523",
                           "https://user@host/p%20q"}) {
        EXPECT_FALSE(link_syntax_problem(ok).has_value()) << ok;
    }
}

TEST(LinkSyntax, MalformedUrlsAreNamed) {
    for (const char* bad : {"", "example.com/x", "://x", "1http://x", "https://", "https:/x", "https://ex ample.com",
                            "https://host:80x/", "https://host/%zz", "https://host/<a>", "https://[::1/x",
                            "mailto:"}) {
        EXPECT_TRUE(link_syntax_problem(bad).has_value()) << bad;
    }
}

}  // namespace
}  // namespace small
