#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "rtrs/core/rtrs-clt-state.hpp"
#include "rtrs/core/rtrs-heartbeat.hpp"
#include "rtrs/core/rtrs-permits.hpp"

using rtrs::Heartbeat;
using rtrs::PermitPool;
using rtrs::clt::PathState;
using rtrs::clt::PathStateMachine;
using rtrs::clt::ReconnectBudget;

TEST(PermitPool, HandsOutEachPermitOnce)
{
    PermitPool pool;
    ASSERT_TRUE(pool.init(130, cxxrt::Gfp::kernel()).is_ok());
    std::set<cxxrt::u32> seen;
    for (int i = 0; i < 130; ++i) {
        cxxrt::u32 p = pool.try_get(cxxrt::u32(i));
        ASSERT_NE(p, PermitPool::kNone);
        ASSERT_LT(p, 130u);
        EXPECT_TRUE(seen.insert(p).second) << "permit " << p << " handed out twice";
    }
    EXPECT_EQ(pool.try_get(), PermitPool::kNone);
    EXPECT_EQ(pool.in_use(), 130u);
    EXPECT_TRUE(pool.put(129));
    EXPECT_FALSE(pool.put(129));  // double put refused
    EXPECT_FALSE(pool.put(130));  // out of range refused
    EXPECT_EQ(pool.try_get(), 129u);
}

TEST(PermitPool, RejectsBadDepth)
{
    PermitPool pool;
    EXPECT_EQ(pool.init(0, cxxrt::Gfp::kernel()).error().code(), cxxrt::err::kInval);
    EXPECT_EQ(pool.init(65536, cxxrt::Gfp::kernel()).error().code(), cxxrt::err::kInval);
}

TEST(PermitPool, ConcurrentGetPutNeverShares)
{
    PermitPool pool;
    ASSERT_TRUE(pool.init(64, cxxrt::Gfp::kernel()).is_ok());
    std::vector<int> owner(64, -1);
    std::atomic<int> conflicts{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 20000; ++i) {
                cxxrt::u32 p = pool.try_get(cxxrt::u32(t));
                if (p == PermitPool::kNone)
                    continue;
                int expected = -1;
                if (!__atomic_compare_exchange_n(&owner[p], &expected, t, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
                    conflicts.fetch_add(1);
                __atomic_store_n(&owner[p], -1, __ATOMIC_SEQ_CST);
                pool.put(p);
            }
        });
    for (auto& th : threads)
        th.join();
    EXPECT_EQ(conflicts.load(), 0);
    EXPECT_EQ(pool.in_use(), 0u);
}

TEST(Heartbeat, SilentPeerIsClosedAfterMaxMissed)
{
    Heartbeat hb;
    EXPECT_EQ(hb.tick(1000), Heartbeat::Action::kSend);
    int waits = 0;
    Heartbeat::Action action;
    while ((action = hb.tick(2000)) == Heartbeat::Action::kWait)
        ++waits;
    EXPECT_EQ(action, Heartbeat::Action::kClose);
    EXPECT_EQ(waits, int(Heartbeat::kMaxMissed));
}

TEST(Heartbeat, TrafficKeepsThePathAliveAndAckMeasuresRtt)
{
    Heartbeat hb;
    for (int i = 0; i < 100; ++i) {
        EXPECT_EQ(hb.tick(cxxrt::u64(i) * 10), Heartbeat::Action::kSend);
        hb.saw_ack(cxxrt::u64(i) * 10 + 7);
    }
    EXPECT_EQ(hb.last_rtt_ns(), 7u);
    EXPECT_EQ(hb.tick(5000), Heartbeat::Action::kSend);
    EXPECT_EQ(hb.tick(6000), Heartbeat::Action::kWait);  // no answer yet: do not pile up
    hb.saw_traffic();                                      // an IO completion counts
    EXPECT_EQ(hb.tick(7000), Heartbeat::Action::kSend);
}

TEST(PathState, NormalLifecycle)
{
    PathStateMachine sm;
    EXPECT_EQ(sm.state(), PathState::kConnecting);
    EXPECT_TRUE(sm.change(PathState::kConnected));
    EXPECT_TRUE(sm.change(PathState::kReconnecting));
    EXPECT_TRUE(sm.change(PathState::kConnecting));
    EXPECT_TRUE(sm.change(PathState::kConnectingError));
    EXPECT_TRUE(sm.change(PathState::kReconnecting));
    EXPECT_TRUE(sm.change(PathState::kConnecting));
    EXPECT_TRUE(sm.change(PathState::kConnected));
    EXPECT_TRUE(sm.change(PathState::kClosing));
    EXPECT_TRUE(sm.change(PathState::kClosed));
    EXPECT_TRUE(sm.change(PathState::kReconnecting));  // sysfs reconnect
    EXPECT_TRUE(sm.change(PathState::kClosing));
    EXPECT_TRUE(sm.change(PathState::kClosed));
    EXPECT_TRUE(sm.change(PathState::kDead));
}

TEST(PathState, RefusesBackwardsMoves)
{
    PathStateMachine sm(PathState::kClosing);
    EXPECT_FALSE(sm.change(PathState::kConnected));
    EXPECT_FALSE(sm.change(PathState::kReconnecting));
    EXPECT_EQ(sm.state(), PathState::kClosing);
    PathStateMachine dead(PathState::kDead);
    for (int s = 0; s < rtrs::clt::kPathStateCount; ++s)
        EXPECT_FALSE(dead.change(PathState(s))) << "dead is terminal, tried " << s;
    PathStateMachine connected(PathState::kConnected);
    EXPECT_FALSE(connected.change_from(PathState::kConnecting, PathState::kConnectingError));
    EXPECT_EQ(connected.state(), PathState::kConnected);
}

TEST(PathState, SysfsNames)
{
    EXPECT_STREQ(rtrs::clt::path_state_sysfs(PathState::kConnected), "connected");
    EXPECT_STREQ(rtrs::clt::path_state_sysfs(PathState::kReconnecting), "disconnected");
    EXPECT_STREQ(rtrs::clt::path_state_name(PathState::kConnectingError), "connecting_err");
}

TEST(ReconnectBudget, BoundedAndInfinite)
{
    ReconnectBudget bounded(2);
    EXPECT_TRUE(bounded.begin_attempt());
    EXPECT_TRUE(bounded.begin_attempt());
    EXPECT_FALSE(bounded.begin_attempt());
    bounded.connected();
    EXPECT_TRUE(bounded.begin_attempt());
    ReconnectBudget forever(-1);
    for (int i = 0; i < 100000; ++i)
        ASSERT_TRUE(forever.begin_attempt());
    EXPECT_FALSE(forever.set_max_attempts(-2));
    EXPECT_FALSE(forever.set_max_attempts(10000));
    EXPECT_TRUE(forever.set_max_attempts(9999));
    EXPECT_EQ(forever.max_attempts(), 9999);
}

TEST(OpenRetry, OnlyResetsAndBounded)
{
    rtrs::clt::OpenRetry refused;
    EXPECT_EQ(refused.next_delay_ms(cxxrt::err::kConnRefused), 0u);
    EXPECT_EQ(refused.next_delay_ms(cxxrt::err::kTimedOut), 0u);
    EXPECT_EQ(refused.retries(), 0u);
    rtrs::clt::OpenRetry reset;
    cxxrt::u32 total = 0;
    for (cxxrt::u32 want : {50u, 100u, 200u, 400u, 800u}) {
        cxxrt::u32 delay = reset.next_delay_ms(cxxrt::err::kConnReset);
        EXPECT_EQ(delay, want);
        total += delay;
    }
    EXPECT_EQ(reset.next_delay_ms(cxxrt::err::kConnReset), 0u);
    EXPECT_EQ(reset.retries(), rtrs::clt::OpenRetry::kRetries);
    EXPECT_EQ(total, 1550u);
}
