#include <cxxrt/sync.hpp>
#include <gtest/gtest.h>

#include <thread>
#include <vector>

TEST(Sync, GuardsLockAndUnlock)
{
    cxxrt::SpinLock lock;
    EXPECT_FALSE(lock.is_locked());
    {
        cxxrt::SpinGuard guard(lock);
        EXPECT_TRUE(lock.is_locked());
    }
    EXPECT_FALSE(lock.is_locked());
    {
        cxxrt::IrqSpinGuard guard(lock);
        EXPECT_TRUE(lock.is_locked());
    }
    {
        cxxrt::BhSpinGuard guard(lock);
        EXPECT_TRUE(lock.is_locked());
    }
    EXPECT_FALSE(lock.is_locked());
    cxxrt::Mutex mutex;
    {
        cxxrt::MutexGuard guard(mutex);
        EXPECT_TRUE(mutex.is_locked());
    }
    EXPECT_TRUE(mutex.try_lock());
    mutex.unlock();
}

TEST(Sync, ProtectedSerialisesUpdates)
{
    cxxrt::Protected<long> counter(0L);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&counter] {
            for (int i = 0; i < 10000; ++i)
                counter.with([](long& v) { ++v; });
        });
    for (auto& thread : threads)
        thread.join();
    EXPECT_EQ(counter.with([](long& v) { return v; }), 40000);
}
