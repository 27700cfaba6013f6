// See rtrs-srv-chunk-owners.hpp.
#include "rtrs/core/rtrs-srv-chunk-owners.hpp"

namespace rtrs::srv {

using namespace cxxrt;

Result<void> ChunkOwners::init(u32 count, Gfp gfp)
{
    if (count == 0 || !owners_.is_empty())
        return Error(err::kInval);
    owners_ = CXXRT_TRY(Array<Atomic<Owner>>::create(gfp, count));
    return {};
}

ChunkOwners::Take ChunkOwners::take(u32 chunk, Owner owner)
{
    if (chunk >= owners_.size() || owner == kFree)
        return Take::kOutOfRange;
    Owner expected = kFree;
    // Acquire: whatever the previous holder did with the chunk before its
    // release() happened before this taker's use.
    if (owners_[chunk].compare_exchange(expected, owner, MemoryOrder::kAcquire))
        return Take::kTaken;
    return expected == owner ? Take::kHeldBySelf : Take::kHeldByOther;
}

void ChunkOwners::release(u32 chunk)
{
    if (chunk < owners_.size())
        owners_[chunk].store(kFree, MemoryOrder::kRelease);
}

ChunkOwners::Owner ChunkOwners::holder(u32 chunk) const
{
    return chunk < owners_.size() ? owners_[chunk].load(MemoryOrder::kAcquire) : kFree;
}

u32 ChunkOwners::held() const
{
    u32 count = 0;
    for (u32 i = 0; i < owners_.size(); ++i)
        count += owners_[i].load(MemoryOrder::kRelaxed) != kFree ? 1 : 0;
    return count;
}

}  // namespace rtrs::srv
