// FileWatch: a change in a watched folder ends a wait; a quiet one times
// out; a name filter ignores other entries; wake() ends a wait.
#include <gtest/gtest.h>

#include <thread>

#include "small/serve/file_watch.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using namespace small::testing;

using namespace std::chrono_literals;

TEST(FileWatch, AWriteInAWatchedFolderIsAChange) {
    TempDir dir;
    Result<FileWatch> watch = FileWatch::create();
    ASSERT_TRUE(watch);
    ASSERT_TRUE(watch->add(dir.root()));
    EXPECT_FALSE(watch->wait(50ms, 10ms));
    write_text(dir.root() + "/plan.small.yml", "x");
    EXPECT_TRUE(watch->wait(1000ms, 20ms));
    EXPECT_FALSE(watch->wait(50ms, 10ms));  // the events were consumed, debounce included
}

TEST(FileWatch, AMissingFolderIsNotWatched) {
    TempDir dir;
    Result<FileWatch> watch = FileWatch::create();
    ASSERT_TRUE(watch);
    EXPECT_FALSE(watch->add(dir.root() + "/absent"));
}

TEST(FileWatch, NamesFilterTheEntriesThatCount) {
    TempDir dir;
    Result<FileWatch> watch = FileWatch::create();
    ASSERT_TRUE(watch);
    ASSERT_TRUE(watch->add(dir.root(), {"packed-refs"}));
    write_text(dir.root() + "/index", "x");
    EXPECT_FALSE(watch->wait(200ms, 10ms));
    write_text(dir.root() + "/packed-refs", "x");
    EXPECT_TRUE(watch->wait(1000ms, 10ms));
}

TEST(FileWatch, WakeEndsAWait) {
    TempDir dir;
    Result<FileWatch> watch = FileWatch::create();
    ASSERT_TRUE(watch);
    ASSERT_TRUE(watch->add(dir.root()));
    std::thread waker([&] {
        std::this_thread::sleep_for(50ms);
        watch->wake();
    });
    const auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(watch->wait(10s, 10ms));
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
    waker.join();
}

}  // namespace
}  // namespace small
