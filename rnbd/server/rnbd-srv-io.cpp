// rnbd-server: the RTRS IO callback and the work it defers.
//
// RTRS calls on_rtrs_io() in softirq for every message of a session.
// SESS_INFO is answered at once; OPEN and CLOSE become a ControlOp on the
// control workqueue; an IO is validated here (message, device id, range,
// alignment, direction, priority, read-only mapping: policy::check_io) and
// then takes its chunk's IoWork to the IO workqueue, which hands it to the
// mapping's backend (rnbd-srv-backend.hpp: a bio, or the VFS). Every path
// answers the RTRS request exactly once.
#include <cxxrt/log.hpp>
#include <cxxrt/new.hpp>
#include "rnbd/trace/rnbd-events.hpp"
#include "rnbd/server/rnbd-srv-upcalls.h"
#include "rnbd/core/rnbd-srv-policy.hpp"
#include "rnbd/server/rnbd-srv.hpp"
#include <cxxrt/enforce.hpp>

namespace rnbd::srv {

using namespace cxxrt;

namespace {

using wire::IoOp;
using wire::MsgType;

// OPEN or CLOSE, carried to process context with a copy of the message.
class ControlOp : Pinned {
public:
    ControlOp(Session& session, rtrs_server_io* io, MsgType type, void* data, u32 data_length,
              ConstByteSpan header)
        : work_(lock_class<"rnbd::srv::ControlOp::work_">, Callback::to<&ControlOp::run>(this)),
          session_(session), io_(io), type_(type), data_(data), data_length_(data_length),
          header_length_(u32(min<size_t>(header.size(), sizeof(header_))))
    {
        copy_bytes(header_, header.data(), header_length_);
    }

    void queue() { work_.queue_on(server().control_wq()); }

private:
    void run()
    {
        rtrs_server_io* io = io_;
        const int error = process().to_errno();
        destroy(this);
        rtrs_server_respond(io, error);
    }

    Result<void> process()
    {
        const ConstByteSpan header(header_, header_length_);
        if (type_ == MsgType::kClose) {
            const u32 id = CXXRT_TRY(codec::decode_close(header));
            ktrace::rnbd_srv::process_msg_close(session_.name(), id);
            session_.close(id);
            return {};
        }
        auto open = codec::decode_open(header);
        if (open.is_error()) {
            log::err_ratelimited("session %s: invalid OPEN message (bad access mode, name or '..'): %d",
                                 session_.name(), open.to_errno());
            return open.error();
        }
        ktrace::rnbd_srv::process_msg_open(session_.name(), open.value().dev_name.data(), u8(open.value().access_mode));
        codec::OpenRspFields rsp;
        CXXRT_TRY(session_.open(open.value(), rsp));
        CXXRT_TRY(codec::build_open_rsp(ByteSpan(static_cast<u8*>(data_), data_length_), rsp));
        return {};
    }

    Work work_;
    Session& session_;
    rtrs_server_io* io_;
    MsgType type_;
    void* data_;
    u32 data_length_;
    u32 header_length_;
    alignas(8) u8 header_[sizeof(wire::OpenMsg)];
};

}  // namespace

// ---- IoWork ----

IoWork::IoWork() : work_(lock_class<"rnbd::srv::IoWork::work_">, Callback::to<&IoWork::run>(this)) {}

void IoWork::start(Mapping& dev, rtrs_server_io* io, void* data, u32 data_room, const codec::IoFields& fields)
{
    dev_ = &dev;
    io_ = io;
    data_ = data;
    data_room_ = data_room;
    fields_ = fields;
    if (dev.backing().backend().kind() == Backend::Kind::kFile) {
        work_.queue_on(server().file_io_wq());
        return;
    }
    server().queue_block_io(*this);
}

void IoWork::finish(int error)
{
    // The answer frees the chunk, and with it this object: what is needed
    // after it is read before.
    rtrs_server_io* io = io_;
    Mapping& dev = *dev_;
    rtrs_server_respond(io, error);
    dev.put();
}

void IoWork::run() { dev_->backing().backend().submit(*this); }

// ---- BlockIoQueue ----

BlockIoQueue::BlockIoQueue() : work_(lock_class<"rnbd::srv::BlockIoQueue::work_">, Callback::to<&BlockIoQueue::run>(this))
{
}

void BlockIoQueue::add(IoWork& work, unsigned int cpu, Workqueue& wq)
{
    IoWork* head = waiting_.load();
    do {
        work.next_queued_ = head;
    } while (!waiting_.compare_exchange(head, &work));
    // A non-empty list has its run coming: queued by whoever found it
    // empty, and not yet taken (run() takes the whole list at once).
    if (!head)
        work_.queue_on_cpu(cpu, &wq);
}

void BlockIoQueue::run()
{
    IoWork* newest_first = waiting_.exchange(nullptr);
    IoWork* oldest_first = nullptr;
    while (newest_first) {
        IoWork* next = newest_first->next_queued_;
        newest_first->next_queued_ = oldest_first;
        oldest_first = newest_first;
        newest_first = next;
    }
    // Each IoWork may be finished, and taken by its chunk's next IO, once
    // run: its link is read before.
    while (oldest_first) {
        IoWork* next = oldest_first->next_queued_;
        oldest_first->run();
        oldest_first = next;
    }
}

namespace {

// The events print our wire values with Linux's names (rnbd/trace/kapi-rnbd-trace.h).
static_assert(u32(IoOp::kRead) == RNBD_TRACE_OP_READ && u32(IoOp::kWrite) == RNBD_TRACE_OP_WRITE &&
              u32(IoOp::kFlush) == RNBD_TRACE_OP_FLUSH && u32(IoOp::kDiscard) == RNBD_TRACE_OP_DISCARD &&
              u32(IoOp::kSecureErase) == RNBD_TRACE_OP_SECURE_ERASE && u32(wire::kIoFlagSync) == u32(RNBD_TRACE_F_SYNC) &&
              u32(wire::kIoFlagFua) == u32(RNBD_TRACE_F_FUA));
static_assert(u8(wire::AccessMode::kReadOnly) == RNBD_TRACE_ACCESS_RO &&
              u8(wire::AccessMode::kReadWrite) == RNBD_TRACE_ACCESS_RW &&
              u8(wire::AccessMode::kMigration) == RNBD_TRACE_ACCESS_MIGRATION);

// The rnbd_srv event process_rdma (Linux fires it for every IO message);
// out of line and cold: the IO path only tests the event's on-word.
[[gnu::cold, gnu::noinline]] void trace_io(Session& session, rtrs_direction direction, const codec::IoFields& f,
                                           u32 data_length, size_t header_length)
{
    using ktrace::rnbd_srv::Direction;
    ktrace::rnbd_srv::process_rdma(session.name(), direction == RTRS_READ ? Direction::kRead : Direction::kWrite,
                                   session.version(), f.device_id, f.sector, wire::make_rw(f.op, f.flags), f.bi_size,
                                   f.prio, data_length, header_length);
}

constexpr size_t kLargestMessage = max(max(sizeof(wire::OpenMsg), sizeof(wire::IoMsg)),
                                        max(sizeof(wire::SessInfoMsg), sizeof(wire::CloseMsg)));

// `header` is our copy of the user header (on_rtrs_io), `header_length`
// what the client sent (for the trace).
Result<void> handle_io(Session& session, rtrs_server_io* io, rtrs_direction direction, void* data, u32 data_length,
                       ConstByteSpan header, u32 header_length)
{
    codec::IoLimits limits;
    limits.data_len = data_length;
    // Never more than the RTRS chunk holds, whatever RTRS hands us: a data
    // length beyond it would size a bio or a read past the chunk.
    limits.max_io_size = session.io_room();
    limits.device_sectors = 0;  // checked below, where the device is known (it may have 0 sectors)
    limits.session_ver = session.version();
    auto decoded = codec::decode_io(header, limits);
    if (decoded.is_error()) {
        log::err_ratelimited("session %s: invalid IO message: %d", session.name(), decoded.to_errno());
        return decoded.error();
    }
    codec::IoFields f = decoded.value();
    if (ktrace::rnbd_srv::process_rdma_enabled()) [[unlikely]]
        trace_io(session, direction, f, data_length, header_length);
    // RTRS names a chunk below the session's queue depth; checked all the same
    // before a device reference is taken.
    IoWork* work = session.io_work(rtrs_server_io_chunk(io));
    if (!work)
        return Error(err::kInval);
    Mapping* dev = session.get_dev(f.device_id);
    if (!dev) {
        log::err_ratelimited("session %s: IO for unknown device id %u", session.name(), f.device_id);
        return Error(err::kNotConn);
    }
    policy::IoTarget target;
    target.sectors = dev->backing().sectors();
    target.logical_block_size = dev->backing().logical_block_size();
    target.read_only = dev->read_only();
    target.max_write_zeroes_sectors = dev->backing().max_write_zeroes_sectors();
    const int error = policy::check_io(f, direction == RTRS_READ, target);
    if (error) {
        log::err_ratelimited("session %s: IO (op %u, sector %llu, %u bytes, prio %#x) refused on device id %u: %d",
                             session.name(), u32(f.op), (unsigned long long)f.sector, f.bi_size, unsigned(f.prio),
                             f.device_id, error);
        dev->put();
        return Error::from_errno(error);
    }
    f.prio = policy::effective_ioprio(f.prio, rnbd_srv_allow_realtime_ioprio() != 0);
    work->start(*dev, io, data, session.io_room(), f);
    return {};
}

}  // namespace

int on_rtrs_io(void* session_context, rtrs_server_io* io, rtrs_direction direction, void* data,
               unsigned int data_length, const void* header_bytes, unsigned int header_length)
{
    Session* session = static_cast<Session*>(session_context);
    if (!session)
        return -err::kNotConn;
    // The header lies in the chunk, which the client can still write: it is
    // fetched once, and every decoder below reads only this copy. The
    // largest message is OPEN; longer headers (a later protocol minor may
    // append fields) are decoded by their known prefix.
    alignas(8) u8 copy[kLargestMessage];
    const size_t copied = min<size_t>(header_length, sizeof(copy));
    fetch_once(copy, header_bytes, copied);
    const ConstByteSpan header(copy, copied);
    auto type = codec::decode_type(header);
    if (type.is_error()) {
        log::err_ratelimited("session %s: unknown message", session->name());
        return -err::kInval;
    }
    switch (type.value()) {
    case MsgType::kIo:
        return handle_io(*session, io, direction, data, data_length, header, header_length).to_errno();
    case MsgType::kSessInfo: {
        auto info = codec::decode_sess_info(header);
        if (info.is_error())
            return info.to_errno();
        if (direction != RTRS_READ)
            return -err::kInval;
        session->set_version(info.value().negotiated);
        ktrace::rnbd_srv::process_msg_sess_info(session->name(), info.value().negotiated, info.value().ver,
                                                wire::kVersionMajor);
        auto built = codec::build_sess_info_rsp(ByteSpan(static_cast<u8*>(data), data_length),
                                                info.value().negotiated);
        if (built.is_error())
            return built.to_errno();
        rtrs_server_respond(io, 0);
        return 0;
    }
    case MsgType::kOpen:
    case MsgType::kClose: {
        if (type.value() == MsgType::kOpen && (direction != RTRS_READ || data_length < sizeof(wire::OpenRspMsg)))
            return -err::kInval;
        ControlOp* op = allocate<ControlOp>(Gfp::atomic(), *session, io, type.value(), data, data_length, header);
        if (!op)
            return -err::kNoMem;
        op->queue();
        return 0;
    }
    default:
        log::err_ratelimited("session %s: unexpected message type %u", session->name(), unsigned(type.value()));
        return -err::kInval;
    }
}

}  // namespace rnbd::srv
