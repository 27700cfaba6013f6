// The RTRS client transport: sessions, paths, connections and requests.
//
// Objects and ownership (all made in process context):
//   Session      one per rtrs_client_open(); owns its Paths, the permit pool
//                and one Permit per server chunk (the user's handle).
//   Path         one per destination; owns, while connected, its
//                ClientConnections (cid 0 = service, 1..N = IO), its
//                protection domain, the chunk table from INFO_RSP and one
//                PathRequest per permit (DMA buffer, scatterlist, MR).
//   ClientConnection  one RDMA-CM id + CQ + QP; the CM event handler of its
//                id and the owner of its receive slots.
//
// Contexts:
//   - connect, teardown, reconnect, heartbeat: process context, in work
//     items of the module's workqueue (or the opener's thread), serialised
//     per path by Path::control_;
//   - CM events: the CM's work queues (a handler never destroys its own id:
//     teardown runs from the path's error work);
//   - completions: softirq (PollContext::kSoftirq CQs), never sleeping;
//   - rtrs_client_request: any context that may not sleep.
// IO submission never takes a lock: a submitter announces itself in the
// path's submitter count and re-checks the state; teardown first leaves the
// connected state, then waits for the count to drop to zero, then drains
// the QPs, so no post can race with QP destruction and no completion can
// race with fail-over.
#pragma once

#include <cxxrt/atomic.hpp>
#include <cxxrt/debugfs.hpp>
#include <cxxrt/random.hpp>
#include <cxxrt/time.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/percpu.hpp>
#include <cxxrt/sync.hpp>
#include <cxxrt/unique_ptr.hpp>
#include <cxxrt/wait.hpp>
#include <cxxrt/work.hpp>
#include <proto/rtrs-wire.hpp>
#include <rtrs/rtrs-api.h>
#include "kernel/ib/cm.hpp"
#include "kernel/ib/memory.hpp"
#include "kernel/ib/verbs.hpp"
#include "rtrs/kapi-trace.h"
#include "common/rtrs-addr.hpp"
#include "rtrs/core/rtrs-clt-hold.hpp"
#include "rtrs/core/rtrs-clt-state.hpp"
#include "rtrs/client/rtrs-clt-sysfs.hpp"
#include "rtrs/core/rtrs-clt-policy.hpp"
#include "rtrs/core/rtrs-clt-proto.hpp"
#include "rtrs/core/rtrs-codec.hpp"
#include "rtrs/core/rtrs-heartbeat.hpp"
#include "rtrs/core/rtrs-permits.hpp"
#include "rtrs/core/rtrs-stats.hpp"

namespace rtrs::clt {

using cxxrt::Atomic;
using cxxrt::Error;
using cxxrt::Gfp;
using cxxrt::Result;
using cxxrt::u16;
using cxxrt::u32;
using cxxrt::u64;
using cxxrt::u8;
using cxxrt::RefPtr;
using cxxrt::UniquePtr;

class Session;
class Path;
class ClientConnection;

// Limits of this implementation.
inline constexpr u32 kMaxPaths = RTRS_MAX_PATHS;  // paths per session (upstream: 128)
inline constexpr u32 kMaxPollQueues = RTRS_MAX_POLL_QUEUES;  // polled connections per path
// Completions one rtrs_client_poll reaps per path at most: a poller gets
// back to its caller (which checks its own IO) soon.
inline constexpr int kPollBudget = 64;
inline constexpr u32 kMaxSegments = 128;         // pages of one fast-reg MR (upstream's value)
inline constexpr u32 kMaxSge = 32;               // SGEs of one WRITE (data entries + 1)
inline constexpr u32 kServiceReceives = 64;      // heartbeats on cid 0
inline constexpr u32 kConnectTimeoutMs = 30000;  // per connection, and for INFO_RSP
inline constexpr int kResolveTimeoutMs = 2000;
// Teardown waits this long per path, in total, for the CM to report every
// connected connection disconnected (the server has processed the DREQ).
inline constexpr u32 kDisconnectTimeoutMs = 5000;
inline constexpr u32 kReceiveSlotSize = sizeof(wire::RkeyRsp);

// A path end as common/rtrs-addr.hpp formats it, from the C API's
// rtrs_address or the RDMA layer's address (both carry the same fields).
template <typename RawAddress>
Address to_address(const RawAddress& raw)
{
    Address address;
    address.family = AddressFamily(raw.family);
    cxxrt::copy_bytes(address.bytes, raw.bytes, sizeof(address.bytes));
    address.scope_id = raw.scope_id;
    return address;
}

// Fault injection for tests: debugfs /sys/kernel/debug/rtrs_client/fault_*
// (u64 each, all 0 = inert). A "paths" value is a mask of path indices
// (bit n = the session's path n, as created: the paths given at open in
// order, then add_path taking the lowest free index); ~0 (write
// 18446744073709551615) means
// every path, including indices above 63.
struct Faults {
    cxxrt::debugfs::Number drop_heartbeats;      // paths that send no heartbeats
    cxxrt::debugfs::Number drop_heartbeat_acks;  // paths that answer no heartbeats of the server
    cxxrt::debugfs::Number qp_error;             // one-shot: the next IO or heartbeat tick moves all QPs of these paths to ERR
    cxxrt::debugfs::Number delay_ms;             // IO completions of delay_paths are held back this long (and
    cxxrt::debugfs::Number delay_paths;          //   their heartbeat round trip counts that much longer)
    cxxrt::debugfs::Number drop_responses;       // paths whose IO answers are ignored: the IO stays in flight (a stuck server)
    cxxrt::debugfs::Number ack_timeout;          // non-zero: local ACK timeout (4.096 us * 2^n) of connections made from now on;
                              //   1 fires the retransmit timer after a jiffy: rxe retransmits (spuriously) often
    cxxrt::debugfs::Number id_delay_ms;          // teardown sleeps this long right after destroying a path's cm_ids: anything
                              //   freed later would outlive a removed device (rxe_pool_cleanup WARN)
};
extern constinit Faults g_faults;

// Client-wide request counters (debugfs /sys/kernel/debug/rtrs_client/;
// updated atomically). Unlike a path's stats/rdma they survive remove_path,
// so a test can account for every request:
//   submitted - (failovers - failover_errors) = requests of the users that
//   reached a path.
struct Counters {
    cxxrt::debugfs::Number submitted;        // requests posted on a path (a failed-over one counts again)
    cxxrt::debugfs::Number failovers;        // in-flight requests taken off a failed path
    cxxrt::debugfs::Number failover_errors;  // of those, the ones no other path took (completed with an error)
};
extern constinit Counters g_counters;
// A fault knob's path mask: ~0 means every path, else bit i means path i.
inline bool fault_applies(u64 mask, u32 path_index)
{
    if (mask == 0)
        return false;
    if (mask == ~u64(0))
        return true;
    return path_index < 64 && ((mask >> path_index) & 1) != 0;
}
inline bool fault_applies(const cxxrt::debugfs::Number& knob, u32 path_index)
{
    return fault_applies(knob.get(), path_index);
}

// Completion handlers of polled connections run in the polling task, those
// of the others in softirq: per-CPU statistics both update are changed
// with bottom halves off, so a softirq on the same CPU cannot interleave.
using cxxrt::BottomHalvesOff;

// The module's workqueue (rtrs-clt.cpp): error, reconnect and heartbeat work.
cxxrt::Workqueue& workqueue();
// The names of the module's sessions (rtrs-clt.cpp).
SessionNames& session_names();
// "now" for heartbeats and latency.
u64 now_ns();

// A fixed array of pinned objects constructed in place; freed in reverse.
template <typename T>
class ObjectArray : cxxrt::Pinned {
    static_assert(alignof(T) <= 8, "kmalloc alignment");

public:
    ObjectArray() = default;
    ~ObjectArray() { reset(); }

    // construct(void* where, u32 index) placement-news element index.
    template <typename Construct>
    Result<void> create(Gfp gfp, u32 count, Construct&& construct)
    {
        reset();
        u8* memory = cxxrt::allocate_array<u8>(gfp, cxxrt::size_t(count) * sizeof(T));
        if (!memory)
            return Error(cxxrt::err::kNoMem);
        items_ = reinterpret_cast<T*>(memory);
        for (u32 i = 0; i < count; ++i) {
            construct(static_cast<void*>(items_ + i), i);
            count_ = i + 1;
        }
        return {};
    }
    void reset()
    {
        while (count_)
            items_[--count_].~T();
        cxxrt::free_array(reinterpret_cast<u8*>(items_));
        items_ = nullptr;
    }
    u32 size() const { return count_; }
    T& operator[](u32 i) const { return items_[i]; }
    explicit operator bool() const { return items_ != nullptr; }

private:
    T* items_ = nullptr;
    u32 count_ = 0;
};

// The user's handle for one server chunk, and the IO it currently carries.
// Written by rtrs_client_request(); read by whichever path carries the IO
// (fail-over re-issues it from these fields).
struct Permit : cxxrt::Pinned {
    Permit(Session& owner, u32 permit_id) : session(owner), id(permit_id) {}
    ~Permit() { cxxrt::free_array(user_header); }

    Session& session;
    const u32 id;
    u8* user_header = nullptr;
    rtrs_direction direction = RTRS_READ;
    u32 header_length = 0;
    scatterlist* sg = nullptr;
    u32 sg_count = 0;
    u32 data_length = 0;
    rtrs_client_done_fn done = nullptr;
    void* done_context = nullptr;
    // rtrs_client_request_polled: the polled connection (of any path) that
    // carries the IO, also after a fail-over; kNotPolled: the submitting
    // CPU's interrupt-driven one.
    static constexpr int kNotPolled = -1;
    int poll_queue = kNotPolled;
    // The slot of the path carrying the IO (Path::submit), for abort().
    Atomic<u32> path_index{0};
    // rtrs_client_abort(final): a fail-over completes it with -ETIMEDOUT.
    Atomic<bool> aborted{false};
};

// Where chunk i lives on the server, per path (rkey may change per IO with
// always_invalidate; written from softirq, read on submission).
struct RemoteChunk {
    u64 addr;
    u32 rkey;
    u32 length;
};

// Per path and permit: the DMA-mapped memory one IO needs on that path.
class PathRequest : cxxrt::Pinned {
public:
    PathRequest(Path& path, u32 id) : path_(path), id_(id) {}
    ~PathRequest() { delayed_.cancel_sync(); }
    Result<void> init(ib::Device device, const RefPtr<ib::ProtectionDomain>& pd, u32 message_size, u32 segments,
                      u32 mr_pages);

private:
    friend class Path;
    void on_invalidated(const ib::WorkCompletion& wc);
    void on_delay_over();  // fault injection: a held-back completion

    Path& path_;
    const u32 id_;
    UniquePtr<ib::DmaBuffer> message_;  // user header, then the RTRS message
    UniquePtr<ib::ScatterList> sg_;
    UniquePtr<ib::MemoryRegion> mr_;
    Permit* permit_ = nullptr;
    ClientConnection* connection_ = nullptr;
    bool sg_mapped_ = false;
    int pending_errno_ = 0;
    bool pending_invalidate_locally_ = false;
    u32 submit_cpu_ = 0;
    u64 submitted_ns_ = 0;
    cxxrt::DelayedWork delayed_{cxxrt::lock_class<"rtrs::clt::PathRequest::delayed_">,
                                cxxrt::Callback::to<&PathRequest::on_delay_over>(this)};
    ib::Completion invalidate_done_{ib::Completion::member<PathRequest, &PathRequest::on_invalidated>, this};
};

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
    ClientConnection(Path& path, u16 cid) : path_(path), cid_(cid) {}
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
    cxxrt::SpinLock& post_lock() { return post_lock_; }

private:
    friend class ReceiveSlot;
    void on_receive(ReceiveSlot& slot, const ib::WorkCompletion& wc);
    void on_send_done(const ib::WorkCompletion& wc);
    void finish_connect(int result);
    void handle_established(const ib::CmEvent& event);

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
    int connect_result_ = 0;
    Atomic<bool> established_{false};
    // The CM reported ESTABLISHED (even with a bad CON_RSP): teardown waits
    // for disconnected_, completed (complete_all) by the handler on the
    // connection's end, also after stop_events().
    Atomic<bool> cm_established_{false};
    cxxrt::Completion disconnected_{cxxrt::lock_class<"rtrs::clt::ClientConnection::disconnected_">};
    codec::ConnRspFields response_;
    UniquePtr<ib::DmaBuffer> receive_buffer_;
    ObjectArray<ReceiveSlot> receive_slots_;
    ib::Completion send_done_{ib::Completion::member<ClientConnection, &ClientConnection::on_send_done>, this};
    cxxrt::SpinLock post_lock_{cxxrt::lock_class<"rtrs::clt::ClientConnection::post_lock_">};
    // A caller is reaping this polled connection's CQ (poll()).
    Atomic<bool> polling_{false};
};

class Path : cxxrt::Pinned {
public:
    Path(Session& session, u32 index, const rtrs_path_address& address, bool first_conn);
    ~Path();

    Result<void> init();
    // First connect, from rtrs_client_open (process context).
    Result<void> open();
    // Starts reconnecting a path whose first connect failed.
    void start_reconnecting();
    // Final teardown (process context): no work runs on the path after it.
    void close();

    // Any context: an error on a connected path; teardown follows in a work item.
    void fail(const char* why);
    // CM handler: an established connection of this path ended (DISCONNECTED
    // and the like). Wakes a connect waiting for INFO_RSP, then fail()s.
    void connection_lost(u16 cid, const char* why);
    // Any context, no sleep: carries the permit's IO on this path.
    Result<void> submit(Permit& permit);
    // Any context, no sleep: reaps polled connection `poll_queue` if the
    // path is connected (a submitter meanwhile, so teardown waits for it).
    int poll(u32 poll_queue);
    // Softirq: one receive of connection `cid`, checked and acted on
    // (answers, invalidations, heartbeats); a violation fails the path.
    void on_receive(u16 cid, const ReceiveEvent& event, cxxrt::ConstByteSpan payload);
    // The rest of an answer, once any fault-injected delay is over.
    void finish_response(PathRequest& request, int error, bool invalidate_locally);

    PathState state() const { return state_.state(); }
    bool connected() const { return state() == PathState::kConnected; }
    u32 inflight() const { return inflight_.load(cxxrt::MemoryOrder::kRelaxed); }
    // The heartbeat round trip min-latency compares (plus any injected delay).
    u64 latency_ns() const;
    const rtrs_path_address& address() const { return address_; }
    const Address& resolved_source() const { return source_; }
    Heartbeat& heartbeat() { return heartbeat_; }
    Session& session() { return session_; }
    u32 index() const { return index_; }
    bool new_rkey() const { return (params_.flags & wire::kMsgFlagNewRkey) != 0; }
    u32 queue_depth() const { return params_.queue_depth; }

    // For ClientConnection while connecting (CM handler, serialised with
    // the connecting thread).
    Result<RefPtr<ib::ProtectionDomain>> protection_domain(ib::Device device);
    ib::ConnectionConfig connection_config(u16 cid, ib::Device device) const;
    Result<cxxrt::size_t> build_conn_req(u16 cid, cxxrt::ByteSpan out) const;
    u16 connection_count() const { return u16(connection_count_); }
    // cids 1 .. irq_connections-1 carry IO with interrupts, the
    // poll_connections after them are polled (kDirect CQs).
    bool polled_connection(u16 cid) const { return cid >= irq_connection_count_; }

    // sysfs (rtrs-clt-sysfs.cpp); process context.
    void create_sysfs();
    void remove_sysfs();
    void set_max_reconnect_attempts(int value) { (void)budget_.set_max_attempts(value); }
    Result<void> show_state(cxxrt::sysfs::Output& out);
    Result<void> show_hca_name(cxxrt::sysfs::Output& out);
    Result<void> show_hca_port(cxxrt::sysfs::Output& out);
    Result<void> show_src_addr(cxxrt::sysfs::Output& out);
    Result<void> show_dst_addr(cxxrt::sysfs::Output& out);
    Result<void> show_cur_latency(cxxrt::sysfs::Output& out);
    Result<void> store_disconnect(cxxrt::sysfs::Input& in);
    Result<void> store_reconnect(cxxrt::sysfs::Input& in);
    Result<void> store_remove_path(cxxrt::sysfs::Input& in);
    Result<void> show_cpu_migration(cxxrt::sysfs::Output& out);
    Result<void> store_cpu_migration(cxxrt::sysfs::Input& in);
    Result<void> show_cpu_migration_from(cxxrt::sysfs::Output& out);
    Result<void> show_cpu_migration_to(cxxrt::sysfs::Output& out);
    Result<void> show_sg_entries(cxxrt::sysfs::Output& out);
    Result<void> store_sg_entries(cxxrt::sysfs::Input& in);
    Result<void> show_rdma_lat(cxxrt::sysfs::Output& out);
    Result<void> store_rdma_lat(cxxrt::sysfs::Input& in);
    Result<void> show_wc_completion(cxxrt::sysfs::Output& out);
    Result<void> store_wc_completion(cxxrt::sysfs::Input& in);
    Result<void> show_poll_completions(cxxrt::sysfs::Output& out);
    Result<void> store_poll_completions(cxxrt::sysfs::Input& in);
    Result<void> show_rdma(cxxrt::sysfs::Output& out);
    Result<void> store_rdma(cxxrt::sysfs::Input& in);
    Result<void> show_reconnects(cxxrt::sysfs::Output& out);
    Result<void> store_reconnects(cxxrt::sysfs::Input& in);
    Result<void> store_reset_all(cxxrt::sysfs::Input& in);
    void on_info_response(const ib::WorkCompletion& wc);
    // Connection `cid` of this path sent CON_RSP `response`: checked
    // against this client's limits and, for cid > 0, against cid 0's.
    Result<void> accept_conn_rsp(u16 cid, const codec::ConnRspFields& response) const;
    void on_info_sent(const ib::WorkCompletion& wc);
    // A poll of one of this path's CQs reaped `completions` (their handlers
    // have run): stats/wc_completion. The poll's context (softirq, or the
    // polling caller with bottom halves off).
    static void count_batch(void* path, u32 completions, bool polled);

private:
    friend class PathRequest;
    Result<void> connect();
    Result<void> exchange_info();
    Result<void> create_requests();
    void teardown();
    void fail_over_requests();
    void finish_request(PathRequest& request, int error);
    void complete_request(const ReceiveDecision& response);
    void became_connected();
    void spoil_connect(const char* why);
    void fail_if_spoiled();
    void schedule_reconnect();
    void handle_error();      // error_work_
    void reconnect();         // reconnect_work_
    // One reconnect attempt now, control_ held, from kReconnecting: the
    // path ends connected, or back in the reconnect cycle (the next attempt
    // after the delay) with the connect's errno returned.
    Result<void> connect_again() CXXRT_REQUIRES(control_);
    void send_heartbeat();    // heartbeat_work_
    // Fires one of the rtrs_clt trace events with this path's figures.
    void trace(kapi_trace_rtrs_clt_path_event event) const;
    // The connection for the permit's IO: its polled connection, or the
    // submitting CPU's.
    ClientConnection* io_connection(const Permit& permit);
    // Fault injection (process context, fault_work_ or the heartbeat):
    // moves every QP of the path to the error state.
    void inject_qp_error();
    template <typename Fn>
    Result<void> reset_stats(Fn&& fn);
    void leave_submission();
    // Copies the per-CPU stats into one array for the formatters.
    template <typename Fn>
    Result<void> with_stats_snapshot(Fn&& fn);

    Session& session_;
    const u32 index_;
    rtrs_path_address address_;
    char name_[96] = {};
    char hca_name_[64] = {};
    u32 hca_port_ = 0;
    Address source_;  // as the CM resolved it
    UniquePtr<PathSysfs> sysfs_;
    PathStateMachine state_{PathState::kConnecting};
    ReconnectBudget budget_;
    cxxrt::Mutex control_{cxxrt::lock_class<"rtrs::clt::Path::control_">};  // serialises connect, teardown and close
    wire::Uuid uuid_{};
    u16 reconnect_count_ = 0;
    bool connected_once_ = false;
    const bool first_conn_;  // may create the session on the server
    bool counted_up_ = false;  // counted in the session's connected paths
    u32 connection_count_ = 0;      // all: service + interrupt-driven IO + polled
    u32 irq_connection_count_ = 0;  // the service connection and the interrupt-driven IO ones
    u32 poll_connection_count_ = 0; // the session's poll_queues
    ClientConnection** connections_ = nullptr;
    RefPtr<ib::ProtectionDomain> pd_;
    codec::ConnRspFields params_;
    codec::ChunkGeometry geometry_;
    u32 message_size_ = 0;
    RemoteChunk* chunks_ = nullptr;
    ObjectArray<PathRequest> requests_;
    RequestTable table_;  // answer state of requests_ (same ids)
    Heartbeat heartbeat_;
    Atomic<u32> submitters_{0};
    cxxrt::WaitQueue submitters_idle_{cxxrt::lock_class<"rtrs::clt::Path::submitters_idle_">};
    Atomic<u32> inflight_{0};
    cxxrt::PerCpu<ClientCpuStats> stats_;
    ReconnectCounters reconnects_;
    // INFO_REQ/INFO_RSP on cid 0.
    UniquePtr<ib::DmaBuffer> info_request_;
    UniquePtr<ib::DmaBuffer> info_response_;
    cxxrt::Completion info_received_{cxxrt::lock_class<"rtrs::clt::Path::info_received_">};
    int info_result_ = 0;
    // Why the connect in progress must not stand (an IO message or a lost
    // connection while connecting): exchange_info gives up on it; if the
    // connect is past that look, fail_if_spoiled fails the connected path.
    Atomic<const char*> connect_spoiled_{nullptr};
    u32 info_length_ = 0;
    ReceiveEvent info_event_;
    ib::Completion info_receive_done_{ib::Completion::member<Path, &Path::on_info_response>, this};
    ib::Completion info_send_done_{ib::Completion::member<Path, &Path::on_info_sent>, this};
    cxxrt::Work error_work_{cxxrt::lock_class<"rtrs::clt::Path::error_work_">,
                            cxxrt::Callback::to<&Path::handle_error>(this)};
    cxxrt::DelayedWork reconnect_work_{cxxrt::lock_class<"rtrs::clt::Path::reconnect_work_">,
                                       cxxrt::Callback::to<&Path::reconnect>(this)};
    cxxrt::DelayedWork heartbeat_work_{cxxrt::lock_class<"rtrs::clt::Path::heartbeat_work_">,
                                       cxxrt::Callback::to<&Path::send_heartbeat>(this)};
    cxxrt::Work fault_work_{cxxrt::lock_class<"rtrs::clt::Path::fault_work_">,
                            cxxrt::Callback::to<&Path::inject_qp_error>(this)};
};

class Session : cxxrt::Pinned {
public:
    Session() = default;
    ~Session();

    static Result<Session*> open(const rtrs_client_callbacks& callbacks, const rtrs_client_open_params& params);
    void close();

    // sysfs add_path / remove_path (process context; serialised by paths_mutex_).
    Result<void> add_path(const rtrs_path_address& address);
    Result<void> remove_path(Path& path);

    void query(rtrs_client_attributes& attributes) const;
    Permit* get_permit(rtrs_wait wait);
    void put_permit(Permit& permit);
    // poll_queue: Permit::kNotPolled, or a polled connection's index.
    int request(Permit& permit, rtrs_direction direction, u32 header_length, scatterlist* sg, u32 sg_count,
                u32 data_length, rtrs_client_done_fn done, void* done_context, int poll_queue = Permit::kNotPolled);
    // rtrs_client_poll: reaps polled connection poll_queue of every path.
    int poll(u32 poll_queue);
    u32 poll_queues() const { return poll_queues_; }

    // Picks a connected path (not `excluded`) and submits; error if none took it.
    Result<void> submit(Permit& permit, Path* excluded);
    // Process context: re-issues an IO of a failed path, or fails it
    // (-ENOTCONN: no path; -ETIMEDOUT: aborted).
    void fail_over(Permit& permit, Path& failed);
    // Any context: fails the path carrying the permit's IO (rtrs_client_abort).
    void abort(Permit& permit, bool final);
    // io_hold_timeout_ms (sysfs and rtrs_client_set_io_hold_timeout).
    Result<void> set_io_hold_timeout(u64 timeout_ms);
    static void complete(Permit& permit, int error);

    // Path life, from the paths' work items (process context).
    Result<void> agree_parameters(const codec::ConnRspFields& params, u32 mr_pages, u32 max_send_sge);
    void path_up();
    void path_down();

    const char* name() const { return name_; }
    const wire::Uuid& uuid() const { return uuid_; }
    u32 user_header_size() const { return user_header_size_; }
    u32 max_segments() const { return max_segments_; }
    u32 reconnect_delay_ms() const { return reconnect_delay_seconds_ * 1000; }
    int max_reconnect_attempts() const { return max_reconnect_attempts_.load(); }
    bool closing() const { return closing_.load(); }
    SessionSysfs* sysfs() const { return sysfs_.get(); }

    // sysfs (rtrs-clt-sysfs.cpp); process context.
    Result<void> show_max_reconnect_attempts(cxxrt::sysfs::Output& out);
    Result<void> store_max_reconnect_attempts(cxxrt::sysfs::Input& in);
    Result<void> show_mpath_policy(cxxrt::sysfs::Output& out);
    Result<void> store_mpath_policy(cxxrt::sysfs::Input& in);
    Result<void> store_add_path(cxxrt::sysfs::Input& in);
    Result<void> show_io_hold_timeout_ms(cxxrt::sysfs::Output& out);
    Result<void> store_io_hold_timeout_ms(cxxrt::sysfs::Input& in);

private:
    Result<void> create_permits();
    // The path in slot i, or null (a free or removed slot). Any context;
    // under RCU (or paths_mutex_) the path stays alive while used.
    Path* path_at(u32 i) const { return __atomic_load_n(&paths_[i], __ATOMIC_ACQUIRE); }
    u32 slot_count() const { return slots_.load(cxxrt::MemoryOrder::kAcquire); }
    void publish(u32 slot, Path* path);
    struct LivePaths;
    // The user's link event, under setup_ (events reach it in order).
    void report(rtrs_link_event event) CXXRT_REQUIRES(setup_);
    // Arms hold_work_ for the hold's deadline, or expires it now.
    void schedule_hold_expiry() CXXRT_REQUIRES(setup_);
    void hold_expiry();  // hold_work_

    char name_[wire::kNameMax + 1] = {};
    SessionNames::Entry name_entry_;  // claimed before any path connects
    rtrs_client_callbacks callbacks_{};
    wire::Uuid uuid_{};
    u32 reconnect_delay_seconds_ = 0;
    Atomic<int> max_reconnect_attempts_{-1};
    u32 user_header_size_ = 0;
    u32 poll_queues_ = 0;  // polled connections per path
    // kMaxPaths slots, published with release stores and read under RCU by
    // the IO path; slots_ is the high-water mark of used slots. Removal
    // clears a slot and waits for an RCU grace period before freeing.
    Path** paths_ = nullptr;
    Atomic<u32> slots_{0};
    cxxrt::Mutex paths_mutex_{cxxrt::lock_class<"rtrs::clt::Session::paths_mutex_">};  // add_path, remove_path, close
    u16 port_ = 0;
    // Parameters agreed between paths; link events.
    cxxrt::Mutex setup_{cxxrt::lock_class<"rtrs::clt::Session::setup_">};
    u32 queue_depth_ = 0;
    u32 max_io_size_ = 0;
    u32 max_segments_ = 0;
    PermitPool permits_;
    ObjectArray<Permit> permit_objects_;
    cxxrt::WaitQueue permit_wait_{cxxrt::lock_class<"rtrs::clt::Session::permit_wait_">};
    Atomic<u8> policy_{u8(PathPolicy::kMinInflight)};
    cxxrt::PerCpu<u32> cursors_;
    Atomic<u32> connected_paths_{0};
    bool link_down_reported_ = false;
    IoHold hold_ CXXRT_GUARDED_BY(setup_);
    cxxrt::DelayedWork hold_work_{cxxrt::lock_class<"rtrs::clt::Session::hold_work_">,
                                  cxxrt::Callback::to<&Session::hold_expiry>(this)};
    Atomic<bool> closing_{false};
    UniquePtr<SessionSysfs> sysfs_;
};

}  // namespace rtrs::clt
