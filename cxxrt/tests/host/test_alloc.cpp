#include <cxxrt/new.hpp>
#include <cxxrt/unique_ptr.hpp>
#include <gtest/gtest.h>

#include <cstring>

namespace {
struct Widget {
    int a = 1;
    long b = 2;
};
struct Gadget {
    char bytes[64];
};
}  // namespace

TEST(Alloc, CountsLiveObjectsPerType)
{
    Widget* w1 = cxxrt::allocate<Widget>(cxxrt::Gfp::kernel());
    Widget* w2 = cxxrt::allocate<Widget>(cxxrt::Gfp::kernel());
    Gadget* g = cxxrt::allocate<Gadget>(cxxrt::Gfp::kernel());
    ASSERT_TRUE(w1 && w2 && g);
    EXPECT_EQ(w1->b, 2);
    EXPECT_EQ(cxxrt::alloc_counter<Widget>.live.load(), 2);
    EXPECT_EQ(cxxrt::alloc_counter<Gadget>.live.load(), 1);
    cxxrt::destroy(w1);
    cxxrt::destroy(w2);
    cxxrt::destroy(g);
    EXPECT_EQ(cxxrt::alloc_counter<Widget>.live.load(), 0);
    EXPECT_EQ(cxxrt::alloc_counter<Widget>.total.load(), 2u);
}

TEST(Alloc, RegistryNamesTheType)
{
    cxxrt::destroy(cxxrt::allocate<Widget>(cxxrt::Gfp::kernel()));
    bool found = false;
    cxxrt::for_each_alloc_counter([&found](const cxxrt::AllocCounter& c) {
        char name[96];
        cxxrt::format_type_name(c, name, sizeof(name));
        if (std::strstr(name, "Widget"))
            found = true;
    });
    EXPECT_TRUE(found);
}

TEST(Alloc, FailNthInjectsExactlyOneFailure)
{
    cxxrt::g_alloc_registry.fail_nth.set(2);
    Widget* first = cxxrt::allocate<Widget>(cxxrt::Gfp::kernel());
    Widget* second = cxxrt::allocate<Widget>(cxxrt::Gfp::kernel());
    Widget* third = cxxrt::allocate<Widget>(cxxrt::Gfp::kernel());
    EXPECT_NE(first, nullptr);
    EXPECT_EQ(second, nullptr);
    EXPECT_NE(third, nullptr);
    EXPECT_EQ(cxxrt::g_alloc_registry.fail_nth.get(), 0u);
    EXPECT_GE(cxxrt::alloc_counter<Widget>.failed.load(), 1u);
    cxxrt::destroy(first);
    cxxrt::destroy(third);
}

TEST(Alloc, MakeUniqueReportsNoMem)
{
    cxxrt::g_alloc_registry.fail_nth.set(1);
    auto made = cxxrt::make_unique<Widget>(cxxrt::Gfp::kernel());
    ASSERT_TRUE(made.is_error());
    EXPECT_EQ(made.error().code(), cxxrt::err::kNoMem);
}

TEST(Alloc, ArrayOverflowRejected)
{
    EXPECT_EQ(cxxrt::allocate_array<Widget>(cxxrt::Gfp::kernel(), ~size_t(0) / 2), nullptr);
    int* zeroed = cxxrt::allocate_array<int>(cxxrt::Gfp::kernel(), 16);
    ASSERT_NE(zeroed, nullptr);
    for (int i = 0; i < 16; ++i)
        EXPECT_EQ(zeroed[i], 0);
    cxxrt::free_array(zeroed);
}
