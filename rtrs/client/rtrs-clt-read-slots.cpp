// rtrs-client: a path's read slots (rtrs-clt-read-slots.hpp).
#include "rtrs/client/rtrs-clt-read-slots.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::clt {

Result<void> ReadSlots::create(ib::Device device, const RefPtr<ib::ProtectionDomain>& pd, u32 count)
{
    reset();
    if (count == 0 || count > kMaxSlots)
        return Error(cxxrt::err::kInval);
    const size_t size = size_t(count) * kSlotStride;
    buffer_ = CXXRT_TRY(ib::DmaBuffer::create(Gfp::kernel(), device, size, ib::DmaDirection::kFromDevice));
    mr_ = CXXRT_TRY(ib::MemoryRegion::create(Gfp::kernel(), pd, u32((size + ib::MemoryRegion::kPageSize - 1) /
                                                                    ib::MemoryRegion::kPageSize)));
    CXXRT_TRY(mr_->map(*buffer_, 0, size));
    count_ = count;
    return {};
}

void ReadSlots::add_registration(ib::SendChain& chain, ib::Completion* done)
{
    chain.invalidate(mr_->rkey(), nullptr, ib::kUnsignaled);
    mr_->bump_key();
    chain.register_region(*mr_, ib::kLocalWrite | ib::kRemoteWrite, done, ib::kSignaled);
}

void ReadSlots::reset()
{
    registered_ = false;
    count_ = 0;
    mr_.reset();  // the key first, then the memory it reached
    buffer_.reset();
}

}  // namespace rtrs::clt
