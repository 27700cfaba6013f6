// rnbd-server: the block-device backend (blockio). Every IO becomes one
// bio on the opened device, its RNBD op and flags mapped here onto the
// block layer's; the bio's end answers the IO.
#include <cxxrt/new.hpp>
#include <cxxrt/unique_ptr.hpp>
#include "kernel/block/bio.hpp"
#include "rnbd/server/rnbd-srv-backend.hpp"
#include "rnbd/server/rnbd-srv-upcalls.h"
#include <cxxrt/enforce.hpp>

namespace rnbd::srv {

using namespace cxxrt;

namespace {

using wire::IoOp;

// The block-layer op of each RNBD op, as Linux's server maps them: a flush
// is an empty write with a preflush. In wire order, so the op indexes it.
struct OpMapping {
    IoOp rnbd;
    kernel::block::BioOpFlags bio;
};
constexpr OpMapping kBioOps[] = {
    {IoOp::kRead, {kernel::block::BioOp::kRead}},
    {IoOp::kWrite, {kernel::block::BioOp::kWrite}},
    {IoOp::kFlush, {kernel::block::BioOp::kWrite, kernel::block::bio_flag::kPreflush}},
    {IoOp::kDiscard, {kernel::block::BioOp::kDiscard}},
    {IoOp::kSecureErase, {kernel::block::BioOp::kSecureErase}},
    {IoOp::kWriteZeroes, {kernel::block::BioOp::kWriteZeroes}},
};

constexpr bool in_wire_order()
{
    u32 index = 0;
    for (const OpMapping& mapping : kBioOps)
        if (u32(mapping.rnbd) != index++)
            return false;
    return index == wire::kIoOpCount;
}
static_assert(in_wire_order());

// SYNC and FUA carry over. Ops past write zeroes were refused before
// (policy::check_io); refused here too, should one get this far.
Result<kernel::block::BioOpFlags> bio_op(IoOp op, u32 rnbd_flags)
{
    if (u32(op) >= wire::kIoOpCount)
        return Error(err::kOpNotSupp);
    kernel::block::BioOpFlags bio = kBioOps[u32(op)].bio;
    if (rnbd_flags & wire::kIoFlagSync)
        bio.flags |= kernel::block::bio_flag::kSync;
    if (rnbd_flags & wire::kIoFlagFua)
        bio.flags |= kernel::block::bio_flag::kFua;
    return bio;
}

}  // namespace

cxxrt::ResultWithReason<BlockBackend*> BlockBackend::open(u32 device_number, bool writable)
{
    // Destroyed (the device closed) on every early return.
    auto backend = CXXRT_TRY(make_unique<BlockBackend>(Gfp::kernel(), Private{}));
    kernel::block::BlockDevice& device = backend->device_;
    CXXRT_TRY(device.open(device_number, writable));
    if (writable && device.read_only())
        return cxxrt::ResultWithReason<BlockBackend*>(Error(err::kAccess),
                                                      "read-write open of a read-only block device");
    backend->logical_block_size_ = device.logical_block_size();
    // Offered as the device does it: the block layer would otherwise
    // emulate it here with writes of zeroes, which the client's own block
    // layer does as well without the round trip of a new op.
    backend->max_write_zeroes_sectors_ = device.max_write_zeroes_sectors();
    backend->key_dev_ = device.device_number();
    backend->key_ino_ = 0;
    return backend.release();
}

void BlockBackend::fill_limits(codec::OpenRspFields& rsp) const
{
    rsp.physical_block_size = u16(device_.physical_block_size());
    rsp.max_segments = u16(min(device_.max_segments(), 0xffffu));
    rsp.max_hw_sectors = device_.max_hw_sectors();
    rsp.max_discard_sectors = device_.max_discard_sectors();
    rsp.discard_granularity = device_.discard_granularity();
    rsp.discard_alignment = device_.discard_alignment();
    rsp.secure_discard = u16(min(device_.max_secure_erase_sectors(), 0xffffu));
    rsp.cache_policy =
        u8((device_.write_cache() ? wire::kCacheWriteback : 0) | (device_.fua() ? wire::kCacheFua : 0));
}

void BlockBackend::submit(IoWork& work)
{
    const codec::IoFields& fields = work.fields();
    auto op = bio_op(fields.op, fields.flags);
    if (op.is_error()) {
        work.finish(op.to_errno());
        return;
    }
    auto payload = work.payload();  // never a bio larger than the chunk
    if (payload.is_error()) {
        work.finish(payload.to_errno());
        return;
    }
    kernel::block::Bio bio = kernel::block::Bio::allocate(device_, op.value(), work.data(), payload.value());
    if (!bio) {
        work.finish(-err::kInval);
        return;
    }
    const u64 sector = fields.op == IoOp::kFlush ? 0 : fields.sector;
    // work.finish() runs from the bio's end (rnbd_srv_cxx_bio_done).
    bio.submit(sector, fields.bi_size, fields.prio, rnbd_srv_bio_end_io, &work);
}

}  // namespace rnbd::srv

extern "C" void rnbd_srv_cxx_bio_done(void* context, int error) noexcept
{
    static_cast<rnbd::srv::IoWork*>(context)->finish(error);
}
