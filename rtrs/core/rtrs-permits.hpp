// Client permits: one per server chunk. Holding permit N means owning chunk
// N on the server, so an IO can be RDMA-written there without asking. The
// pool is a lock-free bitmap (no global lock on the IO path); blocking
// waits are the kernel side's job (a wait queue woken from put()).
#pragma once

#include <cxxrt/array.hpp>
#include <cxxrt/atomic.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/types.hpp>

namespace rtrs {

class PermitPool {
public:
    static constexpr cxxrt::u32 kMaxDepth = 65535;
    static constexpr cxxrt::u32 kNone = ~cxxrt::u32(0);

    PermitPool() = default;
    PermitPool(const PermitPool&) = delete;
    PermitPool& operator=(const PermitPool&) = delete;

    // Sizes the pool; all permits start free. Process context.
    [[nodiscard]] cxxrt::Result<void> init(cxxrt::u32 depth, cxxrt::Gfp gfp);

    // Takes a free permit, starting the search at `hint` (e.g. the CPU
    // number, to spread CPUs over different words). kNone when exhausted.
    [[nodiscard]] cxxrt::u32 try_get(cxxrt::u32 hint = 0);
    // Returns a permit; a double put is a bug and is refused (false).
    bool put(cxxrt::u32 permit);

    bool is_taken(cxxrt::u32 permit) const;
    cxxrt::u32 depth() const { return depth_; }
    cxxrt::u32 in_use() const { return in_use_.load(cxxrt::MemoryOrder::kRelaxed); }

private:
    static constexpr cxxrt::u32 kBitsPerWord = 64;
    cxxrt::u32 words() const { return (depth_ + kBitsPerWord - 1) / kBitsPerWord; }

    cxxrt::Array<cxxrt::Atomic<cxxrt::u64>> bitmap_;  // bit set = taken
    cxxrt::u32 depth_ = 0;
    cxxrt::Atomic<cxxrt::u32> in_use_{0};
};

}  // namespace rtrs
