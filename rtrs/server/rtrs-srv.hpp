// The RTRS server: listens for RTRS clients, keeps their sessions and
// paths, owns the chunks clients write into, and hands each incoming IO to
// its user (rnbd-server) through include/rtrs/rtrs-api.h.
//
// Object tree (all owned downwards, freed bottom-up in process context):
//   Context (one per rtrs_server_open: a listener and its sessions)
//     Session (one per client session, keyed by the client's paths uuid)
//       chunk memory[queue_depth] (shared by the session's paths, as upstream)
//       chunk owners[queue_depth] (which path has an IO in flight on each chunk)
//       Path (one per client path, keyed by its path uuid)
//         ServerConnection[cid_num] (cm_id + CQ + QP each)
//         a DMA mapping of each session chunk for the path's device + one
//         fast-reg MR per chunk (each path announces its own rkeys)
//         ServerIo[queue_depth] (the state of the IO in each chunk)
//
// Contexts: CM events and path setup/teardown run in process context;
// completions of IO connections run in softirq, those of connection 0
// (INFO_REQ, heartbeats) in a kworker. Locking: Context::mutex_ guards the
// session and path lists and is held only for list work, never across
// allocation or registration (a slow setup must not stall other clients'
// INFO exchanges or teardowns); Path::setup_mutex_ orders the setup of one
// path. Everything on the IO path is per path and lock-free (atomics), and
// ib_post_send serialises on the QP itself. What a client may send when is
// decided by PathProtocol (rtrs-srv-protocol.hpp). The one session-wide
// word an IO touches is its chunk's owner (ChunkOwners): an IO that finds
// its chunk held by another path of the session (a fail-over re-sending
// the chunk id while the old path's backend IO still runs) is answered
// with ENOMEM without touching the chunk.
#pragma once

#include <cxxrt/array.hpp>
#include <cxxrt/atomic.hpp>
#include <cxxrt/debugfs.hpp>
#include <cxxrt/drain.hpp>
#include <cxxrt/foreign.hpp>
#include <cxxrt/time.hpp>
#include <cxxrt/list.hpp>
#include <cxxrt/pages.hpp>
#include <cxxrt/ref_counted.hpp>
#include <cxxrt/sync.hpp>
#include <cxxrt/unique_ptr.hpp>
#include <cxxrt/wait.hpp>
#include <cxxrt/work.hpp>
#include <rtrs/rtrs-api.h>
#include "kernel/ib/memory.hpp"
#include "kernel/ib/verbs.hpp"
#include "rtrs/core/rtrs-codec.hpp"
#include "rtrs/core/rtrs-heartbeat.hpp"
#include "rtrs/core/rtrs-srv-chunk-owners.hpp"
#include "rtrs/core/rtrs-srv-params.hpp"
#include "rtrs/core/rtrs-srv-limits.hpp"
#include "rtrs/core/rtrs-srv-protocol.hpp"
#include "rtrs/core/rtrs-signal.hpp"
#include "rtrs/server/rtrs-srv-sysfs.hpp"
#include "rtrs/core/rtrs-stats.hpp"
#include "rtrs/rtrs-names.hpp"
#include <cxxrt/percpu.hpp>
#include <cxxrt/sysfs.hpp>

namespace rtrs::srv {

class Context;
class Session;
class Path;
class ServerConnection;

// Fault injection for tests (debugfs <module>/fault_*; all 0 = inert).
struct Faults {
    cxxrt::debugfs::Number drop_heartbeats;      // do not send our heartbeats
    cxxrt::debugfs::Number drop_heartbeat_acks;  // do not answer the client's heartbeats
    // Non-zero: the local ACK timeout (4.096 us * 2^n) of connections
    // accepted from now on. 1 makes the retransmit timer fire after one
    // jiffy, so rxe retransmits often (spuriously) under load.
    cxxrt::debugfs::Number ack_timeout;
    // A closing path sleeps this long right after destroying its cm_ids:
    // anything freed later would outlive a removed device (rxe WARNs in
    // rxe_pool_cleanup).
    cxxrt::debugfs::Number id_delay_ms;
};
extern constinit Faults g_faults;

// Server-wide resource counters (debugfs <module>/; updated atomically).
struct Counters {
    cxxrt::debugfs::Number sessions;                // sessions listed
    cxxrt::debugfs::Number paths;                   // paths allocated (closing ones included)
    cxxrt::debugfs::Number chunk_bytes;             // chunk memory the sessions hold
    cxxrt::debugfs::Number registered_chunk_bytes;  // chunk bytes behind a path's MR (per path)
    cxxrt::debugfs::Number refused_connects;        // connect requests refused
    cxxrt::debugfs::Number connections;             // connections charged (Admission)
    cxxrt::debugfs::Number clients;                 // clients holding a session (Admission)
    cxxrt::debugfs::Number chunk_conflicts;         // IOs refused: their chunk was another path's
};
extern constinit Counters g_counters;

// Module-wide parameters, fixed at load.
const Params& params();
void set_params(const Params& chosen);

// The module's per-client accounting (rtrs-srv-limits.hpp) behind its own
// lock: sessions are charged to the client that created them, connections
// to their session's client, before anything is allocated for them.
// Taken inside Context::mutex() and Path::setup_mutex(), never around them.
class Admission final : cxxrt::Pinned {
public:
    Admission() = default;
    // At module load, after set_params(); destroy() at unload.
    [[nodiscard]] static Result<void> create();
    static void destroy();

    [[nodiscard]] Refusal charge_session(const ClientKey& client);
    void release_session(const ClientKey& client);
    [[nodiscard]] Refusal check_connection(const ClientKey& client);
    [[nodiscard]] Refusal charge_connection(const ClientKey& client);
    void release_connections(const ClientKey& client, u32 count);

private:
    cxxrt::Mutex mutex_{cxxrt::lock_class<"rtrs::srv::Admission::mutex_">};
    ClientLedger ledger_ CXXRT_GUARDED_BY(mutex_);
};
Admission& admission();

// The state of the IO occupying one chunk of one path. Its address is the
// opaque `struct rtrs_server_io *` the user answers with.
class ServerIo final : cxxrt::Pinned {
public:
    ServerIo() = default;

    Path* path = nullptr;
    ServerConnection* connection = nullptr;  // where the request came in, where the answer goes
    u32 chunk_id = 0;
    u32 offset = 0;
    bool is_read = false;
    bool has_descriptor = false;
    bool need_invalidate = false;
    // The session's owner word of this chunk is this path's (taken for this
    // IO); false while the IO is refused because another path holds it.
    bool owns_chunk = false;
    codec::SgEntry descriptor{};
    cxxrt::Atomic<bool> busy{false};

    void on_invalidated(const ib::WorkCompletion& wc);
    void on_response_sent(const ib::WorkCompletion& wc);

    ib::Completion invalidate_done{ib::Completion::member<ServerIo, &ServerIo::on_invalidated>, this};
    ib::Completion response_done{ib::Completion::member<ServerIo, &ServerIo::on_response_sent>, this};
};

// One posted receive with a buffer (connection 0: INFO_REQ and IO).
struct ReceiveSlot {
    ServerConnection* connection = nullptr;
    u32 index = 0;
    void on_received(const ib::WorkCompletion& wc);
    ib::Completion done{ib::Completion::member<ReceiveSlot, &ReceiveSlot::on_received>, this};
};

class ServerConnection final : public ib::CmEventHandler, cxxrt::Pinned {
public:
    static constexpr u32 kReceiveSize = 512;  // >= INFO_REQ (272)

    // signal_interval: the queue depth its send queue is sized for.
    // key_after_data: the client asked for wire::kMsgFlagKeyAfterData (it is
    // granted with always_invalidate only).
    ServerConnection(Path& path, u16 cid, u32 signal_interval, bool key_after_data)
        : path_(path), cid_(cid), signal_(signal_interval), signal_interval_(signal_.interval()),
          key_after_data_(key_after_data && params().always_invalidate)
    {
    }
    ~ServerConnection();

    // Adopts the connect request's id, creates CQ/QP and receive buffers,
    // posts the receives. Process context (the listener's CM handler).
    [[nodiscard]] Result<void> setup(ib::IncomingConnection& incoming, cxxrt::RefPtr<ib::ProtectionDomain> pd);

    void on_cm_event(ib::CmId& id, const ib::CmEvent& event) override;

    // Completion of a zero-length receive (IO connections): an immediate.
    void on_immediate(const ib::WorkCompletion& wc);
    void handle_immediate(const ib::WorkCompletion& wc);
    [[nodiscard]] Result<void> repost_receive(ReceiveSlot* slot);
    void on_send_done(const ib::WorkCompletion& wc);

    Path& path() { return path_; }
    u16 cid() const { return cid_; }
    ib::Connection& connection() { return *connection_; }
    ib::QueuePair& qp() { return connection_->qp(); }
    // Taken (irqsave) around every post on this QP. When rxe (Debian 6.1,
    // rxe_req.c: req_retry) retransmits it rewinds to the oldest
    // unacknowledged WR and executes again every local operation behind it:
    // a REG_MR run twice fails ("mr->lkey ... not free") and kills the QP.
    // So a REG_MR goes right behind a LOCAL_INV (which rxe fences until
    // every earlier WR completed), and this lock keeps another context's
    // send from landing between the two.
    cxxrt::SpinLock& post_lock() CXXRT_RETURN_CAPABILITY(post_lock_) { return post_lock_; }
    // Under post_lock(): the flag of an IO answer (signalled once per
    // interval: rtrs/core/rtrs-signal.hpp).
    ib::SendFlags next_answer_signal() CXXRT_REQUIRES(post_lock_)
    {
        return signal_.next() ? ib::kSignaled : ib::kUnsignaled;
    }
    u32 signal_interval() const { return signal_interval_; }
    // The CON_RSP granted wire::kMsgFlagKeyAfterData: a successful READ
    // without NEED_INVAL is answered by one write of its data and the new rkey.
    bool key_after_data() const { return key_after_data_; }
    // LOCAL_INV of the region's current key, then REG_MR with a new key,
    // both unsignalled, in one post; call with post_lock() held.
    [[nodiscard]] Result<void> post_reregister(ib::MemoryRegion& region, ib::Access access) CXXRT_REQUIRES(post_lock_);
    // The same two WRs added to a chain (the key is bumped now, registered
    // when the chain is posted).
    void add_reregister(ib::SendChain& chain, ib::MemoryRegion& region, ib::Access access);
    bool established() const { return established_.load(); }
    void disconnect();
    void drain();
    // Frees the QP, CQ and receive buffer but keeps the cm_id (see
    // Path::~Path for why the ids go last).
    void release_queues();
    // Inside the listener's handler, for a request being refused after adopt.
    void abandon();

private:
    friend struct ReceiveSlot;
    Path& path_;
    u16 cid_;
    UniquePtr<ib::Connection> connection_;
    // Connection 0 receives into buffers; IO connections use empty receives.
    UniquePtr<ib::DmaBuffer> receive_buffer_;
    cxxrt::Array<ReceiveSlot> slots_;
    cxxrt::Atomic<bool> established_{false};
    // Held around every post on this QP (see post_lock()).
    cxxrt::SpinLock post_lock_{cxxrt::lock_class<"rtrs::srv::ServerConnection::post_lock_">};
    SignalInterval signal_ CXXRT_GUARDED_BY(post_lock_);
    const u32 signal_interval_;  // signal_'s, for tracing without the lock
    const bool key_after_data_;  // CON_RSP grants wire::kMsgFlagKeyAfterData
    ib::Completion immediate_done_{ib::Completion::member<ServerConnection, &ServerConnection::on_immediate>, this};

public:
    // Signalled control sends (INFO_RSP, heartbeats): errors close the path.
    ib::Completion send_done{ib::Completion::member<ServerConnection, &ServerConnection::on_send_done>, this};
};

class Path final : cxxrt::Pinned {
public:
    Path(Session& session, const codec::ConnReqFields& request, const ib::IncomingConnection& first);
    ~Path();

    // Allocates the connection table, IO slots and INFO buffers on `device`
    // (the chunks wait for the INFO_REQ: run_setup_work). Process
    // context, setup_mutex() held, Context::mutex() not held.
    [[nodiscard]] Result<void> init(ib::Device device) CXXRT_REQUIRES(setup_mutex_);
    bool initialized() const CXXRT_REQUIRES(setup_mutex_) { return initialized_; }
    // A connect request for connection `cid` of this path (setup_mutex() held).
    // key_after_data: the connection's CON_REQ asked for wire::kMsgFlagKeyAfterData.
    [[nodiscard]] Result<void> add_connection(ib::IncomingConnection& incoming, u16 cid, bool key_after_data)
        CXXRT_REQUIRES(setup_mutex_);
    cxxrt::Mutex& setup_mutex() CXXRT_RETURN_CAPABILITY(setup_mutex_) { return setup_mutex_; }
    // A connect request found this path under Context::mutex() and sets it
    // up after dropping that lock: the path's teardown waits for it.
    void begin_setup() { setups_.enter(); }
    void end_setup() { setups_.leave(); }
    // The client side and server side addresses match (upstream refuses a
    // second path of a session between the same two addresses).
    bool same_addresses(const ib::IncomingConnection& incoming) const;
    // The connect request comes from this path's client address (family
    // and address bytes, not the port): only such a request may replace
    // the path by a reconnect.
    bool same_client(const ib::IncomingConnection& incoming) const;

    void connection_established(ServerConnection& connection);
    // Connection 0 received an INFO_REQ the protocol allows: keeps a copy
    // and hands it to the setup work.
    void info_request_received(cxxrt::ConstByteSpan message);
    // The setup work: name the session, set up and publish the chunks.
    void handle_info_request(cxxrt::ConstByteSpan message);
    // An immediate arrived (on any connection): IO request or heartbeat.
    void handle_io_request(ServerConnection& connection, u32 imm);
    void process_io(ServerIo& io);
    void respond(ServerIo& io, int error);
    [[nodiscard]] Result<void> post_answer(ServerIo& io, int error);
    // Frees the chunk and ends the IO's time in flight.
    void io_finished(ServerIo& io);
    // Gives back the session's owner word (if the IO took it), then this
    // path's busy flag: from here on another IO may use the chunk.
    void free_chunk(ServerIo& io);
    // An IO whose chunk another path of the session holds: answered with
    // ENOMEM (retryable), the chunk untouched.
    void refuse_held_chunk(ServerIo& io);
    // This path as the owner of session chunks.
    ChunkOwners::Owner owner_id() const { return reinterpret_cast<ChunkOwners::Owner>(this); }

    // Any context: starts an asynchronous close (idempotent).
    void schedule_close(const char* reason);
    bool is_closing() const { return protocol_.closed(); }
    bool is_connected() const { return protocol_.ready(); }
    PathProtocol& protocol() { return protocol_; }
    // Applies a verdict of the protocol state machine.
    void enforce(Verdict verdict, const char* what, u16 cid);

    Session& session() { return session_; }
    const char* sysfs_name() const { return sysfs_.name(); }
    const ib::Device& device() const { return device_; }
    const codec::ChunkGeometry& geometry() const { return geometry_; }
    const u8* uuid() const { return uuid_.bytes; }
    u16 connection_count() const { return connection_count_; }
    u16 reconnect_count() const { return reconnect_count_; }
    // The client side's address (port 0, no scope), as the RTRS API gives it.
    rtrs_address client_address() const;
    // The client this path's connections are charged to (its session's).
    const ClientKey& client() const;
    Heartbeat& heartbeat() { return heartbeat_; }
    ServerConnection* connection(u16 cid) { return cid < connection_count_ ? connections_[cid].get() : nullptr; }

    cxxrt::ListNode session_node;

    // sysfs handlers (rtrs-srv-sysfs.cpp).
    Result<void> show_hca_name(cxxrt::sysfs::Output& out);
    Result<void> show_hca_port(cxxrt::sysfs::Output& out);
    Result<void> show_src_addr(cxxrt::sysfs::Output& out);
    Result<void> show_dst_addr(cxxrt::sysfs::Output& out);
    Result<void> store_disconnect(cxxrt::sysfs::Input& in);
    Result<void> show_rdma(cxxrt::sysfs::Output& out);
    Result<void> store_rdma(cxxrt::sysfs::Input& in);
    Result<void> show_wc_completion(cxxrt::sysfs::Output& out);
    Result<void> store_wc_completion(cxxrt::sysfs::Input& in);
    Result<void> store_reset_all(cxxrt::sysfs::Input& in);
    // A poll of an IO connection's CQ reaped `completions` (softirq):
    // stats/wc_completion.
    static void count_batch(void* path, u32 completions, bool polled);

private:
    friend class ServerConnection;
    friend class ServerIo;
    void close_now();
    // Waits for the heartbeat, INFO deadline and setup work items to finish.
    void cancel_works();
    // each(ServerConnection&) for every connection made so far.
    template <typename Each>
    void for_each_connection(Each&& each);
    Result<void> show_address(cxxrt::sysfs::Output& out, bool client_side);
    void publish_sysfs();
    void send_heartbeat();
    void info_deadline_passed();
    void run_setup_work();
    Result<void> prepare_chunks();
    void announce_session();

    Session& session_;
    wire::Uuid uuid_;
    u16 connection_count_;
    u16 reconnect_count_;
    PathProtocol protocol_;
    // Orders init() and add_connection(); what they set up is read lock-free
    // once the protocol lets the path carry traffic.
    cxxrt::Mutex setup_mutex_{cxxrt::lock_class<"rtrs::srv::Path::setup_mutex_">};
    bool initialized_ CXXRT_GUARDED_BY(setup_mutex_) = false;
    cxxrt::DrainCounter setups_{cxxrt::lock_class<"rtrs::srv::Path::setups_">};
    ib::SockAddr server_address_;
    ib::SockAddr client_address_;
    cxxrt::Atomic<u32> established_count_{0};
    ib::Device device_;
    cxxrt::RefPtr<ib::ProtectionDomain> pd_;
    codec::ChunkGeometry geometry_{};
    cxxrt::Array<UniquePtr<ServerConnection>> connections_;
    cxxrt::Array<UniquePtr<ib::DmaBuffer>> chunks_;  // this path's mappings of the session's chunks
    cxxrt::Array<UniquePtr<ib::MemoryRegion>> chunk_regions_;
    u32 registered_chunks_ = 0;  // setup work only (one at a time), then the destructor
    u32 charged_connections_ = 0;  // under setup_mutex_, then the destructor gives them back
    cxxrt::Atomic<bool> chunks_ready_{false};
    cxxrt::Atomic<bool> info_pending_{false};
    // Written by connection 0's receive before info_pending_, read by the setup work after it.
    u8 info_request_[ServerConnection::kReceiveSize] = {};
    u32 info_request_length_ = 0;
    cxxrt::Array<ServerIo> ios_;
    cxxrt::Array<codec::SgEntry> descriptors_;  // INFO_RSP scratch
    UniquePtr<ib::DmaBuffer> info_response_;
    UniquePtr<ib::DmaBuffer> rkey_responses_;  // queue_depth RKEY_RSP messages
    cxxrt::DrainCounter inflight_{cxxrt::lock_class<"rtrs::srv::Path::inflight_">};  // IOs handed to the user, not yet answered
    Heartbeat heartbeat_;
    cxxrt::PerCpu<ServerCpuStats> cpu_stats_;
    PathSysfs sysfs_;
    cxxrt::DelayedWork heartbeat_work_{cxxrt::lock_class<"rtrs::srv::Path::heartbeat_work_">,
                                       cxxrt::Callback::to<&Path::send_heartbeat>(this)};
    cxxrt::DelayedWork info_deadline_work_{cxxrt::lock_class<"rtrs::srv::Path::info_deadline_work_">,
                                           cxxrt::Callback::to<&Path::info_deadline_passed>(this)};
    cxxrt::Work close_work_{cxxrt::lock_class<"rtrs::srv::Path::close_work_">,
                            cxxrt::Callback::to<&Path::close_now>(this)};
    cxxrt::Work setup_work_{cxxrt::lock_class<"rtrs::srv::Path::setup_work_">,
                            cxxrt::Callback::to<&Path::run_setup_work>(this)};
};

class Session final : cxxrt::Pinned {
public:
    Session(Context& context, const wire::Uuid& uuid, const ClientKey& client)
        : context_(context), uuid_(uuid), client_(client)
    {
    }
    ~Session();

    // The session's chunk memory, allocated once when its first path has
    // its INFO_REQ (process context, may sleep); every path maps the same chunks.
    [[nodiscard]] Result<void> ensure_chunks();
    u8* chunk(u32 index) const { return chunks_[index].data(); }
    // Which path holds each chunk (made by ensure_chunks(), before the
    // first path can announce the chunks; read lock-free after that).
    ChunkOwners& chunk_owners() { return chunk_owners_; }

    Context& context() { return context_; }
    const wire::Uuid& uuid() const { return uuid_; }
    // The client that created the session (charged for it and its connections).
    const ClientKey& client() const { return client_; }
    // The session was charged to its client (Admission): the destructor releases it.
    bool charged = false;
    const char* name() const { return name_; }
    bool has_name() const { return name_[0] != '\0'; }
    // Context::mutex() held (the name is checked and set under one lock).
    void set_name(cxxrt::StringView name);
    void* user_context = nullptr;
    bool announced = false;  // the user got LINK_CONNECTED; under Context::mutex()
    SessionDirectory sysfs;

    // The path with this uuid that is not closing (a closing one may still
    // be listed beside its reconnected successor).
    Path* find_path(const wire::Uuid& uuid);
    // Why a new path may not join this session (0 if it may).
    int new_path_refusal(const ib::IncomingConnection& incoming);
    using Paths = cxxrt::IntrusiveList<Path, &Path::session_node>;
    Paths paths;  // under Context::mutex() (another object's lock: no annotation can name it here)
    cxxrt::ListNode context_node;

private:
    Context& context_;
    wire::Uuid uuid_;
    ClientKey client_;
    char name_[256] = {};  // set once, under Context::mutex() (claim_session_name)
    cxxrt::Mutex chunks_mutex_{cxxrt::lock_class<"rtrs::srv::Session::chunks_mutex_">};
    // Whole pages (cxxrt/pages.hpp): queue depth x chunk size, 64 MiB at the
    // defaults, would otherwise show as slab.
    cxxrt::Array<cxxrt::PageBuffer> chunks_;
    u32 chunk_count_ CXXRT_GUARDED_BY(chunks_mutex_) = 0;  // chunks_ itself is read unlocked once ensure_chunks() made it
    ChunkOwners chunk_owners_;  // sized under chunks_mutex_, then lock-free
};

using Sessions = cxxrt::IntrusiveList<Session, &Session::context_node>;

class Context final : public ib::CmEventHandler, cxxrt::Pinned {
public:
    Context(const rtrs_server_callbacks& callbacks, u16 port) : callbacks_(callbacks), port_(port) {}
    ~Context();

    [[nodiscard]] Result<void> listen();
    // Closes every path of every session and waits for them to go.
    void shut_down();

    void on_cm_event(ib::CmId& id, const ib::CmEvent& event) override;
    int on_connect_request(ib::CmId& listener, ib::IncomingConnection& incoming, const ib::CmEvent& event) override;

    // A path finished closing: unlink it, and its session if it was the last.
    void path_closed(Path& path);
    enum class NameClaim : u8 { kOk, kTaken, kChanged };
    // Names the session, or tells why not: another session has the name,
    // or this one had another name. One lock for the check and the set.
    NameClaim claim_session_name(Session& session, cxxrt::StringView name);
    u32 session_count();

    const rtrs_server_callbacks& callbacks() const { return callbacks_; }
    cxxrt::Mutex& mutex() CXXRT_RETURN_CAPABILITY(mutex_) { return mutex_; }

private:
    Result<int> accept_request(ib::IncomingConnection& incoming, const codec::ConnReqFields& request);
    Session* find_session(const wire::Uuid& uuid) CXXRT_REQUIRES(mutex_);
    void forget_session(Session& session) CXXRT_REQUIRES(mutex_);

    rtrs_server_callbacks callbacks_;
    u16 port_;
    UniquePtr<ib::CmId> listener_;
    cxxrt::Mutex mutex_{cxxrt::lock_class<"rtrs::srv::Context::mutex_">};
    Sessions sessions_ CXXRT_GUARDED_BY(mutex_);
    u32 session_count_ CXXRT_GUARDED_BY(mutex_) = 0;
    cxxrt::WaitQueue paths_gone_{cxxrt::lock_class<"rtrs::srv::Context::paths_gone_">};
    bool shutting_down_ CXXRT_GUARDED_BY(mutex_) = false;
};

}  // namespace rtrs::srv

// The handles of include/rtrs/rtrs-api.h are the objects' addresses.
CXXRT_FOREIGN_HANDLE(rtrs_server_context, rtrs::srv::Context);
CXXRT_FOREIGN_HANDLE(rtrs_server_session, rtrs::srv::Session);
CXXRT_FOREIGN_HANDLE(rtrs_server_io, rtrs::srv::ServerIo);
