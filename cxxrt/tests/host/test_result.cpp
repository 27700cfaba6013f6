#include <cxxrt/result.hpp>
#include <gtest/gtest.h>

using cxxrt::Error;
using cxxrt::Result;
namespace err = cxxrt::err;

namespace {

Result<int> parse_positive(int v)
{
    if (v <= 0)
        return Error(err::kInval);
    return v;
}

Result<int> doubled(int v)
{
    int x = CXXRT_TRY(parse_positive(v));
    return 2 * x;
}

Result<void> check(int v)
{
    CXXRT_TRY(parse_positive(v));
    return {};
}

struct MoveOnly {
    explicit MoveOnly(int v) : value(v) {}
    MoveOnly(MoveOnly&& o) : value(o.value) { o.value = -1; }
    MoveOnly(const MoveOnly&) = delete;
    ~MoveOnly() { ++destroyed; }
    int value;
    static inline int destroyed = 0;
};

}  // namespace

TEST(Result, ValueAndError)
{
    auto ok = parse_positive(3);
    ASSERT_TRUE(ok.is_ok());
    EXPECT_EQ(ok.value(), 3);
    EXPECT_EQ(ok.to_errno(), 0);

    auto bad = parse_positive(-1);
    ASSERT_TRUE(bad.is_error());
    EXPECT_EQ(bad.error().to_errno(), -22);
    EXPECT_EQ(bad.error().code(), err::kInval);
    EXPECT_EQ(bad.to_errno(), -22);
    EXPECT_EQ(bad.value_or(7), 7);
}

TEST(Result, TryPropagates)
{
    EXPECT_EQ(doubled(4).value(), 8);
    EXPECT_EQ(doubled(0).error().code(), err::kInval);
    EXPECT_TRUE(check(1).is_ok());
    EXPECT_EQ(check(-5).to_errno(), -22);
}

TEST(Result, ToResultFromKernelConvention)
{
    EXPECT_TRUE(cxxrt::to_result(0).is_ok());
    EXPECT_TRUE(cxxrt::to_result(5).is_ok());
    EXPECT_EQ(cxxrt::to_result(-12).error().code(), err::kNoMem);
}

TEST(Result, MoveOnlyValueDestroyedOnce)
{
    MoveOnly::destroyed = 0;
    {
        Result<MoveOnly> r(MoveOnly(5));
        ASSERT_TRUE(r.is_ok());
        MoveOnly taken = r.release_value();
        EXPECT_EQ(taken.value, 5);
    }
    // the temporary, the moved-from value inside the result, and `taken`
    EXPECT_EQ(MoveOnly::destroyed, 3);
    MoveOnly::destroyed = 0;
    {
        Result<MoveOnly> e(Error(err::kIo));
        EXPECT_TRUE(e.is_error());
    }
    EXPECT_EQ(MoveOnly::destroyed, 0);  // an error holds no value to destroy
}

namespace {

cxxrt::ResultWithReason<int> open_checked(bool read_only)
{
    if (read_only)
        return cxxrt::ResultWithReason<int>(Error(err::kAccess), "read-only");
    return 7;
}

Result<int> open_and_pass_on(bool read_only)
{
    return CXXRT_TRY(open_checked(read_only)) + 1;
}

}  // namespace

TEST(ResultWithReason, ErrorCarriesItsReason)
{
    auto refused = open_checked(true);
    ASSERT_TRUE(refused.is_error());
    EXPECT_EQ(refused.error(), Error(err::kAccess));
    EXPECT_STREQ(refused.reason(), "read-only");
    auto opened = open_checked(false);
    ASSERT_TRUE(opened.is_ok());
    EXPECT_EQ(opened.value(), 7);
    EXPECT_STREQ(opened.reason(), "");
    EXPECT_EQ(cxxrt::ResultWithReason<int>(Error(err::kIo)).reason()[0], '\0');
}

TEST(ResultWithReason, TryPassesTheErrorOn)
{
    EXPECT_EQ(open_and_pass_on(false).value(), 8);
    EXPECT_EQ(open_and_pass_on(true).error(), Error(err::kAccess));
}

TEST(ResultDeathTest, ValueOfAnErrorAssertsInDebugBuilds)
{
    Result<int> failed = Error(err::kInval);
    EXPECT_DEATH((void)failed.value(), "");
}
