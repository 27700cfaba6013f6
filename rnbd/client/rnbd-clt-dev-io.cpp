// rnbd-client: one mapped device's IO path — blk-mq requests onto RTRS,
// their completion, requeue, hold and timeout.
#include "rnbd/client/rnbd-clt.hpp"
#include <cxxrt/time.hpp>
#include <cxxrt/enforce.hpp>

namespace rnbd::clt {

namespace {

constexpr u32 kRequeueDelayMs = 10;
// Held IO looks at the device again this often (and at once on a kick).
constexpr u32 kHoldPollMs = 100;

IoOwner owner_load(const IoRequest& io) { return io.owner.load(cxxrt::MemoryOrder::kAcquire); }
bool owner_change(IoRequest& io, IoOwner from, IoOwner to)
{
    return io.owner.compare_exchange(from, to, cxxrt::MemoryOrder::kAcqRel, cxxrt::MemoryOrder::kAcquire);
}

// Errors after which the request is queued again rather than failed: no
// path carried it (ENOTCONN, the transport's own verdict, never a server's;
// bounded by the session's io_hold_timeout_ms), or no room for it right
// now, here or on the server (EAGAIN, ENOMEM; bounded by the request
// timeout, see IoRequest::retry_deadline_ns).
bool retry_error(int error)
{
    return error == -err::kNotConn || error == -err::kAgain || error == -err::kNoMem;
}

// A refusal for lack of room may be retried: until one request timeout
// after the first (each requeue starts the block layer's timer anew, so
// without this a server answering every IO with ENOMEM would keep the
// request, and its caller, forever).
bool within_retry_deadline(IoRequest& io)
{
    const u64 now = cxxrt::monotonic_ns();
    if (io.retry_deadline_ns == 0) {
        const u32 timeout_ms = cxxrt::max<u32>(io.rq.queue_timeout_ms(), kRequeueDelayMs);
        io.retry_deadline_ns = now + u64(timeout_ms) * 1000000;
        return true;
    }
    return now < io.retry_deadline_ns;
}

}  // namespace

// ---- IO path ----------------------------------------------------------------------

// The device cannot carry IO now (closed, or not re-opened since the last
// outage): held while the session is within its io_hold_timeout_ms, else EIO.
kernel::block::Status Device::hold_or_fail(kernel::block::HardwareQueue queue)
{
    if (session_->link_mode() != Session::kHolding)
        return kernel::block::Status::kIoError;
    queue.delay_run(kHoldPollMs);
    return kernel::block::Status::kDeviceResource;
}

void Device::kick()
{
    // kInit: the disk may not exist yet (it is made after the device joins
    // the session); its state is set only once the disk is there.
    if (state() != DeviceState::kInit && disk_)
        disk_.run_queues();
}

kernel::block::Status Device::queue_rq(kernel::block::HardwareQueue queue, kernel::block::Request rq, IoRequest& io)
{
    const kernel::block::Status status = dispatch(queue, rq, io);
    if (status == kernel::block::Status::kIoError || status == kernel::block::Status::kNotSupported) {
        // The block layer ends it: the next request of this tag starts afresh.
        io.timeouts = 0;
        io.retry_deadline_ns = 0;
    }
    return status;
}

kernel::block::Status Device::dispatch(kernel::block::HardwareQueue queue, kernel::block::Request rq, IoRequest& io)
{
    const DeviceState current = state();
    if (current == DeviceState::kUnmapping || current == DeviceState::kInit)
        return kernel::block::Status::kIoError;
    if (current != DeviceState::kOpen || open_epoch_.load(cxxrt::MemoryOrder::kRelaxed) != session_->epoch())
        return hold_or_fail(queue);
    const kernel::block::RequestInfo info = rq.info();
    wire::IoOp op;
    switch (info.op) {
    case kernel::block::Op::kRead: op = wire::IoOp::kRead; break;
    case kernel::block::Op::kWrite: op = wire::IoOp::kWrite; break;
    case kernel::block::Op::kFlush: op = wire::IoOp::kFlush; break;
    case kernel::block::Op::kDiscard: op = wire::IoOp::kDiscard; break;
    case kernel::block::Op::kSecureErase: op = wire::IoOp::kSecureErase; break;
    case kernel::block::Op::kWriteZeroes: op = wire::IoOp::kWriteZeroes; break;
    default: return kernel::block::Status::kNotSupported;
    }
    rtrs_client_session* rtrs = session_->rtrs();
    rtrs_client_permit* permit = rtrs_client_get_permit(rtrs, RTRS_NO_WAIT);
    if (!permit) {
        // Every chunk of the session is busy: blk-mq retries, and we kick
        // the queue in case no request of this queue is in flight.
        queue.delay_run(kRequeueDelayMs);
        return kernel::block::Status::kResource;
    }
    codec::IoFields fields;
    fields.device_id = remote_id_.load(cxxrt::MemoryOrder::kRelaxed);
    fields.sector = info.sector;
    fields.op = op;
    fields.flags = (info.sync ? u32(wire::kIoFlagSync) : 0u) | (info.flush_or_fua ? u32(wire::kIoFlagFua) : 0u);
    fields.bi_size = info.bytes;
    fields.prio = info.prio;
    auto built = codec::build_io(ByteSpan(static_cast<u8*>(rtrs_client_permit_header(permit)), kUserHeaderSize),
                                 fields);
    if (!built) {
        rtrs_client_put_permit(rtrs, permit);
        return kernel::block::Status::kIoError;
    }
    io.device = this;
    io.rq = rq;
    io.permit = permit;
    io.error = 0;
    rq.start();
    const bool data = op == wire::IoOp::kRead || op == wire::IoOp::kWrite;
    const u32 count = data ? rq.map_sg(io.sg) : 0;
    const rtrs_direction direction = op == wire::IoOp::kRead ? RTRS_READ : RTRS_WRITE;
    io.owner.store(IoOwner::kTransport, cxxrt::MemoryOrder::kRelease);
    int rc = 0;
    if (queue.type() == kernel::block::QueueType::kPoll)
        rc = rtrs_client_request_polled(rtrs, permit, queue.number() - session_->default_queues(), direction,
                                        kIoMessageSize, io.sg, count, data ? info.bytes : 0, &Device::io_done, &io);
    else
        rc = rtrs_client_request(rtrs, permit, direction, kIoMessageSize, io.sg, count, data ? info.bytes : 0,
                                 &Device::io_done, &io);
    // Refused at once (no path, no room, ...): completed like an answer,
    // so complete_rq decides between a retry and an error in one place.
    if (rc != 0)
        io_done(&io, rc);
    return kernel::block::Status::kOk;
}

int Device::poll(u32 queue_num)
{
    const u32 default_queues = session_->default_queues();
    if (queue_num < default_queues)
        return 0;
    const int reaped = rtrs_client_poll(session_->rtrs(), queue_num - default_queues);
    return reaped > 0 ? reaped : 0;
}

// KAPI: the transport's completion, softirq or process context, no sleep.
void Device::io_done(void* context, int error)
{
    IoRequest& io = *static_cast<IoRequest*>(context);
    io.error = error;
    for (;;) {
        const IoOwner owner = owner_load(io);
        // The timeout handler is asking the transport about this permit:
        // it completes the request when it is done.
        if (owner == IoOwner::kTimeout) {
            if (owner_change(io, owner, IoOwner::kAnswered))
                return;
            continue;
        }
        if (owner_change(io, owner, IoOwner::kIdle))
            break;
    }
    io.device->finish_io(io);
}

void Device::finish_io(IoRequest& io)
{
    rtrs_client_put_permit(session_->rtrs(), cxxrt::exchange(io.permit, nullptr));
    io.rq.complete();
}

void Device::complete_rq(IoRequest& io)
{
    int error = io.error;
    if (retry_error(error) && state() != DeviceState::kUnmapping &&
        (error != -err::kNotConn || session_->link_mode() != Session::kFailing)) {
        if (error == -err::kNotConn || within_retry_deadline(io)) {
            // Dispatched again after a short delay; queue_rq then holds it
            // while the session has no path (and fails it once the hold ends).
            io.rq.requeue(kRequeueDelayMs);
            return;
        }
        log::err_ratelimited("%s: IO refused (%d) for longer than the request timeout (%u ms), failing it",
                             disk_name(), error, io.rq.queue_timeout_ms());
        error = -err::kIo;
    }
    if (error == -err::kTimedOut || error == -err::kNotConn)
        error = -err::kIo;  // aborted after timeouts / the hold ended
    if (error)
        log::err_ratelimited("%s: IO failed (%d)", disk_name(), io.error);
    io.timeouts = 0;
    io.retry_deadline_ns = 0;
    io.rq.end(error);
}

// The block layer's request timeout. The request's memory may still be
// written by RDMA until the transport gives it back, so it is never just
// completed here: the transport fails the path carrying it (draining that
// path's queue pairs) and gives it back: failed over the first time, with
// -ETIMEDOUT (EIO) the kTimeoutsBeforeAbort-th time. Never reset forever.
int Device::timeout(IoRequest& io)
{
    if (!owner_change(io, IoOwner::kTransport, IoOwner::kTimeout))
        return 1;  // not with the transport: being completed or re-queued
    if (io.timeouts < 255)
        ++io.timeouts;
    const bool final = io.timeouts >= kTimeoutsBeforeAbort;
    log::warn_ratelimited("%s: IO timed out (%u. time), %s", disk_name(), u32(io.timeouts),
                          final ? "aborting it" : "failing its path");
    rtrs_client_abort(session_->rtrs(), io.permit, final ? 1 : 0);
    if (owner_change(io, IoOwner::kTimeout, IoOwner::kTransport))
        return 1;
    // Answered while we asked (kAnswered): ours to complete.
    io.owner.store(IoOwner::kIdle, cxxrt::MemoryOrder::kRelease);
    finish_io(io);
    return 0;
}

}  // namespace rnbd::clt

// ---- upcalls from kapi-rnbd-clt-blk.c: blk-mq ---------------------------------------------------------

// Each converts the kernel's handles to the views of kernel/block/ at once.

using rnbd::clt::Device;
using rnbd::clt::IoRequest;
using rnbd::clt::Session;

extern "C" void rnbd_clt_cxx_init_request(void* session, void* pdu) noexcept
{
    static_cast<Session*>(session)->init_request(*static_cast<IoRequest*>(pdu));
}

extern "C" int rnbd_clt_cxx_queue_rq(void* device, blk_mq_hw_ctx* hctx, request* rq, void* pdu) noexcept
{
    return int(static_cast<Device*>(device)->queue_rq(kernel::block::HardwareQueue(hctx), kernel::block::Request(rq),
                                                      *static_cast<IoRequest*>(pdu)));
}

extern "C" void rnbd_clt_cxx_map_queues(void* session, blk_mq_tag_set* tag_set) noexcept
{
    static_cast<Session*>(session)->map_queues(kernel::block::QueueMaps(tag_set));
}

extern "C" int rnbd_clt_cxx_poll(void* device, unsigned int queue_num) noexcept
{
    return static_cast<Device*>(device)->poll(queue_num);
}

extern "C" void rnbd_clt_cxx_complete_rq(request*, void* pdu) noexcept
{
    IoRequest& io = *static_cast<IoRequest*>(pdu);
    io.device->complete_rq(io);
}

extern "C" int rnbd_clt_cxx_timeout(void* device, request*, void* pdu) noexcept
{
    return static_cast<Device*>(device)->timeout(*static_cast<IoRequest*>(pdu));
}
