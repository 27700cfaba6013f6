// rtrs-client: a path's IO: picking the connection, submitting a permit's
// request (with its memory registration), polled queues, the server's
// answers, and failing over what a dying path still holds.
#include <cxxrt/log.hpp>
#include <cxxrt/time.hpp>
#include "common/rtrs-addr.hpp"
#include "rtrs/client/rtrs-clt-upcalls.h"
#include "rtrs/client/rtrs-clt.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::clt {

// --- IO ---------------------------------------------------------------------


ClientConnection* Path::io_connection(const Permit& permit)
{
    if (permit.poll_queue != Permit::kNotPolled && poll_connection_count_)
        return connections_[irq_connection_count_ + u32(permit.poll_queue) % poll_connection_count_].get();
    // The IO connection of the submitting CPU (cids 1..N), so completions
    // come back on that CPU's completion vector.
    u32 io_connections = irq_connection_count_ - 1;
    if (io_connections == 0)
        return connections_[0].get();
    return connections_[1 + cxxrt::current_cpu_hint() % io_connections].get();
}

int Path::poll(u32 poll_queue)
{
    if (poll_connection_count_ == 0)
        return 0;
    cxxrt::DrainCounter::Scope submitter(submitters_);
    if (!connected())
        return 0;
    return connections_[irq_connection_count_ + poll_queue % poll_connection_count_]->poll();
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

// One IO on its way to the QP: what the steps of submit() build and hand on.
struct Path::Submission {
    Permit& permit;
    PathRequest& request;
    RequestSlot& slot;
    ClientConnection* connection;
    u8* message;
    const u32 lkey;
    const bool is_read;
    const bool in_slot;  // a READ landing in the path's read slot (rtrs-clt-read-slots.hpp)
    int dma_entries = 0;
    RemoteChunk chunk{};
    ib::Sge sges[kMaxSge]{};
    u32 sge_count = 0;
    codec::IoPlan plan{};
    u64 remote_addr = 0;
    u32 invalid_key = 0;

    // A step failed after the mapping: unmap, give the permit up.
    Result<void> fail(Error error)
    {
        if (request.sg_mapped_)
            request.sg_->unmap();
        request.sg_mapped_ = false;
        request.permit_ = nullptr;
        return error;
    }
};

// The request takes the permit's IO: its header, the path, the DMA mapping
// of its data, and where its chunk lives on the server.
[[gnu::always_inline]] inline Result<void> Path::start_request(Submission& io)
{
    Permit& permit = io.permit;
    PathRequest& request = io.request;
    if (permit.header_length)
        cxxrt::copy_bytes(io.message, permit.user_header.data(), permit.header_length);

    request.permit_ = &permit;
    permit.path_index.store(index_, cxxrt::MemoryOrder::kRelaxed);
    request.connection_ = io.connection;
    request.sg_mapped_ = false;
    request.in_read_slot_ = io.in_slot;
    request.pending_errno_ = 0;

    if (permit.data_length && !io.in_slot) {
        auto mapped = map_user_sg(*request.sg_, permit.sg, permit.sg_count, permit.data_length, pd_->device(),
                                  io.is_read ? ib::DmaDirection::kFromDevice : ib::DmaDirection::kToDevice);
        if (!mapped)
            return mapped.error();
        request.sg_mapped_ = true;
        io.dma_entries = mapped.value();
    }
    io.chunk = chunks_[permit.id];
    io.chunk.rkey = cxxrt::AtomicRef<u32>(chunks_[permit.id].rkey).load(cxxrt::MemoryOrder::kRelaxed);
    io.remote_addr = io.chunk.addr;
    return {};
}

// A READ: the server RDMA-writes the data into our pages, registered under
// a fresh key; the message carries their descriptor.
[[gnu::always_inline]] inline Result<void> Path::build_read(Submission& io)
{
    Permit& permit = io.permit;
    PathRequest& request = io.request;
    auto planned = codec::plan_read(geometry_, permit.data_length, permit.header_length, permit.data_length ? 1 : 0);
    if (!planned)
        return io.fail(planned.error());
    io.plan = planned.value();
    codec::SgEntry descriptor;
    u16 flags = 0;
    if (io.in_slot) {
        // No registration and no invalidation: the answer's copy moves it.
        descriptor = read_slots_.descriptor(permit.id, permit.data_length);
    } else if (permit.data_length) {
        auto pages = request.mr_->map_sg(*request.sg_);
        if (!pages || pages.value() != io.dma_entries)
            return io.fail(Error(cxxrt::err::kInval));
        // The key the MR holds now (invalid: the server or we
        // invalidated it after its last IO, or it was never registered).
        io.invalid_key = request.mr_->rkey();
        request.mr_->bump_key();
        descriptor = codec::SgEntry{request.mr_->iova(), request.mr_->rkey(), permit.data_length};
        flags = u16(wire::kMsgFlagNeedInvalidate);
    }
    auto built = codec::build_rdma_read(
        cxxrt::ByteSpan(io.message + permit.header_length, message_size_ - permit.header_length),
        u16(permit.header_length), flags, cxxrt::Span<const codec::SgEntry>(&descriptor, permit.data_length ? 1 : 0));
    if (!built)
        return io.fail(built.error());
    io.sges[io.sge_count++] = request.message_->sge(io.lkey, 0, permit.header_length + built.value());
    // [user header][READ] sits right after the reply space.
    io.remote_addr += permit.data_length;
    return {};
}

// A WRITE: our pages, then the message, in one RDMA write to the chunk.
[[gnu::always_inline]] inline Result<void> Path::build_write(Submission& io)
{
    Permit& permit = io.permit;
    PathRequest& request = io.request;
    auto planned = codec::plan_write(geometry_, permit.data_length, permit.header_length);
    if (!planned)
        return io.fail(planned.error());
    io.plan = planned.value();
    if (u32(io.dma_entries) + 1 > kMaxSge || u32(io.dma_entries) + 1 > io.connection->qp().config().max_send_sge)
        return io.fail(Error(cxxrt::err::kInval));
    for (int i = 0; i < io.dma_entries; ++i)
        io.sges[io.sge_count++] = ib::Sge{request.sg_->dma_address(u32(i)), request.sg_->dma_length(u32(i)), io.lkey};
    auto built = codec::build_rdma_write(
        cxxrt::ByteSpan(io.message + permit.header_length, message_size_ - permit.header_length),
        u16(permit.header_length));
    if (!built)
        return io.fail(built.error());
    io.sges[io.sge_count++] = request.message_->sge(io.lkey, 0, permit.header_length + built.value());
    return {};
}

// The request goes in flight and onto the QP.
[[gnu::always_inline]] inline Result<void> Path::post_request(Submission& io)
{
    Permit& permit = io.permit;
    PathRequest& request = io.request;
    ClientConnection* connection = io.connection;
    auto imm = codec::encode_io_request_imm(geometry_, permit.id, io.plan.msg_offset);
    if (!imm)
        return io.fail(imm.error());
    request.message_->sync_for_device();

    request.submitted_ns_ = cxxrt::local_clock_ns();
    const bool registers = io.is_read && permit.data_length && !io.in_slot;
    if (!io.slot.start(registers, registers ? request.mr_->rkey() : 0))
        return io.fail(Error(cxxrt::err::kBusy));
    // IO one at a time: the send runs in this task when bottom halves come
    // back on below (rtrs-inline-send.hpp).
    const bool inline_send = inline_sends_.next(inflight_.fetch_add(1) == 0, io.is_read);
    {
        cxxrt::CpuGuard cpu;
        request.submit_cpu_ = cpu.cpu();
        record_request(stats_.this_cpu(cpu), io.is_read ? Direction::kRead : Direction::kWrite,
                       u64(permit.data_length) + permit.header_length, permit.sg_count);
    }
    bool registered = false;
    BottomHalvesOff send_now(inline_send);
    auto posted = [&]() __attribute__((always_inline)) -> Result<void> {
        cxxrt::IrqSpinGuard guard(connection->post_lock());
        const cxxrt::Span<const ib::Sge> data(io.sges, io.sge_count);
        const ib::RemoteBuffer remote{io.remote_addr, io.chunk.rkey};
        if (!registers)
            return connection->qp().post_write_imm(&connection->send_done(), data, remote, imm.value(),
                                                   connection->next_io_signal());
        // One post: behind a LOCAL_INV of the invalid key (see post_lock()),
        // the registration, unsignalled (a registration that fails completes
        // anyway and fails the path; a good one needs no completion of its
        // own), then the request.
        ib::SendChain chain;
        chain.invalidate(io.invalid_key, nullptr, ib::kUnsignaled);
        chain.register_region(*request.mr_, ib::kLocalWrite | ib::kRemoteWrite, &connection->send_done(),
                              ib::kUnsignaled);
        chain.write_imm(data, remote, imm.value(), &connection->send_done(), connection->next_io_signal());
        auto result = chain.post(connection->qp());
        registered = chain.posted() >= 2;
        return result;
    }();
    if (!posted) {
        if (registered) {
            // The new key may be live (its REG_MR is posted) and is easy to
            // guess: the memory stays the request's until the path's teardown
            // drained every QP of the PD (key lifetime, fail_over_requests),
            // which fails the request over as any IO in flight on it.
            fail("cannot post an IO after its registration");
            g_counters.submitted.add(1);
            return {};
        }
        io.slot.abort();
        inflight_.fetch_sub(1);
        return io.fail(posted.error());
    }
    g_counters.submitted.add(1);
    return {};
}

Result<void> Path::submit(Permit& permit)
{
    if (g_faults.qp_error.get() && fault_applies(g_faults.qp_error, index_))
        [[unlikely]] (void)fault_work_.queue_on(workqueue());  // ib_modify_qp may sleep
    cxxrt::DrainCounter::Scope submitter(submitters_);  // leaves on every return below
    if (!connected())
        return Error(cxxrt::err::kNotConn);
    PathRequest& request = requests_[permit.id];
    RequestSlot& slot = table_.slot(permit.id);
    if (slot.state() != RequestSlot::State::kIdle)
        return Error(cxxrt::err::kBusy);
    const bool is_read = permit.direction == RTRS_READ;
    Submission io{permit,
                  request,
                  slot,
                  io_connection(permit),
                  request.message_->data(),
                  pd_->local_dma_lkey(),
                  is_read,
                  is_read && read_slots_.takes(permit.id, permit.data_length)};
    CXXRT_TRY(start_request(io));
    CXXRT_TRY(io.is_read ? build_read(io) : build_write(io));
    return post_request(io);
}

void Path::on_receive(u16 cid, const ReceiveEvent& event, cxxrt::ConstByteSpan payload)
{
    ConnectionRole role;
    role.queue_depth = params_.queue_depth;
    role.always_invalidate = new_rkey();
    role.key_after_data = (params_.flags & wire::kMsgFlagKeyAfterData) != 0;
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
    if (response.key_after_data && !request.in_read_slot_) {
        // Only a READ into a read slot named a buffer with room for the key
        // (our CON_REQ's promise). The request stays in flight: the
        // teardown fails it over.
        cxxrt::log::err_ratelimited("%s: request %u answered with its key after data, but it has no read slot", name_,
                                    id);
        fail("key after data for a request without a read slot");
        return;
    }
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
        cxxrt::AtomicRef<u32>(chunks_[id].rkey).store(response.new_rkey, cxxrt::MemoryOrder::kRelaxed);
    if (response.key_after_data && chunks_ && request.permit_) {
        const u32 key = read_slots_.key_after(id, request.permit_->data_length);
        cxxrt::AtomicRef<u32>(chunks_[id].rkey).store(key, cxxrt::MemoryOrder::kRelaxed);
    }
    const bool invalidate_locally = answer.value().invalidate_locally;
    {
        // Where the answer arrived (stats/cpu_migration).
        BottomHalvesOff bh;
        cxxrt::CpuGuard cpu;
        ClientCpuStats& here = stats_.this_cpu(cpu);
        if (cpu.cpu() != request.submit_cpu_) {
            record_migration_to(here);
            cxxrt::AtomicRef<u32> from(stats_.on(request.submit_cpu_).migrations_from);
            from.fetch_add(1, cxxrt::MemoryOrder::kRelaxed);
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
    cxxrt::DrainCounter::Scope submitter(path_.submitters_);
    if (path_.connected())
        path_.finish_response(*this, pending_errno_, pending_invalidate_locally_);
    else if (!pending_invalidate_locally_)
        path_.finish_request(*this, pending_errno_);
    // Else the key may be live: the failing path's teardown completes the
    // request once its QPs are drained (fail_over_requests; its cancel_sync
    // of this work orders the two).
}

// Key lifetime. Memory a request registered for the server's RDMA writes
// (a READ's pages, a control message's reply buffer) goes back to the user
// only once its key is dead, that is after one of:
//   - a LOCAL_INV of the key that completed successfully (on_invalidated),
//   - the server's SEND_WITH_INV naming exactly that key (RequestSlot's
//     proof; then no LOCAL_INV is needed),
//   - every QP of the path's PD drained (teardown; fail_over_requests runs
//     after the last drain, before the MRs are deregistered).
// A LOCAL_INV that was flushed or failed (or could not be posted) proves
// nothing: the other QPs of the PD may still be connected, and the drain
// of a failing path takes them down one at a time. Such a request stays
// answered and is completed, with the server's answer, by
// fail_over_requests.
void Path::finish_response(PathRequest& request, int error, bool invalidate_locally)
{
    if (invalidate_locally) {
        // The server did not prove it invalidated our rkey: do it here
        // before the memory goes back to the user.
        request.pending_errno_ = error;
        auto posted = [&]() -> Result<void> {
            if (fault_applies(g_faults.inv_post_fail, index_)) [[unlikely]]
                return Error(cxxrt::err::kNoMem);  // fault injection: as a full send queue
            if (fault_applies(g_faults.inv_flush, index_)) [[unlikely]]
                (void)request.connection_->qp().move_to_error();  // fault injection: the LOCAL_INV is flushed
            cxxrt::IrqSpinGuard guard(request.connection_->post_lock());
            if (fault_applies(g_faults.inv_bad_key, index_)) [[unlikely]]
                return request.connection_->qp().post_local_inv(&request.invalidate_done_,
                                                                request.mr_->rkey() ^ 0xff, ib::kSignaled);
            return request.mr_->post_invalidate(request.connection_->qp(), &request.invalidate_done_, ib::kSignaled);
        }();
        if (!posted)
            fail("cannot invalidate a read registration");
        // Posted: on_invalidated completes it; not posted: the teardown.
        return;
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
    if (wc.ok()) {
        path_.finish_request(*this, pending_errno_);
        return;
    }
    // Not executed: the key may still be valid (key lifetime, above). The
    // path fails (if nothing failed it yet) and its teardown completes the
    // request after the last QP of the PD is drained.
    path_.fail(wc.flushed() ? "local invalidate flushed" : "local invalidate failed");
}

void Path::finish_request(PathRequest& request, int error)
{
    if (request.sg_mapped_)
        request.sg_->unmap();
    request.sg_mapped_ = false;
    Permit* permit = cxxrt::exchange(request.permit_, nullptr);
    if (cxxrt::exchange(request.in_read_slot_, false) && permit && error == 0) {
        // The server wrote the data into the slot; the caller's pages get it
        // before the permit can be reused.
        if (!read_slots_.copy_out(request.id_, permit->data_length, permit->sg, permit->sg_count)) {
            cxxrt::log::err_ratelimited("%s: READ %u: the caller's scatterlist holds less than %u bytes", name_,
                                        request.id_, permit->data_length);
            error = -cxxrt::err::kIo;
        }
    }
    // Idle again before the user may reuse the permit (from the callback).
    table_.slot(request.id_).finish();
    inflight_.fetch_sub(1);
    if (permit) {
        // Submission to answer, as the user sees it (stats/rdma_lat).
        const u64 elapsed_ms = cxxrt::elapsed_local_ns(request.submitted_ns_) / 1000000;
        const Direction direction = permit->direction == RTRS_READ ? Direction::kRead : Direction::kWrite;
        {
            BottomHalvesOff bh;
            stats_.with_this_cpu([&](ClientCpuStats& stats) { record_latency(stats, direction, elapsed_ms); });
        }
        Session::complete(*permit, error);
    }
}

// Process context, after the drain of every QP of the path (so of its PD):
// nothing else touches the requests, and no key of theirs is usable any
// more (key lifetime, above finish_response).
void Path::fail_over_requests()
{
    for (u32 i = 0; i < requests_.size(); ++i) {
        PathRequest& request = requests_[i];
        // A response held back by fault injection: the server answered it.
        if (request.delayed_.cancel_sync()) {
            finish_request(request, request.pending_errno_);
            continue;
        }
        // No table (its allocation failed while the path was set up): the
        // path never carried IO.
        if (i >= table_.size())
            continue;
        const RequestSlot::State was = table_.slot(i).take();
        if (was == RequestSlot::State::kIdle)
            continue;
        if (was == RequestSlot::State::kAnswered) {
            // Answered, but its local invalidation was flushed, failed or
            // never posted: the server's answer stands (rtrs_client_abort's
            // contract), and only now may its memory go back.
            finish_request(request, request.pending_errno_);
            continue;
        }
        // In flight: never answered.
        if (request.sg_mapped_)
            request.sg_->unmap();
        request.sg_mapped_ = false;
        request.in_read_slot_ = false;
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
