// io_hold_timeout_ms: how long a session's user holds its IO while no path
// of the session is connected, before that IO (and new IO) fails. The
// deadline policy only: no clock, no timer, no lock (the session keeps one
// IoHold under its setup lock and arms a work item for remaining_ms()).
// Kernel-independent, host-tested (rtrs/tests/host/test_rtrs_clt_hold.cpp).
//
//   all paths down ── start(now) ──▶ holding ── deadline passed ──▶ expired
//        ▲                              │                             │
//        └──────────── stop() (a path is back) ◀──────────────────────┘
//
// The deadline is start + timeout. Changing the timeout while holding moves
// the deadline (it stays counted from the start of the outage: a new value
// already passed expires at once); an expired hold stays expired until a
// path comes back. A timeout of 0 expires at the start (no hold: IO fails
// as soon as the last path is gone, as in Linux's RNBD).
#pragma once

#include <cxxrt/types.hpp>

namespace rtrs::clt {

class IoHold {
public:
    static constexpr cxxrt::u32 kMaxMs = 3600000;  // one hour
    // What rnbd-client asks for when map_device does not say: two rounds of
    // its 30 s reconnect delay, so a path that is back by its second
    // reconnect attempt loses no IO.
    static constexpr cxxrt::u32 kDefaultMs = 60000;

    static constexpr bool valid(cxxrt::u64 timeout_ms) { return timeout_ms <= kMaxMs; }

    explicit constexpr IoHold(cxxrt::u32 timeout_ms = 0) : timeout_ms_(valid(timeout_ms) ? timeout_ms : kMaxMs) {}

    cxxrt::u32 timeout_ms() const { return timeout_ms_; }
    // False (and nothing changes) for a value above kMaxMs.
    [[nodiscard]] bool set_timeout(cxxrt::u64 timeout_ms)
    {
        if (!valid(timeout_ms))
            return false;
        timeout_ms_ = cxxrt::u32(timeout_ms);
        return true;
    }

    // The last path went down at now_ns: the hold starts.
    void start(cxxrt::u64 now_ns)
    {
        holding_ = true;
        expired_ = false;
        since_ns_ = now_ns;
    }
    // A path is connected again: no hold.
    void stop()
    {
        holding_ = false;
        expired_ = false;
    }
    bool holding() const { return holding_ && !expired_; }
    bool expired() const { return holding_ && expired_; }

    // While holding: milliseconds until the deadline, rounded up (a timer
    // armed for it never fires early); 0 once it has passed. 0 otherwise.
    cxxrt::u64 remaining_ms(cxxrt::u64 now_ns) const
    {
        if (!holding())
            return 0;
        const cxxrt::u64 deadline = since_ns_ + cxxrt::u64(timeout_ms_) * 1000000;
        if (now_ns >= deadline || now_ns < since_ns_)
            return now_ns < since_ns_ ? timeout_ms_ : 0;
        return (deadline - now_ns + 999999) / 1000000;
    }

    // Expires the hold if its deadline has passed at now_ns. True only for
    // the call that expired it (the caller then tells the user).
    [[nodiscard]] bool expire_if_due(cxxrt::u64 now_ns)
    {
        if (!holding() || remaining_ms(now_ns) != 0)
            return false;
        expired_ = true;
        return true;
    }

private:
    cxxrt::u32 timeout_ms_;
    bool holding_ = false;
    bool expired_ = false;
    cxxrt::u64 since_ns_ = 0;
};

}  // namespace rtrs::clt
