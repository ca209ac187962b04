// What doctor and `small merge --explain` say about a `.small/` file git
// left unmerged that small's driver merges cleanly (domain/unmerged_files):
// after git's octopus (`git merge A B`, which never runs merge drivers),
// merge again with `-s small`, naming the branches git's message names.
#include "small/domain/unmerged_files.hpp"

#include <gtest/gtest.h>

#include "support/fixtures.hpp"

namespace small {
namespace {

using namespace small::testing;
using Branches = std::vector<std::string>;

TEST(BranchesInMergeMessage, TheBranchesGitNames) {
    EXPECT_EQ(branches_in_merge_message("Merge branches 'a' and 'b'\n\n# Conflicts:\n#\tf\n"), (Branches{"a", "b"}));
    EXPECT_EQ(branches_in_merge_message("Merge branches 'c', 'a' and 'b'"), (Branches{"c", "a", "b"}));
    EXPECT_EQ(branches_in_merge_message("Merge branches 'agent/a' and 'it's' into main\n"),
              (Branches{"agent/a", "it's"}));
    EXPECT_EQ(branches_in_merge_message("Merge branch 'a'\n"), (Branches{"a"}));
}

TEST(BranchesInMergeMessage, AnythingElseIsNone) {
    for (const char* message : {"Merge branches 'a' and 'b'; commit '0123abc'", "Merge commit '0123abc'",
                                "Merge branch 'a' of https://example.com/r", "Merge tag 'v1'",
                                "Merge remote-tracking branch 'origin/a'", "my own message", ""}) {
        EXPECT_EQ(branches_in_merge_message(message), Branches{}) << message;
    }
}

TEST(CleanMergeAdvice, AnOctopusIsMergedAgainWithSmallsStrategy) {
    UnmergedFile file;
    file.path = ".small/progress.small.yml";
    file.octopus = {"a", "b c"};
    file.driver_registered = true;
    CleanMergeAdvice advice = clean_merge_advice(file);
    EXPECT_TRUE(contains(advice.reason, "octopus strategy, which never runs merge drivers")) << advice.reason;
    EXPECT_EQ(advice.fix, "git merge --abort && git merge -s small a 'b c'");
    file.driver_registered = false;
    EXPECT_EQ(clean_merge_advice(file).fix, "git merge --abort && small hooks install git && git merge -s small a 'b c'");
}

TEST(CleanMergeAdvice, ATwoBranchMergeIsRedoneThroughTheDriver) {
    UnmergedFile file;
    file.path = "sub/.small/plan.small.yml";
    const CleanMergeAdvice advice = clean_merge_advice(file);
    EXPECT_EQ(advice.reason, "git merged it without the driver, or the registered driver failed");
    EXPECT_EQ(advice.fix,
              "small hooks install git, then: git checkout -m -- sub/.small/plan.small.yml && git add -- "
              "sub/.small/plan.small.yml");
}

}  // namespace
}  // namespace small
