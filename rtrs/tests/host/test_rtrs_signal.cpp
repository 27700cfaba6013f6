// rtrs::SignalInterval: one post in `interval` asks for a completion.
#include <gtest/gtest.h>

#include <vector>

#include "rtrs/core/rtrs-signal.hpp"

using rtrs::SignalInterval;

namespace {

// The positions (1-based) of the signalled posts among the first n.
std::vector<unsigned> signalled(SignalInterval s, unsigned n)
{
    std::vector<unsigned> out;
    for (unsigned i = 1; i <= n; ++i)
        if (s.next())
            out.push_back(i);
    return out;
}

}  // namespace

TEST(SignalInterval, OneSignalsEveryPost)
{
    EXPECT_EQ(signalled(SignalInterval(1), 4), (std::vector<unsigned>{1, 2, 3, 4}));
}

TEST(SignalInterval, ZeroIsOne)
{
    EXPECT_EQ(SignalInterval(0).interval(), 1u);
    EXPECT_EQ(signalled(SignalInterval(0), 3), (std::vector<unsigned>{1, 2, 3}));
}

TEST(SignalInterval, EveryNthPost)
{
    EXPECT_EQ(signalled(SignalInterval(4), 12), (std::vector<unsigned>{4, 8, 12}));
}

TEST(SignalInterval, ClampedToMax)
{
    // A queue depth of 512 still signals one post in kMax, so at most
    // kMax IOs of unreclaimed send-queue slots stay behind any completion.
    SignalInterval s(512);
    EXPECT_EQ(s.interval(), SignalInterval::kMax);
    auto got = signalled(s, 3 * SignalInterval::kMax);
    EXPECT_EQ(got, (std::vector<unsigned>{SignalInterval::kMax, 2 * SignalInterval::kMax, 3 * SignalInterval::kMax}));
}

TEST(SignalInterval, NeverMoreThanIntervalUnsignalledInARow)
{
    for (unsigned interval : {1u, 2u, 7u, 32u, 100u}) {
        SignalInterval s(interval);
        unsigned run = 0, longest = 0;
        for (unsigned i = 0; i < 1000; ++i) {
            run = s.next() ? 0 : run + 1;
            longest = run > longest ? run : longest;
        }
        EXPECT_LT(longest, s.interval()) << "interval " << interval;
    }
}
