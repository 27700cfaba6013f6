// Server connections and the IO path: receives, immediates, handing IOs
// to the user, and answering them.
#include <cxxrt/log.hpp>
#include <cxxrt/scope_guard.hpp>
#include "rtrs/trace/rtrs-events.hpp"
#include "rtrs/server/rtrs-srv.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::srv {

using namespace cxxrt;

namespace {

// Room in each send queue: an IO answer takes up to five work requests
// (LOCAL_INV and REG_MR of the chunk, READ data, SEND_WITH_INV, the answer
// itself), plus control sends.
u32 send_queue_size(const Params& p) { return p.queue_depth * 5 + 16; }
u32 receive_queue_size(const Params& p) { return p.queue_depth + 16; }

// The rtrs_srv event send_io_resp_imm, as Linux fires it: for an answer
// without READ data. Out of line and cold: the IO path only tests the
// event's on-word (rtrs/trace/kapi-rtrs-trace.h). The unsignalled-send
// count is not kept (0); the signal interval is the connection's.
[[gnu::cold, gnu::noinline]] void trace_answer(Path& path, const ServerIo& io, bool always_invalidate, int error)
{
    int state = RTRS_TRACE_SRV_CONNECTING;
    switch (path.protocol().state()) {
    case PathProtocol::State::kConnecting:
    case PathProtocol::State::kInfoReceived:
        break;
    case PathProtocol::State::kReady: state = RTRS_TRACE_SRV_CONNECTED; break;
    case PathProtocol::State::kClosed: state = RTRS_TRACE_SRV_CLOSING; break;
    }
    ktrace::rtrs_srv::send_io_resp_imm(path.sysfs_name(), io.is_read ? RTRS_TRACE_DIR_READ : RTRS_TRACE_DIR_WRITE,
                                       io.need_invalidate, always_invalidate, io.chunk_id, 0,
                                       int(io.connection->signal_interval()), state, error);
}

}  // namespace

// ---- connection setup and CM events ----

ServerConnection::~ServerConnection()
{
    connection_.reset();  // QP and CQ go first, then the cm_id
    receive_buffer_.reset();
    slots_.reset();
}

Result<void> ServerConnection::setup(ib::IncomingConnection& incoming, RefPtr<ib::ProtectionDomain> pd)
{
    const Params& p = params();
    auto id = CXXRT_TRY(ib::CmId::adopt(Gfp::kernel(), incoming, *this));
    connection_ = CXXRT_TRY(ib::Connection::create(Gfp::kernel(), move(id)));
    ib::ConnectionConfig config;
    config.qp.max_send_wr = send_queue_size(p);
    config.qp.max_recv_wr = receive_queue_size(p);
    // Two: a KEY_AFTER_DATA answer writes the chunk's data and the new rkey.
    config.qp.max_send_sge = 2;
    config.qp.max_recv_sge = 1;
    config.comp_vector = cid_ > 0 ? cid_ - 1 : 0;
    // Connection 0 carries INFO_REQ, whose handling sleeps (user callback,
    // locks): its completions run in a kworker. IO completions: softirq.
    config.poll = cid_ == 0 ? ib::PollContext::kWorkqueue : ib::PollContext::kSoftirq;
    // wc_completion: the batches our own reaping of IO connections sees
    // (the core reaps connection 0's CQ and tells nobody).
    config.batches = ib::BatchObserver{&Path::count_batch, &path_};
    CXXRT_TRY(connection_->create_queues(Gfp::kernel(), move(pd), config));

    if (cid_ == 0) {
        slots_ = CXXRT_TRY(cxxrt::Array<ReceiveSlot>::create(Gfp::kernel(), p.queue_depth + 4));
        receive_buffer_ = CXXRT_TRY(ib::DmaBuffer::create(Gfp::kernel(), connection_->device(),
                                                          slots_.size() * kReceiveSize, ib::DmaDirection::kFromDevice));
        for (u32 i = 0; i < slots_.size(); ++i) {
            slots_[i].connection = this;
            slots_[i].index = i;
            CXXRT_TRY(repost_receive(&slots_[i]));
        }
    } else {
        for (u32 i = 0; i < p.queue_depth + 4; ++i)
            CXXRT_TRY(repost_receive(nullptr));
    }

    codec::ConnRspFields fields;
    fields.queue_depth = u16(p.queue_depth);
    fields.max_io_size = p.max_io_size();
    fields.max_hdr_size = Params::kMaxHeaderSize;
    fields.flags = p.always_invalidate ? u32(wire::kMsgFlagNewRkey) : 0;
    if (key_after_data_)
        fields.flags |= wire::kMsgFlagKeyAfterData;
    u8 message[sizeof(wire::ConnRsp)];
    size_t length = CXXRT_TRY(codec::build_conn_rsp(ByteSpan(message), fields));
    if (u64 timeout = g_faults.ack_timeout.get())
        CXXRT_TRY(connection_->cm_id().set_ack_timeout(u8(min<u64>(timeout, 31))));
    return connection_->cm_id().accept(ConstByteSpan(message, length), 7);
}

Result<void> ServerConnection::repost_receive(ReceiveSlot* slot)
{
    if (!slot)
        return connection_->qp().post_recv(immediate_done_);
    ib::Sge sge = receive_buffer_->sge(connection_->pd().local_dma_lkey(), slot->index * kReceiveSize, kReceiveSize);
    return connection_->qp().post_recv(slot->done, Span<const ib::Sge>(&sge, 1));
}

void ServerConnection::on_cm_event(ib::CmId& id, const ib::CmEvent& event)
{
    switch (event.type) {
    case ib::CmEventType::kEstablished:
        established_.store(true);
        path_.connection_established(*this);
        break;
    case ib::CmEventType::kDisconnected:
        path_.schedule_close("client disconnected");
        break;
    case ib::CmEventType::kConnectError:
    case ib::CmEventType::kUnreachable:
    case ib::CmEventType::kRejected:
    case ib::CmEventType::kDeviceRemoval:
    case ib::CmEventType::kAddrChange:
        log::warn("connection %u: %s (%d)", unsigned(cid_), event.name(), event.status);
        path_.schedule_close(event.name());
        break;
    default:
        break;
    }
}

void ServerConnection::disconnect()
{
    // A refused connection's id went back to the CM (raw() is null).
    if (connection_ && connection_->cm_id().raw())
        (void)connection_->cm_id().disconnect();
}

void ServerConnection::abandon()
{
    if (connection_ && connection_->has_queues()) {
        connection_->drain();
        connection_->destroy_queues();
    }
}

void ServerConnection::add_reregister(ib::SendChain& chain, ib::MemoryRegion& region, ib::Access access)
{
    // The LOCAL_INV finds the region already invalid (invalidated when its
    // IO arrived, or never registered): it is there for rxe's fence, so
    // that the REG_MR behind it is never behind an unacknowledged WR.
    chain.invalidate(region.rkey(), nullptr, ib::kUnsignaled);
    region.bump_key();
    chain.register_region(region, access, nullptr, ib::kUnsignaled);
}

Result<void> ServerConnection::post_reregister(ib::MemoryRegion& region, ib::Access access)
{
    ib::SendChain chain;
    add_reregister(chain, region, access);
    return chain.post(qp());
}

void ServerConnection::release_queues()
{
    if (connection_)
        connection_->destroy_queues();
    receive_buffer_.reset();
}

void ServerConnection::drain()
{
    if (connection_ && connection_->has_queues())
        connection_->drain();
}

// A work request that fails, signalled or not, puts the QP in the error
// state and every later one completes flushed; an unsignalled failure has no
// completion of its own (the verbs layer drops it). So a flushed completion
// on a path that is not closing is the only news of a dead QP: close.
void ServerConnection::on_send_done(const ib::WorkCompletion& wc)
{
    if (wc.ok())
        return;
    if (!wc.flushed())
        log::err_ratelimited("connection %u: send failed: %s", unsigned(cid_), wc.status_text());
    path_.schedule_close(wc.flushed() ? "work request flushed" : "send failed");
}

// ---- receives ----

void ReceiveSlot::on_received(const ib::WorkCompletion& wc)
{
    ServerConnection& con = *connection;
    if (!wc.ok()) {
        con.path().schedule_close(wc.flushed() ? "receive flushed" : "receive failed");
        return;
    }
    if (wc.has_imm()) {
        con.handle_immediate(wc);
    } else {
        // A plain SEND: only INFO_REQ is defined from a client, once.
        Verdict verdict = con.path().protocol().received(con.cid(), ClientMessage::kInfoRequest);
        con.path().enforce(verdict, "INFO_REQ", con.cid());
        if (verdict == Verdict::kAccept) {
            con.receive_buffer_->sync_for_cpu();
            ConstByteSpan message(con.receive_buffer_->data() + index * ServerConnection::kReceiveSize,
                                  min<u32>(wc.byte_len, ServerConnection::kReceiveSize));
            con.path().info_request_received(message);
        }
    }
    if (!con.path().is_closing() && con.repost_receive(this).is_error())
        con.path().schedule_close("cannot repost a receive");
}

void ServerConnection::on_immediate(const ib::WorkCompletion& wc)
{
    if (!wc.ok()) {
        path_.schedule_close(wc.flushed() ? "receive flushed" : "receive failed");
        return;
    }
    if (!wc.has_imm()) {
        log::err_ratelimited("connection %u: receive without immediate", unsigned(cid_));
        path_.schedule_close("protocol error");
        return;
    }
    handle_immediate(wc);
    if (!path_.is_closing() && repost_receive(nullptr).is_error())
        path_.schedule_close("cannot repost a receive");
}

void ServerConnection::handle_immediate(const ib::WorkCompletion& wc)
{
    const u32 imm = wc.imm();
    const ClientMessage message = classify_client_immediate(imm);
    Verdict verdict = path_.protocol().received(cid_, message);
    if (verdict != Verdict::kAccept) {
        if (message == ClientMessage::kOther)
            log::err_ratelimited("connection %u: immediate %#x is not one a client sends", unsigned(cid_), imm);
        path_.enforce(verdict, message == ClientMessage::kIoRequest ? "IO request" : "immediate", cid_);
        return;
    }
    path_.heartbeat().saw_traffic();
    switch (message) {
    case ClientMessage::kIoRequest:
        path_.handle_io_request(*this, imm);
        break;
    case ClientMessage::kHeartbeat:
        if (g_faults.drop_heartbeat_acks.get())
            break;
        if (IrqSpinGuard guard(post_lock_);
            qp().post_write_imm(&send_done, {}, ib::RemoteBuffer{}, wire::kHeartbeatAckImm, ib::kSignaled).is_error())
            path_.schedule_close("cannot answer a heartbeat");
        break;
    case ClientMessage::kHeartbeatAck:
        path_.heartbeat().saw_ack(cxxrt::monotonic_ns());
        break;
    case ClientMessage::kInfoRequest:
    case ClientMessage::kOther:
        break;
    }
}

// ---- IO ----

void Path::handle_io_request(ServerConnection& connection, u32 imm)
{
    auto request = codec::decode_io_request_imm(geometry_, imm);
    if (request.is_error()) {
        log::err_ratelimited("session %s: IO immediate %#x outside the chunks", session_.name(), imm);
        schedule_close("bad IO immediate");
        return;
    }
    ServerIo& io = ios_[request.value().chunk_id];
    if (io.busy.exchange(true)) {
        log::err_ratelimited("session %s: chunk %u reused while in flight", session_.name(), io.chunk_id);
        schedule_close("chunk reused while in flight");
        return;
    }
    io.connection = &connection;
    io.offset = request.value().offset;
    inflight_.enter();
    // The chunk is the session's: another path (a failed one the client
    // left, or this one's predecessor) may still have an IO on it in its
    // backend. Only the IO that takes the owner word touches the chunk.
    if (session_.chunk_owners().take(io.chunk_id, owner_id()) != ChunkOwners::Take::kTaken) {
        refuse_held_chunk(io);
        return;
    }
    io.owns_chunk = true;
    if (params().always_invalidate) {
        // The client's rkey for this chunk dies before we look at the data;
        // the answer carries the new one.
        IrqSpinGuard guard(connection.post_lock());
        if (chunk_regions_[io.chunk_id]->post_invalidate(connection.qp(), &io.invalidate_done, ib::kSignaled).is_error()) {
            // The client's key may still be live: serving or answering now
            // would hand out a chunk it can still write. The path goes.
            schedule_close("cannot invalidate a chunk");
            io_finished(io);
        }
        return;
    }
    process_io(io);
}

// This path's busy flag guards `io` (no other IO of this path is in the
// chunk), so kHeldBySelf cannot happen: whatever take() said, the holder is
// another path, which may be writing the chunk right now (a READ's data
// from its backend) or reading it (a WRITE's). So nothing of the chunk is
// read, not even the request message: the answer says ENOMEM, without
// READ data and without invalidating the client's key (the message naming
// it is not read; clients invalidate a registered READ buffer themselves
// when the answer did not). ENOMEM is the remote errno our client retries
// within the request's timeout (rnbd-clt-dev-io.cpp: retry_error); Linux's
// rnbd-clt ends the block request with BLK_STS_RESOURCE, an error
// dm-multipath retries on another path. With always_invalidate the answer
// still re-registers this path's key for the chunk and carries it.
void Path::refuse_held_chunk(ServerIo& io)
{
    g_counters.chunk_conflicts.add(1);
    log::warn_ratelimited("session %s: IO in chunk %u refused: another path of the session has an IO in flight "
                          "on it (%d)",
                          session_.name(), io.chunk_id, -err::kNoMem);
    io.owns_chunk = false;
    io.is_read = false;
    io.has_descriptor = false;
    io.need_invalidate = false;
    io.descriptor = codec::SgEntry{};
    respond(io, -err::kNoMem);
}

void ServerIo::on_invalidated(const ib::WorkCompletion& wc)
{
    if (!wc.ok()) {
        path->schedule_close(wc.flushed() ? "work request flushed" : "chunk invalidation failed");
        path->io_finished(*this);
        return;
    }
    path->process_io(*this);
}

void Path::process_io(ServerIo& io)
{
    ib::DmaBuffer& chunk = *chunks_[io.chunk_id];
    chunk.sync_for_cpu();
    auto request = codec::decode_io_request(ConstByteSpan(chunk.data(), chunk.size()), io.offset);
    if (request.is_error()) {
        log::err_ratelimited("session %s: malformed IO in chunk %u: %d", session_.name(), io.chunk_id,
                             request.to_errno());
        schedule_close("malformed IO message");
        io_finished(io);
        return;
    }
    // Only the decoded copy is used from here on: the client can still
    // write the chunk, so its message is never read twice.
    const codec::IoRequest& view = request.value();
    io.is_read = view.type == wire::MsgType::kRead;
    io.has_descriptor = io.is_read && view.sg_cnt > 0;
    io.need_invalidate = io.has_descriptor && (view.flags & wire::kMsgFlagNeedInvalidate);
    io.descriptor = io.has_descriptor ? view.desc(0) : codec::SgEntry{};
    const u32 data_length = io.is_read ? io.descriptor.len : view.data_len;
    cpu_stats_.with_this_cpu([&](ServerCpuStats& stats) {
        record_request(stats, io.is_read ? Direction::kRead : Direction::kWrite, u64(data_length) + view.usr_len);
    });
    const rtrs_server_callbacks& callbacks = session_.context().callbacks();
    int rc = callbacks.io(session_.user_context, cxxrt::to_handle(&io),
                          io.is_read ? RTRS_READ : RTRS_WRITE, chunk.data(), data_length, view.usr.data(),
                          u32(view.usr.size()));
    if (rc < 0)
        respond(io, rc);
}

void Path::respond(ServerIo& io, int error)
{
    if (is_closing()) {
        io_finished(io);
        return;
    }
    // post_answer() frees the chunk; the IO stays in flight until its answer
    // is posted, so a closing path waits for the post to return.
    if (post_answer(io, error).is_error())
        schedule_close("cannot answer an IO");
    inflight_.leave();
}

// The work requests of one answer, in send-queue order: the new chunk
// registration (always_invalidate; see ServerConnection::post_lock() for why
// it comes first, behind a LOCAL_INV), the READ data, the invalidation of
// the client's buffer, and the answer itself (the only signalled one; it
// carries the READ data itself when there is neither of the other two).
Result<void> Path::post_answer(ServerIo& io, int error)
{
    // The chunk is free from the moment its answer is posted: on a real NIC
    // the client may see the answer and send the chunk's next IO before this
    // CPU returns from the post (an interrupt in between is enough), and a
    // chunk still marked busy then closes a healthy path as "reused while in
    // flight" (or, sent on another path, is refused as held). So it is freed
    // (the session's owner word, then this path's flag) just before that
    // post, and nothing after it reads `io`; send-queue order still lands
    // the READ data and the re-registration before the answer. On an error,
    // at the exit.
    cxxrt::ScopeGuard give_back([this, &io] { free_chunk(io); });
    const Params& p = params();
    ib::QueuePair& qp = io.connection->qp();
    ib::DmaBuffer& chunk = *chunks_[io.chunk_id];
    const u32 lkey = pd_->local_dma_lkey();
    if (ktrace::rtrs_srv::send_io_resp_imm_enabled() && !(io.is_read && error == 0 && io.has_descriptor)) [[unlikely]]
        trace_answer(*this, io, p.always_invalidate, error);
    u32 imm = CXXRT_TRY(codec::encode_io_response_imm(io.chunk_id, error, io.need_invalidate));
    IrqSpinGuard guard(io.connection->post_lock());
    ib::MemoryRegion& region = *chunk_regions_[io.chunk_id];
    // The whole answer is one post (at most 5 WRs): the re-registration,
    // the READ data, the invalidation of the client's buffer, the answer.
    ib::SendChain chain;
    // The data is read through the DMA lkey, not this MR: registering it
    // before the READ data is sent changes nothing for the data, and the
    // client learns the new rkey only from the answer, after the data.
    if (p.always_invalidate)
        io.connection->add_reregister(chain, region, ib::kLocalWrite | ib::kRemoteWrite | ib::kRemoteRead);
    const bool sends_data = io.is_read && error == 0 && io.has_descriptor;
    // The READ data rides in the answer's RDMA write with immediate when
    // nothing has to come between them: no invalidation of the client's
    // buffer, and either no new key to tell (always_invalidate=N) or room
    // for it right after the data (wire::kMsgFlagKeyAfterData). A client
    // reads only the immediate; the data is in place before that completes.
    const bool data_in_answer =
        sends_data && !io.need_invalidate && (!p.always_invalidate || io.connection->key_after_data());
    const ib::RemoteBuffer destination{io.descriptor.addr, io.descriptor.key};
    // The answer's SGEs: [READ data][new rkey], as it needs; they must live
    // until the chain is posted.
    ib::Sge answer[2];
    u32 answer_sges = 0;
    ib::Sge rkey_response;  // the RKEY_RSP SEND's, when the answer is one
    if (sends_data) {
        chunk.sync_for_device();
        answer[0] = chunk.sge(lkey, 0, io.descriptor.len);
        if (data_in_answer)
            answer_sges = 1;
        else
            chain.write(Span<const ib::Sge>(answer, 1), destination, nullptr, ib::kUnsignaled);
    }
    if (io.need_invalidate)
        chain.send_inv(Span<const ib::Sge>(), io.descriptor.key, nullptr, ib::kUnsignaled);
    ib::Completion* const done = &io.response_done;
    if (!p.always_invalidate) {
        chain.write_imm(Span<const ib::Sge>(answer, answer_sges), data_in_answer ? destination : ib::RemoteBuffer{},
                        imm, done, io.connection->next_answer_signal());
    } else {
        const size_t slot = io.chunk_id * sizeof(wire::RkeyRsp);
        CXXRT_TRY(codec::build_rkey_rsp(rkey_responses_->bytes().slice(slot, sizeof(wire::RkeyRsp)),
                                        u16(io.chunk_id), region.rkey()));
        rkey_responses_->sync_for_device();
        if (data_in_answer) {
            // The new rkey (the RKEY_RSP's le32 field) right behind the data.
            answer[answer_sges++] =
                rkey_responses_->sge(lkey, slot + __builtin_offsetof(wire::RkeyRsp, rkey), sizeof(cxxrt::le32));
            chain.write_imm(Span<const ib::Sge>(answer, answer_sges), destination, imm, done,
                            io.connection->next_answer_signal());
        } else {
            rkey_response = rkey_responses_->sge(lkey, slot, sizeof(wire::RkeyRsp));
            chain.send_imm(Span<const ib::Sge>(&rkey_response, 1), imm, done, io.connection->next_answer_signal());
        }
    }
    give_back.call();
    return chain.post(qp);
}

void ServerIo::on_response_sent(const ib::WorkCompletion& wc)
{
    // The IO itself finished when its answer was posted (see respond()).
    if (!wc.ok())
        path->schedule_close(wc.flushed() ? "work request flushed" : "IO answer failed");
}

void Path::count_batch(void* context, u32 completions, bool)
{
    static_cast<Path*>(context)->cpu_stats_.with_this_cpu(
        [completions](ServerCpuStats& stats) { record_completions(stats.completions, completions); });
}

void Path::free_chunk(ServerIo& io)
{
    // The owner word first: once this path's flag is free another IO of
    // this path may take the chunk again, and must find the word free.
    if (io.owns_chunk) {
        io.owns_chunk = false;
        session_.chunk_owners().release(io.chunk_id);
    }
    io.busy.store(false);
}

void Path::io_finished(ServerIo& io)
{
    free_chunk(io);
    inflight_.leave();
}

}  // namespace rtrs::srv
