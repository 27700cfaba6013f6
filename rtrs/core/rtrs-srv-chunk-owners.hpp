// rtrs-server: which path of a session has an IO in flight on each of the
// session's chunks. The chunk memory is the session's, shared by all its
// paths and by a path's successor after a reconnect (each maps it with
// keys of its own); what a path keeps per chunk (its busy flag, the IO's
// state) is its own. So one path cannot see that another path's IO still
// uses a chunk: a client failing over re-sends the same permit id (= chunk
// id) on another path while the old path's backend IO may still read or
// write the chunk. ChunkOwners is the session-wide word per chunk that
// says who holds it: taken when an IO's immediate arrives, released when
// that IO is answered or, on a closing path, when the user finished it.
//
// Lock-free: one compare-exchange to take, one release store to give back;
// nothing is allocated after init(). Kernel-independent and host-tested.
#pragma once

#include <cxxrt/array.hpp>
#include <cxxrt/atomic.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/types.hpp>

namespace rtrs::srv {

class ChunkOwners {
public:
    // Who holds a chunk: any non-zero value unique among the session's live
    // paths (the server uses the path's address: a path outlives every IO
    // it took a chunk for, so a stale owner can never name a newer path).
    using Owner = cxxrt::uintptr_t;
    static constexpr Owner kFree = 0;

    enum class Take : cxxrt::u8 {
        kTaken,         // the chunk was free and is now the owner's
        kHeldBySelf,    // the owner already holds it (a second IO in one chunk)
        kHeldByOther,   // another owner holds it: the caller must not touch the chunk
        kOutOfRange,    // no such chunk (or init() was not called)
    };

    ChunkOwners() = default;
    ChunkOwners(const ChunkOwners&) = delete;
    ChunkOwners& operator=(const ChunkOwners&) = delete;

    // One free word per chunk. Once per object; process context.
    [[nodiscard]] cxxrt::Result<void> init(cxxrt::u32 count, cxxrt::Gfp gfp);

    // Any context. kTaken pairs with exactly one release() by the same owner.
    [[nodiscard]] Take take(cxxrt::u32 chunk, Owner owner);
    // Gives back a chunk take() gave `owner` (only its taker calls this):
    // what the owner did with the chunk before is visible to the next taker.
    void release(cxxrt::u32 chunk);

    // Diagnostics and tests: the current holder (kFree if none), and the
    // number of chunks held (a session going away must have none).
    Owner holder(cxxrt::u32 chunk) const;
    cxxrt::u32 held() const;
    cxxrt::u32 size() const { return owners_.size(); }

private:
    cxxrt::Array<cxxrt::Atomic<Owner>> owners_;
};

}  // namespace rtrs::srv
