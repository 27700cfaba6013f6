// Host tests of the multipath policies (rtrs/core/rtrs-clt-policy): each policy
// is checked against what it promises the user.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <cxxrt/errno.hpp>

#include "rtrs/core/rtrs-clt-policy.hpp"

using namespace rtrs::clt;
namespace err = cxxrt::err;

namespace {

PathSlot up(cxxrt::u32 inflight = 0, cxxrt::u64 latency = 0) { return PathSlot{true, inflight, latency}; }
PathSlot down(cxxrt::u32 inflight = 0, cxxrt::u64 latency = 0) { return PathSlot{false, inflight, latency}; }

Span<const PathSlot> span(const std::vector<PathSlot>& v) { return Span<const PathSlot>(v.data(), v.size()); }

std::string show(PathPolicy policy)
{
    char buffer[64];
    size_t n = format_policy(policy, Span<char>(buffer));
    return std::string(buffer, n);
}

}  // namespace

TEST(RoundRobin, SpreadsEvenlyOverConnectedPaths)
{
    std::vector<PathSlot> paths = {up(), down(), up(), up(), down()};
    cxxrt::u32 cursor = 0;
    std::vector<int> hits(paths.size(), 0);
    for (int i = 0; i < 3000; ++i) {
        size_t chosen = select_round_robin(span(paths), &cursor);
        ASSERT_NE(chosen, kNoPath);
        ++hits[chosen];
    }
    EXPECT_EQ(hits[0], 1000);
    EXPECT_EQ(hits[1], 0);
    EXPECT_EQ(hits[2], 1000);
    EXPECT_EQ(hits[3], 1000);
    EXPECT_EQ(hits[4], 0);
}

TEST(RoundRobin, StrictRotationOrder)
{
    std::vector<PathSlot> paths = {up(), up(), up()};
    cxxrt::u32 cursor = 1;
    EXPECT_EQ(select_round_robin(span(paths), &cursor), 1u);
    EXPECT_EQ(select_round_robin(span(paths), &cursor), 2u);
    EXPECT_EQ(select_round_robin(span(paths), &cursor), 0u);
    EXPECT_EQ(select_round_robin(span(paths), &cursor), 1u);
}

TEST(RoundRobin, PerCpuCursorsAreIndependent)
{
    std::vector<PathSlot> paths = {up(), up()};
    cxxrt::u32 cpu0 = 0;
    cxxrt::u32 cpu1 = 0;
    EXPECT_EQ(select_round_robin(span(paths), &cpu0), 0u);
    EXPECT_EQ(select_round_robin(span(paths), &cpu1), 0u);
    EXPECT_EQ(select_round_robin(span(paths), &cpu0), 1u);
    EXPECT_EQ(select_round_robin(span(paths), &cpu1), 1u);
}

TEST(RoundRobin, StaleCursorAfterPathRemoval)
{
    std::vector<PathSlot> paths = {up(), up()};
    cxxrt::u32 cursor = 5;  // written when there were more paths
    size_t chosen = select_round_robin(span(paths), &cursor);
    EXPECT_LT(chosen, 2u);
    EXPECT_LT(cursor, 2u);
}

TEST(RoundRobin, ExclusionAndNone)
{
    std::vector<PathSlot> paths = {up(), down(), up()};
    cxxrt::u32 cursor = 0;
    for (int i = 0; i < 10; ++i)
        EXPECT_EQ(select_round_robin(span(paths), &cursor, 0), 2u);
    std::vector<PathSlot> only = {down(), up()};
    EXPECT_EQ(select_round_robin(span(only), &cursor, 1), kNoPath);
    std::vector<PathSlot> all_down = {down(), down(), down()};
    EXPECT_EQ(select_round_robin(span(all_down), &cursor), kNoPath);
    EXPECT_EQ(select_round_robin(Span<const PathSlot>(), &cursor), kNoPath);
    EXPECT_EQ(select_round_robin(span(paths), nullptr), kNoPath);
}

TEST(MinInflight, PicksLeastLoaded)
{
    std::vector<PathSlot> paths = {up(7), up(3), up(5), down(0)};
    EXPECT_EQ(select_min_inflight(span(paths)), 1u);
    // Excluding the least loaded falls back to the next least loaded.
    EXPECT_EQ(select_min_inflight(span(paths), 0, 1), 2u);
    // A disconnected path is never chosen, however idle.
    paths[3].inflight = 0;
    EXPECT_EQ(select_min_inflight(span(paths)), 1u);
}

TEST(MinInflight, TiesFollowStart)
{
    std::vector<PathSlot> paths = {up(2), up(1), up(1), up(1)};
    EXPECT_EQ(select_min_inflight(span(paths), 0), 1u);
    EXPECT_EQ(select_min_inflight(span(paths), 2), 2u);
    EXPECT_EQ(select_min_inflight(span(paths), 3), 3u);
    EXPECT_EQ(select_min_inflight(span(paths), 4), 1u);  // wraps
}

TEST(MinInflight, BalancesAsLoadArrives)
{
    // Simulate requests that stay in flight: the policy must fill the
    // connected paths evenly.
    std::vector<PathSlot> paths = {up(), up(), down(), up()};
    for (int i = 0; i < 300; ++i) {
        size_t chosen = select_min_inflight(span(paths), size_t(i));
        ASSERT_NE(chosen, kNoPath);
        ASSERT_NE(chosen, 2u);
        ++paths[chosen].inflight;
    }
    EXPECT_EQ(paths[0].inflight, 100u);
    EXPECT_EQ(paths[1].inflight, 100u);
    EXPECT_EQ(paths[2].inflight, 0u);
    EXPECT_EQ(paths[3].inflight, 100u);
}

TEST(MinInflight, None)
{
    std::vector<PathSlot> paths = {down(), up(1)};
    EXPECT_EQ(select_min_inflight(span(paths), 0, 1), kNoPath);
    EXPECT_EQ(select_min_inflight(Span<const PathSlot>()), kNoPath);
}

TEST(MinLatency, PicksLowestRtt)
{
    std::vector<PathSlot> paths = {up(0, 900000), up(0, 120000), down(0, 1000), up(0, 450000)};
    EXPECT_EQ(select_min_latency(span(paths)), 1u);
    EXPECT_EQ(select_min_latency(span(paths), 0, 1), 3u);
    paths[1].connected = false;
    EXPECT_EQ(select_min_latency(span(paths)), 3u);
    paths[0].connected = false;
    paths[3].connected = false;
    EXPECT_EQ(select_min_latency(span(paths)), kNoPath);
}

TEST(MinLatency, HugeValues)
{
    std::vector<PathSlot> paths = {up(0, ~cxxrt::u64(0)), up(0, ~cxxrt::u64(0) - 1)};
    EXPECT_EQ(select_min_latency(span(paths)), 1u);
}

TEST(SelectPath, Dispatches)
{
    std::vector<PathSlot> paths = {up(5, 10), up(1, 30), up(3, 20)};
    cxxrt::u32 cursor = 0;
    EXPECT_EQ(select_path(PathPolicy::kMinInflight, span(paths), &cursor), 1u);
    EXPECT_EQ(select_path(PathPolicy::kMinLatency, span(paths), &cursor), 0u);
    EXPECT_EQ(select_path(PathPolicy::kRoundRobin, span(paths), &cursor), 0u);
    EXPECT_EQ(select_path(PathPolicy::kRoundRobin, span(paths), &cursor), 1u);
    EXPECT_EQ(select_path(PathPolicy::kRoundRobin, span(paths), &cursor, 2), 0u);
    EXPECT_EQ(select_path(PathPolicy::kMinInflight, span(paths), nullptr, 1), 2u);
}

TEST(PolicyText, ReadFormatAsUpstream)
{
    EXPECT_EQ(show(PathPolicy::kRoundRobin), "round-robin (RR: 0)\n");
    EXPECT_EQ(show(PathPolicy::kMinInflight), "min-inflight (MI: 1)\n");
    EXPECT_EQ(show(PathPolicy::kMinLatency), "min-latency (ML: 2)\n");
    EXPECT_EQ(show(PathPolicy(7)), "Unknown (7)\n");
    char tiny[5];
    EXPECT_EQ(format_policy(PathPolicy::kRoundRobin, Span<char>(tiny)), 4u);
    EXPECT_EQ(std::string(tiny), "roun");
}

TEST(PolicyText, AcceptedWrites)
{
    struct Case {
        const char* text;
        PathPolicy policy;
    } cases[] = {
        {"0", PathPolicy::kRoundRobin},        {"1\n", PathPolicy::kMinInflight},
        {"2", PathPolicy::kMinLatency},        {"round-robin\n", PathPolicy::kRoundRobin},
        {"Round-Robin", PathPolicy::kRoundRobin}, {"rr", PathPolicy::kRoundRobin},
        {"min-inflight", PathPolicy::kMinInflight}, {"MI\n", PathPolicy::kMinInflight},
        {"min-latency", PathPolicy::kMinLatency}, {"ml", PathPolicy::kMinLatency},
        {" min-latency \n", PathPolicy::kMinLatency},
    };
    for (const Case& c : cases) {
        auto r = parse_policy(c.text);
        ASSERT_TRUE(r.is_ok()) << c.text;
        EXPECT_EQ(r.value(), c.policy) << c.text;
    }
}

TEST(PolicyText, RejectedWrites)
{
    for (const char* bad : {"", "\n", "3", "-1", "00", "01", "round", "round-robin-x", "min", "m", "r",
                            "min-inflightx", "0x1", "rr\n\n", "min inflight", "latency"})
        EXPECT_EQ(parse_policy(bad).to_errno(), -err::kInval) << bad;
    EXPECT_EQ(parse_policy(StringView("rr\0", 3)).to_errno(), -err::kInval);
    EXPECT_EQ(parse_policy(StringView("0\0", 2)).to_errno(), -err::kInval);
}

TEST(PolicyText, Names)
{
    EXPECT_TRUE(policy_name(PathPolicy::kMinInflight) == "min-inflight");
    EXPECT_TRUE(policy_name(PathPolicy(9)) == "unknown");
}

// The kernel selects over the live paths through an accessor that builds
// each PathSlot when asked (no snapshot), with null slots for removed
// paths, up to 128 of them: the templates must behave like the span forms.
namespace {

struct LiveView {
    const std::vector<PathSlot>* slots;
    mutable size_t reads = 0;
    size_t size() const { return slots->size(); }
    PathSlot operator[](size_t i) const
    {
        ++reads;
        return (*slots)[i];
    }
};

}  // namespace

TEST(PolicyLiveView, MatchesSpanFormsOn128Paths)
{
    std::vector<PathSlot> paths(128, down());
    for (size_t i = 0; i < paths.size(); i += 3)
        paths[i] = up(cxxrt::u32(200 - i), 1000 + (i * 7919) % 1000);
    for (PathPolicy policy : {PathPolicy::kRoundRobin, PathPolicy::kMinInflight, PathPolicy::kMinLatency}) {
        cxxrt::u32 a = 5, b = 5;
        for (int n = 0; n < 300; ++n) {
            size_t excluded = size_t(n % 4 == 0 ? (n % 128) : kNoPath);
            size_t via_span = select_path(policy, span(paths), &a, excluded);
            size_t via_view = select_path_in(policy, LiveView{&paths}, &b, excluded);
            ASSERT_EQ(via_span, via_view) << int(policy) << " round " << n;
            ASSERT_EQ(a, b);
            ASSERT_NE(via_view, kNoPath);
            EXPECT_TRUE(paths[via_view].connected);
            EXPECT_NE(via_view, excluded);
        }
    }
}

TEST(PolicyLiveView, RoundRobinSkipsRemovedSlotsAndVisitsEveryLivePath)
{
    std::vector<PathSlot> paths(128, down());
    paths[3] = up();
    paths[64] = up();
    paths[127] = up();
    cxxrt::u32 cursor = 0;
    std::vector<size_t> seen;
    for (int n = 0; n < 6; ++n)
        seen.push_back(select_round_robin_in(LiveView{&paths}, &cursor));
    EXPECT_EQ(seen, (std::vector<size_t>{3, 64, 127, 3, 64, 127}));
}

TEST(PolicyLiveView, MinLatencyPicksTheFasterOfTwoAndFollowsAChange)
{
    std::vector<PathSlot> paths = {up(0, 500000), up(0, 20500000)};
    cxxrt::u32 cursor = 1;
    for (int n = 0; n < 10; ++n)
        EXPECT_EQ(select_path_in(PathPolicy::kMinLatency, LiveView{&paths}, &cursor), 0u);
    paths[0].latency_ns = 20500000;
    paths[1].latency_ns = 500000;
    EXPECT_EQ(select_path_in(PathPolicy::kMinLatency, LiveView{&paths}, &cursor), 1u);
}
