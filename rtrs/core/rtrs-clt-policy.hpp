// Multipath path selection for the RTRS client.
//
// The IO path calls these on every request: they read one PathSlot per
// path (the kernel builds each on demand from the live path under RCU, the
// host tests pass an array) and return an index: no locks, no allocation,
// no writes except the caller's per-CPU round-robin cursor. Selection never
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
using namespace cxxrt::integers;

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

// The selectors work on any `Paths` with `size()` and `operator[](i)`
// returning a PathSlot (by value or reference): a Span<const PathSlot> in
// host tests, a view that reads the live paths in the kernel (no snapshot,
// so no per-IO copy of up to 128 slots).

// Round-robin: the first usable path at or after `*cursor` (wrapping), and
// `*cursor` moves just past it. The kernel keeps one cursor per CPU, so
// submitters on different CPUs do not contend on it, and each CPU on its
// own spreads its requests evenly over the usable paths.
template <typename Paths>
size_t select_round_robin_in(const Paths& paths, u32* cursor, size_t excluded = kNoPath)
{
    const size_t count = paths.size();
    if (count == 0 || cursor == nullptr)
        return kNoPath;
    // The cursor may be stale (paths were removed since it was written);
    // reducing it modulo the current count keeps it in range.
    const size_t start = size_t(*cursor) % count;
    for (size_t step = 0; step < count; ++step) {
        const size_t index = (start + step) % count;
        if (index != excluded && paths[index].connected) {
            *cursor = u32((index + 1) % count);
            return index;
        }
    }
    return kNoPath;
}

// One scan for both "minimum" policies; `key` picks the field compared.
// Ties go to the first one found scanning from `start` (wrapping).
template <typename Paths, typename Key>
size_t select_minimum_in(const Paths& paths, size_t start, size_t excluded, Key key)
{
    const size_t count = paths.size();
    if (count == 0)
        return kNoPath;
    size_t best = kNoPath;
    u64 best_value = 0;
    for (size_t step = 0; step < count; ++step) {
        const size_t index = (start % count + step) % count;
        if (index == excluded)
            continue;
        const PathSlot slot = paths[index];
        if (!slot.connected)
            continue;
        const u64 value = key(slot);
        // Strictly smaller only: the first path seen keeps a tie.
        if (best == kNoPath || value < best_value) {
            best = index;
            best_value = value;
        }
    }
    return best;
}

// Dispatch on the policy; `cursor` serves round-robin and as the tie-break
// start for the others.
template <typename Paths>
size_t select_path_in(PathPolicy policy, const Paths& paths, u32* cursor, size_t excluded = kNoPath)
{
    const size_t start = cursor ? size_t(*cursor) : 0;
    switch (policy) {
    case PathPolicy::kRoundRobin:
        return select_round_robin_in(paths, cursor, excluded);
    case PathPolicy::kMinInflight:
        return select_minimum_in(paths, start, excluded, [](const PathSlot& slot) { return u64(slot.inflight); });
    case PathPolicy::kMinLatency:
        return select_minimum_in(paths, start, excluded, [](const PathSlot& slot) { return slot.latency_ns; });
    }
    return kNoPath;
}

// The same on a snapshot.
size_t select_round_robin(Span<const PathSlot> paths, u32* cursor, size_t excluded = kNoPath);
// The usable path with the fewest requests in flight. Ties go to the first
// one found scanning from `start` (wrapping), so callers that pass a per-CPU
// value spread equal loads instead of piling onto path 0.
size_t select_min_inflight(Span<const PathSlot> paths, size_t start = 0, size_t excluded = kNoPath);
// The usable path with the lowest measured latency; ties as above.
size_t select_min_latency(Span<const PathSlot> paths, size_t start = 0, size_t excluded = kNoPath);
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
