// base/path: the string forms must equal what std::filesystem gave the
// callers that used it before (their edge cases: "/", "", trailing slashes).
#include "small/base/path.hpp"

#include <gtest/gtest.h>

namespace small {
namespace {

TEST(Path, ParentAndName) {
    EXPECT_EQ(parent_path("/a/b/c"), "/a/b");
    EXPECT_EQ(parent_path("/c"), "/");
    EXPECT_EQ(parent_path("/"), "/");
    EXPECT_EQ(parent_path("c"), "");
    EXPECT_EQ(parent_path(""), "");
    EXPECT_EQ(file_name("/a/b.txt"), "b.txt");
    EXPECT_EQ(file_name("/a/b/"), "");
    EXPECT_EQ(file_name("/"), "");
    EXPECT_EQ(file_name("b"), "b");
}

TEST(Path, JoinHasExactlyOneSlash) {
    EXPECT_EQ(join_path("/", "x"), "/x");
    EXPECT_EQ(join_path("/a", "x"), "/a/x");
    EXPECT_EQ(join_path("/a/", "x"), "/a/x");
    EXPECT_EQ(join_path("", ".small"), ".small");
}

TEST(Path, NormalFormKeepsOrDropsTheTrailingSlash) {
    EXPECT_EQ(normal_path("/a/./b//c"), "/a/b/c");
    EXPECT_EQ(normal_path("/a/b/.."), "/a/");  // as lexically_normal
    EXPECT_EQ(normal_path("a/../.."), "..");
    EXPECT_EQ(normal_path(""), "");
    EXPECT_EQ(normal_dir_path("/a/b/.."), "/a");
    EXPECT_EQ(normal_dir_path("/"), "/");
    EXPECT_EQ(normal_dir_path("/a//"), "/a");
}

TEST(Path, AbsoluteAgainstAWorkingDirectory) {
    EXPECT_EQ(absolute_path("/w", "x/y"), "/w/x/y");
    EXPECT_EQ(absolute_path("/w", "../x"), "/x");
    EXPECT_EQ(absolute_path("/w", "/abs/./p"), "/abs/p");
    EXPECT_EQ(absolute_path("/", "x"), "/x");
    EXPECT_TRUE(is_absolute_path("/x"));
    EXPECT_FALSE(is_absolute_path("x"));
    EXPECT_FALSE(is_absolute_path(""));
}

TEST(Path, ComponentsAreWholeNames) {
    EXPECT_TRUE(has_path_component("/w/.small/plan.small.yml", ".small"));
    EXPECT_TRUE(has_path_component(".small", ".small"));
    EXPECT_TRUE(has_path_component("/w/.small/", ".small"));
    EXPECT_FALSE(has_path_component("/w/.small-cache/x", ".small"));
    EXPECT_FALSE(has_path_component("/w/x.small", ".small"));
    EXPECT_FALSE(has_path_component("", ".small"));
}

}  // namespace
}  // namespace small
