// TextBuffer: builds sysfs "show" text in a caller-owned buffer.
// The kernel hands a show() callback one page and expects the length back;
// there is no printf in freestanding C++, so formatters append pieces here.
// Appends past the end are dropped (never written) and remembered, so a
// formatter can run to completion and the caller still learns that the text
// was cut. The buffer always stays NUL-terminated when it has any room,
// because the C side may log it with %s.
#pragma once

#include <cxxrt/span.hpp>
#include <cxxrt/types.hpp>

namespace cxxrt {

class TextBuffer {
public:
    explicit constexpr TextBuffer(Span<char> storage) : storage_(storage)
    {
        if (!storage_.is_empty())
            storage_[0] = '\0';
    }

    // Bytes written, not counting the terminating NUL.
    constexpr size_t length() const { return length_; }
    constexpr bool truncated() const { return truncated_; }
    constexpr StringView view() const { return StringView(storage_.data(), length_); }

    constexpr void append(char c)
    {
        // One byte stays reserved for the terminator.
        if (storage_.size() == 0 || length_ + 1 >= storage_.size()) {
            truncated_ = true;
            return;
        }
        storage_[length_++] = c;
        storage_[length_] = '\0';
    }

    constexpr void append(StringView text)
    {
        for (size_t i = 0; i < text.length(); ++i)
            append(text[i]);
    }

    constexpr void append_repeated(char c, size_t count)
    {
        for (size_t i = 0; i < count; ++i)
            append(c);
    }

    // Decimal, right-aligned in at least `width` columns (printf's %<w>llu).
    constexpr void append_unsigned(u64 value, size_t width = 0) { append_decimal(value, false, width); }

    constexpr void append_signed(s64 value, size_t width = 0)
    {
        // Negate in unsigned arithmetic so the most negative value survives.
        append_decimal(value < 0 ? u64(0) - u64(value) : u64(value), value < 0, width);
    }

    // Lower-case hexadecimal without a prefix, zero-padded to `min_digits`.
    constexpr void append_hex(u64 value, size_t min_digits = 1)
    {
        constexpr char kHexDigits[] = "0123456789abcdef";
        char digits[16] = {};
        size_t count = 0;
        do {
            digits[count++] = kHexDigits[value & 0xf];
            value >>= 4;
        } while (value != 0);
        while (count < min_digits && count < sizeof(digits))
            digits[count++] = '0';
        while (count > 0)
            append(digits[--count]);
    }

private:
    // `magnitude` in decimal after a '-' if `negative`, right-aligned in at
    // least `width` columns.
    constexpr void append_decimal(u64 magnitude, bool negative, size_t width)
    {
        char digits[21] = {};
        size_t count = 0;
        do {
            digits[count++] = char('0' + magnitude % 10);
            magnitude /= 10;
        } while (magnitude != 0);
        if (negative)
            digits[count++] = '-';
        if (width > count)
            append_repeated(' ', width - count);
        while (count > 0)
            append(digits[--count]);
    }

    Span<char> storage_;
    size_t length_ = 0;
    bool truncated_ = false;
};

}  // namespace cxxrt
