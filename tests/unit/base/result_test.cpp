// Result<T> and Error (base/result): how an error describes itself and the
// errno form every system failure takes.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "small/base/result.hpp"

namespace small {
namespace {

TEST(Error, DescribeLeavesOutWhatIsUnknown) {
    Error e = Error::invalid("bad value");
    EXPECT_EQ(e.describe(), "bad value");
    e.file = ".small/plan.small.yml";
    EXPECT_EQ(e.describe(), ".small/plan.small.yml: bad value");
    e.column = 4;  // a column without a line is not shown
    EXPECT_EQ(e.describe(), ".small/plan.small.yml: bad value");
    e.line = 12;
    EXPECT_EQ(e.describe(), ".small/plan.small.yml:12:4: bad value");
    e.column = 0;
    EXPECT_EQ(e.describe(), ".small/plan.small.yml:12: bad value");
}

TEST(Error, EachMakerSetsItsKind) {
    EXPECT_EQ(Error::invalid("m").kind, Error::Kind::Invalid);
    EXPECT_EQ(Error::system("m").kind, Error::Kind::System);
    EXPECT_EQ(Error::usage("m").kind, Error::Kind::Usage);
    EXPECT_EQ(Error::busy("m").kind, Error::Kind::Busy);
    const Error internal = Error::internal("a check failed");
    EXPECT_EQ(internal.kind, Error::Kind::Internal);
    EXPECT_EQ(internal.message, "internal error: a check failed");
}

TEST(Error, FromErrnoNamesWhatAndWhereButKeepsNoLocation) {
    const Error e = Error::from_errno("cannot open", "/ws/.small/plan.small.yml", ENOENT);
    EXPECT_EQ(e.kind, Error::Kind::System);
    EXPECT_EQ(e.message, std::string("cannot open /ws/.small/plan.small.yml: ") + std::strerror(ENOENT));
    EXPECT_EQ(e.file, "");
    EXPECT_EQ(e.describe(), e.message);
}

TEST(Result, HoldsAValueOrAnError) {
    Result<std::string> good = std::string("text");
    ASSERT_TRUE(good.ok());
    EXPECT_TRUE(static_cast<bool>(good));
    EXPECT_EQ(*good, "text");
    EXPECT_EQ(good->size(), 4u);
    const std::string moved = std::move(good).value();
    EXPECT_EQ(moved, "text");

    const Result<int> bad = Error::busy("the lock is held");
    EXPECT_FALSE(bad.ok());
    EXPECT_FALSE(static_cast<bool>(bad));
    EXPECT_EQ(bad.error().kind, Error::Kind::Busy);
    EXPECT_EQ(bad.error().message, "the lock is held");

    EXPECT_TRUE(ok_status().ok());
}

}  // namespace
}  // namespace small
