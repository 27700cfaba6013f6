// Wire integers. Fields of the RTRS/RNBD wire formats are little-endian
// (the kernel's __le16/__le32/__le64), one RTRS immediate is big-endian
// (__be32). These types hold the wire representation, have the natural size
// and alignment of the plain integer (so struct layouts match the C headers),
// and convert explicitly: reading a wire field is always a visible call.
#pragma once

#include <cxxrt/types.hpp>

namespace cxxrt {

namespace detail {
constexpr bool kHostIsLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

template <typename T> constexpr T byte_swap(T v);
template <> constexpr u8 byte_swap(u8 v) { return v; }
template <> constexpr u16 byte_swap(u16 v) { return __builtin_bswap16(v); }
template <> constexpr u32 byte_swap(u32 v) { return __builtin_bswap32(v); }
template <> constexpr u64 byte_swap(u64 v) { return __builtin_bswap64(v); }
}  // namespace detail

template <typename T, bool kLittle>
class WireInteger {
public:
    using ValueType = T;
    constexpr WireInteger() = default;
    static constexpr WireInteger from(T host_value)
    {
        WireInteger w;
        w.raw_ = convert(host_value);
        return w;
    }
    constexpr T get() const { return convert(raw_); }
    constexpr void set(T host_value) { raw_ = convert(host_value); }
    constexpr T raw() const { return raw_; }
    constexpr bool operator==(const WireInteger& other) const { return raw_ == other.raw_; }

private:
    static constexpr T convert(T v)
    {
        return (kLittle == detail::kHostIsLittleEndian) ? v : detail::byte_swap(v);
    }
    T raw_ = 0;
};

// With the plain integers (types.hpp), so a wire header names both with one
// `using namespace cxxrt::integers;`.
inline namespace integers {
using le16 = WireInteger<u16, true>;
using le32 = WireInteger<u32, true>;
using le64 = WireInteger<u64, true>;
using be32 = WireInteger<u32, false>;
}  // namespace integers

static_assert(sizeof(le16) == 2 && alignof(le16) == 2);
static_assert(sizeof(le32) == 4 && alignof(le32) == 4);
static_assert(sizeof(le64) == 8 && alignof(le64) == 8);
static_assert(sizeof(be32) == 4 && alignof(be32) == 4);

// Unaligned loads/stores from byte buffers (for parsing before casting).
template <typename T>
constexpr T load_le(const u8* p)
{
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i)
        v |= T(p[i]) << (8 * i);
    return v;
}
template <typename T>
constexpr void store_le(u8* p, T v)
{
    for (size_t i = 0; i < sizeof(T); ++i)
        p[i] = u8(v >> (8 * i));
}

}  // namespace cxxrt
