// base/line_diff: Myers edit scripts and unified diff text. The round-trip
// tests hand the text to the real `patch` (GNU patch) when it is installed.
#include "small/base/line_diff.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "support/fixtures.hpp"

namespace small {
namespace {

// Edit distance of a script (deleted + inserted lines).
std::size_t cost(const std::vector<DiffEdit>& edits) {
    std::size_t c = 0;
    for (const DiffEdit& e : edits)
        if (e.kind != DiffEdit::Kind::Keep) c += e.count;
    return c;
}

// Applies a script to `a`, checking every kept line really is equal.
std::vector<std::uint32_t> apply(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                                 const std::vector<DiffEdit>& edits) {
    std::vector<std::uint32_t> out;
    std::size_t i = 0, j = 0;
    for (const DiffEdit& e : edits) {
        for (std::size_t k = 0; k < e.count; ++k) {
            if (e.kind == DiffEdit::Kind::Keep) {
                EXPECT_EQ(a[i], b[j]);
                out.push_back(a[i++]), ++j;
            } else if (e.kind == DiffEdit::Kind::Delete) {
                ++i;
            } else {
                out.push_back(b[j++]);
            }
        }
    }
    EXPECT_EQ(i, a.size());
    return out;
}

// Length of the longest common subsequence, by the quadratic table.
std::size_t lcs(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    std::vector<std::vector<std::size_t>> t(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = a.size(); i-- > 0;)
        for (std::size_t j = b.size(); j-- > 0;)
            t[i][j] = a[i] == b[j] ? t[i + 1][j + 1] + 1 : std::max(t[i + 1][j], t[i][j + 1]);
    return t[0][0];
}

TEST(LineDiff, ScriptsAreMinimalOnRandomSequences) {
    std::mt19937 rng(7);
    for (int round = 0; round < 300; ++round) {
        std::vector<std::uint32_t> a(rng() % 40), b(rng() % 40);
        for (auto& x : a) x = rng() % 5;
        for (auto& x : b) x = rng() % 5;
        const std::vector<DiffEdit> e = diff_sequences(a, b);
        EXPECT_EQ(apply(a, b, e), b);
        EXPECT_EQ(cost(e), a.size() + b.size() - 2 * lcs(a, b)) << "round " << round;
    }
}

TEST(LineDiff, DeletionsComeBeforeInsertions) {
    const std::vector<DiffEdit> e = diff_sequences({1, 2, 3}, {1, 4, 3});
    ASSERT_EQ(e.size(), 4u);
    EXPECT_EQ(e[1].kind, DiffEdit::Kind::Delete);
    EXPECT_EQ(e[2].kind, DiffEdit::Kind::Insert);
}

TEST(LineDiff, EqualTextsGiveNoDiff) {
    const UnifiedDiff d = unified_diff("a\nb\n", "a\nb\n", "a/x", "b/x");
    EXPECT_FALSE(d.changed());
    EXPECT_EQ(d.text, "");
}

TEST(LineDiff, OneHunkWithThreeLinesOfContext) {
    std::string a, b;
    for (int i = 1; i <= 20; ++i) a += "line " + std::to_string(i) + "\n";
    b = a;
    b.replace(b.find("line 10\n"), 8, "line ten\n");
    const UnifiedDiff d = unified_diff(a, b, "a/f", "b/f");
    EXPECT_EQ(d.text,
              "--- a/f\n+++ b/f\n@@ -7,7 +7,7 @@\n line 7\n line 8\n line 9\n-line 10\n+line ten\n line 11\n"
              " line 12\n line 13\n");
    EXPECT_EQ(d.added, 1u);
    EXPECT_EQ(d.removed, 1u);
}

TEST(LineDiff, DistantChangesGetTheirOwnHunks) {
    std::string a;
    for (int i = 1; i <= 30; ++i) a += std::to_string(i) + "\n";
    std::string b = a;
    b.replace(0, 2, "one\n");
    b += "31\n";
    const UnifiedDiff d = unified_diff(a, b, "a/f", "b/f");
    EXPECT_EQ(d.text, "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -28,3 +28,4 @@\n 28\n 29\n 30\n+31\n");
}

TEST(LineDiff, EmptySidesAndMissingFinalNewline) {
    EXPECT_EQ(unified_diff("", "x\ny\n", "/dev/null", "b/f").text, "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n");
    EXPECT_EQ(unified_diff("x\n", "", "a/f", "/dev/null").text, "--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n");
    EXPECT_EQ(unified_diff("a\nb", "a\nb\n", "a/f", "b/f").text,
              "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
}

TEST(LineDiff, GrownLogCostsOnlyTheAppendedLines) {
    std::string a;
    for (int i = 0; i < 200000; ++i) a += "  - entry " + std::to_string(i) + "\n";
    std::string b = a;
    for (int i = 0; i < 1000; ++i) b += "  - new " + std::to_string(i) + "\n";
    const UnifiedDiff d = unified_diff(a, b, "a/p", "b/p");
    EXPECT_EQ(d.added, 1000u);
    EXPECT_EQ(d.removed, 0u);
    EXPECT_EQ(d.text.substr(0, d.text.find(" @@\n") + 4), "--- a/p\n+++ b/p\n@@ -199998,3 +199998,1003 @@\n");
}

TEST(LineDiff, UnrelatedHugeTextsStayBounded) {
    // Beyond kMaxCost edits the region is replaced as a block: correct, quick.
    std::vector<std::uint32_t> a(60000), b(60000);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint32_t>(2 * i), b[i] = static_cast<std::uint32_t>(2 * i + 1);
    const std::vector<DiffEdit> e = diff_sequences(a, b);
    EXPECT_EQ(apply(a, b, e), b);
}

bool have_patch() { return std::system("patch --version >/dev/null 2>&1") == 0; }


TEST(LineDiff, RealPatchAppliesRandomDiffs) {
    if (!have_patch()) GTEST_SKIP() << "GNU patch not installed";
    testing::TempWorkspace dir;
    std::mt19937 rng(11);
    const char* words[] = {"alpha\n", "beta\n", "gamma\n", "delta\n", "eps"};
    for (int round = 0; round < 40; ++round) {
        std::string a, b;
        for (unsigned i = rng() % 60; i > 0; --i) a += words[rng() % 4];
        for (unsigned i = rng() % 60; i > 0; --i) b += words[rng() % 4];
        if (rng() % 3 == 0) a += words[4];  // a last line without its newline
        if (rng() % 3 == 0) b += words[4];
        const UnifiedDiff d = unified_diff(a, b, "a/f.txt", "b/f.txt");
        if (!d.changed()) continue;
        const std::filesystem::path root = dir.path("d" + std::to_string(round));
        std::filesystem::create_directories(root);
        std::ofstream(root / "f.txt", std::ios::binary) << a;
        std::ofstream(root / "d.patch", std::ios::binary) << d.text;
        const std::string cmd = "cd '" + root.string() + "' && patch -s -p1 < d.patch >/dev/null 2>&1";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << d.text;
        EXPECT_EQ(testing::read_text((root / "f.txt").string()), b) << d.text;
    }
}

}  // namespace
}  // namespace small
