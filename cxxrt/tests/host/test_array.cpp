#include <cxxrt/array.hpp>
#include <cxxrt/unique_ptr.hpp>
#include <gtest/gtest.h>

#include <vector>

namespace {

std::vector<int> g_destroyed;

// Pinned, with a constructor that needs its index: the shape of the
// per-slot objects rtrs keeps in arrays.
struct Slot : cxxrt::Pinned {
    Slot(int* owner_tag, cxxrt::u32 slot_index) : owner(owner_tag), index(slot_index) {}
    ~Slot() { g_destroyed.push_back(int(index)); }
    int* owner;
    cxxrt::u32 index;
};

struct Plain {
    int value = 42;
};

}  // namespace

TEST(Array, ConstructsEachElementWithItsIndex)
{
    g_destroyed.clear();
    int tag = 0;
    {
        auto made = cxxrt::Array<Slot>::create(cxxrt::Gfp::kernel(), 3,
                                               [&tag](cxxrt::u32 i) { return Slot(&tag, i); });
        ASSERT_TRUE(made.is_ok());
        cxxrt::Array<Slot> slots = made.release_value();
        ASSERT_EQ(slots.size(), 3u);
        for (cxxrt::u32 i = 0; i < slots.size(); ++i) {
            EXPECT_EQ(slots[i].index, i);
            EXPECT_EQ(slots[i].owner, &tag);
        }
        EXPECT_EQ(cxxrt::alloc_counter<Slot[]>.live.load(), 1);
        EXPECT_TRUE(g_destroyed.empty());
    }
    // Destroyed last first, and freed.
    EXPECT_EQ(g_destroyed, (std::vector<int>{2, 1, 0}));
    EXPECT_EQ(cxxrt::alloc_counter<Slot[]>.live.load(), 0);
}

TEST(Array, DefaultConstructsAndIterates)
{
    auto made = cxxrt::Array<Plain>::create(cxxrt::Gfp::kernel(), 4);
    ASSERT_TRUE(made.is_ok());
    cxxrt::Array<Plain> plain = made.release_value();
    int sum = 0;
    for (Plain& p : plain)
        sum += p.value;
    EXPECT_EQ(sum, 4 * 42);
    EXPECT_EQ(plain.span().size(), 4u);
}

TEST(Array, OwnsUniquePointers)
{
    auto made = cxxrt::Array<cxxrt::UniquePtr<Plain>>::create(cxxrt::Gfp::kernel(), 2);
    ASSERT_TRUE(made.is_ok());
    cxxrt::Array<cxxrt::UniquePtr<Plain>> owners = made.release_value();
    EXPECT_FALSE(owners[0]);
    owners[1] = cxxrt::make_unique<Plain>(cxxrt::Gfp::kernel()).release_value();
    EXPECT_EQ(cxxrt::alloc_counter<Plain>.live.load(), 1);
    owners.reset();  // destroys the elements, which free what they own
    EXPECT_EQ(cxxrt::alloc_counter<Plain>.live.load(), 0);
    EXPECT_FALSE(owners);
    EXPECT_EQ(owners.size(), 0u);
}

TEST(Array, MovesWithoutTouchingElements)
{
    g_destroyed.clear();
    int tag = 0;
    cxxrt::Array<Slot> first =
        cxxrt::Array<Slot>::create(cxxrt::Gfp::kernel(), 2, [&tag](cxxrt::u32 i) { return Slot(&tag, i); })
            .release_value();
    Slot* where = &first[0];
    cxxrt::Array<Slot> second = cxxrt::move(first);
    EXPECT_FALSE(first);
    EXPECT_EQ(&second[0], where);
    EXPECT_TRUE(g_destroyed.empty());
    second = cxxrt::Array<Slot>();
    EXPECT_EQ(g_destroyed.size(), 2u);
}

TEST(Array, FailedAllocationConstructsNothing)
{
    g_destroyed.clear();
    int tag = 0;
    int constructed = 0;
    cxxrt::g_alloc_registry.fail_nth.set(1);
    auto made = cxxrt::Array<Slot>::create(cxxrt::Gfp::kernel(), 2, [&](cxxrt::u32 i) {
        ++constructed;
        return Slot(&tag, i);
    });
    ASSERT_TRUE(made.is_error());
    EXPECT_EQ(made.error().code(), cxxrt::err::kNoMem);
    EXPECT_EQ(constructed, 0);
}

TEST(Array, CreateZeroedHoldsZeroBytes)
{
    auto made = cxxrt::Array<cxxrt::u8>::create_zeroed(cxxrt::Gfp::kernel(), 4096);
    ASSERT_TRUE(made.is_ok());
    cxxrt::Array<cxxrt::u8>& bytes = made.value();
    ASSERT_EQ(bytes.size(), 4096u);
    for (cxxrt::u8 byte : bytes)
        EXPECT_EQ(byte, 0);
    bytes[4095] = 1;  // the whole range is ours
    EXPECT_EQ(bytes.data()[4095], 1);
}

TEST(Array, CreateZeroedFailsWithoutMemory)
{
    cxxrt::g_alloc_registry.fail_nth.set(1);
    auto made = cxxrt::Array<cxxrt::u64>::create_zeroed(cxxrt::Gfp::kernel(), 8);
    ASSERT_TRUE(made.is_error());
    EXPECT_EQ(made.error().code(), cxxrt::err::kNoMem);
}
