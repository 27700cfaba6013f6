// Byte buffers for host unit tests of wire codecs: a growable buffer, spans
// over it, golden bytes (a prefix spelled out, the rest zero), little-endian
// stores at an offset, and the errno of a Result (0 when ok).
#pragma once

#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace host {

using Bytes = std::vector<uint8_t>;

inline cxxrt::ByteSpan span_of(Bytes& b) { return cxxrt::ByteSpan(b.data(), b.size()); }
inline cxxrt::ConstByteSpan cspan_of(const Bytes& b) { return cxxrt::ConstByteSpan(b.data(), b.size()); }

// Expected bytes: a prefix spelled out, the rest zero up to `size`.
inline Bytes golden(std::initializer_list<uint8_t> prefix, size_t size)
{
    Bytes b(prefix);
    b.resize(size, 0);
    return b;
}

template <typename T>
int error_of(const cxxrt::Result<T>& r)
{
    return r.is_ok() ? 0 : r.error().code();
}

// Little-endian stores of `bytes` bytes of v at b[at].
inline void put_le(Bytes& b, size_t at, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; ++i)
        b[at + i] = uint8_t(v >> (8 * i));
}
inline void put16(Bytes& b, size_t at, uint16_t v) { put_le(b, at, v, 2); }
inline void put32(Bytes& b, size_t at, uint32_t v) { put_le(b, at, v, 4); }
inline void put64(Bytes& b, size_t at, uint64_t v) { put_le(b, at, v, 8); }

}  // namespace host
