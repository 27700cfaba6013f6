// rtrs-client: a path's connect handshake: the protection domain, each
// connection's CM connect with its CON_REQ/CON_RSP, the INFO_REQ/INFO_RSP
// exchange, and the request slots the server's INFO_RSP sizes.
#include <cxxrt/log.hpp>
#include "common/rtrs-addr.hpp"
#include "rtrs/client/rtrs-clt-upcalls.h"
#include "rtrs/client/rtrs-clt.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::clt {

namespace {

Result<ib::SockAddr> to_sockaddr(const rtrs_address& address, u16 port)
{
    return ib::SockAddr::from_parts(address.family, address.bytes, address.scope_id, port);
}

}  // namespace

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
        // Heartbeats, their acks, INFO_REQ and the read slots' LOCAL_INV
        // and REG_MR.
        send = kServiceReceives + 4;
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
    // Our READ buffers without NEED_INVAL are read slots, which have room
    // for the key after the data.
    fields.key_after_data = ReadSlots::asks_key_after_data();
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
        // The IO connections' send queues hold 3 work requests per IO of
        // the queue depth (connection_config): signalling one IO in
        // queue_depth keeps them from filling.
        connections_[cid] = CXXRT_TRY(cxxrt::make_unique<ClientConnection>(Gfp::kernel(), *this, u16(cid),
                                                                           cid == 0 ? 1u : params_.queue_depth));
        ClientConnection* connection = connections_[cid].get();
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
    limits.asked_key_after_data = ReadSlots::asks_key_after_data();
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
    chunks_.reset();
    chunks_ = CXXRT_TRY(cxxrt::Array<RemoteChunk>::create_zeroed(Gfp::kernel(), params_.queue_depth));
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
    requests_ = CXXRT_TRY(cxxrt::Array<PathRequest>::create(Gfp::kernel(), params_.queue_depth,
                                                            [this](u32 index) { return PathRequest(*this, index); }));
    CXXRT_TRY(table_.init(params_.queue_depth, Gfp::kernel()));
    for (u32 i = 0; i < requests_.size(); ++i) {
        CXXRT_TRY(requests_[i].init(pd_->device(), pd_, message_size_, session_.max_segments(), pages));
        // Only if two MRs shared an index (never seen): then no server
        // invalidation is trusted and every READ is invalidated here.
        if (!table_.index_rkey(i, requests_[i].mr_->rkey()))
            cxxrt::log::warn_ratelimited("%s: MR index shared, invalidating every READ locally", name_);
    }
    return create_read_slots();
}

Result<void> Path::create_read_slots()
{
    read_slots_.reset();
    auto attrs = pd_->device().attrs();
    const u32 count = cxxrt::min(cxxrt::min(g_read_slots, u32(params_.queue_depth)), attrs.max_fast_reg_page_list_len);
    if (count == 0)
        return {};
    if (auto created = read_slots_.create(pd_->device(), pd_, count); !created) {
        // A path that registers every READ still works: no reason to fail.
        cxxrt::log::warn("%s: no read slots (%d): every READ registers its pages", name_, created.to_errno());
        read_slots_.reset();
        return {};
    }
    // On the service connection, which carries no IO yet: the first READ
    // that names the slots' key is posted after this completed.
    ClientConnection& service = *connections_[0];
    read_slots_registered_.reinit();
    read_slots_result_ = -cxxrt::err::kConnReset;
    {
        ib::SendChain chain;
        read_slots_.add_registration(chain, &read_slots_done_);
        cxxrt::IrqSpinGuard guard(service.post_lock());
        CXXRT_TRY(chain.post(service.qp()));
    }
    if (!read_slots_registered_.wait_timeout(kConnectTimeoutMs)) {
        cxxrt::log::err("%s: read slots not registered within %u ms", name_, kConnectTimeoutMs);
        return Error(cxxrt::err::kTimedOut);
    }
    if (read_slots_result_)
        return Error::from_errno(read_slots_result_);
    read_slots_.set_registered();
    return {};
}

void Path::on_read_slots_registered(const ib::WorkCompletion& wc)
{
    if (!wc.ok() && !wc.flushed())
        cxxrt::log::err_ratelimited("%s: read slots registration failed: %s", name_, wc.status_text());
    read_slots_result_ = wc.ok() ? 0 : -cxxrt::err::kConnReset;
    read_slots_registered_.complete();
}

}  // namespace rtrs::clt
