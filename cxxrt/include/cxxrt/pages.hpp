// PageBuffer: an owning buffer of whole pages from the page allocator
// (alloc_pages_exact), zeroed and physically contiguous, for buffers of tens
// of KiB and more. kmalloc serves a request above its largest cache (8 KiB)
// from the page allocator too, but the kernel counts it as slab memory, so a
// server's chunk buffers would show as slab growth in /proc/meminfo; these
// pages do not. The buffer moves; accounted under PageBuffer (debugfs
// <module>/allocations), with kmalloc's failure injection.
#pragma once

#include <cxxrt/errno.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/utility.hpp>

namespace cxxrt {

class PageBuffer {
public:
    constexpr PageBuffer() = default;
    PageBuffer(const PageBuffer&) = delete;
    PageBuffer& operator=(const PageBuffer&) = delete;
    PageBuffer(PageBuffer&& other) : data_(exchange(other.data_, nullptr)), size_(exchange(other.size_, size_t(0))) {}
    PageBuffer& operator=(PageBuffer&& other)
    {
        if (this != &other) {
            reset();
            data_ = exchange(other.data_, nullptr);
            size_ = exchange(other.size_, size_t(0));
        }
        return *this;
    }
    ~PageBuffer() { reset(); }

    // size bytes (rounded up to pages by the allocator), zeroed.
    static Result<PageBuffer> create_zeroed(Gfp gfp, size_t size)
    {
        if (size == 0)
            return Error(err::kInval);
        void* memory = detail::counted_alloc_pages(alloc_counter<PageBuffer>, size, gfp.zeroed());
        if (!memory)
            return Error(err::kNoMem);
        PageBuffer buffer;
        buffer.data_ = static_cast<u8*>(memory);
        buffer.size_ = size;
        return buffer;
    }

    // Frees the pages; empty afterwards.
    void reset()
    {
        if (data_)
            detail::counted_free_pages(alloc_counter<PageBuffer>, exchange(data_, nullptr), size_);
        size_ = 0;
    }

    u8* data() const { return data_; }
    size_t size() const { return size_; }

private:
    u8* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace cxxrt
