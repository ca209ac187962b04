// Open buffers laid over the disk: read, listed, stamped per version, never written.
#include "small/base/filesystem.hpp"

#include <gtest/gtest.h>

namespace small {
namespace {

TEST(LspOverlay, BuffersShadowTheDiskAndForgettingShowsItAgain) {
    MemoryFileSystem disk;
    disk.add_file("/w/.small/plan.small.yml", "on disk\n");
    OverlayFileSystem fs(disk);
    fs.put("/w/.small/plan.small.yml", "unsaved text\n");
    EXPECT_EQ(*fs.read_file("/w/.small/plan.small.yml"), "unsaved text\n");
    EXPECT_EQ(fs.read_range("/w/.small/plan.small.yml", 2, 5)->bytes, "saved");
    EXPECT_EQ(fs.read_range("/w/.small/plan.small.yml", 2, 5)->file_size, 13u);
    EXPECT_EQ(*fs.read_file_no_follow("/w/.small", "plan.small.yml"), "unsaved text\n");
    std::string streamed;
    EXPECT_TRUE(fs.stream_file_no_follow("/w/.small", "plan.small.yml", [&](std::string_view piece) -> Status {
        streamed += piece;
        return ok_status();
    }));
    EXPECT_EQ(streamed, "unsaved text\n");
    std::string prefix;
    EXPECT_EQ(*fs.stream_prefix("/w/.small/plan.small.yml", 4, [&](std::string_view p) { prefix += p; }), 13u);
    EXPECT_EQ(prefix, "unsa");
    fs.forget("/w/.small/plan.small.yml");
    EXPECT_EQ(*fs.read_file("/w/.small/plan.small.yml"), "on disk\n");
}

TEST(LspOverlay, AFileNotSavedYetExistsAndIsListed) {
    MemoryFileSystem disk;
    disk.add_file("/w/.small/plan.small.yml", "x\n");
    OverlayFileSystem fs(disk);
    fs.put("/w/.small/handoff.small.yml", "new\n");
    EXPECT_TRUE(fs.file_exists("/w/.small/handoff.small.yml"));
    const std::vector<DirEntry> entries = *fs.list_directory("/w/.small");
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[0].name, "handoff.small.yml");
    EXPECT_EQ(entries[1].name, "plan.small.yml");
}

TEST(LspOverlay, EveryVersionHasItsOwnStampAndNothingIsWritten) {
    MemoryFileSystem disk;
    OverlayFileSystem fs(disk);
    fs.put("/w/a", "one");
    const std::optional<FileInfo> first = fs.stat("/w/a");
    fs.put("/w/a", "two");  // same size, new version
    const std::optional<FileInfo> second = fs.stat("/w/a");
    ASSERT_TRUE(first && second);
    EXPECT_NE(stamp_of(*first), stamp_of(*second));
    EXPECT_NE(fs.version_stamp("/w/a"), std::nullopt);
    FileWrite write{"/w", "/w/a", "/w", 0644, Durability::None, false, false};
    EXPECT_FALSE(fs.replace_file(write, "written"));
    EXPECT_EQ(*fs.read_file("/w/a"), "two");
}

}  // namespace
}  // namespace small
