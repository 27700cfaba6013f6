// See rtrs-permits.hpp.
#include "rtrs/core/rtrs-permits.hpp"

namespace rtrs {

using namespace cxxrt;

Result<void> PermitPool::init(u32 depth, Gfp gfp)
{
    if (depth == 0 || depth > kMaxDepth)
        return Error(err::kInval);
    bitmap_.reset();
    depth_ = depth;
    auto bitmap = Array<Atomic<u64>>::create(gfp, words());
    if (!bitmap) {
        depth_ = 0;
        return bitmap.error();
    }
    bitmap_ = bitmap.release_value();
    // Bits past the depth in the last word are permanently "taken".
    u32 tail = depth % kBitsPerWord;
    if (tail)
        bitmap_[words() - 1].store(~u64(0) << tail, MemoryOrder::kRelaxed);
    in_use_.store(0);
    return {};
}

u32 PermitPool::try_get(u32 hint)
{
    const u32 count = words();
    for (u32 step = 0; step < count; ++step) {
        u32 word = (hint + step) % count;
        u64 current = bitmap_[word].load(MemoryOrder::kRelaxed);
        while (current != ~u64(0)) {
            u32 bit = u32(__builtin_ctzll(~current));
            u64 desired = current | (u64(1) << bit);
            if (bitmap_[word].compare_exchange(current, desired, MemoryOrder::kAcquire)) {
                in_use_.fetch_add(1, MemoryOrder::kRelaxed);
                return word * kBitsPerWord + bit;
            }
        }
    }
    return kNone;
}

bool PermitPool::put(u32 permit)
{
    if (permit >= depth_)
        return false;
    u64 mask = u64(1) << (permit % kBitsPerWord);
    u64 before = bitmap_[permit / kBitsPerWord].fetch_and(~mask, MemoryOrder::kRelease);
    if (!(before & mask))
        return false;
    in_use_.fetch_sub(1, MemoryOrder::kRelaxed);
    return true;
}

bool PermitPool::is_taken(u32 permit) const
{
    if (permit >= depth_)
        return false;
    return bitmap_[permit / kBitsPerWord].load(MemoryOrder::kRelaxed) & (u64(1) << (permit % kBitsPerWord));
}

}  // namespace rtrs
