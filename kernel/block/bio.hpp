// One bio (struct bio) over a BlockDevice: the block layer's ops and flags
// as C++ names (blk_opf_t values from the generated header: the caller maps
// its own protocol onto them), allocation with one data segment, and
// submission with the caller's end_io.
#pragma once

#include <cxxrt/types.hpp>
#include <cxxrt/utility.hpp>

#include "cxxrt-kabi.h"
#include "kernel/block/blkdev.hpp"
#include "kernel/block/kapi-blkdev.h"
#include "kernel/block/op.hpp"

namespace kernel::block {

using namespace cxxrt::integers;

using BioOp = Op;

// REQ_* flags, or'ed into the op.
namespace bio_flag {
inline constexpr u32 kSync = KABI_REQ_SYNC;
inline constexpr u32 kFua = KABI_REQ_FUA;
inline constexpr u32 kPreflush = KABI_REQ_PREFLUSH;
}  // namespace bio_flag

// An op with its flags: a blk_opf_t.
struct BioOpFlags {
    BioOp op;
    u32 flags = 0;
    u32 native() const { return u32(op) | flags; }
};

// A bio's end (bi_end_io): a function of the caller's C boundary, which
// reads the context from bi_private, puts the bio and tells its C++. Any
// context (irq, softirq, process); no sleeping.
using BioEndIo = void (*)(::bio* bio);

// A handle of a bio not yet submitted (then the block layer owns it).
class Bio {
public:
    // A bio for `op` on `device` carrying `data_length` bytes of physically
    // contiguous kernel memory at `data` (none when 0). Process context
    // (GFP_NOIO from the bio set: never fails for lack of memory); a null
    // handle if the data cannot be added.
    static Bio allocate(const BlockDevice& device, BioOpFlags op, void* data, u32 data_length)
    {
        return Bio(kapi_bio_alloc(device.native(), op.native(), data, data_length));
    }

    explicit operator bool() const { return handle_ != nullptr; }

    // Sets range and priority and submits; the bio is then the block
    // layer's (this handle is null). When it ends, `end_io` runs with
    // `context` in the bio (any context, possibly before this returns).
    // Process context.
    void submit(u64 sector, u32 size, u16 prio, BioEndIo end_io, void* context)
    {
        kapi_bio_submit(cxxrt::exchange(handle_, nullptr), sector, size, prio, end_io, context);
    }

private:
    explicit Bio(::bio* handle) : handle_(handle) {}
    ::bio* handle_;
};

}  // namespace kernel::block
