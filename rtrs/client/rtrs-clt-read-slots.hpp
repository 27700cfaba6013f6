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
// With always_invalidate, a server that grants KEY_AFTER_DATA (our server;
// Documentation/protocol.md 1.9) writes the chunk's new rkey right after
// the data, in the slot's key room, and the answer needs no RKEY_RSP.
//
// The caller's pages are never remotely writable this way; the server can
// write the path's slots only, and only through a key that dies with the
// path's QPs (the slots are created at connect and freed by the teardown,
// after the drain, with the requests' MRs).
#pragma once

#include <cxxrt/endian.hpp>
#include "rtrs/client/rtrs-clt-common.hpp"

namespace rtrs::clt {

// Slots per path (the module's read_slots; set once at load).
extern constinit u32 g_read_slots;

class ReadSlots : cxxrt::Pinned {
public:
    static constexpr u32 kSlotSize = 4096;
    // Each slot is followed by room for a server's new chunk rkey (le32,
    // wire::kMsgFlagKeyAfterData), rounded to a cache line.
    static constexpr u32 kKeyRoom = 64;
    static constexpr u32 kSlotStride = kSlotSize + kKeyRoom;
    // The CON_REQ asks for KEY_AFTER_DATA when READs may land in slots:
    // the only READ buffers this client names without NEED_INVAL.
    static bool asks_key_after_data() { return g_read_slots != 0; }
    // The largest read_slots the module takes.
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
        buffer_->sync_for_device(offset(id), length + sizeof(u32));
        return codec::SgEntry{mr_->iova() + offset(id), mr_->rkey(), length};
    }
    // After the READ's answer: the slot's first `length` bytes into the
    // caller's pages (the first `count` entries of `sg`).
    Result<void> copy_out(u32 id, u32 length, scatterlist* sg, u32 count)
    {
        buffer_->sync_for_cpu(offset(id), length);
        return ib::ScatterList::copy_into(sg, count, cxxrt::ConstByteSpan(buffer_->data() + offset(id), length));
    }
    // A KEY_AFTER_DATA answer: the rkey the server wrote after the READ's
    // `length` bytes in slot `id`, read once (the server can still write it;
    // a wrong key only fails that server's next IO on the chunk).
    u32 key_after(u32 id, u32 length)
    {
        buffer_->sync_for_cpu(offset(id) + length, sizeof(u32));
        cxxrt::le32 key;
        cxxrt::copy_bytes(&key, buffer_->data() + offset(id) + length, sizeof(key));
        return key.get();
    }

private:
    static size_t offset(u32 id) { return size_t(id) * kSlotStride; }

    UniquePtr<ib::DmaBuffer> buffer_;
    UniquePtr<ib::MemoryRegion> mr_;
    u32 count_ = 0;
    bool registered_ = false;
};

}  // namespace rtrs::clt
