// Time as the product needs it: a monotonic clock for timers and
// heartbeats, and a plain sleep for back-offs on control paths.
#pragma once

#include <cxxrt/kapi.h>
#include <cxxrt/kapi-wait.h>
#include <cxxrt/types.hpp>

namespace cxxrt {

// Nanoseconds since boot (ktime_get_ns); any context.
inline u64 monotonic_ns() { return kapi_ktime_ns(); }

// This CPU's clock in nanoseconds (local_clock: the TSC where it can be
// used), for statistics on a hot path: it never reads a clock device (a
// guest without a stable TSC reads the HPET for monotonic_ns, an emulated
// device access per call). Two CPUs' readings may differ by up to about a
// tick, so an interval measured across CPUs can come out short or negative:
// use elapsed_local_ns(). Not for deadlines. Any context.
inline u64 local_clock_ns() { return kapi_local_clock_ns(); }

// Nanoseconds from `since` (a local_clock_ns() reading, maybe of another
// CPU) to now, 0 when the other CPU's clock was ahead.
inline u64 elapsed_local_ns(u64 since)
{
    const u64 now = local_clock_ns();
    return now > since ? now - since : 0;
}

// Sleeps at least `ms` milliseconds (msleep); process context only.
inline void sleep_ms(u32 ms) { kapi_msleep(ms); }

}  // namespace cxxrt
