// What every libFuzzer target of this repository needs: the entry point,
// an oracle check that names the broken property, and a reader that cuts the
// fuzzer's bytes into the fields a target feeds to the code under test.
// Host-only (the fuzzers link the host C library); never built into a module.
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cxxrt/span.hpp>
#include <cxxrt/types.hpp>

// The libFuzzer entry point, as `FUZZ_TARGET(data, size) { ... return 0; }`.
#define FUZZ_TARGET(data, size) extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, __SIZE_TYPE__ size)

// An oracle: a property the code under test must keep for every input.
// A violation prints where and what, then aborts so libFuzzer saves the
// input as a crash artifact (and `make fuzz` fails).
#define FUZZ_CHECK(condition)                                                                        \
    do {                                                                                             \
        if (!(condition))                                                                            \
            ::fuzz::violated(__FILE__, __LINE__, #condition);                                        \
    } while (0)

namespace fuzz {

using namespace cxxrt::integers;
using cxxrt::StringView;

[[noreturn]] inline void violated(const char* file, int line, const char* condition)
{
    fprintf(stderr, "fuzz oracle violated at %s:%d: %s\n", file, line, condition);
    abort();
}

// Hands out the input front to back; once it runs dry every read yields
// zeros (or an empty view), so targets need no length checks of their own.
class Input {
public:
    Input(const unsigned char* data, size_t size) : data_(data), size_(size) {}

    size_t remaining() const { return size_ - position_; }
    bool is_empty() const { return remaining() == 0; }

    u8 take_u8() { return position_ < size_ ? data_[position_++] : 0; }
    bool take_bool() { return take_u8() & 1; }
    u16 take_u16() { return u16(take_little_endian(2)); }
    u32 take_u32() { return u32(take_little_endian(4)); }
    u64 take_u64() { return take_little_endian(8); }

    // The next `count` bytes (fewer if the input ends first).
    cxxrt::ConstByteSpan take_bytes(size_t count)
    {
        if (count > remaining())
            count = remaining();
        cxxrt::ConstByteSpan bytes(data_ + position_, count);
        position_ += count;
        return bytes;
    }
    // A length byte, then that many bytes as text.
    StringView take_short_string()
    {
        auto bytes = take_bytes(take_u8());
        return StringView(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    StringView take_rest_as_string()
    {
        auto bytes = take_bytes(remaining());
        return StringView(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    cxxrt::ConstByteSpan take_rest() { return take_bytes(remaining()); }

private:
    u64 take_little_endian(unsigned bytes)
    {
        u64 value = 0;
        for (unsigned i = 0; i < bytes; ++i)
            value |= u64(take_u8()) << (8 * i);
        return value;
    }

    const unsigned char* data_;
    size_t size_;
    size_t position_ = 0;
};

inline StringView as_string(const unsigned char* data, size_t size)
{
    return StringView(reinterpret_cast<const char*>(data), size);
}

// True when `part` lies inside [begin, begin + size): parsers return views
// into their input, never into storage of their own.
inline bool points_into(StringView part, const char* begin, size_t size)
{
    return part.data() >= begin && part.data() + part.length() <= begin + size;
}

// A buffer with guard bytes after the part handed to the code under test,
// for formatters that must stop at the end they were given.
template <size_t Capacity>
class GuardedBuffer {
public:
    static constexpr size_t kGuard = 16;
    static constexpr unsigned char kPattern = 0xa5;

    // A view of the first `size` bytes (at most Capacity); the rest, and
    // the guard, hold kPattern.
    cxxrt::Span<char> view(size_t size)
    {
        if (size > Capacity)
            size = Capacity;
        size_ = size;
        memset(bytes_, kPattern, sizeof(bytes_));
        return cxxrt::Span<char>(bytes_, size);
    }
    bool untouched_past_end() const
    {
        // All bytes from size_ on equal the pattern: the first one does and
        // each equals its successor (one memcmp, no per-byte branch for the
        // fuzzer's coverage hooks to trace).
        const char* rest = bytes_ + size_;
        const size_t count = sizeof(bytes_) - size_;
        return static_cast<unsigned char>(rest[0]) == kPattern && memcmp(rest, rest + 1, count - 1) == 0;
    }
    const char* data() const { return bytes_; }

private:
    char bytes_[Capacity + kGuard] = {};
    size_t size_ = 0;
};

}  // namespace fuzz
