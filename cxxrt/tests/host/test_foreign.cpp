#include <cxxrt/foreign.hpp>
#include <gtest/gtest.h>

namespace {

struct Reply : cxxrt::RefCounted<Reply> {
    explicit Reply(int* destroyed_count) : destroyed(destroyed_count) {}
    ~Reply() { ++*destroyed; }
    int* destroyed;
};

struct Owned {
    int value = 7;
};

}  // namespace

TEST(Foreign, RefPtrRoundTripKeepsTheReference)
{
    int destroyed = 0;
    cxxrt::RefPtr<Reply> reply = cxxrt::make_ref<Reply>(cxxrt::Gfp::kernel(), &destroyed).release_value();
    cxxrt::RefPtr<Reply> ours = reply;
    void* context = cxxrt::into_foreign(cxxrt::move(reply));
    EXPECT_FALSE(reply);
    EXPECT_EQ(context, static_cast<void*>(ours.get()));
    EXPECT_EQ(ours->ref_count(), 2u);  // C holds one
    // Borrowing neither takes nor drops a reference.
    Reply* peek = cxxrt::borrow_foreign<cxxrt::RefPtr<Reply>>(context);
    EXPECT_EQ(peek, ours.get());
    EXPECT_EQ(ours->ref_count(), 2u);
    {
        cxxrt::RefPtr<Reply> back = cxxrt::from_foreign<cxxrt::RefPtr<Reply>>(context);
        EXPECT_EQ(back.get(), ours.get());
        EXPECT_EQ(ours->ref_count(), 2u);  // adopted, not taken again
    }
    EXPECT_EQ(ours->ref_count(), 1u);
    ours.reset();
    EXPECT_EQ(destroyed, 1);
    EXPECT_EQ(cxxrt::alloc_counter<Reply>.live.load(), 0);
}

TEST(Foreign, UniquePtrRoundTripOwnsTheObject)
{
    cxxrt::UniquePtr<Owned> owned = cxxrt::make_unique<Owned>(cxxrt::Gfp::kernel()).release_value();
    void* context = cxxrt::into_foreign(cxxrt::move(owned));
    EXPECT_FALSE(owned);
    EXPECT_EQ(cxxrt::borrow_foreign<cxxrt::UniquePtr<Owned>>(context)->value, 7);
    EXPECT_EQ(cxxrt::alloc_counter<Owned>.live.load(), 1);
    {
        cxxrt::UniquePtr<Owned> back = cxxrt::from_foreign<cxxrt::UniquePtr<Owned>>(context);
        EXPECT_EQ(back->value, 7);
    }
    EXPECT_EQ(cxxrt::alloc_counter<Owned>.live.load(), 0);
}

TEST(Foreign, EmptyCrossesAsNull)
{
    cxxrt::RefPtr<Reply> empty;
    void* context = cxxrt::into_foreign(cxxrt::move(empty));
    EXPECT_EQ(context, nullptr);
    EXPECT_FALSE(cxxrt::from_foreign<cxxrt::RefPtr<Reply>>(nullptr));
    EXPECT_EQ(cxxrt::borrow_foreign<cxxrt::RefPtr<Reply>>(nullptr), nullptr);
}
