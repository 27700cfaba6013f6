// The hardware queue types of a tag set and, in its map_queues upcall, the
// layout of each type's queues over the CPUs.
#pragma once

#include <cxxrt/types.hpp>

#include "kernel/block/kapi-blk.h"

namespace kernel::block {

using namespace cxxrt::integers;

// enum hctx_type (checked against the kernel's in kernel/block/kapi-blk.c).
enum class QueueType : u32 {
    kDefault = KAPI_HCTX_DEFAULT,
    kRead = KAPI_HCTX_READ,
    kPoll = KAPI_HCTX_POLL,
};
// Maps of a tag set that has polled queues (one map per type); without: 1.
inline constexpr u32 kQueueTypes = KAPI_HCTX_TYPES;

// A view of the tag set handed to the map_queues upcall (process context).
class QueueMaps {
public:
    explicit QueueMaps(blk_mq_tag_set* set) : set_(set) {}
    // Map `type` is `count` hardware queues from `first`, spread over the CPUs.
    void map(QueueType type, u32 count, u32 first) const
    {
        kapi_map_queue_type(set_, u32(type), count, first);
    }

private:
    blk_mq_tag_set* set_;
};

}  // namespace kernel::block
