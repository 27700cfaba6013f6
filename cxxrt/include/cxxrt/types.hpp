// Fixed-width integer and size types for freestanding C++.
// Built from the compiler's predefined macros, so the same header serves the
// kernel build (-nostdinc) and host unit tests without any libc header.
#pragma once

namespace cxxrt {

// In a namespace of their own so that a header brings all of them in with one
// `using namespace cxxrt::integers;` (inline: cxxrt::u32 names them as well;
// endian.hpp adds the wire integers le16, le32, le64 and be32 to it).
inline namespace integers {
using u8 = __UINT8_TYPE__;
using u16 = __UINT16_TYPE__;
using u32 = __UINT32_TYPE__;
using u64 = __UINT64_TYPE__;
using s8 = __INT8_TYPE__;
using s16 = __INT16_TYPE__;
using s32 = __INT32_TYPE__;
using s64 = __INT64_TYPE__;
using size_t = __SIZE_TYPE__;
using ssize_t = __PTRDIFF_TYPE__;
using uintptr_t = __UINTPTR_TYPE__;
using nullptr_t = decltype(nullptr);
}  // namespace integers

template <typename T> struct NumericLimits;
template <> struct NumericLimits<u8> { static constexpr u8 max = __UINT8_MAX__; };
template <> struct NumericLimits<u16> { static constexpr u16 max = __UINT16_MAX__; };
template <> struct NumericLimits<u32> { static constexpr u32 max = __UINT32_MAX__; };
template <> struct NumericLimits<u64> { static constexpr u64 max = __UINT64_MAX__; };
template <> struct NumericLimits<s32> {
    static constexpr s32 max = __INT32_MAX__;
    static constexpr s32 min = -__INT32_MAX__ - 1;
};
template <> struct NumericLimits<s64> {
    static constexpr s64 max = __INT64_MAX__;
    static constexpr s64 min = -__INT64_MAX__ - 1;
};

}  // namespace cxxrt
