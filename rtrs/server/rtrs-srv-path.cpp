// Server path: its connections, chunk memory and registrations, the
// INFO exchange, heartbeats, and the teardown.
#include <cxxrt/log.hpp>
#include "rtrs/server/rtrs-srv.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::srv {

using namespace cxxrt;

namespace {

constexpr auto kChunkAccess = ib::kLocalWrite | ib::kRemoteWrite | ib::kRemoteRead;

// Addresses compare by family and address bytes, not port (as upstream).
bool same_address(const ib::SockAddr& a, const ib::SockAddr& b)
{
    auto left = a.to_addr();
    auto right = b.to_addr();
    if (left.is_error() || right.is_error())
        return false;
    return left.value().family == right.value().family &&
           compare_bytes(left.value().bytes, right.value().bytes, sizeof(left.value().bytes)) == 0;
}

}  // namespace

Path::Path(Session& session, const codec::ConnReqFields& request, const ib::IncomingConnection& first)
    : session_(session), uuid_(request.sess_uuid), connection_count_(request.cid_num),
      reconnect_count_(request.recon_cnt), server_address_(first.source_address()),
      client_address_(first.destination_address())
{
    g_counters.paths.add(1);
}

rtrs_address Path::client_address() const
{
    rtrs_address address{};
    auto converted = client_address_.to_addr();
    if (converted.is_error())
        return address;  // family NONE: admitted by no rule
    address.family = converted.value().family;
    copy_bytes(address.bytes, converted.value().bytes, sizeof(address.bytes));
    return address;
}

const ClientKey& Path::client() const
{
    return session_.client();
}

bool Path::same_addresses(const ib::IncomingConnection& incoming) const
{
    return same_address(server_address_, incoming.source_address()) &&
           same_address(client_address_, incoming.destination_address());
}

bool Path::same_client(const ib::IncomingConnection& incoming) const
{
    return same_address(client_address_, incoming.destination_address());
}

void Path::enforce(Verdict verdict, const char* what, u16 cid)
{
    if (verdict != Verdict::kClose)
        return;
    log::err_ratelimited("session %s: %s on connection %u not allowed now: closing the path", session_.name(), what,
                         unsigned(cid));
    schedule_close("protocol violation");
}

Result<void> Path::init(ib::Device device)
{
    const Params& p = params();
    device_ = device;
    CXXRT_TRY(protocol_.init(connection_count_));
    geometry_ = CXXRT_TRY(codec::make_chunk_geometry(p.queue_depth, p.chunk_size));
    pd_ = CXXRT_TRY(ib::ProtectionDomain::create(Gfp::kernel(), device));
    cpu_stats_ = CXXRT_TRY(PerCpu<ServerCpuStats>::create(Gfp::kernel()));
    connections_ = CXXRT_TRY(cxxrt::Array<UniquePtr<ServerConnection>>::create(Gfp::kernel(), connection_count_));
    chunks_ = CXXRT_TRY(cxxrt::Array<UniquePtr<ib::DmaBuffer>>::create(Gfp::kernel(), p.queue_depth));
    chunk_regions_ = CXXRT_TRY(cxxrt::Array<UniquePtr<ib::MemoryRegion>>::create(Gfp::kernel(), p.queue_depth));
    ios_ = CXXRT_TRY(cxxrt::Array<ServerIo>::create(Gfp::kernel(), p.queue_depth));
    descriptors_ = CXXRT_TRY(cxxrt::Array<codec::SgEntry>::create(Gfp::kernel(), p.queue_depth));
    for (u32 i = 0; i < p.queue_depth; ++i) {
        ios_[i].path = this;
        ios_[i].chunk_id = i;
    }
    info_response_ = CXXRT_TRY(ib::DmaBuffer::create(
        Gfp::kernel(), device, sizeof(wire::InfoRspHeader) + p.queue_depth * sizeof(wire::SgDesc),
        ib::DmaDirection::kToDevice));
    rkey_responses_ = CXXRT_TRY(
        ib::DmaBuffer::create(Gfp::kernel(), device, p.queue_depth * sizeof(wire::RkeyRsp), ib::DmaDirection::kToDevice));
    initialized_ = true;
    info_deadline_work_.queue(p.info_timeout_ms);
    // The chunks wait for the INFO_REQ (the path's setup work): memory is
    // committed only for a client that finished its handshake, and never in
    // the CM's thread, which runs every connect request of every client and
    // must not wait for this path's megabytes of memory and hundreds of MRs.
    return {};
}

// The memory is the session's; the mapping and the MR are this path's (its
// device, its PD, its rkeys in its INFO_RSP). Process context (setup work).
Result<void> Path::prepare_chunks()
{
    const Params& p = params();
    CXXRT_TRY(session_.ensure_chunks());
    const u32 pages = p.chunk_size / ib::MemoryRegion::kPageSize;
    for (u32 i = registered_chunks_; i < p.queue_depth; ++i) {
        if (is_closing())
            return Error(err::kConnReset);
        chunks_[i] = CXXRT_TRY(ib::DmaBuffer::map_memory(Gfp::kernel(), device_, session_.chunk(i), p.chunk_size,
                                                         ib::DmaDirection::kBidirectional));
        chunk_regions_[i] = CXXRT_TRY(ib::MemoryRegion::create(Gfp::kernel(), pd_, pages));
        CXXRT_TRY(chunk_regions_[i]->map(*chunks_[i], 0, p.chunk_size));
        ++registered_chunks_;
        g_counters.registered_chunk_bytes.add(p.chunk_size);
    }
    return {};
}

// The path's setup work: the INFO_REQ that came on connection 0.
void Path::run_setup_work()
{
    if (is_closing())
        return;
    if (info_pending_.exchange(false))
        handle_info_request(ConstByteSpan(info_request_, info_request_length_));
}

void Path::info_request_received(ConstByteSpan message)
{
    info_request_length_ = u32(min<size_t>(message.size(), sizeof(info_request_)));
    copy_bytes(info_request_, message.data(), info_request_length_);
    info_pending_.store(true);
    // The client's part of the handshake is done: what is left (the chunks,
    // then the INFO_RSP) is the server's own work, which the deadline must
    // not cut short; every way it fails closes the path.
    (void)info_deadline_work_.cancel();
    setup_work_.queue();
}

void Path::info_deadline_passed()
{
    if (protocol_.info_deadline() != Verdict::kClose)
        return;
    log::err_ratelimited("a path of session %s did not finish its INFO exchange within %u ms", session_.name(),
                         params().info_timeout_ms);
    schedule_close("INFO exchange timed out");
}

void Path::cancel_works()
{
    heartbeat_work_.cancel_sync();
    info_deadline_work_.cancel_sync();
    setup_work_.cancel_sync();
}

template <typename Each>
void Path::for_each_connection(Each&& each)
{
    if (!connections_)
        return;
    for (u16 cid = 0; cid < connection_count_; ++cid)
        if (connections_[cid])
            each(*connections_[cid]);
}

Path::~Path()
{
    const Params& p = params();
    cancel_works();
    // Everything made on the device goes before the cm_ids: when a device
    // is removed the CM waits only until the last id on it is destroyed,
    // then the driver frees the device. An MR or the PD freed after that
    // touches freed memory (rxe WARNs in rxe_pool_cleanup about what is left).
    for_each_connection([](ServerConnection& connection) { connection.release_queues(); });
    // MRs before the PD and the memory they cover.
    chunk_regions_.reset();
    chunks_.reset();
    info_response_.reset();
    rkey_responses_.reset();
    pd_.reset();
    if (connections_) {
        for (u16 cid = 0; cid < connection_count_; ++cid)
            connections_[cid].reset();
        connections_.reset();
        if (u64 delay = g_faults.id_delay_ms.get())
            cxxrt::sleep_ms(u32(min<u64>(delay, 10000)));
    }
    g_counters.registered_chunk_bytes.add(-(long long)(u64(registered_chunks_) * p.chunk_size));
    g_counters.paths.add(-1);
    admission().release_connections(client(), charged_connections_);
    ios_.reset();
    descriptors_.reset();
}

Result<void> Path::add_connection(ib::IncomingConnection& incoming, u16 cid, bool key_after_data)
{
    if (!(incoming.device() == device_))
        return Error(err::kInval);  // all connections of a path share one device
    if (!same_addresses(incoming))
        return Error(err::kInval);  // nor may they come from elsewhere
    // Refuses a taken cid and any connection for a path that is closing.
    CXXRT_TRY(protocol_.connection_request(cid));
    // Charged before its queues exist; a path that cannot have all its
    // connections is of no use to its client, so it closes.
    if (Refusal why = admission().charge_connection(client()); why != Refusal::kNone) {
        log::err_ratelimited("session %s: connection %u of a path refused: %s=%u reached (%d)", session_.name(),
                             unsigned(cid), refusal_limit_name(why), refusal_limit(params(), why),
                             refusal_errno(why));
        schedule_close("connection budget spent");
        return Error(-refusal_errno(why));
    }
    ++charged_connections_;
    // Every send queue holds five work requests per IO of the queue depth
    // (send_queue_size): one answer signalled per queue_depth keeps it from
    // filling.
    auto* connection = allocate<ServerConnection>(Gfp::kernel(), *this, cid, params().queue_depth, key_after_data);
    if (!connection) {
        schedule_close("cannot allocate a connection");
        return Error(err::kNoMem);
    }
    connections_[cid] = UniquePtr<ServerConnection>(connection);  // owned by the path from here on, even if setup fails
    auto ready = connection->setup(incoming, pd_);
    if (ready.is_error()) {
        log::err_ratelimited("connection %u of a path failed to set up: %d", unsigned(cid), ready.to_errno());
        // The CM destroys a refused id after we return: its QP must go now.
        connection->abandon();
        schedule_close("connection setup failed");
    }
    return ready;
}

void Path::connection_established(ServerConnection& connection)
{
    Verdict verdict = protocol_.established(connection.cid());
    enforce(verdict, "ESTABLISHED", connection.cid());
    if (verdict != Verdict::kAccept)
        return;
    u32 count = established_count_.fetch_add(1) + 1;
    if (count == connection_count_)
        log::debug("all %u connections of a path of session %s established", unsigned(count), session_.name());
}

void Path::handle_info_request(ConstByteSpan message)
{
    auto request = codec::decode_info_req(message);
    if (request.is_error() || codec::check_path_name(request.value().pathname).is_error()) {
        schedule_close("malformed INFO_REQ");
        return;
    }
    StringView name = request.value().pathname;
    switch (session_.context().claim_session_name(session_, name)) {
    case Context::NameClaim::kOk:
        break;
    case Context::NameClaim::kTaken:
        log::err_ratelimited("session name %.*s is already used by another client", int(name.length()), name.data());
        schedule_close("duplicate session name");
        return;
    case Context::NameClaim::kChanged:
        schedule_close("session name changed");
        return;
    }

    // The chunks, now that the client finished its part of the handshake
    // (the session's memory once, this path's mappings and MRs).
    if (!chunks_ready_.load()) {
        auto prepared = prepare_chunks();
        if (prepared.is_error()) {
            if (!is_closing())
                log::err_ratelimited("session %s: no chunk memory for a path: %d", session_.name(),
                                     prepared.to_errno());
            schedule_close("cannot set up chunk memory");
            return;
        }
        chunks_ready_.store(true);
    }

    // Publish the chunks: register every chunk MR, then tell the client
    // where they are. Send-queue order makes the registrations take effect
    // before the client can see the INFO_RSP.
    const Params& p = params();
    ServerConnection* service = connections_[0].get();
    for (u32 i = 0; i < p.queue_depth; ++i) {
        ib::MemoryRegion& mr = *chunk_regions_[i];
        // Behind a LOCAL_INV, like every registration (a heartbeat may be
        // unacknowledged here: see ServerConnection::post_lock()).
        IrqSpinGuard guard(service->post_lock());
        if (service->post_reregister(mr, kChunkAccess).is_error()) {
            schedule_close("cannot register chunk memory");
            return;
        }
        descriptors_[i] = codec::SgEntry{mr.iova(), mr.rkey(), p.chunk_size};
    }
    auto built = codec::build_info_rsp(info_response_->bytes(), descriptors_.span());
    if (built.is_error()) {
        schedule_close("cannot build INFO_RSP");
        return;
    }
    // The user learns about the session before the client can send its first
    // request, which it may do as soon as it has the INFO_RSP.
    announce_session();
    // IO is valid from here on: the client may send it as soon as it sees
    // the INFO_RSP, possibly before the send below completes.
    if (!protocol_.info_done())
        return;
    (void)info_deadline_work_.cancel();
    info_response_->sync_for_device();
    ib::Sge sge = info_response_->sge(pd_->local_dma_lkey(), 0, built.value());
    if (IrqSpinGuard guard(service->post_lock());
        service->qp().post_send(&service->send_done, Span<const ib::Sge>(&sge, 1), ib::kSignaled).is_error()) {
        schedule_close("cannot send INFO_RSP");
        return;
    }
    publish_sysfs();
    heartbeat_.reset();
    heartbeat_work_.queue(Heartbeat::kIntervalMs);
}

// Process context (connection 0 completes in a kworker). A path without its
// sysfs directory still works; the failure is logged.
void Path::publish_sysfs()
{
    Context& context = session_.context();
    MutexGuard guard(context.mutex());
    if (!session_.sysfs.exists()) {
        auto created = session_.sysfs.create(session_);
        if (created.is_error()) {
            log::err("session %s: no sysfs directory: %d", session_.name(), created.to_errno());
            return;
        }
    }
    auto created = sysfs_.create(*this, session_.sysfs);
    if (created.is_error())
        log::err("session %s: no sysfs directory for a path: %d", session_.name(), created.to_errno());
}

// Tells the user about a session's first path (process context: connection
// 0 completes in a kworker).
void Path::announce_session()
{
    Context& context = session_.context();
    bool announce = false;
    {
        MutexGuard guard(context.mutex());
        if (!session_.announced) {
            session_.announced = true;
            announce = true;
        }
    }
    if (announce && context.callbacks().link_event)
        context.callbacks().link_event(cxxrt::to_handle(&session_), RTRS_SERVER_LINK_CONNECTED, session_.user_context);
}

void Path::send_heartbeat()
{
    if (!is_connected())
        return;
    switch (heartbeat_.tick(cxxrt::monotonic_ns())) {
    case Heartbeat::Action::kClose:
        schedule_close("heartbeats missed");
        return;
    case Heartbeat::Action::kSend: {
        if (g_faults.drop_heartbeats.get())
            break;
        ServerConnection* service = connections_[0].get();
        IrqSpinGuard guard(service->post_lock());
        if (service->qp()
                .post_write_imm(&service->send_done, {}, ib::RemoteBuffer{}, wire::kHeartbeatImm, ib::kSignaled)
                .is_error()) {
            schedule_close("cannot send heartbeat");
            return;
        }
        break;
    }
    case Heartbeat::Action::kWait:
        break;
    }
    heartbeat_work_.queue(Heartbeat::kIntervalMs);
}

void Path::schedule_close(const char* reason)
{
    if (!protocol_.close())
        return;
    log::info("closing a path of session %s: %s", session_.name(), reason);
    close_work_.queue();
}

// Process context. Stops traffic, waits for the user to answer every IO it
// holds, then frees everything (the context unlinks and destroys us).
void Path::close_now()
{
    // A connect request that found this path before it closed counted
    // itself under the context lock: taking that lock once makes its count
    // visible, and later requests no longer find a closing path.
    { MutexGuard guard(session_.context().mutex()); }
    setups_.wait_idle();
    sysfs_.remove();  // waits for running show/store handlers
    cancel_works();
    for_each_connection([](ServerConnection& connection) { connection.disconnect(); });
    for_each_connection([](ServerConnection& connection) { connection.drain(); });
    // After the drain no receive handler can queue it again.
    setup_work_.cancel_sync();
    while (!inflight_.wait_idle_timeout(10000))
        log::warn("session %s: waiting for the user to answer %u IOs", session_.name(), inflight_.count());
    session_.context().path_closed(*this);  // destroys this path
}

}  // namespace rtrs::srv
