// rtrs-client: one path of a session.
#pragma once

#include "rtrs/client/rtrs-clt-common.hpp"
#include "rtrs/client/rtrs-clt-faults.hpp"
#include <cxxrt/array.hpp>
#include <cxxrt/drain.hpp>
#include "rtrs/client/rtrs-clt-permit.hpp"
#include "rtrs/client/rtrs-clt-path-request.hpp"
#include "rtrs/client/rtrs-clt-connection.hpp"
#include "rtrs/client/rtrs-clt-read-slots.hpp"
#include "rtrs/core/rtrs-inline-send.hpp"

namespace rtrs::clt {

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
    Result<void> connect() CXXRT_REQUIRES(control_);
    Result<void> exchange_info();
    Result<void> create_requests();
    // The read slots of this connect, registered on the service connection;
    // without them (read_slots=0, or no memory) every READ registers.
    Result<void> create_read_slots();
    void on_read_slots_registered(const ib::WorkCompletion& wc);
    void teardown() CXXRT_REQUIRES(control_);
    void finish_closing();
    void fail_over_requests();
    void finish_request(PathRequest& request, int error);
    void complete_request(const ReceiveDecision& response);
    void became_connected() CXXRT_REQUIRES(control_);
    void spoil_connect(const char* why);
    void fail_if_spoiled();
    void schedule_reconnect();
    void handle_error();      // error_work_
    void reconnect();         // reconnect_work_
    // One reconnect attempt now, control_ held, from kReconnecting: the
    // path ends connected, or back in the reconnect cycle (the next attempt
    // after the delay) with the connect's errno returned.
    Result<void> connect_again() CXXRT_REQUIRES(control_);
    // connect(), then kConnecting -> kConnected with what becoming
    // connected does: true. False if connected but no longer kConnecting
    // (closed meanwhile); connect()'s error if that failed.
    Result<bool> connect_up() CXXRT_REQUIRES(control_);
    void send_heartbeat();    // heartbeat_work_
    // Fires one of the rtrs_clt trace events with this path's figures.
    void trace(ktrace::rtrs_clt::PathEvent event) const;
    // The connection for the permit's IO: its polled connection, or the
    // submitting CPU's.
    ClientConnection* io_connection(const Permit& permit);
    // The steps of submit(), one IO each (rtrs-clt-io.cpp, always inlined
    // there: the hot path stays one function).
    struct Submission;
    Result<void> start_request(Submission& io);
    Result<void> build_read(Submission& io);
    Result<void> build_write(Submission& io);
    Result<void> post_request(Submission& io);
    // Fault injection (process context, fault_work_ or the heartbeat):
    // moves every QP of the path to the error state.
    void inject_qp_error();

    Session& session_;
    const u32 index_;
    rtrs_path_address address_;
    char name_[96] = {};
    char hca_name_[64] = {};
    u32 hca_port_ = 0;
    Address source_;  // as the CM resolved it
    UniquePtr<PathDirectory> sysfs_;
    PathStateMachine state_{PathState::kConnecting};
    ReconnectBudget budget_;
    cxxrt::Mutex control_{cxxrt::lock_class<"rtrs::clt::Path::control_">};  // serialises connect, teardown and close
    wire::Uuid uuid_{};
    // Changed under control_; also read by build_conn_req in the CM handler
    // of the connect that holds control_ and waits for it.
    u16 reconnect_count_ = 0;
    bool connected_once_ = false;
    const bool first_conn_;  // may create the session on the server
    bool counted_up_ CXXRT_GUARDED_BY(control_) = false;  // counted in the session's connected paths
    u32 connection_count_ = 0;      // all: service + interrupt-driven IO + polled
    u32 irq_connection_count_ = 0;  // the service connection and the interrupt-driven IO ones
    u32 poll_connection_count_ = 0; // the session's poll_queues
    cxxrt::Array<UniquePtr<ClientConnection>> connections_;  // connection_count_ slots, filled by connect()
    RefPtr<ib::ProtectionDomain> pd_;
    codec::ConnRspFields params_;
    codec::ChunkGeometry geometry_;
    u32 message_size_ = 0;
    cxxrt::Array<RemoteChunk> chunks_;  // queue depth of them, from the INFO_RSP
    cxxrt::Array<PathRequest> requests_;
    RequestTable table_;  // answer state of requests_ (same ids)
    ReadSlots read_slots_;  // made with requests_, freed after them
    cxxrt::Completion read_slots_registered_{cxxrt::lock_class<"rtrs::clt::Path::read_slots_registered_">};
    int read_slots_result_ = 0;
    ib::Completion read_slots_done_{ib::Completion::member<Path, &Path::on_read_slots_registered>, this};
    Heartbeat heartbeat_;
    cxxrt::DrainCounter submitters_{cxxrt::lock_class<"rtrs::clt::Path::submitters_">};
    Atomic<u32> inflight_{0};
    InlineSendPolicy inline_sends_;
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

}  // namespace rtrs::clt
