// Multipath path selection for the RTRS client.
//
// The IO path calls these on every request, so they take a snapshot the
// caller built (one PathSlot per path, read with READ_ONCE-style loads
// under RCU) and return an index into it: no locks, no allocation, no
// writes except the caller's per-CPU round-robin cursor. Selection never
// returns a path that is not connected, nor the `excluded` one, which the
// failover code passes so a request is not retried on the path that just
// failed it.
//
// The sysfs names and numbers are those of upstream's `mpath_policy`
// (0 round-robin, 1 min-inflight, 2 min-latency).
#pragma once

#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/types.hpp>

namespace rtrs::clt {

using cxxrt::Result;
using cxxrt::Span;
using cxxrt::StringView;
using cxxrt::size_t;
using cxxrt::u32;
using cxxrt::u64;
using cxxrt::u8;

enum class PathPolicy : u8 {
    kRoundRobin = 0,
    kMinInflight = 1,
    kMinLatency = 2,
};

// What the selector needs to know about one path, copied at one instant.
struct PathSlot {
    bool connected = false;
    u32 inflight = 0;      // requests outstanding on the path
    u64 latency_ns = 0;    // last heartbeat round trip
};

// "No usable path": every path is down or excluded.
inline constexpr size_t kNoPath = ~size_t(0);

// Round-robin: the first usable path at or after `*cursor` (wrapping), and
// `*cursor` moves just past it. The kernel keeps one cursor per CPU, so
// submitters on different CPUs do not contend on it, and each CPU on its
// own spreads its requests evenly over the usable paths.
size_t select_round_robin(Span<const PathSlot> paths, u32* cursor, size_t excluded = kNoPath);

// The usable path with the fewest requests in flight. Ties go to the first
// one found scanning from `start` (wrapping), so callers that pass a per-CPU
// value spread equal loads instead of piling onto path 0.
size_t select_min_inflight(Span<const PathSlot> paths, size_t start = 0, size_t excluded = kNoPath);

// The usable path with the lowest measured latency; ties as above.
size_t select_min_latency(Span<const PathSlot> paths, size_t start = 0, size_t excluded = kNoPath);

// Dispatch on the session's policy; `cursor` serves round-robin and as the
// tie-break start for the others.
size_t select_path(PathPolicy policy, Span<const PathSlot> paths, u32* cursor, size_t excluded = kNoPath);

// sysfs: accepts "0"/"1"/"2", the names "round-robin", "min-inflight",
// "min-latency" and the short forms "rr", "mi", "ml", in any letter case,
// with surrounding blanks and one trailing newline. Anything else, including
// a name with trailing characters, is -EINVAL.
[[nodiscard]] Result<PathPolicy> parse_policy(StringView text);

// sysfs read text, e.g. "round-robin (RR: 0)\n", as upstream prints it.
// Returns the length written (truncated safely if `out` is small).
size_t format_policy(PathPolicy policy, Span<char> out);

// The bare name, e.g. "min-inflight", for log lines.
StringView policy_name(PathPolicy policy);

}  // namespace rtrs::clt
