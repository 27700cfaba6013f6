// rtrs-client: a fixed array of pinned objects built in place.
#pragma once

#include "rtrs/client/rtrs-clt-common.hpp"
#include "rtrs/client/rtrs-clt-faults.hpp"

namespace rtrs::clt {

// A fixed array of pinned objects constructed in place; freed in reverse.
template <typename T>
class ObjectArray : cxxrt::Pinned {
    static_assert(alignof(T) <= 8, "kmalloc alignment");

public:
    ObjectArray() = default;
    ~ObjectArray() { reset(); }

    // construct(void* where, u32 index) placement-news element index.
    template <typename Construct>
    Result<void> create(Gfp gfp, u32 count, Construct&& construct)
    {
        reset();
        u8* memory = cxxrt::allocate_array<u8>(gfp, cxxrt::size_t(count) * sizeof(T));
        if (!memory)
            return Error(cxxrt::err::kNoMem);
        items_ = reinterpret_cast<T*>(memory);
        for (u32 i = 0; i < count; ++i) {
            construct(static_cast<void*>(items_ + i), i);
            count_ = i + 1;
        }
        return {};
    }
    void reset()
    {
        while (count_)
            items_[--count_].~T();
        cxxrt::free_array(reinterpret_cast<u8*>(items_));
        items_ = nullptr;
    }
    u32 size() const { return count_; }
    T& operator[](u32 i) const { return items_[i]; }
    explicit operator bool() const { return items_ != nullptr; }

private:
    T* items_ = nullptr;
    u32 count_ = 0;
};

}  // namespace rtrs::clt
