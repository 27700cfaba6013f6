// Host tests of the io_hold_timeout_ms deadline policy (rtrs/core/rtrs-clt-hold.hpp).
#include <gtest/gtest.h>

#include "rtrs/core/rtrs-clt-hold.hpp"

using rtrs::clt::IoHold;

namespace {
constexpr cxxrt::u64 kMs = 1000000;  // ns
}

TEST(IoHold, Limits)
{
    EXPECT_TRUE(IoHold::valid(0));
    EXPECT_TRUE(IoHold::valid(IoHold::kMaxMs));
    EXPECT_FALSE(IoHold::valid(IoHold::kMaxMs + 1ull));
    EXPECT_FALSE(IoHold::valid(~0ull));
    IoHold hold(500);
    EXPECT_FALSE(hold.set_timeout(IoHold::kMaxMs + 1ull));
    EXPECT_EQ(hold.timeout_ms(), 500u);  // a refused value changes nothing
    EXPECT_TRUE(hold.set_timeout(0));
    EXPECT_EQ(hold.timeout_ms(), 0u);
    EXPECT_EQ(IoHold(IoHold::kMaxMs + 5).timeout_ms(), IoHold::kMaxMs);
}

TEST(IoHold, IdleUntilStarted)
{
    IoHold hold(1000);
    EXPECT_FALSE(hold.holding());
    EXPECT_FALSE(hold.expired());
    EXPECT_EQ(hold.remaining_ms(5 * kMs), 0u);
    EXPECT_FALSE(hold.expire_if_due(10000 * kMs));
}

TEST(IoHold, ExpiresAtTheDeadlineOnce)
{
    IoHold hold(1000);
    const cxxrt::u64 t0 = 123456789;
    hold.start(t0);
    EXPECT_TRUE(hold.holding());
    EXPECT_EQ(hold.remaining_ms(t0), 1000u);
    EXPECT_EQ(hold.remaining_ms(t0 + 1), 1000u);  // rounded up: a timer never fires early
    EXPECT_EQ(hold.remaining_ms(t0 + 400 * kMs), 600u);
    EXPECT_FALSE(hold.expire_if_due(t0 + 999 * kMs));
    EXPECT_EQ(hold.remaining_ms(t0 + 999 * kMs + 1), 1u);
    EXPECT_TRUE(hold.expire_if_due(t0 + 1000 * kMs));
    EXPECT_TRUE(hold.expired());
    EXPECT_FALSE(hold.holding());
    EXPECT_FALSE(hold.expire_if_due(t0 + 2000 * kMs));  // reported once
    EXPECT_EQ(hold.remaining_ms(t0 + 10 * kMs), 0u);
}

TEST(IoHold, ZeroExpiresAtOnce)
{
    IoHold hold(0);
    hold.start(42);
    EXPECT_TRUE(hold.expire_if_due(42));
}

TEST(IoHold, PathBackStopsAndResets)
{
    IoHold hold(1000);
    hold.start(0);
    hold.stop();
    EXPECT_FALSE(hold.holding());
    EXPECT_FALSE(hold.expire_if_due(5000 * kMs));
    // The next outage counts from its own start.
    hold.start(5000 * kMs);
    EXPECT_EQ(hold.remaining_ms(5500 * kMs), 500u);
    EXPECT_TRUE(hold.expire_if_due(6000 * kMs));
    hold.stop();
    EXPECT_FALSE(hold.expired());
    hold.start(7000 * kMs);
    EXPECT_TRUE(hold.holding());
}

TEST(IoHold, NewTimeoutDuringAnOutageCountsFromItsStart)
{
    IoHold hold(10000);
    hold.start(0);
    ASSERT_TRUE(hold.set_timeout(3000));
    EXPECT_EQ(hold.remaining_ms(1000 * kMs), 2000u);
    ASSERT_TRUE(hold.set_timeout(500));  // already passed at 1 s
    EXPECT_TRUE(hold.expire_if_due(1000 * kMs));
    // Expired stays expired, whatever the timeout becomes.
    ASSERT_TRUE(hold.set_timeout(IoHold::kMaxMs));
    EXPECT_TRUE(hold.expired());
    EXPECT_FALSE(hold.expire_if_due(1001 * kMs));
}

TEST(IoHold, ClockBeforeTheStartCountsAsNoTimePassed)
{
    IoHold hold(1000);
    hold.start(5000 * kMs);
    EXPECT_EQ(hold.remaining_ms(4000 * kMs), 1000u);
    EXPECT_FALSE(hold.expire_if_due(4000 * kMs));
}
