// See rtrs-permits.hpp.
#include "rtrs/core/rtrs-permits.hpp"

namespace rtrs {

using namespace cxxrt;

PermitPool::~PermitPool()
{
    free_array(bitmap_);
}

Result<void> PermitPool::init(u32 depth, Gfp gfp)
{
    if (depth == 0 || depth > kMaxDepth)
        return Error(err::kInval);
    free_array(bitmap_);
    depth_ = depth;
    bitmap_ = allocate_array<u64>(gfp, words());
    if (!bitmap_) {
        depth_ = 0;
        return Error(err::kNoMem);
    }
    // Bits past the depth in the last word are permanently "taken".
    u32 tail = depth % kBitsPerWord;
    if (tail)
        bitmap_[words() - 1] = ~u64(0) << tail;
    in_use_.store(0);
    return {};
}

u32 PermitPool::try_get(u32 hint)
{
    const u32 count = words();
    for (u32 step = 0; step < count; ++step) {
        u32 word = (hint + step) % count;
        u64 current = __atomic_load_n(&bitmap_[word], __ATOMIC_RELAXED);
        while (current != ~u64(0)) {
            u32 bit = u32(__builtin_ctzll(~current));
            u64 desired = current | (u64(1) << bit);
            if (__atomic_compare_exchange_n(&bitmap_[word], &current, desired, false, __ATOMIC_ACQUIRE,
                                            __ATOMIC_RELAXED)) {
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
    u64 before = __atomic_fetch_and(&bitmap_[permit / kBitsPerWord], ~mask, __ATOMIC_RELEASE);
    if (!(before & mask))
        return false;
    in_use_.fetch_sub(1, MemoryOrder::kRelaxed);
    return true;
}

bool PermitPool::is_taken(u32 permit) const
{
    if (permit >= depth_)
        return false;
    return __atomic_load_n(&bitmap_[permit / kBitsPerWord], __ATOMIC_RELAXED) & (u64(1) << (permit % kBitsPerWord));
}

}  // namespace rtrs
