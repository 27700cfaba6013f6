// A scatterlist of one entry over a buffer the caller owns (kmalloc'd,
// DMA-able: never the stack), allocated for as long as this object lives.
#pragma once

#include <cxxrt/errno.hpp>
#include <cxxrt/native_owner.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/types.hpp>

#include "kernel/block/kapi-blk.h"

namespace kernel::block {

class SingleScatterlist : cxxrt::Pinned {
public:
    // sg_init_one over `buffer` of `length` bytes, the entry allocated with `gfp`.
    [[nodiscard]] cxxrt::Result<void> init(void* buffer, cxxrt::u32 length, cxxrt::Gfp gfp)
    {
        entry_ = Allocated(kapi_sg_alloc_one(buffer, length, gfp.flags()));
        if (!entry_)
            return cxxrt::Error(cxxrt::err::kNoMem);
        return {};
    }
    // The entry, or null before init().
    scatterlist* get() const { return entry_.get(); }

private:
    using Allocated = cxxrt::Owned<scatterlist, kapi_sg_free_one>;
    Allocated entry_;
};

}  // namespace kernel::block
