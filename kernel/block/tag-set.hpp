// A blk-mq tag set (struct blk_mq_tag_set) and the layout of its requests'
// driver data (the PDU): the driver's `Pdu`, then a scatterlist table of
// the entries asked for, aligned for the kernel's struct scatterlist. The
// layout is decided here only: the kernel is told the whole size, and the
// driver asks the tag set for a PDU's table.
//
// Owning: create() allocates the requests (the init_request upcalls run
// inside it, and may already ask for tables); the destructor frees them,
// only after the disks of the set are gone (Disk::remove and Disk::reset).
// Process context.
#pragma once

#include <cxxrt/native_owner.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/types.hpp>
#include <cxxrt/utility.hpp>

#include "kernel/block/kapi-blk.h"

namespace kernel::block {

using namespace cxxrt::integers;

struct TagSetShape {
    u32 hardware_queues;  // all of them, polled ones included
    u32 maps;             // 1, or kQueueTypes with polled queues (laid out by the driver's map_queues)
    u32 depth;
    u32 scatterlist_entries;  // the table behind each PDU
    // Queues start without an I/O scheduler even with a single hardware
    // queue (the kernel's default there is mq-deadline), for a device whose
    // requests are scheduled again further down (a remote or stacked disk).
    bool no_scheduler_by_default = false;
};

template <class Pdu>
class TagSet : cxxrt::Pinned {
public:
    // With the driver's `ops` (its C boundary's table); `driver_data`
    // reaches their init_request and map_queues.
    [[nodiscard]] cxxrt::Result<void> create(const TagSetShape& shape, const blk_mq_ops& ops, void* driver_data)
    {
        const size_t align = kapi_alignof_scatterlist();
        table_offset_ = (sizeof(Pdu) + align - 1) & ~(align - 1);
        table_entries_ = shape.scatterlist_entries;
        const size_t pdu_size = table_offset_ + size_t(table_entries_) * kapi_sizeof_scatterlist();
        blk_mq_tag_set* set =
            kapi_tag_set_alloc(&ops, shape.hardware_queues, shape.maps, shape.depth, u32(pdu_size), driver_data,
                               shape.no_scheduler_by_default ? 1 : 0);
        if (!set)
            return cxxrt::Error(cxxrt::err::kNoMem);
        if (int rc = kapi_tag_set_init(set)) {
            kapi_tag_set_free(set);
            return cxxrt::Error::from_errno(rc);
        }
        set_ = Allocated(set);
        return {};
    }

    explicit operator bool() const { return bool(set_); }
    blk_mq_tag_set* handle() const { return set_.get(); }

    // The scatterlist table behind `pdu`, initialised (sg_init_table): for
    // the init_request upcall, once per request. Any context.
    scatterlist* init_table(Pdu& pdu) const
    {
        scatterlist* table = table_of(pdu);
        kapi_block_sg_init_table(table, table_entries_);
        return table;
    }
    scatterlist* table_of(Pdu& pdu) const
    {
        return reinterpret_cast<scatterlist*>(reinterpret_cast<u8*>(&pdu) + table_offset_);
    }

private:
    using Allocated = cxxrt::Owned<blk_mq_tag_set, kapi_tag_set_destroy>;
    Allocated set_;
    size_t table_offset_ = 0;
    u32 table_entries_ = 0;
};

}  // namespace kernel::block
