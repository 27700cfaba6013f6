// Heartbeat bookkeeping shared by client and server paths. Every interval
// the path's work item asks tick() what to do; every RDMA write with
// immediate received on the path (IO or heartbeat) calls saw_traffic().
// A heartbeat goes out only when the previous one was answered by some
// traffic; a path that stays silent for more than kMaxMissed intervals is
// declared dead. The RTT of the last heartbeat feeds min-latency.
#pragma once

#include <cxxrt/atomic.hpp>
#include <cxxrt/types.hpp>

namespace rtrs {

class Heartbeat {
public:
    static constexpr cxxrt::u32 kIntervalMs = 5000;
    static constexpr cxxrt::u32 kMaxMissed = 5;

    enum class Action : cxxrt::u8 { kSend, kWait, kClose };

    Action tick(cxxrt::u64 now_ns)
    {
        cxxrt::u32 missed = missed_.load(cxxrt::MemoryOrder::kRelaxed);
        if (missed > kMaxMissed)
            return Action::kClose;
        if (missed != 0) {
            missed_.store(missed + 1, cxxrt::MemoryOrder::kRelaxed);
            return Action::kWait;
        }
        missed_.store(1, cxxrt::MemoryOrder::kRelaxed);
        sent_at_ns_.store(now_ns, cxxrt::MemoryOrder::kRelaxed);
        return Action::kSend;
    }

    // Any incoming write-with-immediate proves the peer alive.
    void saw_traffic() { missed_.store(0, cxxrt::MemoryOrder::kRelaxed); }

    // A heartbeat acknowledgement: traffic, and a round-trip sample.
    void saw_ack(cxxrt::u64 now_ns)
    {
        saw_traffic();
        cxxrt::u64 sent = sent_at_ns_.load(cxxrt::MemoryOrder::kRelaxed);
        if (sent && now_ns >= sent)
            rtt_ns_.store(now_ns - sent, cxxrt::MemoryOrder::kRelaxed);
    }

    void reset()
    {
        missed_.store(0);
        sent_at_ns_.store(0);
    }

    cxxrt::u32 missed() const { return missed_.load(cxxrt::MemoryOrder::kRelaxed); }
    cxxrt::u64 last_rtt_ns() const { return rtt_ns_.load(cxxrt::MemoryOrder::kRelaxed); }

private:
    cxxrt::Atomic<cxxrt::u32> missed_{0};
    cxxrt::Atomic<cxxrt::u64> sent_at_ns_{0};
    cxxrt::Atomic<cxxrt::u64> rtt_ns_{0};
};

}  // namespace rtrs
