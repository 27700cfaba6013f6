// libFuzzer target: TextBuffer, which every sysfs show() and log line is
// built with. A fuzzed sequence of appends runs into a buffer of fuzzed
// size and, beside it, the same text is printed by the C library into a
// large one. Oracles:
//   - the buffer holds exactly the first size - 1 bytes of the reference
//     text, NUL-terminated, and no byte past its end is written;
//   - length() is that prefix's length and truncated() says whether the
//     reference was longer; view() is the same text;
//   - numbers print as printf's %*llu, %*lld and %0*llx print them
//     (the most negative s64 included).
#include <stdio.h>
#include <string.h>

#include <cxxrt/text.hpp>

#include "cxxrt/tests/fuzz/fuzz-support.hpp"

namespace {

using namespace cxxrt::integers;
using cxxrt::TextBuffer;
using fuzz::size_t;
using fuzz::u64;

constexpr size_t kMaxBuffer = 512;
constexpr size_t kReference = 1 << 16;

struct Reference {
    char text[kReference];
    size_t length;

    void add(const char* bytes, size_t count)
    {
        for (size_t i = 0; i < count && length < kReference; ++i)
            text[length++] = bytes[i];
    }
};

u64 take_number(fuzz::Input& input)
{
    switch (input.take_u8() % 4) {
    case 0: return input.take_u8();
    case 1: return ~u64(0) - input.take_u8();
    case 2: return u64(1) << 63;
    default: return input.take_u64();
    }
}

}  // namespace

FUZZ_TARGET(data, size)
{
    static fuzz::GuardedBuffer<kMaxBuffer> buffer;
    static Reference reference;
    reference.length = 0;
    fuzz::Input input(data, size);
    const size_t capacity = input.take_u16() % (kMaxBuffer + 1);
    TextBuffer text(buffer.view(capacity));

    char printed[128];
    for (int step = 0; step < 48 && !input.is_empty(); ++step) {
        switch (input.take_u8() % 6) {
        case 0: {
            const char c = char(input.take_u8());
            text.append(c);
            reference.add(&c, 1);
            break;
        }
        case 1: {
            const fuzz::StringView piece = input.take_short_string();
            text.append(piece);
            reference.add(piece.data(), piece.length());
            break;
        }
        case 2: {
            const char c = char(input.take_u8());
            const size_t count = input.take_u16() % 1024;
            text.append_repeated(c, count);
            for (size_t i = 0; i < count; ++i)
                reference.add(&c, 1);
            break;
        }
        case 3: {
            const u64 value = take_number(input);
            const int width = input.take_u8() % 40;
            text.append_unsigned(value, size_t(width));
            reference.add(printed, size_t(snprintf(printed, sizeof(printed), "%*llu", width,
                                                   (unsigned long long)value)));
            break;
        }
        case 4: {
            const s64 value = s64(take_number(input));
            const int width = input.take_u8() % 40;
            text.append_signed(value, size_t(width));
            reference.add(printed, size_t(snprintf(printed, sizeof(printed), "%*lld", width, (long long)value)));
            break;
        }
        default: {
            const u64 value = take_number(input);
            const size_t digits = input.take_u8() % 24;
            text.append_hex(value, digits);
            // The documented maximum of zero padding is 16 digits.
            const int padded = int(digits > 16 ? 16 : digits);
            reference.add(printed, size_t(snprintf(printed, sizeof(printed), "%0*llx", padded,
                                                   (unsigned long long)value)));
            break;
        }
        }
    }

    const size_t room = capacity == 0 ? 0 : capacity - 1;
    const size_t expected = reference.length < room ? reference.length : room;
    FUZZ_CHECK(text.length() == expected);
    FUZZ_CHECK(text.truncated() == (reference.length > room));
    FUZZ_CHECK(memcmp(buffer.data(), reference.text, expected) == 0);
    if (capacity > 0)
        FUZZ_CHECK(buffer.data()[expected] == '\0');
    FUZZ_CHECK(text.view().data() == buffer.data() && text.view().length() == expected);
    FUZZ_CHECK(buffer.untouched_past_end());
    return 0;
}
