// rtrs-client: one connection of a path (RDMA-CM id, CQ, QP), its connect
// handshake (CON_REQ / CON_RSP) and its receive side.
#include <cxxrt/log.hpp>
#include "rtrs/client/rtrs-clt.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::clt {

namespace {
// rdma_connect retry counts: upstream's values (7 = retry forever for RNR).
constexpr u8 kRetryCount = 7;
constexpr u8 kRnrRetryCount = 7;
}  // namespace

ClientConnection::~ClientConnection()
{
    stop_events();
    // The QP, CQ and cm_id go first (Connection's destructor), so no
    // completion can reach the receive slots while they are freed.
    connection_.reset();
    receive_slots_.reset();
    receive_buffer_.reset();
}

Result<void> ClientConnection::connect(const ib::SockAddr* source, const ib::SockAddr& destination)
{
    auto id = CXXRT_TRY(ib::CmId::create(Gfp::kernel(), *this));
    connection_ = CXXRT_TRY(ib::Connection::create(Gfp::kernel(), cxxrt::move(id)));
    auto resolving = connection_->cm_id().resolve_addr(source, destination, kResolveTimeoutMs);
    if (!resolving) {
        cxxrt::log::err("connection %u: rdma_resolve_addr failed (%d)", cid_, resolving.to_errno());
        return resolving.error();
    }
    // The rest of the handshake runs in on_cm_event.
    if (!connect_done_.wait_timeout(kConnectTimeoutMs)) {
        cxxrt::log::err("connection %u: no answer within %u ms", cid_, kConnectTimeoutMs);
        return Error(cxxrt::err::kTimedOut);
    }
    if (connect_result_)
        return Error::from_errno(connect_result_);
    return {};
}

void ClientConnection::finish_connect(int result)
{
    connect_result_ = result;
    connect_done_.complete();
}

void ClientConnection::handle_established(const ib::CmEvent& event)
{
    auto response = codec::decode_conn_rsp(event.private_data);
    if (!response) {
        cxxrt::log::err("connection %u: bad CON_RSP (%d)", cid_, response.to_errno());
        finish_connect(response.to_errno());
        return;
    }
    response_ = response.value();
    established_.store(true);
    finish_connect(0);
}

void ClientConnection::stop_events()
{
    cxxrt::MutexGuard guard(events_);
    events_stopped_ = true;
}

void ClientConnection::on_cm_event(ib::CmId& id, const ib::CmEvent& event)
{
    using T = ib::CmEventType;
    switch (event.type) {
    case T::kDisconnected:
    case T::kTimewaitExit:
    case T::kDeviceRemoval:
    case T::kAddrChange:
    case T::kConnectError:
    case T::kUnreachable:
    case T::kRejected:
        // The connection is over for the CM: teardown may destroy it now
        // (also after stop_events(), when teardown waits for this).
        disconnected_.complete_all();
        break;
    default:
        break;
    }
    cxxrt::MutexGuard guard(events_);
    if (events_stopped_)
        return;
    switch (event.type) {
    case T::kAddrResolved:
        on_address_resolved(id);
        return;
    case T::kRouteResolved:
        on_route_resolved(id);
        return;
    case T::kEstablished:
        cm_established_.store(true);
        handle_established(event);
        return;
    case T::kRejected:
        on_rejected(id, event);
        return;
    case T::kAddrError:
    case T::kRouteError:
    case T::kUnreachable:
    case T::kConnectError:
        cxxrt::log::err("connection %u: %s (%d)", cid_, event.name(), event.status);
        // After the handshake the CM has given the connection up (seen on a
        // cable pull): the path must fail and reconnect, not wait forever.
        if (established_.load())
            path_.connection_lost(cid_, event.name());
        else
            finish_connect(-cxxrt::err::kHostUnreach);
        return;
    case T::kDisconnected:
    case T::kDeviceRemoval:
    case T::kAddrChange:
        if (established_.load())
            path_.connection_lost(cid_, event.name());
        else
            finish_connect(-cxxrt::err::kConnReset);
        return;
    default:
        return;  // TIMEWAIT_EXIT and the like need nothing
    }
}

// kAddrResolved: the queues on the resolved device, then the route.
void ClientConnection::on_address_resolved(ib::CmId& id)
{
    auto pd = path_.protection_domain(id.device());
    if (!pd) {
        finish_connect(pd.to_errno());
        return;
    }
    auto queues = connection_->create_queues(Gfp::kernel(), pd.release_value(),
                                              path_.connection_config(cid_, id.device()));
    if (!queues) {
        cxxrt::log::err("connection %u: cannot create CQ/QP (%d)", cid_, queues.to_errno());
        finish_connect(queues.to_errno());
        return;
    }
    if (u64 timeout = g_faults.ack_timeout.get()) {
        auto set = id.set_ack_timeout(u8(cxxrt::min<u64>(timeout, 31)));
        if (!set) {
            finish_connect(set.to_errno());
            return;
        }
    }
    // AF_IB (gid:) on a RoCE port fails here at once: the CM finds no
    // netdev for the route (-ENODEV, cma_resolve_iboe_route).
    auto route = id.resolve_route(kResolveTimeoutMs);
    if (!route) {
        cxxrt::log::err("connection %u: rdma_resolve_route failed (%d)", cid_, route.to_errno());
        finish_connect(route.to_errno());
    }
}

// kRouteResolved: the CON_REQ goes out.
void ClientConnection::on_route_resolved(ib::CmId& id)
{
    u8 request[sizeof(wire::ConnReq)];
    auto built = path_.build_conn_req(cid_, cxxrt::ByteSpan(request));
    if (!built) {
        finish_connect(built.to_errno());
        return;
    }
    auto sent = id.connect_from_handler(cxxrt::ConstByteSpan(request, built.value()), kRetryCount,
                                        kRnrRetryCount);
    if (!sent) {
        cxxrt::log::err("connection %u: rdma_connect failed (%d)", cid_, sent.to_errno());
        finish_connect(sent.to_errno());
    }
}

// kRejected: the connect fails with the server's reason.
void ClientConnection::on_rejected(ib::CmId& id, const ib::CmEvent& event)
{
    // The server's errno reaches the opener (and userspace): only
    // from the documented set (rtrs-remote-errno.hpp).
    auto reason = codec::decode_conn_reject(event.private_data);
    int error = reason ? remote_errno(reason.value()) : -cxxrt::err::kConnReset;
    cxxrt::log::err("connection %u rejected: %s, errno %d", cid_,
                    id.reject_reason_text(event.status), error);
    finish_connect(error);
}

Result<void> ClientConnection::post_receives(u32 count)
{
    ib::Device device = connection_->device();
    receive_buffer_ = CXXRT_TRY(ib::DmaBuffer::create(Gfp::kernel(), device, cxxrt::size_t(count) * kReceiveSlotSize,
                                                      ib::DmaDirection::kFromDevice));
    receive_slots_ = CXXRT_TRY(cxxrt::Array<ReceiveSlot>::create(
        Gfp::kernel(), count, [this](u32 index) { return ReceiveSlot(*this, index); }));
    const u32 lkey = connection_->pd().local_dma_lkey();
    for (u32 i = 0; i < count; ++i) {
        ib::Sge sge = receive_buffer_->sge(lkey, cxxrt::size_t(i) * kReceiveSlotSize, kReceiveSlotSize);
        CXXRT_TRY(connection_->qp().post_recv(receive_slots_[i].done_, cxxrt::Span<const ib::Sge>(&sge, 1)));
    }
    return {};
}

void ClientConnection::disconnect_and_drain()
{
    stop_events();
    if (!connection_)
        return;
    (void)connection_->cm_id().disconnect();
    if (connection_->has_queues())
        connection_->drain();
}

void ClientConnection::release_queues()
{
    if (connection_)
        connection_->destroy_queues();
    receive_slots_.reset();
    receive_buffer_.reset();
}

bool ClientConnection::wait_disconnected(unsigned long& budget_ms)
{
    if (!connection_ || !cm_established_.load())
        return true;
    if (budget_ms == 0)
        return disconnected_.done();
    const unsigned long left = disconnected_.wait_timeout_left(budget_ms);
    if (left == 0) {
        budget_ms = 0;
        return false;
    }
    budget_ms = left;  // complete_all: the completion stays done
    return true;
}

Result<void> ClientConnection::post_heartbeat(u32 imm)
{
    cxxrt::IrqSpinGuard guard(post_lock_);
    return connection_->qp().post_write_imm(&send_done_, {}, ib::RemoteBuffer{}, imm, ib::kSignaled);
}

int ClientConnection::poll()
{
    // Two pollers of one queue (two io_uring rings, say) would run the
    // handlers of one connection side by side, which softirq never does.
    if (polling_.load(cxxrt::MemoryOrder::kRelaxed) || polling_.exchange(true))
        return 0;
    const int reaped = connection_->cq().poll_direct(kPollBudget);
    polling_.store(false);
    return reaped;
}

void ReceiveSlot::on_done(const ib::WorkCompletion& wc) { connection_.on_receive(*this, wc); }

void ClientConnection::on_receive(ReceiveSlot& slot, const ib::WorkCompletion& wc)
{
    if (!wc.ok()) {
        if (!wc.flushed())
            cxxrt::log::err_ratelimited("connection %u: receive failed: %s", cid_, wc.status_text());
        // A flush while connected means the QP went to the error state
        // under us (teardown leaves the connected state before it drains).
        path_.fail(wc.flushed() ? "receive flushed" : "receive error");
        return;
    }
    path_.heartbeat().saw_traffic();
    ReceiveEvent event;
    event.send = wc.opcode == ib::WorkCompletion::kRecv;
    event.has_imm = wc.has_imm();
    event.imm = event.has_imm ? wc.imm() : 0;
    event.with_invalidate = wc.has_invalidate();
    event.invalidated_rkey = event.with_invalidate ? wc.invalidate_rkey : 0;
    event.byte_len = wc.byte_len;
    cxxrt::ConstByteSpan payload;
    if (event.send && event.has_imm) {
        // An RKEY_RSP (always_invalidate): the only SEND with data.
        receive_buffer_->sync_for_cpu();
        payload = receive_buffer_->bytes().slice(cxxrt::size_t(slot.index_) * kReceiveSlotSize,
                                                 cxxrt::min<u32>(wc.byte_len, kReceiveSlotSize));
    }
    path_.on_receive(cid_, event, payload);
    // The slot is re-armed whatever it carried: a violation fails the path,
    // whose teardown drains it.
    const u32 lkey = connection_->pd().local_dma_lkey();
    ib::Sge sge = receive_buffer_->sge(lkey, cxxrt::size_t(slot.index_) * kReceiveSlotSize, kReceiveSlotSize);
    auto posted = connection_->qp().post_recv(slot.done_, cxxrt::Span<const ib::Sge>(&sge, 1));
    if (!posted)
        path_.fail("cannot re-post a receive");
}

void ClientConnection::on_send_done(const ib::WorkCompletion& wc)
{
    if (wc.ok())
        return;
    if (!wc.flushed())
        cxxrt::log::err_ratelimited("connection %u: send failed: %s", cid_, wc.status_text());
    path_.fail(wc.flushed() ? "send flushed" : "send error");
}

}  // namespace rtrs::clt
