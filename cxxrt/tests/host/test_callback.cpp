#include <cxxrt/callback.hpp>
#include <gtest/gtest.h>

namespace {

struct Counter {
    void bump() { ++count; }
    void add(int amount, bool twice) { count += twice ? 2 * amount : amount; }
    int count = 0;
};

void add_to(void* context, int amount, bool twice) { static_cast<Counter*>(context)->add(amount, twice); }

}  // namespace

TEST(Callback, MemberRunsOnItsObject)
{
    Counter counter;
    cxxrt::Callback callback = cxxrt::Callback::to<&Counter::bump>(&counter);
    callback();
    callback();
    EXPECT_EQ(counter.count, 2);
    cxxrt::Callback empty;
    EXPECT_FALSE(empty);
    empty();  // an empty callback does nothing
}

TEST(CallbackWith, PassesItsArguments)
{
    Counter counter;
    auto member = cxxrt::CallbackWith<int, bool>::to<&Counter::add>(&counter);
    member(3, false);
    member.call(4, true);
    EXPECT_EQ(counter.count, 11);
    cxxrt::CallbackWith<int, bool> plain{&add_to, &counter};
    plain(1, false);
    EXPECT_EQ(counter.count, 12);
    EXPECT_EQ(plain.context(), &counter);
}

TEST(CallbackWith, EmptyIsFalseAndDoesNothing)
{
    cxxrt::CallbackWith<int, bool> empty;
    EXPECT_FALSE(empty);
    empty(1, true);
    EXPECT_EQ(empty.context(), nullptr);
}
