// Atomic<T>: the operations product code uses, on integers, pointers and
// scoped enums (stored as their underlying integer).
#include <cxxrt/atomic.hpp>
#include <gtest/gtest.h>

namespace {

enum class Owner : cxxrt::u8 { kIdle, kBusy, kDone };

}  // namespace

TEST(Atomic, CompareExchangeWithFailureOrderReportsTheCurrentValue)
{
    cxxrt::Atomic<Owner> owner{Owner::kIdle};
    Owner expected = Owner::kBusy;
    EXPECT_FALSE(owner.compare_exchange(expected, Owner::kDone, cxxrt::MemoryOrder::kAcqRel,
                                        cxxrt::MemoryOrder::kAcquire));
    EXPECT_EQ(expected, Owner::kIdle);
    EXPECT_TRUE(owner.compare_exchange(expected, Owner::kBusy, cxxrt::MemoryOrder::kAcqRel,
                                       cxxrt::MemoryOrder::kAcquire));
    EXPECT_EQ(owner.load(cxxrt::MemoryOrder::kAcquire), Owner::kBusy);
}

TEST(Atomic, PointersLoadAndStore)
{
    int target = 0;
    cxxrt::Atomic<int*> pointer;
    EXPECT_EQ(pointer.load(), nullptr);
    pointer.store(&target, cxxrt::MemoryOrder::kRelease);
    EXPECT_EQ(pointer.load(cxxrt::MemoryOrder::kAcquire), &target);
}

TEST(Atomic, FetchAndClearsBitsAndReturnsTheOldValue)
{
    cxxrt::Atomic<cxxrt::u64> word{0xff};
    EXPECT_EQ(word.fetch_and(~cxxrt::u64(0x0f), cxxrt::MemoryOrder::kRelease), 0xffu);
    EXPECT_EQ(word.load(cxxrt::MemoryOrder::kRelaxed), 0xf0u);
}

TEST(AtomicRef, UpdatesTheFieldItRefersTo)
{
    struct Counters {
        cxxrt::u32 moved = 0;
        cxxrt::u32 key = 7;
    } counters;
    cxxrt::AtomicRef<cxxrt::u32>(counters.moved).fetch_add(2, cxxrt::MemoryOrder::kRelaxed);
    EXPECT_EQ(counters.moved, 2u);
    cxxrt::AtomicRef<cxxrt::u32> key(counters.key);
    EXPECT_EQ(key.load(cxxrt::MemoryOrder::kRelaxed), 7u);
    key.store(9, cxxrt::MemoryOrder::kRelaxed);
    EXPECT_EQ(counters.key, 9u);
}
