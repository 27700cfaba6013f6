// When a client IO's send runs inline: posted with bottom halves off, so that
// a software RDMA device's send tasklet (rxe) runs in the submitting task when
// they come back on, instead of waking ksoftirqd (a wake-up and two context
// switches, and with two CPUs often a hop to the other one, per IO).
//
// Worth it only when IO goes one at a time: with nothing else in flight
// there is nothing to batch the send with. So a read that finds its path
// idle, after a submission that found it idle too (the first one after a
// busy spell may lead a burst: run inline, its whole round trip would hold
// back the rest). Every kBreakEvery-th idle submission in a row is not
// inline either: where client and server share a host an inline IO can
// complete inside its own submission, the next then finds the path idle
// again, and a burst would go on one IO at a time; the break lets it batch
// again. Not for writes: there that loop starts from QD1 as well (4k QD32
// writes ran at 0.89x in cost mode; Documentation/bench.md, 2026-11-29).
//
// A hint, racy by design: submitters on several CPUs may lose an update.
#pragma once

#include <cxxrt/atomic.hpp>
#include <cxxrt/types.hpp>

namespace rtrs {

class InlineSendPolicy {
public:
    static constexpr cxxrt::u32 kBreakEvery = 16;

    // One call per submission; alone: no other IO of the path was in flight.
    bool next(bool alone, bool is_read)
    {
        if (!alone) {
            if (idle_streak_.load(cxxrt::MemoryOrder::kRelaxed) != 0)
                idle_streak_.store(0, cxxrt::MemoryOrder::kRelaxed);
            return false;
        }
        const cxxrt::u32 streak = idle_streak_.load(cxxrt::MemoryOrder::kRelaxed) + 1;
        idle_streak_.store(streak, cxxrt::MemoryOrder::kRelaxed);
        return is_read && streak > 1 && streak % kBreakEvery != 0;
    }

private:
    cxxrt::Atomic<cxxrt::u32> idle_streak_{0};  // idle submissions in a row
};

}  // namespace rtrs
