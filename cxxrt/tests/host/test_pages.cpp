#include <cxxrt/pages.hpp>
#include <gtest/gtest.h>

namespace {

using cxxrt::PageBuffer;

TEST(PageBuffer, ZeroedMovedAndFreedOnce)
{
    const cxxrt::s64 live_before = cxxrt::alloc_counter<PageBuffer>.live.load();
    auto made = PageBuffer::create_zeroed(cxxrt::Gfp::kernel(), 128 * 1024);
    ASSERT_TRUE(made.is_ok());
    PageBuffer first = cxxrt::move(made.value());
    ASSERT_NE(first.data(), nullptr);
    ASSERT_EQ(first.size(), 128u * 1024);
    for (size_t i = 0; i < first.size(); i += 4093)
        ASSERT_EQ(first.data()[i], 0) << i;
    EXPECT_EQ(cxxrt::alloc_counter<PageBuffer>.live.load(), live_before + 1);

    // A move leaves the source empty: one owner, one free.
    cxxrt::u8* const data = first.data();
    PageBuffer second = cxxrt::move(first);
    EXPECT_EQ(first.data(), nullptr);
    EXPECT_EQ(first.size(), 0u);
    EXPECT_EQ(second.data(), data);
    second.reset();
    EXPECT_EQ(second.data(), nullptr);
    EXPECT_EQ(cxxrt::alloc_counter<PageBuffer>.live.load(), live_before);
}

TEST(PageBuffer, EmptyAndFailedRequestsAreErrors)
{
    auto empty = PageBuffer::create_zeroed(cxxrt::Gfp::kernel(), 0);
    ASSERT_TRUE(empty.is_error());
    EXPECT_EQ(empty.error().code(), cxxrt::err::kInval);

    const cxxrt::u64 failed_before = cxxrt::alloc_counter<PageBuffer>.failed.load();
    cxxrt::g_alloc_registry.fail_nth.set(1);
    auto refused = PageBuffer::create_zeroed(cxxrt::Gfp::kernel(), 64 * 1024);
    ASSERT_TRUE(refused.is_error());
    EXPECT_EQ(refused.error().code(), cxxrt::err::kNoMem);
    EXPECT_EQ(cxxrt::alloc_counter<PageBuffer>.failed.load(), failed_before + 1);
}

}  // namespace
