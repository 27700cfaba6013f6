// kernel::ib — memory for RDMA: DMA-mapped kernel buffers, scatterlists, and
// fast-registration memory regions.
//
// A DmaBuffer (kmalloc'd, ib_dma_map_single'd) is what RTRS uses for its
// information units (messages it sends and receives) and for chunk memory
// given to an MR. Local access goes through the PD's local_dma_lkey; remote
// access through a MemoryRegion registered with a REG_MR work request.
// Creation and destruction: process context. Syncs, SGE building, MR
// mapping and REG/INV posting: any context, no allocation.
#pragma once

#include <cxxrt/array.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/pages.hpp>
#include <cxxrt/ref_counted.hpp>
#include <cxxrt/unique_ptr.hpp>
#include "kernel/ib/ib.hpp"
#include "kernel/ib/verbs.hpp"

namespace kernel::ib {

class DmaBuffer final : cxxrt::Pinned {
    struct Private {};

public:
    // Above this size create() takes whole pages instead of kmalloc (whose
    // caches end here): cxxrt/pages.hpp says why.
    static constexpr size_t kLargestSlabBuffer = 8192;

    // size bytes of zeroed, physically contiguous memory, mapped for device.
    static Result<UniquePtr<DmaBuffer>> create(Gfp gfp, Device device, size_t size, DmaDirection direction);
    // A mapping for `device` of memory the caller owns and keeps until
    // this buffer is gone (several devices may map the same memory).
    static Result<UniquePtr<DmaBuffer>> map_memory(Gfp gfp, Device device, u8* data, size_t size,
                                                   DmaDirection direction);

    DmaBuffer(Private, Device device, size_t size, DmaDirection direction)
        : device_(device), size_(size), direction_(direction)
    {
    }
    // Unmaps and frees what it allocated: no posted WR may still use it.
    ~DmaBuffer();

    u8* data() const { return data_; }
    size_t size() const { return size_; }
    u64 dma_addr() const { return dma_addr_; }
    Device device() const { return device_; }
    cxxrt::ByteSpan bytes() const { return cxxrt::ByteSpan(data_, size_); }

    // An SGE over [offset, offset + length) (clamped to the buffer).
    Sge sge(u32 lkey, size_t offset, size_t length) const
    {
        if (offset > size_)
            offset = size_;
        if (length > size_ - offset)
            length = size_ - offset;
        return Sge{dma_addr_ + offset, u32(length), lkey};
    }
    Sge sge(u32 lkey) const { return sge(lkey, 0, size_); }

    // Ownership transfers between CPU and device for the whole buffer:
    // sync_for_cpu before reading what the device wrote, sync_for_device
    // before the device reads what the CPU wrote (or writes again).
    void sync_for_cpu() { kapi_ib_dma_sync_for_cpu(device_.raw(), dma_addr_, size_, int(direction_)); }
    void sync_for_device() { kapi_ib_dma_sync_for_device(device_.raw(), dma_addr_, size_, int(direction_)); }
    // The same for [offset, offset + length) only (clamped to the buffer).
    void sync_for_cpu(size_t offset, size_t length)
    {
        const Sge range = sge(0, offset, length);
        kapi_ib_dma_sync_for_cpu(device_.raw(), range.addr, range.length, int(direction_));
    }
    void sync_for_device(size_t offset, size_t length)
    {
        const Sge range = sge(0, offset, length);
        kapi_ib_dma_sync_for_device(device_.raw(), range.addr, range.length, int(direction_));
    }

private:
    Device device_;
    // The memory create() allocated (none for map_memory's): kmalloc'd up
    // to kmalloc's largest cache, whole pages above (not counted as slab).
    cxxrt::Array<u8> owned_;
    cxxrt::PageBuffer owned_pages_;
    u8* data_ = nullptr;  // owned_'s, owned_pages_', or the caller's
    size_t size_;
    u64 dma_addr_ = 0;
    DmaDirection direction_;
    bool mapped_ = false;
};

// A flat table of scatterlist entries, DMA-mapped with ib_dma_map_sg.
class ScatterList final : cxxrt::Pinned {
    struct Private {};

public:
    static Result<UniquePtr<ScatterList>> create(Gfp gfp, u32 capacity);
    ScatterList(Private, u32 capacity) : capacity_(capacity) {}
    ~ScatterList();  // unmaps if still mapped

    // Starts over with nents entries (<= capacity); unmaps first.
    Result<void> reset(u32 nents);
    // Entry index points at kernel memory (kmalloc'd or the linear map).
    void set(u32 index, const void* buffer, u32 length) { kapi_sg_set_buf(entry(index), buffer, length); }
    // Starts over with the first `count` entries of a caller's scatterlist
    // (chained tables followed) covering exactly `data_length` bytes, the
    // last entry cut to fit: the pages stay where they are, only the table
    // is copied. EINVAL if the list is shorter or does not cover the length.
    Result<void> copy_from(scatterlist* caller, u32 count, u32 data_length);
    // Copies `from` into the memory of the first `count` entries of a
    // caller's scatterlist (chained tables followed; kernel memory, as for
    // copy_from). EINVAL, with part copied, if they hold less than `from`.
    static Result<void> copy_into(scatterlist* caller, u32 count, cxxrt::ConstByteSpan from);
    // ib_dma_map_sg; returns the number of DMA segments.
    Result<int> map(Device device, DmaDirection direction);
    void unmap();

    u32 nents() const { return nents_; }
    int dma_nents() const { return dma_nents_; }
    u64 dma_address(u32 index) const { return kapi_sg_dma_address(entry(index)); }
    u32 dma_length(u32 index) const { return kapi_sg_dma_len(entry(index)); }
    scatterlist* raw() const { return reinterpret_cast<scatterlist*>(table_.data()); }

private:
    scatterlist* entry(u32 index) const { return kapi_sg_entry(raw(), index); }

    // capacity_ entries of KABI_SIZEOF_SCATTERLIST bytes each.
    cxxrt::Array<u8> table_;
    u32 capacity_;
    u32 nents_ = 0;
    int dma_nents_ = 0;
    Device device_;
    DmaDirection direction_ = DmaDirection::kBidirectional;
};

// A fast-registration MR (IB_MR_TYPE_MEM_REG). Usage per registration:
// map()/map_sg() the memory, optionally bump_key() for a fresh rkey, then
// post_register() on a QP of the same PD; the peer may use remote() once
// that REG_MR has executed (send-queue order). Invalidate with
// post_invalidate() (or the peer's SEND_WITH_INV) before re-mapping.
class MemoryRegion final : cxxrt::Pinned {
    struct Private {};
    friend class SendChain;

public:
    static constexpr u32 kPageSize = 4096;

    // max_pages: the page-list capacity; at most the device's
    // max_fast_reg_page_list_len. Process context.
    static Result<UniquePtr<MemoryRegion>> create(Gfp gfp, RefPtr<ProtectionDomain> pd, u32 max_pages);
    MemoryRegion(Private, RefPtr<ProtectionDomain> pd, u32 max_pages) : pd_(cxxrt::move(pd)), max_pages_(max_pages)
    {
    }
    // ib_dereg_mr: no WR may still use it (process context).
    ~MemoryRegion();

    // Loads the page list with [offset, offset + length) of a DmaBuffer
    // (one segment, no second DMA mapping). -EINVAL if it does not fit.
    Result<void> map(const DmaBuffer& buffer, size_t offset, size_t length);
    // Loads the page list from a mapped ScatterList; returns the number of
    // entries that fit (fewer than dma_nents: the rest needs another MR).
    Result<int> map_sg(ScatterList& list, u32 first_offset = 0, u32 page_size = kPageSize);

    // Increments the key byte of lkey/rkey (a new rkey for the next
    // registration, so a stale peer rkey cannot reach the memory).
    void bump_key() { kapi_ib_update_fast_reg_key(mr_, u8(kapi_ib_inc_rkey(rkey()))); }

    Result<void> post_register(QueuePair& qp, Completion* done, Access access, SendFlags flags)
    {
        return cxxrt::to_result(kapi_ib_post_reg_mr(qp.raw(), done ? done->cqe() : nullptr, mr_, int(access), flags));
    }
    Result<void> post_invalidate(QueuePair& qp, Completion* done, SendFlags flags)
    {
        return qp.post_local_inv(done, rkey(), flags);
    }

    u32 lkey() const { return kapi_ib_mr_lkey(mr_); }
    u32 rkey() const { return kapi_ib_mr_rkey(mr_); }
    u64 iova() const { return kapi_ib_mr_iova(mr_); }
    u64 length() const { return kapi_ib_mr_length(mr_); }
    RemoteBuffer remote() const { return RemoteBuffer{iova(), rkey()}; }
    u32 max_pages() const { return max_pages_; }
    // An SGE for local access through the MR (lkey), from its iova.
    Sge sge(size_t offset, u32 length) const { return Sge{iova() + offset, length, lkey()}; }

private:
    scatterlist* one_sg() { return reinterpret_cast<scatterlist*>(one_sg_); }

    RefPtr<ProtectionDomain> pd_;
    ib_mr* mr_ = nullptr;
    u32 max_pages_;
    alignas(KABI_ALIGNOF_SCATTERLIST) u8 one_sg_[KABI_SIZEOF_SCATTERLIST];
};

// Send-queue WRs posted together: one ib_post_send, so the provider's send
// path (its queue lock, its doorbell or, on rxe, its task) runs once for
// all of them instead of once each. Add in send-queue order, then post().
// The SGE arrays added must outlive post(). On an error, posted() is how
// many the provider took: those execute, in order; the rest never do.
// Each WR is built once, in place, in this object (kMaxWorkRequests slots).
class SendChain final : cxxrt::Pinned {
public:
    static constexpr u32 kMaxWorkRequests = 5;

    void invalidate(u32 rkey, Completion* done, SendFlags flags)
    {
        if (ib_send_wr* slot = next_slot())
            kapi_ib_chain_local_inv(slot, after(slot), cqe(done), rkey, flags);
    }
    // REG_MR of region with its current key (see MemoryRegion::post_register).
    void register_region(MemoryRegion& region, Access access, Completion* done, SendFlags flags)
    {
        if (ib_send_wr* slot = next_slot())
            kapi_ib_chain_reg_mr(slot, after(slot), cqe(done), region.mr_, int(access), flags);
    }
    void write(Span<const Sge> sges, RemoteBuffer remote, Completion* done, SendFlags flags)
    {
        rdma(KABI_IB_WR_RDMA_WRITE, sges, remote, done, flags, 0);
    }
    void write_imm(Span<const Sge> sges, RemoteBuffer remote, u32 imm, Completion* done, SendFlags flags)
    {
        rdma(KABI_IB_WR_RDMA_WRITE_WITH_IMM, sges, remote, done, flags, imm_to_wire(imm));
    }
    void send_imm(Span<const Sge> sges, u32 imm, Completion* done, SendFlags flags)
    {
        send(KABI_IB_WR_SEND_WITH_IMM, sges, done, flags, imm_to_wire(imm));
    }
    void send_inv(Span<const Sge> sges, u32 rkey, Completion* done, SendFlags flags)
    {
        send(KABI_IB_WR_SEND_WITH_INV, sges, done, flags, rkey);
    }

    // -EINVAL (nothing posted) if none or more than kMaxWorkRequests were added.
    Result<void> post(QueuePair& qp)
    {
        posted_ = 0;
        if (overflow_ || count_ == 0)
            return Error(cxxrt::err::kInval);
        // Each WR was added pointing at the next slot; the last one ends it.
        kapi_ib_chain_link(slot(count_ - 1), nullptr);
        const ib_send_wr* bad = nullptr;
        const int error = kapi_ib_post_chain(qp.raw(), slot(0), &bad);
        if (error == 0)
            posted_ = count_;
        else if (bad)
            posted_ = u32((reinterpret_cast<const u8*>(bad) - slots_[0]) / KABI_SIZEOF_IB_CHAIN_WR);
        return cxxrt::to_result(error);
    }
    u32 posted() const { return posted_; }

private:
    ib_send_wr* slot(u32 index) { return reinterpret_cast<ib_send_wr*>(slots_[index]); }
    ib_send_wr* next_slot()
    {
        if (count_ == kMaxWorkRequests) {
            overflow_ = true;
            return nullptr;
        }
        return slot(count_++);
    }
    // The slot after this one (linked now, ended by post()).
    ib_send_wr* after(ib_send_wr* slot)
    {
        return reinterpret_cast<ib_send_wr*>(reinterpret_cast<u8*>(slot) + KABI_SIZEOF_IB_CHAIN_WR);
    }
    static ib_cqe* cqe(Completion* done) { return done ? done->cqe() : nullptr; }
    void send(int opcode, Span<const Sge> sges, Completion* done, SendFlags flags, u32 ex)
    {
        if (ib_send_wr* slot = next_slot())
            kapi_ib_chain_send(slot, after(slot), cqe(done), sges.data(), int(sges.size()), opcode, flags, ex);
    }
    void rdma(int opcode, Span<const Sge> sges, RemoteBuffer remote, Completion* done, SendFlags flags, u32 imm_raw)
    {
        if (ib_send_wr* slot = next_slot())
            kapi_ib_chain_rdma(slot, after(slot), cqe(done), sges.data(), int(sges.size()), opcode, flags,
                               remote.addr, remote.rkey, imm_raw);
    }

    alignas(KABI_ALIGNOF_IB_CHAIN_WR) u8 slots_[kMaxWorkRequests][KABI_SIZEOF_IB_CHAIN_WR];
    u32 count_ = 0;
    u32 posted_ = 0;
    bool overflow_ = false;
};

}  // namespace kernel::ib
