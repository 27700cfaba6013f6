// The handful of <utility>/<type_traits> pieces cxxrt needs, since the kernel
// build has no C++ standard library (-nostdinc++).
#pragma once

#include <cxxrt/types.hpp>

namespace cxxrt {

template <typename T> struct RemoveReference { using Type = T; };
template <typename T> struct RemoveReference<T&> { using Type = T; };
template <typename T> struct RemoveReference<T&&> { using Type = T; };
template <typename T> using RemoveReferenceT = typename RemoveReference<T>::Type;

template <typename T, typename U> inline constexpr bool kIsSame = false;
template <typename T> inline constexpr bool kIsSame<T, T> = true;

template <typename T> inline constexpr bool kIsLvalueReference = false;
template <typename T> inline constexpr bool kIsLvalueReference<T&> = true;

template <typename T>
constexpr RemoveReferenceT<T>&& move(T&& value) noexcept
{
    return static_cast<RemoveReferenceT<T>&&>(value);
}

template <typename T>
constexpr T&& forward(RemoveReferenceT<T>& value) noexcept
{
    return static_cast<T&&>(value);
}

template <typename T>
constexpr T&& forward(RemoveReferenceT<T>&& value) noexcept
{
    static_assert(!kIsLvalueReference<T>, "cannot forward an rvalue as an lvalue");
    return static_cast<T&&>(value);
}

template <typename T, typename U = T>
constexpr T exchange(T& target, U&& replacement)
{
    T old = move(target);
    target = forward<U>(replacement);
    return old;
}

template <typename T>
constexpr void swap(T& a, T& b)
{
    T tmp = move(a);
    a = move(b);
    b = move(tmp);
}

template <typename T> constexpr const T& min(const T& a, const T& b) { return b < a ? b : a; }
template <typename T> constexpr const T& max(const T& a, const T& b) { return a < b ? b : a; }

// Base for types that embed kernel objects or own resources: no copies, no moves.
class Pinned {
public:
    Pinned(const Pinned&) = delete;
    Pinned& operator=(const Pinned&) = delete;
    Pinned(Pinned&&) = delete;
    Pinned& operator=(Pinned&&) = delete;

protected:
    constexpr Pinned() = default;
    ~Pinned() = default;
};

// Byte-wise helpers that do not depend on libc (the compiler may still lower
// them to the kernel's memcpy/memset, which every module can call).
inline void copy_bytes(void* dst, const void* src, size_t n) { __builtin_memcpy(dst, src, n); }
inline void fill_bytes(void* dst, int value, size_t n) { __builtin_memset(dst, value, n); }
inline int compare_bytes(const void* a, const void* b, size_t n) { return __builtin_memcmp(a, b, n); }

// Copies bytes a peer may still be writing (a chunk, anything registered
// for remote access) into memory it cannot reach: the one fetch of the
// security rule (Documentation/security.md). The compiler barrier after
// the copy keeps the compiler from replacing later reads of `dst` with
// reads of `src` (which it may do for a plain memcpy into a local): every
// use sees the bytes as they were copied, whatever the peer writes next.
inline void fetch_once(void* dst, const volatile void* src, size_t n)
{
    __builtin_memcpy(dst, const_cast<const void*>(src), n);
    asm volatile("" ::: "memory");
}

constexpr size_t string_length(const char* s, size_t limit)
{
    size_t n = 0;
    while (n < limit && s[n] != '\0')
        ++n;
    return n;
}

}  // namespace cxxrt
