// rtrs-client: one connection of a path and its receive slots.
#pragma once

#include "rtrs/client/rtrs-clt-common.hpp"
#include "rtrs/client/rtrs-clt-faults.hpp"
#include <cxxrt/array.hpp>
#include "rtrs/client/rtrs-clt-permit.hpp"
#include "rtrs/client/rtrs-clt-path-request.hpp"
#include "rtrs/core/rtrs-signal.hpp"

namespace rtrs::clt {

// One receive buffer slot of a connection.
class ReceiveSlot : cxxrt::Pinned {
public:
    ReceiveSlot(ClientConnection& connection, u32 index) : connection_(connection), index_(index) {}

private:
    friend class ClientConnection;
    void on_done(const ib::WorkCompletion& wc);
    ClientConnection& connection_;
    const u32 index_;
    ib::Completion done_{ib::Completion::member<ReceiveSlot, &ReceiveSlot::on_done>, this};
};

class ClientConnection final : public ib::CmEventHandler, cxxrt::Pinned {
public:
    // signal_interval: the IO queue depth its send queue is sized for (1 for
    // the service connection: every post signalled).
    ClientConnection(Path& path, u16 cid, u32 signal_interval)
        : path_(path), cid_(cid), signal_(signal_interval)
    {
    }
    ~ClientConnection();

    // Resolves, creates the queues and connects; sleeps until established
    // or failed (process context, the path's control lock held).
    Result<void> connect(const ib::SockAddr* source, const ib::SockAddr& destination);
    // Posts `count` receives of kReceiveSlotSize bytes each.
    Result<void> post_receives(u32 count);
    // Disconnects and waits until every posted WR has completed.
    void disconnect_and_drain();
    // After disconnect_and_drain: sleeps until the CM reported the end of a
    // connection that was established (DISCONNECTED, TIMEWAIT_EXIT or an
    // error event), at most budget_ms; subtracts the time slept. False if
    // the budget ran out first.
    bool wait_disconnected(unsigned long& budget_ms);
    // After disconnect_and_drain: frees the QP, CQ and receive buffers but
    // keeps the cm_id (see Path::teardown for why the ids go last).
    void release_queues();

    void on_cm_event(ib::CmId& id, const ib::CmEvent& event) override;

    u16 cid() const { return cid_; }
    ib::QueuePair& qp() { return connection_->qp(); }
    ib::Connection* connection() const { return connection_.get(); }
    const codec::ConnRspFields& response() const { return response_; }
    ib::Completion& send_done() { return send_done_; }
    Result<void> post_heartbeat(u32 imm);
    // A polled connection (kDirect CQ): reaps up to kPollBudget completions
    // here, unless another caller is reaping them right now (then 0).
    // Only while the path is connected (Path::poll).
    int poll();
    // Taken (irqsave) around every send-queue post on this QP. When rxe
    // (Debian 6.1, rxe_req.c: req_retry) retransmits it rewinds to the
    // oldest unacknowledged WR and executes again every local operation
    // behind it: a REG_MR run twice fails ("mr->lkey ... not free") and
    // kills the QP, or re-validates an rkey the server already invalidated.
    // So a REG_MR goes right behind a LOCAL_INV (which rxe fences until
    // every earlier WR completed), and this lock keeps another context's
    // send from landing between the two.
    cxxrt::SpinLock& post_lock() CXXRT_RETURN_CAPABILITY(post_lock_) { return post_lock_; }
    // Under post_lock(): the flag of an IO's last work request (signalled
    // once per interval: rtrs/core/rtrs-signal.hpp).
    ib::SendFlags next_io_signal() CXXRT_REQUIRES(post_lock_)
    {
        return signal_.next() ? ib::kSignaled : ib::kUnsignaled;
    }

private:
    friend class ReceiveSlot;
    void on_receive(ReceiveSlot& slot, const ib::WorkCompletion& wc);
    void on_send_done(const ib::WorkCompletion& wc);
    void finish_connect(int result);
    void handle_established(const ib::CmEvent& event);
    // The steps of on_cm_event(), one event each.
    void on_address_resolved(ib::CmId& id) CXXRT_REQUIRES(events_);
    void on_route_resolved(ib::CmId& id) CXXRT_REQUIRES(events_);
    void on_rejected(ib::CmId& id, const ib::CmEvent& event) CXXRT_REQUIRES(events_);

    // Stops CM event handling before teardown: a handler that is still
    // running (e.g. creating the queues after a connect timed out) finishes
    // first, later ones return at once. Never held while destroying the id.
    void stop_events();

    Path& path_;
    const u16 cid_;
    cxxrt::Mutex events_{cxxrt::lock_class<"rtrs::clt::ClientConnection::events_">};
    bool events_stopped_ CXXRT_GUARDED_BY(events_) = false;
    UniquePtr<ib::Connection> connection_;
    cxxrt::Completion connect_done_{cxxrt::lock_class<"rtrs::clt::ClientConnection::connect_done_">};
    int connect_result_ = 0;  // set by the CM handler before connect_done_, read after it
    Atomic<bool> established_{false};
    // The CM reported ESTABLISHED (even with a bad CON_RSP): teardown waits
    // for disconnected_, completed (complete_all) by the handler on the
    // connection's end, also after stop_events().
    Atomic<bool> cm_established_{false};
    cxxrt::Completion disconnected_{cxxrt::lock_class<"rtrs::clt::ClientConnection::disconnected_">};
    codec::ConnRspFields response_;  // set by the CM handler before connect_done_, read after it
    UniquePtr<ib::DmaBuffer> receive_buffer_;
    cxxrt::Array<ReceiveSlot> receive_slots_;
    ib::Completion send_done_{ib::Completion::member<ClientConnection, &ClientConnection::on_send_done>, this};
    cxxrt::SpinLock post_lock_{cxxrt::lock_class<"rtrs::clt::ClientConnection::post_lock_">};
    SignalInterval signal_ CXXRT_GUARDED_BY(post_lock_);
    // A caller is reaping this polled connection's CQ (poll()).
    Atomic<bool> polling_{false};
};

}  // namespace rtrs::clt
