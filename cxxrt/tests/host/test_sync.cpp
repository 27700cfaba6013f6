#include <cxxrt/sync.hpp>
#include <gtest/gtest.h>

#include <thread>
#include <vector>

TEST(Sync, GuardsLockAndUnlock)
{
    cxxrt::SpinLock lock{cxxrt::lock_class<"host::GuardsLockAndUnlock::lock">};
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
    cxxrt::Mutex mutex{cxxrt::lock_class<"host::GuardsLockAndUnlock::mutex">};
    {
        cxxrt::MutexGuard guard(mutex);
        EXPECT_TRUE(mutex.is_locked());
    }
    EXPECT_TRUE(mutex.try_lock());
    mutex.unlock();
}

TEST(Sync, ProtectedSerialisesUpdates)
{
    cxxrt::Protected<long> counter(cxxrt::lock_class<"host::Protected::counter">, 0L);
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

TEST(Sync, LockClassesAreStaticPerName)
{
    cxxrt::LockClass& a = cxxrt::lock_class<"host::LockClass::a">;
    cxxrt::LockClass& b = cxxrt::lock_class<"host::LockClass::b">;
    EXPECT_NE(&a, &b);
    EXPECT_NE(a.key(), b.key());
    EXPECT_EQ(&a, &cxxrt::lock_class<"host::LockClass::a">);  // one class per name
    EXPECT_STREQ(a.name(), "host::LockClass::a");
    EXPECT_STREQ(b.name(), "host::LockClass::b");
}

TEST(Sync, NestedGuardLocks)
{
    cxxrt::Mutex outer{cxxrt::lock_class<"host::Nested::m">};
    cxxrt::Mutex inner{cxxrt::lock_class<"host::Nested::m">};
    cxxrt::MutexGuard a(outer);
    {
        cxxrt::MutexGuard b(inner, cxxrt::kNested);
        EXPECT_TRUE(inner.is_locked());
    }
    EXPECT_FALSE(inner.is_locked());
}
