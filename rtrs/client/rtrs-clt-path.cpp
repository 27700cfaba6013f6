// rtrs-client: one path of a session. Connects its connections, exchanges
// INFO_REQ/INFO_RSP, runs the heartbeat, and on any error tears itself down
// from a work item, hands its in-flight IO to another path and reconnects.
#include <cxxrt/log.hpp>
#include "common/rtrs-addr.hpp"
#include "rtrs/client/rtrs-clt-kapi.h"
#include "rtrs/client/rtrs-clt.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::clt {

namespace {

Result<ib::SockAddr> to_sockaddr(const rtrs_address& address, u16 port)
{
    kapi_rdma_addr raw{};
    raw.family = address.family;
    raw.scope_id = address.scope_id;
    raw.port = port;
    cxxrt::copy_bytes(raw.bytes, address.bytes, sizeof(raw.bytes));
    return ib::SockAddr::from(raw);
}

Address to_address(const kapi_rdma_addr& raw)
{
    Address address;
    address.family = AddressFamily(raw.family);
    cxxrt::copy_bytes(address.bytes, raw.bytes, sizeof(address.bytes));
    address.scope_id = raw.scope_id;
    return address;
}

Address to_address(const rtrs_address& raw)
{
    Address address;
    address.family = AddressFamily(raw.family);
    cxxrt::copy_bytes(address.bytes, raw.bytes, sizeof(address.bytes));
    address.scope_id = raw.scope_id;
    return address;
}

}  // namespace

Path::Path(Session& session, u32 index, const rtrs_path_address& address, bool first_conn)
    : session_(session),
      index_(index),
      address_(address),
      budget_(session.max_reconnect_attempts()),
      first_conn_(first_conn)
{
}

u64 Path::latency_ns() const
{
    u64 rtt = heartbeat_.last_rtt_ns();
    if (fault_applies(g_faults.delay_paths, index_))
        rtt += g_faults.delay_ms.get() * 1000000;
    return rtt;
}

Path::~Path()
{
    teardown();
    cxxrt::free_array(connections_);
}

Result<void> Path::init()
{
    cxxrt::random_bytes(uuid_.bytes);
    // The service connection, one IO connection per online CPU, then the
    // polled ones (upstream's order: the server sees only more connections).
    poll_connection_count_ = session_.poll_queues();
    irq_connection_count_ =
        cxxrt::min<u32>(cxxrt::num_online_cpus() + 1, wire::kMaxConnectionsPerPath - poll_connection_count_);
    connection_count_ = irq_connection_count_ + poll_connection_count_;
    connections_ = cxxrt::allocate_array<ClientConnection*>(Gfp::kernel(), connection_count_);
    if (!connections_)
        return Error(cxxrt::err::kNoMem);
    stats_ = CXXRT_TRY(cxxrt::PerCpu<ClientCpuStats>::create(Gfp::kernel()));
    // Until the CM resolved the source, the name shows the destination only.
    auto destination = to_address(address_.destination);
    auto length = format_address(destination, cxxrt::Span<char>(name_, sizeof(name_)));
    if (!length)
        name_[0] = '\0';
    return {};
}

// --- connecting -------------------------------------------------------------

Result<RefPtr<ib::ProtectionDomain>> Path::protection_domain(ib::Device device)
{
    if (pd_) {
        // Every connection of a path must end on one device: the chunk
        // registrations (MRs) belong to the path's PD.
        if (!(pd_->device() == device))
            return Error(cxxrt::err::kNoDev);
        return pd_;
    }
    auto attrs = device.attrs();
    if (!attrs.mem_mgt_extensions) {
        cxxrt::log::err("%s: device %s has no fast registration", name_, device.name());
        return Error(cxxrt::err::kOpNotSupp);
    }
    pd_ = CXXRT_TRY(ib::ProtectionDomain::create(Gfp::kernel(), device));
    return pd_;
}

ib::ConnectionConfig Path::connection_config(u16 cid, ib::Device device) const
{
    ib::ConnectionConfig config;
    auto attrs = device.attrs();
    u32 send = 0;
    u32 receive = 0;
    if (cid == 0) {
        // Heartbeats, their acks and INFO_REQ.
        send = kServiceReceives + 2;
        receive = kServiceReceives + 1;
    } else {
        // Each IO may post a LOCAL_INV, a REG_MR and a write, or a
        // LOCAL_INV; a READ answered with invalidation consumes two receives.
        send = 3 * params_.queue_depth + 2;
        receive = 2 * params_.queue_depth;
    }
    // One more of each for the drain marker.
    send += 1;
    receive += 1;
    if (attrs.max_qp_wr) {
        send = cxxrt::min(send, attrs.max_qp_wr);
        receive = cxxrt::min(receive, attrs.max_qp_wr);
    }
    config.qp.max_send_wr = send;
    config.qp.max_recv_wr = receive;
    config.qp.max_send_sge = cxxrt::min(kMaxSge, attrs.max_send_sge ? attrs.max_send_sge : 1u);
    config.qp.max_recv_sge = 1;
    config.cq_size = int(send + receive);
    config.comp_vector = cid == 0 ? 0 : int(cid - 1);
    // Polled connections are reaped by their callers (rtrs_client_poll):
    // no interrupts, no softirq.
    config.poll = polled_connection(cid) ? ib::PollContext::kDirect : ib::PollContext::kSoftirq;
    config.batches = ib::BatchObserver{&Path::count_batch, const_cast<Path*>(this)};
    return config;
}

Result<cxxrt::size_t> Path::build_conn_req(u16 cid, cxxrt::ByteSpan out) const
{
    codec::ConnReqFields fields;
    fields.cid = cid;
    fields.cid_num = u16(connection_count_);
    fields.recon_cnt = reconnect_count_;
    fields.sess_uuid = uuid_;
    fields.paths_uuid = session_.uuid();
    // The first path of a session creates it on the server; any path that
    // was connected once may re-create it (the server may have dropped it).
    fields.first_conn = first_conn_ || connected_once_;
    return codec::build_conn_req(out, fields);
}

Result<void> Path::connect()
{
    auto destination = CXXRT_TRY(to_sockaddr(address_.destination, address_.destination.port));
    ib::SockAddr source_storage;
    const ib::SockAddr* source = nullptr;
    if (address_.source.family != RTRS_ADDRESS_NONE) {
        source_storage = CXXRT_TRY(to_sockaddr(address_.source, 0));
        source = &source_storage;
    }
    heartbeat_.reset();
    // Before any connection exists: a connection lost from here on wakes
    // exchange_info (connection_lost).
    info_received_.reinit();
    info_result_ = -cxxrt::err::kConnReset;
    connect_spoiled_.store(nullptr);
    for (u32 cid = 0; cid < connection_count_; ++cid) {
        auto made = cxxrt::make_unique<ClientConnection>(Gfp::kernel(), *this, u16(cid));
        if (!made)
            return made.error();
        ClientConnection* connection = made.value().release();
        connections_[cid] = connection;
        CXXRT_TRY(connection->connect(source, destination));
        CXXRT_TRY(accept_conn_rsp(u16(cid), connection->response()));
        if (cid == 0) {
            const auto& response = connection->response();
            auto attrs = connection->connection()->device().attrs();
            u32 pages = cxxrt::min(kMaxSegments, attrs.max_fast_reg_page_list_len);
            CXXRT_TRY(session_.agree_parameters(response, pages, attrs.max_send_sge));
            params_ = response;
            geometry_ = CXXRT_TRY(codec::make_chunk_geometry(params_.queue_depth, u32(params_.chunk_size())));
            // The INFO_RSP receive must be the first one on cid 0: the
            // receive queue is FIFO and INFO_RSP is the first SEND to come.
            info_response_ = CXXRT_TRY(ib::DmaBuffer::create(Gfp::kernel(), connection->connection()->device(),
                                                             wire::info_rsp_size(params_.queue_depth),
                                                             ib::DmaDirection::kFromDevice));
            ib::Sge sge = info_response_->sge(pd_->local_dma_lkey());
            CXXRT_TRY(connection->qp().post_recv(info_receive_done_, cxxrt::Span<const ib::Sge>(&sge, 1)));
            CXXRT_TRY(connection->post_receives(kServiceReceives));
        } else {
            CXXRT_TRY(connection->post_receives(2 * params_.queue_depth));
        }
    }
    CXXRT_TRY(exchange_info());
    CXXRT_TRY(create_requests());
    // What sysfs shows: the device, its port, and the source the CM
    // resolved (upstream names the path directory <src>@<dst> with it).
    ib::CmId& id = connections_[0]->connection()->cm_id();
    const char* device_name = id.device().name();
    cxxrt::fill_bytes(hca_name_, 0, sizeof(hca_name_));
    cxxrt::copy_bytes(hca_name_, device_name,
                      cxxrt::min(cxxrt::string_length(device_name, sizeof(hca_name_)), sizeof(hca_name_) - 1));
    hca_port_ = id.port();
    auto resolved = id.source_address().to_addr();
    if (resolved) {
        source_ = to_address(resolved.value());
        // Named once: the sysfs directory keeps its first name.
        if (!connected_once_) {
            auto length = format_path_name(source_, to_address(address_.destination),
                                           cxxrt::Span<char>(name_, sizeof(name_)));
            (void)length;
        }
    }
    return {};
}

Result<void> Path::accept_conn_rsp(u16 cid, const codec::ConnRspFields& response) const
{
    if (cid != 0) {
        // Every connection of a path shares one set of chunks.
        if (response.queue_depth != params_.queue_depth || response.max_io_size != params_.max_io_size ||
            response.max_hdr_size != params_.max_hdr_size || response.flags != params_.flags) {
            cxxrt::log::err("%s: CON_RSP of connection %u differs from connection 0's", name_, u32(cid));
            return Error(cxxrt::err::kProto);
        }
        return {};
    }
    ConnRspLimits limits;
    limits.min_hdr_size = u32(session_.user_header_size() + wire::rdma_read_size(1));
    auto checked = check_conn_rsp(response, limits);
    if (!checked)
        cxxrt::log::err("%s: CON_RSP refused (%d): queue depth %u (1..%u), max IO %u (>= %u), header %u (%u..%u)",
                        name_, checked.to_errno(), u32(response.queue_depth), limits.max_queue_depth,
                        response.max_io_size, limits.min_io_size, response.max_hdr_size, limits.min_hdr_size,
                        limits.max_hdr_size);
    return checked;
}

Result<void> Path::exchange_info()
{
    ClientConnection& service = *connections_[0];
    info_request_ = CXXRT_TRY(ib::DmaBuffer::create(Gfp::kernel(), service.connection()->device(),
                                                    sizeof(wire::InfoReq), ib::DmaDirection::kToDevice));
    auto length = CXXRT_TRY(codec::build_info_req(info_request_->bytes(), cxxrt::StringView(session_.name())));
    info_request_->sync_for_device();
    ib::Sge sge = info_request_->sge(pd_->local_dma_lkey(), 0, length);
    {
        cxxrt::IrqSpinGuard guard(service.post_lock());
        CXXRT_TRY(service.qp().post_send(&info_send_done_, cxxrt::Span<const ib::Sge>(&sge, 1), ib::kSignaled));
    }
    if (!info_received_.wait_timeout(kConnectTimeoutMs)) {
        cxxrt::log::err("%s: no INFO_RSP within %u ms", name_, kConnectTimeoutMs);
        return Error(cxxrt::err::kTimedOut);
    }
    if (const char* why = connect_spoiled_.load()) {
        // The server closed (or reset) a connection, e.g. it refused the
        // session name, or spoke of IO: no INFO_RSP is coming.
        cxxrt::log::err("%s: connection lost while waiting for INFO_RSP (%s)", name_, why);
        return Error(cxxrt::err::kConnReset);
    }
    if (info_result_)
        return Error::from_errno(info_result_);
    auto receive = check_info_rsp_receive(info_event_, u32(info_response_->bytes().size()));
    if (!receive) {
        cxxrt::log::err("%s: INFO_RSP is not a plain SEND of at most %zu bytes", name_, info_response_->bytes().size());
        return receive.error();
    }
    info_response_->sync_for_cpu();
    codec::InfoRspLimits limits;
    limits.queue_depth = params_.queue_depth;
    limits.chunk_size = u32(params_.chunk_size());
    auto data = info_response_->bytes().first(info_length_);
    auto view = codec::decode_info_rsp(data, limits);
    if (!view) {
        cxxrt::log::err("%s: bad INFO_RSP (%d)", name_, view.to_errno());
        return view.error();
    }
    cxxrt::free_array(chunks_);
    chunks_ = cxxrt::allocate_array<RemoteChunk>(Gfp::kernel(), params_.queue_depth);
    if (!chunks_)
        return Error(cxxrt::err::kNoMem);
    for (u32 i = 0; i < params_.queue_depth; ++i) {
        auto chunk = CXXRT_TRY(codec::info_rsp_chunk(view.value(), limits.chunk_size, i));
        chunks_[i] = RemoteChunk{chunk.addr, chunk.key, chunk.len};
    }
    return {};
}

void Path::on_info_response(const ib::WorkCompletion& wc)
{
    if (wc.ok()) {
        heartbeat_.saw_traffic();
        info_length_ = wc.byte_len;
        info_event_ = ReceiveEvent{wc.opcode == ib::WorkCompletion::kRecv, wc.has_imm(), 0, wc.has_invalidate(), 0,
                                   wc.byte_len};
        info_result_ = 0;
    } else {
        info_result_ = -cxxrt::err::kConnReset;
    }
    info_received_.complete();
}

void Path::on_info_sent(const ib::WorkCompletion& wc)
{
    if (!wc.ok() && !wc.flushed())
        cxxrt::log::err_ratelimited("%s: INFO_REQ failed: %s", name_, wc.status_text());
}

Result<void> PathRequest::init(ib::Device device, const RefPtr<ib::ProtectionDomain>& pd, u32 message_size,
                               u32 segments, u32 mr_pages)
{
    message_ = CXXRT_TRY(ib::DmaBuffer::create(Gfp::kernel(), device, message_size, ib::DmaDirection::kToDevice));
    sg_ = CXXRT_TRY(ib::ScatterList::create(Gfp::kernel(), segments));
    mr_ = CXXRT_TRY(ib::MemoryRegion::create(Gfp::kernel(), pd, mr_pages));
    return {};
}

Result<void> Path::create_requests()
{
    auto attrs = pd_->device().attrs();
    u32 pages = cxxrt::min(kMaxSegments, attrs.max_fast_reg_page_list_len);
    message_size_ = session_.user_header_size() + u32(wire::rdma_read_size(1));
    CXXRT_TRY(requests_.create(Gfp::kernel(), params_.queue_depth,
                               [this](void* where, u32 index) { new (where) PathRequest(*this, index); }));
    CXXRT_TRY(table_.init(params_.queue_depth, Gfp::kernel()));
    for (u32 i = 0; i < requests_.size(); ++i) {
        CXXRT_TRY(requests_[i].init(pd_->device(), pd_, message_size_, session_.max_segments(), pages));
        // Only if two MRs shared an index (never seen): then no server
        // invalidation is trusted and every READ is invalidated here.
        if (!table_.index_rkey(i, requests_[i].mr_->rkey()))
            cxxrt::log::warn_ratelimited("%s: MR index shared, invalidating every READ locally", name_);
    }
    return {};
}

// --- life cycle ----------------------------------------------------------------

Result<void> Path::open()
{
    cxxrt::MutexGuard guard(control_);
    auto connected = connect();
    if (connected && state_.change_from(PathState::kConnecting, PathState::kConnected)) {
        became_connected();
        fail_if_spoiled();
        return {};
    }
    // The opener (map_device, add_path) sees only the errno: name the path.
    cxxrt::log::err("session %s: path %s: connect failed (%d)", session_.name(), name_,
                    connected ? -cxxrt::err::kConnAborted : connected.to_errno());
    teardown();
    return connected ? Result<void>(Error(cxxrt::err::kConnAborted)) : Result<void>(connected.error());
}

// The events print the state as Linux's enum rtrs_clt_state, which ours follows.
static_assert(int(PathState::kConnecting) == RTRS_TRACE_CLT_CONNECTING &&
              int(PathState::kConnectingError) == RTRS_TRACE_CLT_CONNECTING_ERR &&
              int(PathState::kReconnecting) == RTRS_TRACE_CLT_RECONNECTING &&
              int(PathState::kConnected) == RTRS_TRACE_CLT_CONNECTED && int(PathState::kClosing) == RTRS_TRACE_CLT_CLOSING &&
              int(PathState::kClosed) == RTRS_TRACE_CLT_CLOSED && int(PathState::kDead) == RTRS_TRACE_CLT_DEAD);

void Path::trace(kapi_trace_rtrs_clt_path_event event) const
{
    event(name_, int(state()), budget_.attempts(), budget_.max_attempts(), reconnects_.failed, reconnects_.successful);
}

void Path::start_reconnecting()
{
    if (state_.change_from(PathState::kConnecting, PathState::kConnectingError) &&
        state_.change(PathState::kReconnecting))
        schedule_reconnect();
}

void Path::became_connected()
{
    connected_once_ = true;
    budget_.connected();
    ++reconnects_.successful;
    cxxrt::log::info("session %s: path %s connected (queue depth %u, %u connections)",
                     session_.name(), name_, params_.queue_depth, connection_count_);
    if (!counted_up_) {
        counted_up_ = true;
        session_.path_up();
    }
    create_sysfs();
    (void)heartbeat_work_.queue_on(workqueue(), Heartbeat::kIntervalMs);
}

void Path::schedule_reconnect()
{
    if (session_.closing())
        return;
    if (!budget_.begin_attempt()) {
        cxxrt::log::err("%s: reconnect attempts exhausted, path closed", name_);
        trace(kapi_trace_rtrs_clt_close_conns);
        if (state_.change(PathState::kClosing))
            (void)state_.change(PathState::kClosed);
        return;
    }
    (void)reconnect_work_.queue_on(workqueue(), session_.reconnect_delay_ms());
}

// Something happened while connecting that the connected path must not
// survive. Before INFO_RSP it wakes exchange_info, which gives up; after,
// the connect may be past its last look: the flag is then seen by
// fail_if_spoiled right after the switch to CONNECTED. Both sides store
// before they load (seq_cst): either the caller here sees the path
// connected and fails it itself, or fail_if_spoiled sees the flag.
void Path::spoil_connect(const char* why)
{
    connect_spoiled_.store(why);
    cxxrt::full_fence();
    info_received_.complete();
}

void Path::fail_if_spoiled()
{
    cxxrt::full_fence();  // after the switch to CONNECTED
    if (const char* why = connect_spoiled_.exchange(nullptr))
        fail(why);
}

void Path::fail(const char* why)
{
    // Traced with the state the failure finds (CONNECTED), once per failure
    // give or take a racing CPU: every flushed completion ends up here too.
    if (connected())
        trace(kapi_trace_rtrs_rdma_error_recovery);
    if (!state_.change_from(PathState::kConnected, PathState::kReconnecting))
        return;
    cxxrt::log::warn_ratelimited("%s: path %s failed (%s), reconnecting", session_.name(), name_, why);
    (void)error_work_.queue_on(workqueue());
}

void Path::connection_lost(u16 cid, const char* why)
{
    // While connecting, fail() does nothing: wake exchange_info instead.
    if (state_.state() == PathState::kConnecting) {
        cxxrt::log::warn_ratelimited("%s: connection %u of %s lost while connecting (%s)", session_.name(),
                                     u32(cid), name_, why);
        spoil_connect(why);
    }
    fail(why);
}

void Path::handle_error()
{
    cxxrt::MutexGuard guard(control_);
    if (state_.state() != PathState::kReconnecting)
        return;  // close() took over
    teardown();
    schedule_reconnect();
}

void Path::reconnect()
{
    trace(kapi_trace_rtrs_clt_reconnect_work);
    cxxrt::MutexGuard guard(control_);
    (void)connect_again();
}

Result<void> Path::connect_again()
{
    if (!state_.change_from(PathState::kReconnecting, PathState::kConnecting))
        return Error(cxxrt::err::kNotConn);  // closed, or connected by someone else meanwhile
    ++reconnect_count_;
    auto connected = connect();
    if (connected && state_.change_from(PathState::kConnecting, PathState::kConnected)) {
        became_connected();
        fail_if_spoiled();
        return {};
    }
    cxxrt::log::warn_ratelimited("%s: reconnect of %s failed (%d)", session_.name(), name_,
                                 connected.to_errno());
    ++reconnects_.failed;
    teardown();
    if (state_.change_from(PathState::kConnecting, PathState::kConnectingError) &&
        state_.change(PathState::kReconnecting))
        schedule_reconnect();
    // Connected but closed meanwhile: the path is not up, say so.
    return connected ? Result<void>(Error(cxxrt::err::kNotConn)) : Result<void>(connected.error());
}

void Path::close()
{
    trace(kapi_trace_rtrs_clt_close_conns);
    // Leaving every live state first stops fail() and the work items from
    // starting anything new; then wait for what already runs.
    (void)state_.change(PathState::kClosing);
    error_work_.cancel_sync();
    reconnect_work_.cancel_sync();
    heartbeat_work_.cancel_sync();
    fault_work_.cancel_sync();
    {
        cxxrt::MutexGuard guard(control_);
        teardown();
        (void)state_.change(PathState::kClosed);
    }
    // A sysfs "reconnect" that took control_ before us may have queued work.
    error_work_.cancel_sync();
    reconnect_work_.cancel_sync();
    heartbeat_work_.cancel_sync();
    fault_work_.cancel_sync();
}

// Process context, control_ held (or the destructor). Idempotent.
void Path::teardown()
{
    heartbeat_work_.cancel_sync();
    if (counted_up_) {
        counted_up_ = false;
        session_.path_down();
    }
    // The state is no longer kConnected: new submitters back off. Wait for
    // the ones that saw it connected to leave before the QPs go away.
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    submitters_idle_.wait([this] { return submitters_.load() == 0; });
    if (connections_) {
        for (u32 cid = 0; cid < connection_count_; ++cid)
            if (connections_[cid])
                connections_[cid]->disconnect_and_drain();
    }
    // Like upstream, give the server time to process our DREQ (bounded:
    // a dead peer never answers) before the ids go: a session name it
    // still holds would make the next connect with that name fail.
    if (connections_) {
        unsigned long budget_ms = kDisconnectTimeoutMs;
        u32 pending = 0;
        for (u32 cid = 0; cid < connection_count_; ++cid)
            if (connections_[cid] && !connections_[cid]->wait_disconnected(budget_ms))
                ++pending;
        if (pending)
            cxxrt::log::warn("%s: %u connections of %s not disconnected within %u ms, destroying them",
                             session_.name(), pending, name_, kDisconnectTimeoutMs);
    }
    // No completion can run any more: the remaining IO is ours to move.
    fail_over_requests();
    // Everything made on the device goes before the cm_ids: when a device
    // is removed the CM waits only until the last id on it is destroyed,
    // then the driver frees the device. An MR or the PD freed after that
    // touches freed memory (rxe WARNs in rxe_pool_cleanup about what is left).
    if (connections_) {
        for (u32 cid = 0; cid < connection_count_; ++cid)
            if (connections_[cid])
                connections_[cid]->release_queues();
    }
    requests_.reset();
    table_.reset();
    info_request_.reset();
    info_response_.reset();
    cxxrt::free_array(cxxrt::exchange(chunks_, nullptr));
    pd_.reset();
    bool had_ids = false;
    if (connections_) {
        for (u32 cid = 0; cid < connection_count_; ++cid) {
            had_ids |= connections_[cid] != nullptr;
            cxxrt::destroy(cxxrt::exchange(connections_[cid], nullptr));
        }
    }
    if (u64 delay = g_faults.id_delay_ms.get(); delay && had_ids)
        cxxrt::sleep_ms(u32(cxxrt::min<u64>(delay, 10000)));
}

// --- heartbeat ----------------------------------------------------------------

void Path::send_heartbeat()
{
    if (!connected())
        return;
    if (fault_applies(g_faults.qp_error, index_))
        inject_qp_error();
    switch (heartbeat_.tick(now_ns())) {
    case Heartbeat::Action::kClose:
        fail("heartbeat lost");
        return;
    case Heartbeat::Action::kSend:
        if (fault_applies(g_faults.drop_heartbeats, index_))
            break;  // fault injection: the server hears nothing from us
        // Submitter rules apply: the QP must not go away under the post.
        submitters_.fetch_add(1);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (connected() && !connections_[0]->post_heartbeat(wire::kHeartbeatImm))
            fail("cannot post a heartbeat");
        leave_submission();
        break;
    case Heartbeat::Action::kWait:
        break;
    }
    (void)heartbeat_work_.queue_on(workqueue(), Heartbeat::kIntervalMs);
}

// Fault injection: the QPs of the path go to the error state as after a
// fatal transport error; their flushed work requests make the path fail.
void Path::inject_qp_error()
{
    // One-shot: only the caller that clears the bit acts.
    u64 mask = g_faults.qp_error.get();
    for (;;) {
        if (!fault_applies(mask, index_))
            return;
        const u64 cleared = mask == ~u64(0) ? 0 : mask & ~(u64(1) << index_);
        if (g_faults.qp_error.replace(mask, cleared))
            break;
    }
    submitters_.fetch_add(1);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (connected()) {
        cxxrt::log::warn("%s: fault injection: QPs of path %s to the error state", session_.name(), name_);
        for (u32 cid = 0; cid < connection_count_; ++cid)
            if (connections_[cid] && connections_[cid]->connection())
                (void)connections_[cid]->qp().move_to_error();
    }
    leave_submission();
}

// --- IO ---------------------------------------------------------------------

void Path::leave_submission()
{
    if (submitters_.fetch_sub(1) == 1)
        submitters_idle_.wake_up_all();
}

ClientConnection* Path::io_connection(const Permit& permit)
{
    if (permit.poll_queue != Permit::kNotPolled && poll_connection_count_)
        return connections_[irq_connection_count_ + u32(permit.poll_queue) % poll_connection_count_];
    // The IO connection of the submitting CPU (cids 1..N), so completions
    // come back on that CPU's completion vector.
    u32 io_connections = irq_connection_count_ - 1;
    if (io_connections == 0)
        return connections_[0];
    return connections_[1 + cxxrt::current_cpu_hint() % io_connections];
}

int Path::poll(u32 poll_queue)
{
    if (poll_connection_count_ == 0)
        return 0;
    submitters_.fetch_add(1);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    int reaped = 0;
    if (connected())
        reaped = connections_[irq_connection_count_ + poll_queue % poll_connection_count_]->poll();
    leave_submission();
    return reaped;
}

namespace {

// Fills the permit's request scatterlist from the caller's one (the pages
// stay where they are; only the table is copied) and DMA-maps it.
Result<int> map_user_sg(ib::ScatterList& list, scatterlist* user, u32 count, u32 data_length, ib::Device device,
                        ib::DmaDirection direction)
{
    CXXRT_TRY(list.copy_from(user, count, data_length));
    return list.map(device, direction);
}

}  // namespace

Result<void> Path::submit(Permit& permit)
{
    if (g_faults.qp_error.get() && fault_applies(g_faults.qp_error, index_))
        [[unlikely]] (void)fault_work_.queue_on(workqueue());  // ib_modify_qp may sleep
    submitters_.fetch_add(1);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!connected()) {
        leave_submission();
        return Error(cxxrt::err::kNotConn);
    }
    PathRequest& request = requests_[permit.id];
    RequestSlot& slot = table_.slot(permit.id);
    if (slot.state() != RequestSlot::State::kIdle) {
        leave_submission();
        return Error(cxxrt::err::kBusy);
    }
    ClientConnection* connection = io_connection(permit);
    const bool is_read = permit.direction == RTRS_READ;
    const u32 lkey = pd_->local_dma_lkey();
    u8* message = request.message_->data();
    if (permit.header_length)
        cxxrt::copy_bytes(message, permit.user_header, permit.header_length);

    request.permit_ = &permit;
    permit.path_index.store(index_, cxxrt::MemoryOrder::kRelaxed);
    request.connection_ = connection;
    request.sg_mapped_ = false;
    request.pending_errno_ = 0;

    int dma_entries = 0;
    if (permit.data_length) {
        auto mapped = map_user_sg(*request.sg_, permit.sg, permit.sg_count, permit.data_length, pd_->device(),
                                  is_read ? ib::DmaDirection::kFromDevice : ib::DmaDirection::kToDevice);
        if (!mapped) {
            leave_submission();
            return mapped.error();
        }
        request.sg_mapped_ = true;
        dma_entries = mapped.value();
    }

    auto fail_submit = [&](Error error) {
        if (request.sg_mapped_)
            request.sg_->unmap();
        request.sg_mapped_ = false;
        request.permit_ = nullptr;
        leave_submission();
        return Result<void>(error);
    };

    RemoteChunk chunk = chunks_[permit.id];
    chunk.rkey = __atomic_load_n(&chunks_[permit.id].rkey, __ATOMIC_RELAXED);
    ib::Sge sges[kMaxSge];
    u32 sge_count = 0;
    codec::IoPlan plan;
    u64 remote_addr = chunk.addr;
    u32 invalid_key = 0;
    if (is_read) {
        auto planned = codec::plan_read(geometry_, permit.data_length, permit.header_length,
                                        permit.data_length ? 1 : 0);
        if (!planned)
            return fail_submit(planned.error());
        plan = planned.value();
        codec::SgEntry descriptor;
        u16 flags = 0;
        if (permit.data_length) {
            auto pages = request.mr_->map_sg(*request.sg_);
            if (!pages || pages.value() != dma_entries)
                return fail_submit(Error(cxxrt::err::kInval));
            // The key the MR holds now (invalid: the server or we
            // invalidated it after its last IO, or it was never registered).
            invalid_key = request.mr_->rkey();
            request.mr_->bump_key();
            descriptor = codec::SgEntry{request.mr_->iova(), request.mr_->rkey(), permit.data_length};
            flags = u16(wire::kMsgFlagNeedInvalidate);
        }
        auto built = codec::build_rdma_read(
            cxxrt::ByteSpan(message + permit.header_length, message_size_ - permit.header_length),
            u16(permit.header_length), flags,
            cxxrt::Span<const codec::SgEntry>(&descriptor, permit.data_length ? 1 : 0));
        if (!built)
            return fail_submit(built.error());
        sges[sge_count++] = request.message_->sge(lkey, 0, permit.header_length + built.value());
        // [user header][READ] sits right after the reply space.
        remote_addr += permit.data_length;
    } else {
        auto planned = codec::plan_write(geometry_, permit.data_length, permit.header_length);
        if (!planned)
            return fail_submit(planned.error());
        plan = planned.value();
        if (u32(dma_entries) + 1 > kMaxSge || u32(dma_entries) + 1 > connection->qp().config().max_send_sge)
            return fail_submit(Error(cxxrt::err::kInval));
        for (int i = 0; i < dma_entries; ++i)
            sges[sge_count++] = ib::Sge{request.sg_->dma_address(u32(i)), request.sg_->dma_length(u32(i)), lkey};
        auto built = codec::build_rdma_write(
            cxxrt::ByteSpan(message + permit.header_length, message_size_ - permit.header_length),
            u16(permit.header_length));
        if (!built)
            return fail_submit(built.error());
        sges[sge_count++] = request.message_->sge(lkey, 0, permit.header_length + built.value());
    }
    auto imm = codec::encode_io_request_imm(geometry_, permit.id, plan.msg_offset);
    if (!imm)
        return fail_submit(imm.error());
    request.message_->sync_for_device();

    request.submitted_ns_ = now_ns();
    const bool registers = is_read && permit.data_length;
    if (!slot.start(registers, registers ? request.mr_->rkey() : 0))
        return fail_submit(Error(cxxrt::err::kBusy));
    inflight_.fetch_add(1);
    {
        cxxrt::CpuGuard cpu;
        request.submit_cpu_ = cpu.cpu();
        record_request(stats_.this_cpu(cpu), is_read ? Direction::kRead : Direction::kWrite,
                       u64(permit.data_length) + permit.header_length, permit.sg_count);
    }
    bool registered = false;
    auto posted = [&]() -> Result<void> {
        cxxrt::IrqSpinGuard guard(connection->post_lock());
        if (registers) {
            // Behind a LOCAL_INV of the invalid key: see post_lock().
            CXXRT_TRY(connection->qp().post_local_inv(nullptr, invalid_key, ib::kUnsignaled));
            CXXRT_TRY(request.mr_->post_register(connection->qp(), &connection->send_done(),
                                                 ib::kLocalWrite | ib::kRemoteWrite, ib::kSignaled));
            registered = true;
        }
        return connection->qp().post_write_imm(&connection->send_done(), cxxrt::Span<const ib::Sge>(sges, sge_count),
                                               ib::RemoteBuffer{remote_addr, chunk.rkey}, imm.value(),
                                               ib::kSignaled);
    }();
    if (!posted) {
        // A registered MR stays valid: the path fails, and teardown frees it.
        slot.abort();
        inflight_.fetch_sub(1);
        if (registered)
            fail("cannot post an IO after its registration");
        return fail_submit(posted.error());
    }
    g_counters.submitted.add(1);
    leave_submission();
    return {};
}

void Path::on_receive(u16 cid, const ReceiveEvent& event, cxxrt::ConstByteSpan payload)
{
    ConnectionRole role;
    role.queue_depth = params_.queue_depth;
    role.always_invalidate = new_rkey();
    role.carries_io = cid != 0 || connection_count_ == 1;
    const ReceiveDecision decision = classify_receive(event, payload, role);
    const bool about_io = decision.kind == ReceiveKind::kInvalidation || decision.kind == ReceiveKind::kResponse;
    if (about_io && !connected()) {
        // The request table is built (connect) and torn down (teardown,
        // after the drain) only while the path is not connected: nothing
        // the server says about IO before then refers to a request.
        cxxrt::log::err_ratelimited("%s: IO message on connection %u before the path is connected", name_,
                                    u32(cid));
        spoil_connect("IO message before the path was connected");
        // Connected meanwhile: handled as on a connected path (it fails).
        if (!connected())
            return;
    }
    switch (decision.kind) {
    case ReceiveKind::kInvalidation:
        if (!table_.on_invalidation(decision.invalidated_rkey)) {
            cxxrt::log::err_ratelimited("%s: server invalidated rkey 0x%x, which no request in flight registered",
                                        name_, decision.invalidated_rkey);
            fail("invalidation of an unknown rkey");
        }
        return;
    case ReceiveKind::kResponse:
        if (fault_applies(g_faults.drop_responses, index_)) [[unlikely]]
            return;  // fault injection: a server that never answers (the IO stays in flight)
        complete_request(decision);
        return;
    case ReceiveKind::kHeartbeat:
        if (connected() && !fault_applies(g_faults.drop_heartbeat_acks, index_))
            (void)connections_[cid]->post_heartbeat(wire::kHeartbeatAckImm);
        return;
    case ReceiveKind::kHeartbeatAck:
        heartbeat_.saw_ack(now_ns());
        return;
    case ReceiveKind::kError:
        break;
    }
    cxxrt::log::err_ratelimited("%s: protocol violation on connection %u: %s (imm 0x%x, %u bytes)", name_, u32(cid),
                                decision.why, event.imm, event.byte_len);
    fail(decision.why);
}

void Path::complete_request(const ReceiveDecision& response)
{
    const u32 id = response.id;
    if (!requests_ || id >= requests_.size() || id >= table_.size()) {
        cxxrt::log::err_ratelimited("%s: answer for unknown request %u", name_, id);
        fail("answer for an unknown request");
        return;
    }
    PathRequest& request = requests_[id];
    auto answer = table_.on_response(id, response.claims_invalidated);
    if (!answer) {
        const bool idle = answer.error().code() == cxxrt::err::kAlready;
        cxxrt::log::err_ratelimited("%s: %s for request %u", name_,
                                    idle ? "answer for a request not in flight"
                                         : "invalidation claimed for a request without registration",
                                    id);
        fail(idle ? "answer for a request not in flight" : "invalidation claimed without registration");
        return;
    }
    if (response.claims_invalidated && answer.value().invalidate_locally)
        cxxrt::log::warn_ratelimited("%s: request %u: the server claims an invalidation it did not perform, "
                                     "invalidating locally", name_, id);
    // always_invalidate: the server registered the chunk anew for the next IO.
    if (response.has_new_rkey && chunks_)
        __atomic_store_n(&chunks_[id].rkey, response.new_rkey, __ATOMIC_RELAXED);
    const bool invalidate_locally = answer.value().invalidate_locally;
    {
        // Where the answer arrived (stats/cpu_migration).
        BottomHalvesOff bh;
        cxxrt::CpuGuard cpu;
        ClientCpuStats& here = stats_.this_cpu(cpu);
        if (cpu.cpu() != request.submit_cpu_) {
            record_migration_to(here);
            __atomic_fetch_add(&stats_.on(request.submit_cpu_).migrations_from, 1, __ATOMIC_RELAXED);
        }
    }
    if (fault_applies(g_faults.delay_paths, index_)) {
        const u64 delay = g_faults.delay_ms.get();
        if (delay) {
            // Teardown takes over a held-back response (fail_over_requests).
            request.pending_errno_ = response.err;
            request.pending_invalidate_locally_ = invalidate_locally;
            (void)request.delayed_.queue_on(workqueue(), u32(delay));
            return;
        }
    }
    finish_response(request, response.err, invalidate_locally);
}

void PathRequest::on_delay_over()
{
    // As a submitter: the QP stays while the invalidation is posted.
    path_.submitters_.fetch_add(1);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (path_.connected())
        path_.finish_response(*this, pending_errno_, pending_invalidate_locally_);
    else
        path_.finish_request(*this, pending_errno_);
    path_.leave_submission();
}

void Path::finish_response(PathRequest& request, int error, bool invalidate_locally)
{
    if (invalidate_locally) {
        // The server did not prove it invalidated our rkey: do it here
        // before the memory goes back to the user.
        request.pending_errno_ = error;
        auto posted = [&] {
            cxxrt::IrqSpinGuard guard(request.connection_->post_lock());
            return request.mr_->post_invalidate(request.connection_->qp(), &request.invalidate_done_, ib::kSignaled);
        }();
        if (posted)
            return;
        fail("cannot invalidate a read registration");
    }
    finish_request(request, error);
}

void Path::count_batch(void* context, u32 completions, bool polled)
{
    BottomHalvesOff bh;
    static_cast<Path*>(context)->stats_.with_this_cpu([completions, polled](ClientCpuStats& stats) {
        record_completions(stats.completions, completions);
        if (polled)
            record_polled(stats, completions);
    });
}

void PathRequest::on_invalidated(const ib::WorkCompletion& wc)
{
    if (!wc.ok() && !wc.flushed())
        path_.fail("local invalidate failed");
    path_.finish_request(*this, pending_errno_);
}

void Path::finish_request(PathRequest& request, int error)
{
    if (request.sg_mapped_)
        request.sg_->unmap();
    request.sg_mapped_ = false;
    Permit* permit = cxxrt::exchange(request.permit_, nullptr);
    // Idle again before the user may reuse the permit (from the callback).
    table_.slot(request.id_).finish();
    inflight_.fetch_sub(1);
    if (permit) {
        // Submission to answer, as the user sees it (stats/rdma_lat).
        const u64 elapsed_ms = (now_ns() - request.submitted_ns_) / 1000000;
        const Direction direction = permit->direction == RTRS_READ ? Direction::kRead : Direction::kWrite;
        {
            BottomHalvesOff bh;
            stats_.with_this_cpu([&](ClientCpuStats& stats) { record_latency(stats, direction, elapsed_ms); });
        }
        Session::complete(*permit, error);
    }
}

// Process context, after the drain: nothing else touches the requests.
void Path::fail_over_requests()
{
    for (u32 i = 0; i < requests_.size(); ++i) {
        PathRequest& request = requests_[i];
        // A response held back by fault injection: the server answered it.
        if (request.delayed_.cancel_sync()) {
            finish_request(request, request.pending_errno_);
            continue;
        }
        // In flight: never answered (an answered one finished in the drain
        // or above). No table (its allocation failed while the path was
        // set up): the path never carried IO.
        if (i >= table_.size() || table_.slot(i).take() == RequestSlot::State::kIdle)
            continue;
        if (request.sg_mapped_)
            request.sg_->unmap();
        request.sg_mapped_ = false;
        Permit* permit = cxxrt::exchange(request.permit_, nullptr);
        inflight_.fetch_sub(1);
        if (!permit)
            continue;
        stats_.with_this_cpu([](ClientCpuStats& stats) { record_failover(stats); });
        g_counters.failovers.add(1);
        session_.fail_over(*permit, *this);
    }
}

}  // namespace rtrs::clt
