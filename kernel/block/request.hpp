// A view of one blk-mq request (struct request): what it asks for, and the
// steps of its life as a driver takes it (start, map its data, complete,
// end, or give it back to the queue). Any context unless noted.
#pragma once

#include <cxxrt/types.hpp>

#include "kernel/block/kapi-blk.h"
#include "kernel/block/op.hpp"

namespace kernel::block {

using namespace cxxrt::integers;

struct RequestInfo {
    Op op;  // the kernel's req_op(), possibly one not named in Op
    bool sync;          // op_is_sync()
    bool flush_or_fua;  // op_is_flush(): PREFLUSH or FUA (or a flush op)
    u32 bytes;
    u64 sector;
    u16 prio;
};

class Request {
public:
    // Trivial, so a view can sit in a blk-mq PDU (memory the block layer
    // owns and never constructs).
    Request() = default;
    explicit Request(::request* handle) : handle_(handle) {}

    RequestInfo info() const
    {
        struct kapi_rq_info raw;
        kapi_rq_info(handle_, &raw);
        return {Op(raw.op), raw.sync != 0, raw.flush_or_fua != 0, raw.bytes, raw.sector, raw.prio};
    }
    // blk_mq_start_request: the timeout clock runs from here.
    void start() const { kapi_rq_start(handle_); }
    // The request's data into `table` (entries as the tag set made them); the entries used.
    u32 map_sg(scatterlist* table) const { return u32(kapi_rq_map_sg(handle_, table)); }
    // The queue's request timeout (sysfs queue/io_timeout), in ms.
    u32 queue_timeout_ms() const { return kapi_rq_queue_timeout_ms(handle_); }
    // blk_mq_complete_request: the tag set's complete upcall follows (softirq or here).
    void complete() const { kapi_rq_complete(handle_); }
    // blk_mq_end_request with `error` (negative errno, 0) as a block status.
    void end(int error) const { kapi_rq_end(handle_, error); }
    // Back to its queue, dispatched again when the requeue list is kicked
    // `kick_after_ms` from now.
    void requeue(u32 kick_after_ms) const
    {
        kapi_rq_requeue(handle_);
        kapi_rq_kick_requeue_list(handle_, kick_after_ms);
    }

private:
    ::request* handle_;
};

}  // namespace kernel::block
