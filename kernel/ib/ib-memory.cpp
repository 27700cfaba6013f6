// kernel::ib — DMA buffers, scatterlists, memory regions.
#include "kernel/ib/memory.hpp"
#include <cxxrt/enforce.hpp>

namespace kernel::ib {

Result<UniquePtr<DmaBuffer>> DmaBuffer::create(Gfp gfp, Device device, size_t size, DmaDirection direction)
{
    if (!device || size == 0 || size > 0xffffffffu)
        return Error(cxxrt::err::kInval);
    auto buffer = CXXRT_TRY(cxxrt::make_unique<DmaBuffer>(gfp, Private{}, device, size, direction));
    if (size > kLargestSlabBuffer) {
        buffer->owned_pages_ = CXXRT_TRY(cxxrt::PageBuffer::create_zeroed(gfp, size));
        buffer->data_ = buffer->owned_pages_.data();
    } else {
        buffer->owned_ = CXXRT_TRY(cxxrt::Array<u8>::create_zeroed(gfp, u32(size)));
        buffer->data_ = buffer->owned_.data();
    }
    unsigned long long dma_addr = 0;
    CXXRT_TRY(cxxrt::to_result(kapi_ib_dma_map_single(device.raw(), buffer->data_, size, int(direction), &dma_addr)));
    buffer->dma_addr_ = dma_addr;
    buffer->mapped_ = true;
    return buffer;
}

Result<UniquePtr<DmaBuffer>> DmaBuffer::map_memory(Gfp gfp, Device device, u8* data, size_t size,
                                                   DmaDirection direction)
{
    if (!device || !data || size == 0 || size > 0xffffffffu)
        return Error(cxxrt::err::kInval);
    auto buffer = CXXRT_TRY(cxxrt::make_unique<DmaBuffer>(gfp, Private{}, device, size, direction));
    buffer->data_ = data;
    unsigned long long dma_addr = 0;
    CXXRT_TRY(cxxrt::to_result(kapi_ib_dma_map_single(device.raw(), data, size, int(direction), &dma_addr)));
    buffer->dma_addr_ = dma_addr;
    buffer->mapped_ = true;
    return buffer;
}

DmaBuffer::~DmaBuffer()
{
    // Unmapped before owned_ (a member) frees the memory.
    if (mapped_)
        kapi_ib_dma_unmap_single(device_.raw(), dma_addr_, size_, int(direction_));
}

Result<UniquePtr<ScatterList>> ScatterList::create(Gfp gfp, u32 capacity)
{
    if (capacity == 0)
        return Error(cxxrt::err::kInval);
    auto list = CXXRT_TRY(cxxrt::make_unique<ScatterList>(gfp, Private{}, capacity));
    size_t bytes = 0;
    if (__builtin_mul_overflow(size_t(capacity), size_t(KABI_SIZEOF_SCATTERLIST), &bytes) || bytes > 0xffffffffu)
        return Error(cxxrt::err::kNoMem);
    list->table_ = CXXRT_TRY(cxxrt::Array<u8>::create_zeroed(gfp, u32(bytes)));
    kapi_sg_init_table(list->raw(), capacity);
    list->nents_ = capacity;
    return list;
}

ScatterList::~ScatterList()
{
    unmap();  // before table_ (a member) frees the entries
}

Result<void> ScatterList::reset(u32 nents)
{
    if (nents == 0 || nents > capacity_)
        return Error(cxxrt::err::kInval);
    unmap();
    kapi_sg_init_table(raw(), nents);
    nents_ = nents;
    return {};
}

Result<void> ScatterList::copy_from(scatterlist* caller, u32 count, u32 data_length)
{
    CXXRT_TRY(reset(count));
    u32 covered = 0;
    for (u32 i = 0; i < count; ++i) {
        if (!caller)
            return Error(cxxrt::err::kInval);
        const u32 length = cxxrt::min(kapi_sg_length(caller), data_length - covered);
        set(i, kapi_sg_virt(caller), length);
        covered += length;
        caller = kapi_sg_next(caller);
    }
    if (covered != data_length)
        return Error(cxxrt::err::kInval);
    return {};
}

Result<void> ScatterList::copy_into(scatterlist* caller, u32 count, cxxrt::ConstByteSpan from)
{
    size_t copied = 0;
    for (u32 i = 0; i < count && copied < from.size() && caller; ++i) {
        const size_t length = cxxrt::min(size_t(kapi_sg_length(caller)), from.size() - copied);
        cxxrt::copy_bytes(kapi_sg_virt(caller), from.data() + copied, length);
        copied += length;
        caller = kapi_sg_next(caller);
    }
    if (copied != from.size())
        return Error(cxxrt::err::kInval);
    return {};
}

Result<int> ScatterList::map(Device device, DmaDirection direction)
{
    if (dma_nents_ || !device)
        return Error(cxxrt::err::kInval);
    int mapped = kapi_ib_dma_map_sg(device.raw(), raw(), int(nents_), int(direction));
    if (mapped <= 0)
        return Error(cxxrt::err::kNoMem);
    device_ = device;
    direction_ = direction;
    dma_nents_ = mapped;
    return mapped;
}

void ScatterList::unmap()
{
    if (!dma_nents_)
        return;
    // Unmap takes the entry count given to map, not the DMA segment count.
    kapi_ib_dma_unmap_sg(device_.raw(), raw(), int(nents_), int(direction_));
    dma_nents_ = 0;
}

Result<UniquePtr<MemoryRegion>> MemoryRegion::create(Gfp gfp, RefPtr<ProtectionDomain> pd, u32 max_pages)
{
    if (!pd || max_pages == 0)
        return Error(cxxrt::err::kInval);
    ib_pd* pd_raw = pd->raw();
    auto mr = CXXRT_TRY(cxxrt::make_unique<MemoryRegion>(gfp, Private{}, cxxrt::move(pd), max_pages));
    int rc = 0;
    mr->mr_ = kapi_ib_alloc_mr(pd_raw, max_pages, &rc);
    if (!mr->mr_)
        return Error::from_errno(rc);
    return mr;
}

MemoryRegion::~MemoryRegion()
{
    if (mr_)
        (void)kapi_ib_dereg_mr(mr_);
}

Result<void> MemoryRegion::map(const DmaBuffer& buffer, size_t offset, size_t length)
{
    if (length == 0 || offset > buffer.size() || length > buffer.size() - offset)
        return Error(cxxrt::err::kInval);
    kapi_sg_init_one_mapped(one_sg(), buffer.data() + offset, u32(length), buffer.dma_addr() + offset);
    int mapped = kapi_ib_map_mr_sg(mr_, one_sg(), 1, 0, kPageSize);
    if (mapped < 0)
        return Error::from_errno(mapped);
    return mapped == 1 ? Result<void>() : Result<void>(Error(cxxrt::err::kInval));
}

Result<int> MemoryRegion::map_sg(ScatterList& list, u32 first_offset, u32 page_size)
{
    if (list.dma_nents() <= 0)
        return Error(cxxrt::err::kInval);
    int mapped = kapi_ib_map_mr_sg(mr_, list.raw(), list.dma_nents(), first_offset, page_size);
    if (mapped < 0)
        return Error::from_errno(mapped);
    if (mapped == 0)
        return Error(cxxrt::err::kInval);
    return mapped;
}

}  // namespace kernel::ib
