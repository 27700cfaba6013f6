// Time as the product needs it: a monotonic clock for timers and
// heartbeats, and a plain sleep for back-offs on control paths.
#pragma once

#include <cxxrt/kapi.h>
#include <cxxrt/kapi-wait.h>
#include <cxxrt/types.hpp>

namespace cxxrt {

// Nanoseconds since boot (ktime_get_ns); any context.
inline u64 monotonic_ns() { return kapi_ktime_ns(); }

// Sleeps at least `ms` milliseconds (msleep); process context only.
inline void sleep_ms(u32 ms) { kapi_msleep(ms); }

}  // namespace cxxrt
