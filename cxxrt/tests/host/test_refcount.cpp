#include <cxxrt/ref_counted.hpp>
#include <cxxrt/unique_ptr.hpp>
#include <gtest/gtest.h>

#include "kapi-host.hpp"

namespace {

struct Session : cxxrt::RefCounted<Session> {
    explicit Session(int* destroyed_count) : destroyed(destroyed_count) {}
    ~Session() { ++*destroyed; }
    int* destroyed;
};

struct Deferred : cxxrt::RefCounted<Deferred> {
    void release_last_reference() { released = true; }
    bool released = false;
};

}  // namespace

TEST(RefCounted, LastUnrefDestroys)
{
    int destroyed = 0;
    {
        auto made = cxxrt::make_ref<Session>(cxxrt::Gfp::kernel(), &destroyed);
        ASSERT_TRUE(made.is_ok());
        cxxrt::RefPtr<Session> first = made.release_value();
        EXPECT_EQ(first->ref_count(), 1u);
        {
            cxxrt::RefPtr<Session> second = first;
            EXPECT_EQ(first->ref_count(), 2u);
        }
        EXPECT_EQ(first->ref_count(), 1u);
        EXPECT_EQ(destroyed, 0);
    }
    EXPECT_EQ(destroyed, 1);
    EXPECT_EQ(cxxrt::alloc_counter<Session>.live.load(), 0);
}

TEST(RefCounted, ReleaseCallbackInsteadOfDestroy)
{
    Deferred d;
    d.ref();
    d.unref();
    EXPECT_FALSE(d.released);
    d.unref();
    EXPECT_TRUE(d.released);
}

TEST(RefCounted, TryRefFailsOnDeadObject)
{
    Deferred d;
    EXPECT_TRUE(d.try_ref());
    d.unref();
    d.unref();
    EXPECT_TRUE(d.released);
    EXPECT_FALSE(d.try_ref());
}

TEST(RefCounted, UnrefOfDeadObjectSaturatesAndWarns)
{
    int before = host::g_warnings;
    Deferred d;
    d.unref();
    EXPECT_TRUE(d.released);
    d.released = false;
    d.unref();  // one unref too many: warn, never release twice
    EXPECT_FALSE(d.released);
    EXPECT_EQ(host::g_warnings, before + 1);
}

TEST(UniquePtr, OwnsAndFrees)
{
    int destroyed = 0;
    {
        auto made = cxxrt::make_unique<Session>(cxxrt::Gfp::kernel(), &destroyed);
        ASSERT_TRUE(made.is_ok());
        cxxrt::UniquePtr<Session> owner = made.release_value();
        cxxrt::UniquePtr<Session> moved = cxxrt::move(owner);
        EXPECT_FALSE(owner);
        EXPECT_TRUE(moved);
    }
    EXPECT_EQ(destroyed, 1);
}
