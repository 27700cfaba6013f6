// Bit and alignment helpers (the kernel's ilog2/roundup/BIT in constexpr form).
#pragma once

#include <cxxrt/types.hpp>

namespace cxxrt {

constexpr bool is_power_of_two(u64 v) { return v != 0 && (v & (v - 1)) == 0; }

// Floor of log2; ilog2(0) is defined here as 0 for convenience.
constexpr unsigned ilog2(u64 v) { return v ? 63u - unsigned(__builtin_clzll(v)) : 0u; }

// Number of bits needed to represent values 0..v-1 (ceil(log2(v))).
constexpr unsigned bits_for_count(u64 v) { return v <= 1 ? 0u : ilog2(v - 1) + 1; }

constexpr u64 bit(unsigned n) { return u64(1) << n; }
constexpr u64 low_mask(unsigned bits) { return bits >= 64 ? ~u64(0) : bit(bits) - 1; }

constexpr u64 round_up(u64 v, u64 alignment) { return (v + alignment - 1) / alignment * alignment; }
constexpr u64 divide_round_up(u64 v, u64 d) { return v / d + (v % d != 0); }  // no wrap near 2^64

constexpr unsigned popcount(u64 v) { return unsigned(__builtin_popcountll(v)); }

// Checked arithmetic: false on overflow, result untouched.
namespace detail {
template <typename T, typename Overflows>
constexpr bool checked(T a, T b, T& out, Overflows overflows)
{
    T r{};
    if (overflows(a, b, &r))
        return false;
    out = r;
    return true;
}
}  // namespace detail

template <typename T>
constexpr bool checked_add(T a, T b, T& out)
{
    return detail::checked(a, b, out, [](T x, T y, T* r) { return __builtin_add_overflow(x, y, r); });
}
template <typename T>
constexpr bool checked_mul(T a, T b, T& out)
{
    return detail::checked(a, b, out, [](T x, T y, T* r) { return __builtin_mul_overflow(x, y, r); });
}

}  // namespace cxxrt
