// A view of one blk-mq hardware queue (struct blk_mq_hw_ctx), as queue_rq
// sees it: its type, its number in the tag set, a delayed re-run.
#pragma once

#include <cxxrt/types.hpp>

#include "kernel/block/queue-maps.hpp"
#include "kernel/block/kapi-blk.h"

namespace kernel::block {

class HardwareQueue {
public:
    explicit HardwareQueue(blk_mq_hw_ctx* handle) : handle_(handle) {}

    // Any context.
    QueueType type() const { return QueueType(kapi_hctx_type(handle_)); }
    // The queue's index in its tag set (polled queues after the default ones).
    u32 number() const { return kapi_hctx_queue_num(handle_); }
    // Runs the queue again after `msecs` (blk_mq_delay_run_hw_queue): a
    // driver that answered kResource/kDeviceResource with nothing in flight.
    void delay_run(u32 msecs) const { kapi_hctx_delay_run(handle_, msecs); }

private:
    blk_mq_hw_ctx* handle_;
};

}  // namespace kernel::block
