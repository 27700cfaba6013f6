#include <cxxrt/drain.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

TEST(DrainCounter, CountsUsers)
{
    cxxrt::DrainCounter users{cxxrt::lock_class<"host::DrainCounter::CountsUsers">};
    EXPECT_TRUE(users.is_idle());
    users.enter();
    users.enter();
    EXPECT_EQ(users.count(), 2u);
    users.leave();
    EXPECT_FALSE(users.is_idle());
    users.leave();
    EXPECT_TRUE(users.is_idle());
    users.wait_idle();  // no user: returns at once
}

TEST(DrainCounter, WaitTimesOutWhileAUserRemains)
{
    cxxrt::DrainCounter users{cxxrt::lock_class<"host::DrainCounter::TimesOut">};
    users.enter();
    EXPECT_FALSE(users.wait_idle_timeout(20));
    users.leave();
    EXPECT_TRUE(users.wait_idle_timeout(20));
}

TEST(DrainCounter, WaiterWakesWhenTheLastUserLeaves)
{
    cxxrt::DrainCounter users{cxxrt::lock_class<"host::DrainCounter::Wakes">};
    constexpr int kUsers = 4;
    for (int i = 0; i < kUsers; ++i)
        users.enter();
    std::atomic<int> left{0};
    std::thread leaver([&] {
        for (int i = 0; i < kUsers; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            left.fetch_add(1);
            users.leave();
        }
    });
    users.wait_idle();
    EXPECT_EQ(left.load(), kUsers);
    leaver.join();
}
