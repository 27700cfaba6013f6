// rtrs-client: a path's read slots, pre-registered landing places for
// small READs.
//
// A READ normally registers the caller's pages under a fresh key (LOCAL_INV
// + REG_MR per IO) and asks the server to invalidate that key with its
// answer (SEND_WITH_INV). A READ of at most kSlotSize bytes whose permit id
// has a slot lands instead in slot[id] of one buffer registered once per
// connect, and its answer copies the slot into the caller's pages: per
// read no registration on either side, no SEND_WITH_INV (two packets fewer
// on the wire), one memcpy. The message is plain RTRS (a descriptor with
// flags 0, which Linux's server also serves), so it needs no negotiation.
//
// The caller's pages are never remotely writable this way; the server can
// write the path's slots only, and only through a key that dies with the
// path's QPs (the slots are created at connect and freed by the teardown,
// after the drain, with the requests' MRs).
#pragma once

#include "rtrs/client/rtrs-clt-common.hpp"

namespace rtrs::clt {

// Slots per path (the module's read_slots; set once at load).
extern constinit u32 g_read_slots;

class ReadSlots : cxxrt::Pinned {
public:
    static constexpr u32 kSlotSize = 4096;
    // The rtrs-client module's read_slots parameter: slots per path (0: none).
    static constexpr u32 kMaxSlots = 4096;

    // `count` slots in one DMA buffer of `device` under one MR of `pd`
    // (process context); nothing is registered yet.
    Result<void> create(ib::Device device, const RefPtr<ib::ProtectionDomain>& pd, u32 count);
    // Adds the slots' registration to `chain` (posted on a QP of the PD):
    // behind a LOCAL_INV of the MR's current (never valid) key, which rxe
    // fences, so a retransmission never runs the REG_MR twice (see
    // ClientConnection::post_lock()); `done` is told when it executed.
    void add_registration(ib::SendChain& chain, ib::Completion* done);
    // The slots' key is registered (after add_registration completed).
    void set_registered() { registered_ = true; }
    // Frees the MR, then the memory: only after every QP of the PD is drained.
    void reset();

    // Whether a READ of `length` bytes under permit `id` lands in a slot.
    bool takes(u32 id, u32 length) const { return registered_ && id < count_ && length && length <= kSlotSize; }
    // The READ's descriptor for the server (the slot, under the slots' key),
    // the slot given back to the device.
    codec::SgEntry descriptor(u32 id, u32 length)
    {
        buffer_->sync_for_device(size_t(id) * kSlotSize, length);
        return codec::SgEntry{mr_->iova() + u64(id) * kSlotSize, mr_->rkey(), length};
    }
    // After the READ's answer: the slot's first `length` bytes into the
    // caller's pages (the first `count` entries of `sg`).
    Result<void> copy_out(u32 id, u32 length, scatterlist* sg, u32 count)
    {
        buffer_->sync_for_cpu(size_t(id) * kSlotSize, length);
        return ib::ScatterList::copy_into(sg, count, cxxrt::ConstByteSpan(buffer_->data() + size_t(id) * kSlotSize,
                                                                         length));
    }
    u32 count() const { return registered_ ? count_ : 0; }

private:
    UniquePtr<ib::DmaBuffer> buffer_;
    UniquePtr<ib::MemoryRegion> mr_;
    u32 count_ = 0;
    bool registered_ = false;
};

}  // namespace rtrs::clt
