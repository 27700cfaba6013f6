// rtrs-client: one path of a session, its life cycle: creation, open, the
// state changes, and on any error the teardown from a work item, the
// hand-over of its in-flight IO to another path and the reconnect; the
// heartbeat and the QP fault injection. The connect handshake is in
// rtrs-clt-handshake.cpp, the IO path in rtrs-clt-io.cpp.
#include <cxxrt/log.hpp>
#include "common/rtrs-addr.hpp"
#include "rtrs/client/rtrs-clt-upcalls.h"
#include "rtrs/client/rtrs-clt.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::clt {

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
    connections_ = CXXRT_TRY(cxxrt::Array<UniquePtr<ClientConnection>>::create(Gfp::kernel(), connection_count_));
    stats_ = CXXRT_TRY(cxxrt::PerCpu<ClientCpuStats>::create(Gfp::kernel()));
    // Until the CM resolved the source, the name shows the destination only.
    auto destination = to_address(address_.destination);
    auto length = format_address(destination, cxxrt::Span<char>(name_, sizeof(name_)));
    if (!length)
        name_[0] = '\0';
    return {};
}

// --- life cycle ----------------------------------------------------------------

Result<bool> Path::connect_up()
{
    CXXRT_TRY(connect());
    if (!state_.change_from(PathState::kConnecting, PathState::kConnected))
        return false;
    became_connected();
    fail_if_spoiled();
    return true;
}

Result<void> Path::open()
{
    cxxrt::MutexGuard guard(control_);
    auto up = connect_up();
    if (up.is_ok() && up.value())
        return {};
    // The opener (map_device, add_path) sees only the errno: name the path.
    const Error failed = up.is_ok() ? Error(cxxrt::err::kConnAborted) : up.error();
    cxxrt::log::err("session %s: path %s: connect failed (%d)", session_.name(), name_, failed.to_errno());
    teardown();
    return failed;
}

// The events print the state as Linux's enum rtrs_clt_state, which ours follows.
static_assert(int(PathState::kConnecting) == RTRS_TRACE_CLT_CONNECTING &&
              int(PathState::kConnectingError) == RTRS_TRACE_CLT_CONNECTING_ERR &&
              int(PathState::kReconnecting) == RTRS_TRACE_CLT_RECONNECTING &&
              int(PathState::kConnected) == RTRS_TRACE_CLT_CONNECTED && int(PathState::kClosing) == RTRS_TRACE_CLT_CLOSING &&
              int(PathState::kClosed) == RTRS_TRACE_CLT_CLOSED && int(PathState::kDead) == RTRS_TRACE_CLT_DEAD);

void Path::trace(ktrace::rtrs_clt::PathEvent event) const
{
    ktrace::rtrs_clt::path_event(event, name_, int(state()), budget_.attempts(), budget_.max_attempts(),
                                 reconnects_.failed, reconnects_.successful);
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
        trace(ktrace::rtrs_clt::PathEvent::kCloseConns);
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
        trace(ktrace::rtrs_clt::PathEvent::kRdmaErrorRecovery);
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
    trace(ktrace::rtrs_clt::PathEvent::kReconnectWork);
    cxxrt::MutexGuard guard(control_);
    (void)connect_again();
}

Result<void> Path::connect_again()
{
    if (!state_.change_from(PathState::kReconnecting, PathState::kConnecting))
        return Error(cxxrt::err::kNotConn);  // closed, or connected by someone else meanwhile
    ++reconnect_count_;
    auto up = connect_up();
    if (up.is_ok() && up.value())
        return {};
    cxxrt::log::warn_ratelimited("%s: reconnect of %s failed (%d)", session_.name(), name_, up.to_errno());
    ++reconnects_.failed;
    teardown();
    if (state_.change_from(PathState::kConnecting, PathState::kConnectingError) &&
        state_.change(PathState::kReconnecting))
        schedule_reconnect();
    // Connected but closed meanwhile: the path is not up, say so.
    return up.is_ok() ? Error(cxxrt::err::kNotConn) : up.error();
}

void Path::close()
{
    trace(ktrace::rtrs_clt::PathEvent::kCloseConns);
    // Leaving every live state first stops fail() and the work items from
    // starting anything new; then wait for what already runs.
    (void)state_.change(PathState::kClosing);
    fault_work_.cancel_sync();
    finish_closing();
    // A sysfs "reconnect" that took control_ before us may have queued work.
    error_work_.cancel_sync();
    reconnect_work_.cancel_sync();
    heartbeat_work_.cancel_sync();
    fault_work_.cancel_sync();
}

// Process context, the path in kClosing (close, sysfs "disconnect"): waits
// for the error, reconnect and heartbeat work (kClosing starts none anew),
// then tears the path down under control_ and leaves it kClosed.
void Path::finish_closing()
{
    error_work_.cancel_sync();
    reconnect_work_.cancel_sync();
    heartbeat_work_.cancel_sync();
    cxxrt::MutexGuard guard(control_);
    teardown();
    (void)state_.change(PathState::kClosed);
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
    cxxrt::full_fence();
    submitters_.wait_idle();
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
    read_slots_.reset();
    table_.reset();
    info_request_.reset();
    info_response_.reset();
    chunks_.reset();
    pd_.reset();
    bool had_ids = false;
    if (connections_) {
        for (u32 cid = 0; cid < connection_count_; ++cid) {
            had_ids |= bool(connections_[cid]);
            connections_[cid].reset();
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
    case Heartbeat::Action::kSend: {
        if (fault_applies(g_faults.drop_heartbeats, index_))
            break;  // fault injection: the server hears nothing from us
        // Submitter rules apply: the QP must not go away under the post.
        cxxrt::DrainCounter::Scope submitter(submitters_);
        if (connected() && !connections_[0]->post_heartbeat(wire::kHeartbeatImm))
            fail("cannot post a heartbeat");
        break;
    }
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
    cxxrt::DrainCounter::Scope submitter(submitters_);
    if (!connected())
        return;
    cxxrt::log::warn("%s: fault injection: QPs of path %s to the error state", session_.name(), name_);
    for (u32 cid = 0; cid < connection_count_; ++cid)
        if (connections_[cid] && connections_[cid]->connection())
            (void)connections_[cid]->qp().move_to_error();
}

}  // namespace rtrs::clt
