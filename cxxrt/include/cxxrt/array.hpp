// Array<T>: an owning, fixed-size array of T on the heap (fbl::Array's
// shape). create() allocates once and constructs every element in place, so
// T may be pinned (locks, work items, kernel objects); the destructor
// destroys the elements in reverse order and frees the memory. The array
// itself moves (the elements stay where they are).
//
//     slots_ = CXXRT_TRY(Array<Slot>::create(Gfp::kernel(), depth,
//                                            [this](u32 index) { return Slot(*this, index); }));
//
// The element maker returns a T by value: C++17's guaranteed copy elision
// builds it straight in the array, pinned or not. Allocation is accounted
// under T[] (debugfs <module>/allocations).
#pragma once

#include <cxxrt/new.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/utility.hpp>

namespace cxxrt {

template <typename T>
class Array {
    static_assert(alignof(T) <= 8, "kmalloc guarantees 8-byte alignment");

public:
    constexpr Array() = default;
    Array(const Array&) = delete;
    Array& operator=(const Array&) = delete;
    Array(Array&& other) : items_(exchange(other.items_, nullptr)), count_(exchange(other.count_, 0u)) {}
    Array& operator=(Array&& other)
    {
        if (this != &other) {
            reset();
            items_ = exchange(other.items_, nullptr);
            count_ = exchange(other.count_, 0u);
        }
        return *this;
    }
    ~Array() { reset(); }

    // count default-constructed elements; -ENOMEM (nothing constructed) on failure.
    static Result<Array> create(Gfp gfp, u32 count)
    {
        return create(gfp, count, [](u32) { return T(); });
    }
    // Element i is make(i) (a T by value, built in place).
    template <typename Make>
    static Result<Array> create(Gfp gfp, u32 count, Make&& make)
    {
        Array array = CXXRT_TRY(allocate(gfp, count));
        for (u32 i = 0; i < count; ++i) {
            new (static_cast<void*>(array.items_ + i)) T(make(i));
            array.count_ = i + 1;
        }
        return array;
    }
    // count elements of a trivial T (bytes, C structs) left as the zeroed
    // allocation made them: no pass over the memory (a buffer of megabytes).
    static Result<Array> create_zeroed(Gfp gfp, u32 count)
    {
        static_assert(__is_trivial(T), "elements with a constructor are built by create()");
        Array array = CXXRT_TRY(allocate(gfp, count));
        array.count_ = count;
        return array;
    }

    // Destroys the elements (last first) and frees the memory; empty afterwards.
    void reset()
    {
        if (!items_)
            return;
        while (count_)
            items_[--count_].~T();
        detail::counted_free(alloc_counter<T[]>, exchange(items_, nullptr));
    }

    u32 size() const { return count_; }
    bool is_empty() const { return count_ == 0; }
    // Callers check bounds with size() first; out-of-range here is a bug.
    T& operator[](u32 i) const { return items_[i]; }
    T* data() const { return items_; }
    T* begin() const { return items_; }
    T* end() const { return items_ + count_; }
    Span<T> span() const { return Span<T>(items_, count_); }
    // True once created (also with zero elements).
    explicit operator bool() const { return items_ != nullptr; }

private:
    // The memory for count elements, none constructed yet (count_ 0).
    static Result<Array> allocate(Gfp gfp, u32 count)
    {
        size_t bytes = 0;
        if (__builtin_mul_overflow(size_t(count), sizeof(T), &bytes))
            return Error(err::kNoMem);
        // Zeroed like allocate_array: members a constructor leaves alone read 0.
        void* memory = detail::counted_alloc(alloc_counter<T[]>, bytes, gfp.zeroed());
        if (!memory)
            return Error(err::kNoMem);
        Array array;
        array.items_ = static_cast<T*>(memory);
        return array;
    }

    T* items_ = nullptr;
    u32 count_ = 0;
};

}  // namespace cxxrt
