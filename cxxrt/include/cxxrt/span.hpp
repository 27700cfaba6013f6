// Span<T>: a bounds-carrying view. Wire parsing goes through spans so every
// access has a length next to it (FORTIFY_SOURCE does not cover C++).
#pragma once

#include <cxxrt/types.hpp>
#include <cxxrt/utility.hpp>

namespace cxxrt {

template <typename T>
class Span {
public:
    constexpr Span() = default;
    constexpr Span(T* data, size_t size) : data_(data), size_(size) {}
    template <size_t N>
    constexpr Span(T (&array)[N]) : data_(array), size_(N) {}
    // Span<const T> from Span<T>.
    template <typename U>
    constexpr Span(const Span<U>& other) : data_(other.data()), size_(other.size()) {}

    constexpr T* data() const { return data_; }
    constexpr size_t size() const { return size_; }
    constexpr size_t size_bytes() const { return size_ * sizeof(T); }
    constexpr bool is_empty() const { return size_ == 0; }

    // Callers check bounds with size() first; out-of-range here is a bug.
    constexpr T& operator[](size_t i) const { return data_[i]; }

    constexpr T* begin() const { return data_; }
    constexpr T* end() const { return data_ + size_; }

    // Sub-views clamp instead of running past the end: a request beyond the
    // span yields an empty (or shorter) view, and callers compare sizes.
    constexpr Span slice(size_t offset) const
    {
        if (offset > size_)
            return {};
        return Span(data_ + offset, size_ - offset);
    }
    constexpr Span slice(size_t offset, size_t count) const
    {
        if (offset > size_ || count > size_ - offset)
            return {};
        return Span(data_ + offset, count);
    }
    constexpr Span first(size_t count) const { return slice(0, count); }

    // True when [offset, offset + count) lies inside the span (no overflow).
    constexpr bool contains_range(size_t offset, size_t count) const
    {
        return offset <= size_ && count <= size_ - offset;
    }

private:
    T* data_ = nullptr;
    size_t size_ = 0;
};

using ByteSpan = Span<u8>;
using ConstByteSpan = Span<const u8>;

// A string view for sysfs input and names: not NUL-terminated.
class StringView {
public:
    constexpr StringView() = default;
    constexpr StringView(const char* data, size_t length) : data_(data), length_(length) {}
    constexpr StringView(const char* c_string) : data_(c_string), length_(string_length(c_string, ~size_t(0))) {}

    constexpr const char* data() const { return data_; }
    constexpr size_t length() const { return length_; }
    constexpr bool is_empty() const { return length_ == 0; }
    constexpr char operator[](size_t i) const { return data_[i]; }

    constexpr StringView substring(size_t offset, size_t count) const
    {
        if (offset > length_)
            return {};
        if (count > length_ - offset)
            count = length_ - offset;
        return StringView(data_ + offset, count);
    }
    constexpr StringView substring(size_t offset) const { return substring(offset, length_); }

    constexpr bool operator==(StringView other) const
    {
        if (length_ != other.length_)
            return false;
        for (size_t i = 0; i < length_; ++i)
            if (data_[i] != other.data_[i])
                return false;
        return true;
    }
    constexpr bool starts_with(StringView prefix) const
    {
        return prefix.length_ <= length_ && substring(0, prefix.length_) == prefix;
    }
    constexpr bool ends_with(StringView suffix) const
    {
        return suffix.length_ <= length_ && substring(length_ - suffix.length_) == suffix;
    }
    // Index of the first occurrence of c, or length() when absent.
    constexpr size_t find(char c) const
    {
        for (size_t i = 0; i < length_; ++i)
            if (data_[i] == c)
                return i;
        return length_;
    }
    constexpr bool contains(char c) const { return find(c) != length_; }

private:
    const char* data_ = nullptr;
    size_t length_ = 0;
};

}  // namespace cxxrt
