// Server path: its connections, chunk memory and registrations, the
// INFO exchange, heartbeats, and the teardown.
#include <cxxrt/log.hpp>
#include "rtrs/rtrs-srv.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::srv {

using namespace cxxrt;

namespace {

constexpr auto kChunkAccess = ib::kLocalWrite | ib::kRemoteWrite | ib::kRemoteRead;

}  // namespace

Path::Path(Session& session, const codec::ConnReqFields& request)
    : session_(session), uuid_(request.sess_uuid), connection_count_(request.cid_num),
      reconnect_count_(request.recon_cnt)
{
}

Result<void> Path::init(ib::Device device)
{
    const Params& p = params();
    device_ = device;
    geometry_ = CXXRT_TRY(codec::make_chunk_geometry(p.queue_depth, p.chunk_size));
    pd_ = CXXRT_TRY(ib::ProtectionDomain::create(Gfp::kernel(), device));
    cpu_stats_ = CXXRT_TRY(PerCpu<ServerCpuStats>::create(Gfp::kernel()));
    connections_ = allocate_array<ServerConnection*>(Gfp::kernel(), connection_count_);
    chunks_ = allocate_array<UniquePtr<ib::DmaBuffer>>(Gfp::kernel(), p.queue_depth);
    chunk_regions_ = allocate_array<UniquePtr<ib::MemoryRegion>>(Gfp::kernel(), p.queue_depth);
    ios_ = allocate_array<ServerIo>(Gfp::kernel(), p.queue_depth);
    descriptors_ = allocate_array<codec::SgEntry>(Gfp::kernel(), p.queue_depth);
    if (!connections_ || !chunks_ || !chunk_regions_ || !ios_ || !descriptors_)
        return Error(err::kNoMem);
    // The arrays are zeroed memory: give their elements real construction.
    for (u32 i = 0; i < p.queue_depth; ++i) {
        new (&chunks_[i]) UniquePtr<ib::DmaBuffer>();
        new (&chunk_regions_[i]) UniquePtr<ib::MemoryRegion>();
        new (&ios_[i]) ServerIo();
        ios_[i].path = this;
        ios_[i].chunk_id = i;
    }
    const u32 pages = p.chunk_size / ib::MemoryRegion::kPageSize;
    for (u32 i = 0; i < p.queue_depth; ++i) {
        chunks_[i] = CXXRT_TRY(ib::DmaBuffer::create(Gfp::kernel(), device, p.chunk_size,
                                                     ib::DmaDirection::kBidirectional));
        chunk_regions_[i] = CXXRT_TRY(ib::MemoryRegion::create(Gfp::kernel(), pd_, pages));
        CXXRT_TRY(chunk_regions_[i]->map(*chunks_[i], 0, p.chunk_size));
    }
    info_response_ = CXXRT_TRY(ib::DmaBuffer::create(
        Gfp::kernel(), device, sizeof(wire::InfoRspHeader) + p.queue_depth * sizeof(wire::SgDesc),
        ib::DmaDirection::kToDevice));
    rkey_responses_ = CXXRT_TRY(
        ib::DmaBuffer::create(Gfp::kernel(), device, p.queue_depth * sizeof(wire::RkeyRsp), ib::DmaDirection::kToDevice));
    return {};
}

Path::~Path()
{
    const Params& p = params();
    heartbeat_work_.cancel_sync();
    if (connections_) {
        for (u16 cid = 0; cid < connection_count_; ++cid)
            destroy(connections_[cid]);
        free_array(connections_);
    }
    // MRs before the PD and the memory they cover.
    if (chunk_regions_) {
        for (u32 i = 0; i < p.queue_depth; ++i)
            chunk_regions_[i].~UniquePtr();
        free_array(chunk_regions_);
    }
    if (chunks_) {
        for (u32 i = 0; i < p.queue_depth; ++i)
            chunks_[i].~UniquePtr();
        free_array(chunks_);
    }
    if (ios_) {
        for (u32 i = 0; i < p.queue_depth; ++i)
            ios_[i].~ServerIo();
        free_array(ios_);
    }
    free_array(descriptors_);
}

Result<void> Path::add_connection(ib::IncomingConnection& incoming, u16 cid)
{
    if (!(incoming.device() == device_))
        return Error(err::kInval);  // all connections of a path share one device
    auto* connection = allocate<ServerConnection>(Gfp::kernel(), *this, cid);
    if (!connection)
        return Error(err::kNoMem);
    connections_[cid] = connection;  // owned by the path from here on, even if setup fails
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
    Context& context = session_.context();
    if (context.session_name_taken(session_, name)) {
        log::err_ratelimited("session name %.*s is already used by another client", int(name.length()), name.data());
        schedule_close("duplicate session name");
        return;
    }
    if (!session_.has_name())
        session_.set_name(name);
    else if (!(StringView(session_.name()) == name)) {
        schedule_close("session name changed");
        return;
    }

    // Publish the chunks: register every chunk MR, then tell the client
    // where they are. Send-queue order makes the registrations take effect
    // before the client can see the INFO_RSP.
    const Params& p = params();
    ServerConnection* service = connections_[0];
    for (u32 i = 0; i < p.queue_depth; ++i) {
        ib::MemoryRegion& mr = *chunk_regions_[i];
        if (mr.post_register(service->qp(), nullptr, kChunkAccess, ib::kUnsignaled).is_error()) {
            schedule_close("cannot register chunk memory");
            return;
        }
        descriptors_[i] = codec::SgEntry{mr.iova(), mr.rkey(), p.chunk_size};
    }
    auto built = codec::build_info_rsp(info_response_->bytes(), Span<const codec::SgEntry>(descriptors_, p.queue_depth));
    if (built.is_error()) {
        schedule_close("cannot build INFO_RSP");
        return;
    }
    // The user learns about the session before the client can send its first
    // request, which it may do as soon as it has the INFO_RSP.
    announce_session();
    info_response_->sync_for_device();
    ib::Sge sge = info_response_->sge(pd_->local_dma_lkey(), 0, built.value());
    if (service->qp().post_send(&service->send_done, Span<const ib::Sge>(&sge, 1), ib::kSignaled).is_error()) {
        schedule_close("cannot send INFO_RSP");
        return;
    }
    State expected = State::kConnecting;
    if (!state_.compare_exchange(expected, State::kConnected))
        return;
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
        context.callbacks().link_event(reinterpret_cast<rtrs_server_session*>(&session_), RTRS_SERVER_LINK_CONNECTED,
                                       session_.user_context);
}

void Path::send_heartbeat()
{
    if (!is_connected())
        return;
    switch (heartbeat_.tick(kapi_ktime_ns())) {
    case Heartbeat::Action::kClose:
        schedule_close("heartbeats missed");
        return;
    case Heartbeat::Action::kSend: {
        if (__atomic_load_n(&g_faults.drop_heartbeats, __ATOMIC_RELAXED))
            break;
        ServerConnection* service = connections_[0];
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
    State previous = state_.exchange(State::kClosing);
    if (previous == State::kClosing)
        return;
    log::info("closing a path of session %s: %s", session_.name(), reason);
    close_work_.queue();
}

// Process context. Stops traffic, waits for the user to answer every IO it
// holds, then frees everything (the context unlinks and destroys us).
void Path::close_now()
{
    sysfs_.remove();  // waits for running show/store handlers
    heartbeat_work_.cancel_sync();
    for (u16 cid = 0; cid < connection_count_; ++cid)
        if (connections_[cid])
            connections_[cid]->disconnect();
    for (u16 cid = 0; cid < connection_count_; ++cid)
        if (connections_[cid])
            connections_[cid]->drain();
    while (!idle_.wait_timeout([this] { return inflight_.load() == 0; }, 10000))
        log::warn("session %s: waiting for the user to answer %u IOs", session_.name(), inflight_.load());
    session_.context().path_closed(*this);  // destroys this path
}

}  // namespace rtrs::srv
