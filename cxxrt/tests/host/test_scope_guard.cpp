#include <cxxrt/scope_guard.hpp>
#include <gtest/gtest.h>

TEST(ScopeGuard, RunsAtScopeEnd)
{
    int runs = 0;
    {
        cxxrt::ScopeGuard guard([&runs] { ++runs; });
        EXPECT_TRUE(guard.armed());
        EXPECT_EQ(runs, 0);
    }
    EXPECT_EQ(runs, 1);
}

TEST(ScopeGuard, DismissKeepsTheStep)
{
    int runs = 0;
    {
        cxxrt::ScopeGuard guard([&runs] { ++runs; });
        guard.dismiss();
        EXPECT_FALSE(guard.armed());
    }
    EXPECT_EQ(runs, 0);
}

TEST(ScopeGuard, CallRunsOnceNow)
{
    int runs = 0;
    {
        cxxrt::ScopeGuard guard([&runs] { ++runs; });
        guard.call();
        EXPECT_EQ(runs, 1);
        guard.call();
        EXPECT_EQ(runs, 1);
    }
    EXPECT_EQ(runs, 1);
}

namespace {
// Every return path leaves exactly once (the shape of a submit function).
int leave_count = 0;
int submit(int where_to_fail)
{
    cxxrt::ScopeGuard leave([] { ++leave_count; });
    if (where_to_fail == 1)
        return -1;
    if (where_to_fail == 2)
        return -2;
    return 0;
}
}  // namespace

TEST(ScopeGuard, EveryExitLeavesOnce)
{
    leave_count = 0;
    EXPECT_EQ(submit(0), 0);
    EXPECT_EQ(submit(1), -1);
    EXPECT_EQ(submit(2), -2);
    EXPECT_EQ(leave_count, 3);
}
