// In-kernel test of the RDMA layer (kernel::ib) over Soft-RoCE loopback: one
// rxe device talks to its own address. A server (listener + the accepted
// connection) and a client (plus a second client that gets rejected) run in
// this one module; the steps below run in order from module init (process
// context), CM events arrive on the CM's work queues, completions in softirq.
// Buffer addresses and rkeys are handed over in memory (the real protocol
// sends them in INFO_RSP).
#include <cxxrt/atomic.hpp>
#include <cxxrt/kapi.h>
#include <cxxrt/log.hpp>
#include <cxxrt/module-api.h>
#include <cxxrt/new.hpp>
#include <cxxrt/unique_ptr.hpp>
#include "kernel/ib/cm.hpp"
#include "kernel/ib/ib.hpp"
#include "kernel/ib/memory.hpp"
#include "kernel/ib/verbs.hpp"
#include "cxxrt/tests/kmod/expect.hpp"
#include <cxxrt/enforce.hpp>

extern "C" {
int rtrs_ib_selftest_run(const unsigned char* ipv4, unsigned short port, unsigned short peer_port) noexcept;
void rtrs_ib_selftest_wake(void) noexcept;
int rtrs_ib_selftest_wait(int (*done)(void* arg), void* arg, unsigned int timeout_ms) noexcept;
}

namespace {

using namespace kernel::ib;
using cxxrt::Atomic;
using cxxrt::Gfp;
using cxxrt::RefPtr;
using cxxrt::UniquePtr;
namespace log = cxxrt::log;

constexpr unsigned kTimeoutMs = 20000;  // TCG is slow
constexpr size_t kBufferSize = 64 * 1024;
constexpr u32 kPages = kBufferSize / MemoryRegion::kPageSize;
constexpr size_t kPrivateDataSize = 56;
constexpr u32 kImmClientToServer = 0x01234567;
constexpr u32 kImmServerToClient = 0x10abcdef;
constexpr u32 kImmHeartbeat = 8u << 28;     // RTRS HB_MSG
constexpr u32 kImmHeartbeatAck = 9u << 28;  // RTRS HB_ACK
constexpr u32 kImmReregistered = 0x00000042;
constexpr u32 kImmChained = 0x00000043;
constexpr u8 kRejectMarker = 0xee;

u8 pattern(size_t i, u8 seed)
{
    return u8(i * 7 + seed + (i >> 9));
}

void fill(u8* p, size_t n, u8 seed)
{
    for (size_t i = 0; i < n; ++i)
        p[i] = pattern(i, seed);
}

bool matches(const u8* p, size_t n, u8 seed)
{
    for (size_t i = 0; i < n; ++i) {
        if (p[i] != pattern(i, seed)) {
            log::err("#   data mismatch at byte %zu: %#x, expected %#x", i, p[i], pattern(i, seed));
            return false;
        }
    }
    return true;
}

// Waits (process context) until counter >= target.
#define wait_for(counter, ...) wait_for_counter(#counter, counter, ##__VA_ARGS__)
bool wait_for_counter(const char* what, Atomic<int>& counter, int target, unsigned timeout_ms = kTimeoutMs)
{
    struct Condition {
        Atomic<int>* counter;
        int target;
    } condition{&counter, target};
    auto done = [](void* arg) -> int {
        auto* c = static_cast<Condition*>(arg);
        return c->counter->load() >= c->target;
    };
    if (rtrs_ib_selftest_wait(done, &condition, timeout_ms) == 0)
        return true;
    log::err("#   timed out waiting for %s (%d of %d)", what, counter.load(), target);
    return false;
}

// One outstanding work request and what its completion reported.
struct Op {
    void on_done(const WorkCompletion& wc)
    {
        last = wc;
        if (!wc.ok())
            log::info("# completion %p: %s (%d)", static_cast<void*>(this), wc.status_text(), wc.status);
        count.fetch_add(1);
        rtrs_ib_selftest_wake();
    }
    bool wait_ok(int opcode)
    {
        if (!wait_for(count, 1))
            return false;
        if (!last.ok() || last.opcode != opcode) {
            log::err("#   completion: status %s (%d), opcode %d, expected %d", last.status_text(), last.status,
                     last.opcode, opcode);
            return false;
        }
        return true;
    }
    Completion done{Completion::member<Op, &Op::on_done>, this};
    WorkCompletion last{};
    Atomic<int> count{0};
};

constexpr QueuePairConfig kQp{.max_send_wr = 16 + 1, .max_recv_wr = 16 + 1, .max_send_sge = 2, .max_recv_sge = 1};
constexpr int kInitialRecvs = 2;

void make_private_data(u8 (&data)[kPrivateDataSize], u8 seed)
{
    fill(data, sizeof(data), seed);
    data[0] = data[1] = 0;  // like RTRS's CON_REQ: left to the CM
}

class Client final : public CmEventHandler {
public:
    explicit Client(bool expect_reject)
    {
        make_private_data(private_data_, 0x11);
        if (expect_reject)
            private_data_[2] = kRejectMarker;  // asks our server to refuse
    }

    Result<void> start(const SockAddr& destination)
    {
        auto id = CXXRT_TRY(CmId::create(Gfp::kernel(), *this));
        conn = CXXRT_TRY(Connection::create(Gfp::kernel(), cxxrt::move(id)));
        return conn->cm_id().resolve_addr(nullptr, destination, int(kTimeoutMs));
    }

    void on_cm_event(CmId& id, const CmEvent& event) override
    {
        switch (event.type) {
        case CmEventType::kAddrResolved:
            if (on_addr_resolved(id).is_error())
                fail();
            break;
        case CmEventType::kRouteResolved:
            if (id.connect_from_handler(ConstByteSpan(private_data_), 7, 7).is_error())
                fail();
            break;
        case CmEventType::kEstablished:
            keep_private_data(event);
            established.fetch_add(1);
            settled.fetch_add(1);
            break;
        case CmEventType::kRejected:
            keep_private_data(event);
            reject_status = event.status;
            rejected.fetch_add(1);
            settled.fetch_add(1);
            break;
        case CmEventType::kDisconnected:
            disconnected.fetch_add(1);
            break;
        case CmEventType::kTimewaitExit:
            break;
        default:
            log::info("# client: CM event %s, status %d", event.name(), event.status);
            fail();
            break;
        }
        rtrs_ib_selftest_wake();
    }

    UniquePtr<Connection> conn;
    Op recv[5];
    Atomic<int> established{0}, rejected{0}, disconnected{0}, errors{0};
    Atomic<int> settled{0};  // established, rejected or failed
    int reject_status = 0;
    u8 peer_data[kPrivateDataSize] = {};
    size_t peer_data_len = 0;

private:
    // CM handler context: build PD, CQ, QP, post the first receives, go on.
    Result<void> on_addr_resolved(CmId& id)
    {
        auto pd = CXXRT_TRY(ProtectionDomain::create(Gfp::kernel(), id.device()));
        ConnectionConfig config{.qp = kQp, .comp_vector = int(kapi_smp_processor_id())};
        CXXRT_TRY(conn->create_queues(Gfp::kernel(), cxxrt::move(pd), config));
        for (int i = 0; i < kInitialRecvs; ++i)
            CXXRT_TRY(conn->qp().post_recv(recv[i].done));
        return id.resolve_route(int(kTimeoutMs));
    }
    void fail()
    {
        errors.fetch_add(1);
        settled.fetch_add(1);
    }
    void keep_private_data(const CmEvent& event)
    {
        peer_data_len = event.private_data.size();
        cxxrt::copy_bytes(peer_data, event.private_data.data(), cxxrt::min(peer_data_len, sizeof(peer_data)));
    }

    u8 private_data_[kPrivateDataSize];
};

class Server final : public CmEventHandler {
public:
    Server() { make_private_data(accept_data_, 0x22); }

    Result<void> listen(const SockAddr& address)
    {
        listener = CXXRT_TRY(CmId::create(Gfp::kernel(), *this));
        CXXRT_TRY(listener->bind(address));
        return listener->listen(64);
    }

    int on_connect_request(CmId&, IncomingConnection& incoming, const CmEvent& event) override
    {
        requests.fetch_add(1);
        request_len = event.private_data.size();
        cxxrt::copy_bytes(request_data, event.private_data.data(),
                          cxxrt::min(request_len, sizeof(request_data)));
        rtrs_ib_selftest_wake();
        if (request_len >= kPrivateDataSize && event.private_data[2] == kRejectMarker) {
            u8 rsp[kPrivateDataSize];
            make_private_data(rsp, 0x33);
            if (incoming.reject(ConstByteSpan(rsp)).is_error())
                errors.fetch_add(1);
            refused.fetch_add(1);
            return -cxxrt::err::kConnRefused;  // the CM destroys the new id
        }
        if (conn) {
            errors.fetch_add(1);
            return -cxxrt::err::kBusy;
        }
        auto accepted = accept(incoming);
        if (accepted.is_error()) {
            log::err("# server: accepting failed: %d", accepted.to_errno());
            errors.fetch_add(1);
            if (conn)
                conn->destroy_queues();  // the CmId goes inert; conn is freed at teardown
            return accepted.to_errno();
        }
        return 0;
    }

    void on_cm_event(CmId& id, const CmEvent& event) override
    {
        switch (event.type) {
        case CmEventType::kEstablished:
            established.fetch_add(1);
            break;
        case CmEventType::kDisconnected:
            // Answer the peer's DREQ (a DREP), as every RDMA-CM user must:
            // without it the initiator waits for its DREQ to time out.
            if (id.disconnect().is_error())
                errors.fetch_add(1);
            disconnected.fetch_add(1);
            break;
        case CmEventType::kTimewaitExit:
            break;
        default:
            log::info("# server: CM event %s, status %d on %s", event.name(), event.status,
                      &id == listener.get() ? "listener" : "connection");
            errors.fetch_add(1);
            break;
        }
        rtrs_ib_selftest_wake();
    }

    UniquePtr<CmId> listener;
    UniquePtr<Connection> conn;
    Op recv[5];
    Atomic<int> requests{0}, established{0}, disconnected{0}, refused{0}, errors{0};
    u8 request_data[kPrivateDataSize] = {};
    size_t request_len = 0;

private:
    Result<void> accept(IncomingConnection& incoming)
    {
        auto id = CXXRT_TRY(CmId::adopt(Gfp::kernel(), incoming, *this));
        conn = CXXRT_TRY(Connection::create(Gfp::kernel(), cxxrt::move(id)));
        auto pd = CXXRT_TRY(ProtectionDomain::create(Gfp::kernel(), incoming.device()));
        ConnectionConfig config{.qp = kQp, .comp_vector = int(kapi_smp_processor_id())};
        CXXRT_TRY(conn->create_queues(Gfp::kernel(), cxxrt::move(pd), config));
        for (int i = 0; i < kInitialRecvs; ++i)
            CXXRT_TRY(conn->qp().post_recv(recv[i].done));
        return conn->cm_id().accept(ConstByteSpan(accept_data_), 7);
    }

    u8 accept_data_[kPrivateDataSize];
};

class Selftest final {
public:
    Selftest(const u8 (&ip)[4], u16 port, u16 peer_port) : port_(port), peer_port_(peer_port)
    {
        cxxrt::copy_bytes(ip_, ip, 4);
    }

    bool listen();
    bool connect();
    bool reject();
    bool device_attrs();
    bool write_imm_client_to_server();
    bool write_imm_server_to_client();
    bool heartbeats();
    bool send_recv();
    bool send_with_invalidate();
    bool reregister_with_new_key();
    bool send_chain();
    bool send_chain_limits();
    bool disconnect();
    void teardown();

private:
    Result<SockAddr> address() const { return SockAddr::ipv4(ip_, port_); }
    // Where the clients connect: the listener, unless a test of the failure
    // paths points them elsewhere (module parameter peer_port).
    Result<SockAddr> peer_address() const { return SockAddr::ipv4(ip_, peer_port_); }

    u8 ip_[4];
    u16 port_;
    u16 peer_port_;
    Server server_;
    Client client_{false};
    Client rejected_client_{true};
    bool connected_ = false;
    bool drained_ = false;

    // Server memory written by the client: 64 KiB in 16 page entries.
    u8* server_area_ = nullptr;
    UniquePtr<ScatterList> server_sg_;
    UniquePtr<MemoryRegion> server_mr_;
    UniquePtr<DmaBuffer> server_source_;  // what the server writes to the client
    UniquePtr<DmaBuffer> server_inbox_;   // a receive buffer for a plain send
    // Client memory.
    UniquePtr<DmaBuffer> client_source_;
    UniquePtr<DmaBuffer> client_target_;  // written by the server, via client_mr_
    UniquePtr<MemoryRegion> client_mr_;
    UniquePtr<DmaBuffer> client_message_;
};

bool Selftest::listen()
{
    auto addr = address();
    EXPECT_OK(addr);
    auto round_trip = addr.value().to_addr();
    EXPECT_OK(round_trip);
    EXPECT(round_trip.value().family == KAPI_RDMA_AF_INET && round_trip.value().port == port_);
    EXPECT(cxxrt::compare_bytes(round_trip.value().bytes, ip_, 4) == 0);
    EXPECT_OK(server_.listen(addr.value()));
    return true;
}

bool Selftest::connect()
{
    auto addr = peer_address();
    EXPECT_OK(addr);
    EXPECT_OK(client_.start(addr.value()));
    // Private data beyond the CM's 56 bytes is refused before the kernel.
    u8 too_long[kPrivateDataSize + 1] = {};
    auto refused = client_.conn->cm_id().connect(ConstByteSpan(too_long), 7, 7);
    EXPECT(refused.is_error() && refused.error().code() == cxxrt::err::kMsgSize);

    EXPECT(wait_for(client_.settled, 1));
    EXPECT(client_.established.load() == 1);
    EXPECT(wait_for(server_.established, 1));
    connected_ = true;
    EXPECT(client_.errors.load() == 0 && server_.errors.load() == 0);
    // The connect request carried our 56 bytes (the CM may pad the span).
    u8 expected[kPrivateDataSize];
    make_private_data(expected, 0x11);
    EXPECT(server_.request_len >= kPrivateDataSize);
    EXPECT(cxxrt::compare_bytes(server_.request_data, expected, kPrivateDataSize) == 0);
    // The accept carried the server's 56 bytes.
    make_private_data(expected, 0x22);
    EXPECT(client_.peer_data_len >= kPrivateDataSize);
    EXPECT(cxxrt::compare_bytes(client_.peer_data, expected, kPrivateDataSize) == 0);
    log::info("# connected: request %zu bytes, accept %zu bytes of private data", server_.request_len,
              client_.peer_data_len);
    return true;
}

bool Selftest::reject()
{
    auto addr = peer_address();
    EXPECT_OK(addr);
    int refused_before = server_.refused.load();
    EXPECT_OK(rejected_client_.start(addr.value()));
    EXPECT(wait_for(rejected_client_.settled, 1));
    EXPECT(rejected_client_.rejected.load() == 1);
    EXPECT(server_.refused.load() == refused_before + 1);
    EXPECT(rejected_client_.established.load() == 0);
    log::info("# rejected: status %d (%s), %zu bytes of private data", rejected_client_.reject_status,
              rejected_client_.conn->cm_id().reject_reason_text(rejected_client_.reject_status),
              rejected_client_.peer_data_len);
    EXPECT(rejected_client_.reject_status == KABI_IB_CM_REJ_CONSUMER_DEFINED);
    u8 expected[kPrivateDataSize];
    make_private_data(expected, 0x33);
    EXPECT(rejected_client_.peer_data_len >= kPrivateDataSize);
    EXPECT(cxxrt::compare_bytes(rejected_client_.peer_data, expected, kPrivateDataSize) == 0);
    // Our id stays ours after a reject: destroyed here, in process context.
    rejected_client_.conn.reset();
    return true;
}

bool Selftest::device_attrs()
{
    Device device = client_.conn->device();
    EXPECT(bool(device));
    EXPECT(device == server_.conn->device());
    DeviceAttrs attrs = device.attrs();
    log::info("# device %s port %u: max_qp_wr %u max_send_sge %u max_recv_sge %u max_cqe %u "
              "max_fast_reg_page_list_len %u comp_vectors %u max_mr_size %llu mem_mgt_ext %d sg_gaps %d",
              device.name(), client_.conn->cm_id().port(), attrs.max_qp_wr, attrs.max_send_sge,
              attrs.max_recv_sge, attrs.max_cqe, attrs.max_fast_reg_page_list_len, attrs.num_comp_vectors,
              (unsigned long long)attrs.max_mr_size, attrs.mem_mgt_extensions, attrs.sg_gaps_reg);
    EXPECT(attrs.mem_mgt_extensions);
    EXPECT(attrs.max_fast_reg_page_list_len >= kPages);
    EXPECT(attrs.max_send_sge >= 2);
    EXPECT(attrs.max_qp_wr >= kQp.max_send_wr);
    auto src = client_.conn->cm_id().source_address().to_addr();
    auto dst = client_.conn->cm_id().destination_address().to_addr();
    EXPECT_OK(src);
    EXPECT_OK(dst);
    EXPECT(dst.value().family == KAPI_RDMA_AF_INET && dst.value().port == port_);
    EXPECT(cxxrt::compare_bytes(dst.value().bytes, ip_, 4) == 0);
    EXPECT(cxxrt::compare_bytes(src.value().bytes, ip_, 4) == 0);  // loopback: same address
    return true;
}

bool Selftest::write_imm_client_to_server()
{
    Device device = server_.conn->device();
    // The server's target: a kmalloc'd area described page by page.
    server_area_ = cxxrt::allocate_array<u8>(Gfp::kernel(), kBufferSize);
    EXPECT(server_area_ != nullptr);
    auto sg = ScatterList::create(Gfp::kernel(), kPages);
    EXPECT_OK(sg);
    server_sg_ = sg.release_value();
    for (u32 i = 0; i < kPages; ++i)
        server_sg_->set(i, server_area_ + i * MemoryRegion::kPageSize, MemoryRegion::kPageSize);
    auto nents = server_sg_->map(device, DmaDirection::kBidirectional);
    EXPECT_OK(nents);
    auto mr = MemoryRegion::create(Gfp::kernel(), RefPtr<ProtectionDomain>(&server_.conn->pd()), kPages);
    EXPECT_OK(mr);
    server_mr_ = mr.release_value();
    auto mapped = server_mr_->map_sg(*server_sg_);
    EXPECT_OK(mapped);
    EXPECT(mapped.value() == nents.value());
    EXPECT(server_mr_->length() == kBufferSize);
    Op reg;
    EXPECT_OK(server_mr_->post_register(server_.conn->qp(), &reg.done, kLocalWrite | kRemoteWrite, kSignaled));
    EXPECT(reg.wait_ok(WorkCompletion::kRegMr));

    // The client writes 64 KiB from two SGEs, with an immediate.
    auto source = DmaBuffer::create(Gfp::kernel(), client_.conn->device(), kBufferSize, DmaDirection::kToDevice);
    EXPECT_OK(source);
    client_source_ = source.release_value();
    fill(client_source_->data(), kBufferSize, 0x5a);
    client_source_->sync_for_device();
    u32 lkey = client_.conn->pd().local_dma_lkey();
    Sge sges[2] = {client_source_->sge(lkey, 0, kBufferSize / 2),
                   client_source_->sge(lkey, kBufferSize / 2, kBufferSize / 2)};
    Op write;
    EXPECT_OK(client_.conn->qp().post_write_imm(&write.done, Span<const Sge>(sges), server_mr_->remote(),
                                                 kImmClientToServer, kSignaled));
    EXPECT(write.wait_ok(WorkCompletion::kRdmaWrite));
    Op& recv = server_.recv[0];
    EXPECT(recv.wait_ok(WorkCompletion::kRecvRdmaWithImm));
    EXPECT(recv.last.has_imm());
    EXPECT(recv.last.imm() == kImmClientToServer);
    EXPECT(recv.last.byte_len == kBufferSize);
    server_sg_->unmap();  // hands the memory back to the CPU
    EXPECT(matches(server_area_, kBufferSize, 0x5a));
    // Done with this registration: invalidate it locally.
    Op inv;
    EXPECT_OK(server_mr_->post_invalidate(server_.conn->qp(), &inv.done, kSignaled));
    EXPECT(inv.wait_ok(WorkCompletion::kLocalInv));
    return true;
}

bool Selftest::write_imm_server_to_client()
{
    // The client's target: a DmaBuffer registered in one segment.
    auto target = DmaBuffer::create(Gfp::kernel(), client_.conn->device(), kBufferSize,
                                    DmaDirection::kBidirectional);
    EXPECT_OK(target);
    client_target_ = target.release_value();
    auto mr = MemoryRegion::create(Gfp::kernel(), RefPtr<ProtectionDomain>(&client_.conn->pd()), kPages);
    EXPECT_OK(mr);
    client_mr_ = mr.release_value();
    EXPECT_OK(client_mr_->map(*client_target_, 0, kBufferSize));
    EXPECT(client_mr_->length() == kBufferSize);
    Op reg;
    EXPECT_OK(client_mr_->post_register(client_.conn->qp(), &reg.done, kLocalWrite | kRemoteWrite, kSignaled));
    EXPECT(reg.wait_ok(WorkCompletion::kRegMr));

    auto source = DmaBuffer::create(Gfp::kernel(), server_.conn->device(), kBufferSize, DmaDirection::kToDevice);
    EXPECT_OK(source);
    server_source_ = source.release_value();
    fill(server_source_->data(), kBufferSize, 0xa5);
    server_source_->sync_for_device();
    Sge sge = server_source_->sge(server_.conn->pd().local_dma_lkey());
    Op write;
    EXPECT_OK(server_.conn->qp().post_write_imm(&write.done, Span<const Sge>(&sge, 1), client_mr_->remote(),
                                                 kImmServerToClient, kSignaled));
    EXPECT(write.wait_ok(WorkCompletion::kRdmaWrite));
    Op& recv = client_.recv[0];
    EXPECT(recv.wait_ok(WorkCompletion::kRecvRdmaWithImm));
    EXPECT(recv.last.has_imm());
    EXPECT(recv.last.imm() == kImmServerToClient);
    EXPECT(recv.last.byte_len == kBufferSize);
    client_target_->sync_for_cpu();
    EXPECT(matches(client_target_->data(), kBufferSize, 0xa5));
    return true;
}

bool Selftest::heartbeats()
{
    // No SGE, remote address and rkey 0: the shape of RTRS heartbeats.
    Op hb;
    EXPECT_OK(client_.conn->qp().post_write_imm(&hb.done, {}, RemoteBuffer{}, kImmHeartbeat, kSignaled));
    EXPECT(hb.wait_ok(WorkCompletion::kRdmaWrite));
    Op& server_recv = server_.recv[1];
    EXPECT(server_recv.wait_ok(WorkCompletion::kRecvRdmaWithImm));
    EXPECT(server_recv.last.has_imm() && server_recv.last.imm() == kImmHeartbeat);
    EXPECT(server_recv.last.byte_len == 0);
    // The answer, unsignaled (as most RTRS sends are): no completion object.
    EXPECT_OK(server_.conn->qp().post_write_imm(nullptr, {}, RemoteBuffer{}, kImmHeartbeatAck, kUnsignaled));
    Op& client_recv = client_.recv[1];
    EXPECT(client_recv.wait_ok(WorkCompletion::kRecvRdmaWithImm));
    EXPECT(client_recv.last.has_imm() && client_recv.last.imm() == kImmHeartbeatAck);
    EXPECT(client_recv.last.byte_len == 0);
    return true;
}

bool Selftest::send_recv()
{
    auto inbox = DmaBuffer::create(Gfp::kernel(), server_.conn->device(), 64, DmaDirection::kFromDevice);
    EXPECT_OK(inbox);
    server_inbox_ = inbox.release_value();
    Sge recv_sge = server_inbox_->sge(server_.conn->pd().local_dma_lkey());
    Op& recv = server_.recv[2];
    EXPECT_OK(server_.conn->qp().post_recv(recv.done, Span<const Sge>(&recv_sge, 1)));

    auto message = DmaBuffer::create(Gfp::kernel(), client_.conn->device(), kPrivateDataSize,
                                     DmaDirection::kToDevice);
    EXPECT_OK(message);
    client_message_ = message.release_value();
    fill(client_message_->data(), kPrivateDataSize, 0x77);
    client_message_->sync_for_device();
    Sge send_sge = client_message_->sge(client_.conn->pd().local_dma_lkey());
    Op send;
    EXPECT_OK(client_.conn->qp().post_send(&send.done, Span<const Sge>(&send_sge, 1), kSignaled | kSolicited));
    EXPECT(send.wait_ok(WorkCompletion::kSend));
    EXPECT(recv.wait_ok(WorkCompletion::kRecv));
    EXPECT(!recv.last.has_imm() && !recv.last.has_invalidate());
    EXPECT(recv.last.byte_len == kPrivateDataSize);
    server_inbox_->sync_for_cpu();
    EXPECT(matches(server_inbox_->data(), kPrivateDataSize, 0x77));
    return true;
}

bool Selftest::send_with_invalidate()
{
    // The server invalidates the client's rkey with an empty send (what the
    // RTRS server does after answering a read).
    Op& recv = client_.recv[2];
    EXPECT_OK(client_.conn->qp().post_recv(recv.done));
    u32 rkey = client_mr_->rkey();
    Op send;
    EXPECT_OK(server_.conn->qp().post_send_inv(&send.done, {}, rkey, kSignaled));
    EXPECT(send.wait_ok(WorkCompletion::kSend));
    EXPECT(recv.wait_ok(WorkCompletion::kRecv));
    EXPECT(recv.last.has_invalidate());
    EXPECT(recv.last.invalidate_rkey == rkey);
    EXPECT(recv.last.byte_len == 0);
    return true;
}

bool Selftest::reregister_with_new_key()
{
    u32 old_rkey = client_mr_->rkey();
    client_mr_->bump_key();
    u32 new_rkey = client_mr_->rkey();
    EXPECT(new_rkey != old_rkey);
    EXPECT((new_rkey & ~0xffu) == (old_rkey & ~0xffu));
    EXPECT(new_rkey == ((old_rkey & ~0xffu) | ((old_rkey + 1) & 0xffu)));
    EXPECT_OK(client_mr_->map(*client_target_, 0, kBufferSize));
    Op reg;
    EXPECT_OK(client_mr_->post_register(client_.conn->qp(), &reg.done, kLocalWrite | kRemoteWrite, kSignaled));
    EXPECT(reg.wait_ok(WorkCompletion::kRegMr));

    Op& recv = client_.recv[3];
    EXPECT_OK(client_.conn->qp().post_recv(recv.done));
    fill(server_source_->data(), 4096, 0x3c);
    server_source_->sync_for_device();
    Sge sge = server_source_->sge(server_.conn->pd().local_dma_lkey(), 0, 4096);
    Op write;
    EXPECT_OK(server_.conn->qp().post_write_imm(&write.done, Span<const Sge>(&sge, 1), client_mr_->remote(),
                                                 kImmReregistered, kSignaled));
    EXPECT(write.wait_ok(WorkCompletion::kRdmaWrite));
    EXPECT(recv.wait_ok(WorkCompletion::kRecvRdmaWithImm));
    EXPECT(recv.last.imm() == kImmReregistered && recv.last.byte_len == 4096);
    client_target_->sync_for_cpu();
    EXPECT(matches(client_target_->data(), 4096, 0x3c));
    Op inv;
    EXPECT_OK(client_mr_->post_invalidate(client_.conn->qp(), &inv.done, kSignaled));
    EXPECT(inv.wait_ok(WorkCompletion::kLocalInv));
    return true;
}

// SendChain: a registration alone, then a write and a write with immediate
// in one post (the data lands before the immediate).
bool Selftest::send_chain()
{
    client_mr_->bump_key();
    EXPECT_OK(client_mr_->map(*client_target_, 0, kBufferSize));
    Op reg;
    SendChain registration;
    registration.register_region(*client_mr_, kLocalWrite | kRemoteWrite, &reg.done, kSignaled);
    EXPECT_OK(registration.post(client_.conn->qp()));
    EXPECT(registration.posted() == 1);
    EXPECT(reg.wait_ok(WorkCompletion::kRegMr));

    Op& recv = client_.recv[4];
    EXPECT_OK(client_.conn->qp().post_recv(recv.done));
    fill(server_source_->data(), 4096, 0x5a);
    server_source_->sync_for_device();
    Sge sge = server_source_->sge(server_.conn->pd().local_dma_lkey(), 0, 4096);
    Op write;
    SendChain answer;
    answer.write(Span<const Sge>(&sge, 1), client_mr_->remote(), nullptr, kUnsignaled);
    answer.write_imm({}, RemoteBuffer{}, kImmChained, &write.done, kSignaled);
    EXPECT_OK(answer.post(server_.conn->qp()));
    EXPECT(answer.posted() == 2);
    EXPECT(write.wait_ok(WorkCompletion::kRdmaWrite));
    EXPECT(recv.wait_ok(WorkCompletion::kRecvRdmaWithImm));
    EXPECT(recv.last.imm() == kImmChained && recv.last.byte_len == 0);
    client_target_->sync_for_cpu();
    EXPECT(matches(client_target_->data(), 4096, 0x5a));
    return true;
}

// A chain over SendChain::kMaxWorkRequests posts nothing; an invalidation alone.
// (Apart from send_chain: together their frame is over 2 KiB with KASAN.)
bool Selftest::send_chain_limits()
{
    SendChain too_long;
    for (u32 i = 0; i <= SendChain::kMaxWorkRequests; ++i)
        too_long.write_imm({}, RemoteBuffer{}, kImmChained, nullptr, kUnsignaled);
    auto refused = too_long.post(server_.conn->qp());
    EXPECT(refused.is_error() && refused.error().code() == cxxrt::err::kInval);
    EXPECT(too_long.posted() == 0);

    Op inv;
    SendChain invalidation;
    invalidation.invalidate(client_mr_->rkey(), &inv.done, kSignaled);
    EXPECT_OK(invalidation.post(client_.conn->qp()));
    EXPECT(inv.wait_ok(WorkCompletion::kLocalInv));
    return true;
}

bool Selftest::disconnect()
{
    EXPECT_OK(client_.conn->cm_id().disconnect());
    EXPECT(wait_for(server_.disconnected, 1));
    EXPECT(wait_for(client_.disconnected, 1));
    // Both QPs are in the error state now; flush what is still posted.
    client_.conn->drain();
    server_.conn->drain();
    drained_ = true;
    EXPECT(client_.errors.load() == 0 && server_.errors.load() == 0);
    return true;
}

// Always runs, whatever failed: every object goes, in dependency order.
void Selftest::teardown()
{
    if (connected_ && !drained_) {
        if (client_.conn)
            (void)client_.conn->cm_id().disconnect();
        (void)wait_for(server_.disconnected, 1, 5000);
        (void)wait_for(client_.disconnected, 1, 5000);
        if (client_.conn && client_.conn->has_queues())
            client_.conn->drain();
        if (server_.conn && server_.conn->has_queues())
            server_.conn->drain();
    }
    client_mr_.reset();
    server_mr_.reset();
    server_sg_.reset();
    cxxrt::free_array(server_area_);
    server_area_ = nullptr;
    client_source_.reset();
    client_target_.reset();
    client_message_.reset();
    server_source_.reset();
    server_inbox_.reset();
    rejected_client_.conn.reset();
    client_.conn.reset();
    server_.conn.reset();
    server_.listener.reset();
}

struct Step {
    const char* name;
    bool (Selftest::*run)();
};

constexpr Step kSteps[] = {
    {"listen", &Selftest::listen},
    {"connect_with_private_data", &Selftest::connect},
    {"reject_with_private_data", &Selftest::reject},
    {"device_attributes", &Selftest::device_attrs},
    {"write_imm_client_to_server_64k", &Selftest::write_imm_client_to_server},
    {"write_imm_server_to_client_64k", &Selftest::write_imm_server_to_client},
    {"heartbeat_zero_length_write_imm", &Selftest::heartbeats},
    {"send_recv", &Selftest::send_recv},
    {"send_with_invalidate", &Selftest::send_with_invalidate},
    {"reregister_with_new_rkey", &Selftest::reregister_with_new_key},
    {"send_chain", &Selftest::send_chain},
    {"send_chain_limits", &Selftest::send_chain_limits},
    {"disconnect_and_drain", &Selftest::disconnect},
};

}  // namespace

extern "C" int rtrs_ib_selftest_run(const unsigned char* ipv4, unsigned short port, unsigned short peer_port) noexcept
{
    int rc = cxxrt_module_init();
    if (rc)
        return rc;
    constexpr int kCount = int(sizeof(kSteps) / sizeof(kSteps[0]));
    u8 ip[4] = {ipv4[0], ipv4[1], ipv4[2], ipv4[3]};
    log::info("KTAP version 1");
    log::info("1..%d", kCount + 1);
    int failed = 0;
    {
        auto made = cxxrt::make_unique<Selftest>(Gfp::kernel(), ip, port, peer_port ? peer_port : port);
        if (made.is_error()) {
            log::err("# out of memory");
            (void)cxxrt_module_exit();
            return made.to_errno();
        }
        UniquePtr<Selftest> test = made.release_value();
        for (int i = 0; i < kCount; ++i) {
            if (failed) {
                log::info("ok %d %s # SKIP an earlier step failed", i + 1, kSteps[i].name);
                continue;
            }
            bool ok = ((*test).*kSteps[i].run)();
            if (!ok)
                ++failed;
            log::info("%s %d %s", ok ? "ok" : "not ok", i + 1, kSteps[i].name);
        }
        test->teardown();
    }
    bool clean = cxxrt::live_allocations() == 0;
    if (!clean) {
        ++failed;
        log::err("#   %lld objects still live after teardown", (long long)cxxrt::live_allocations());
    }
    log::info("%s %d no_objects_left_after_teardown", clean ? "ok" : "not ok", kCount + 1);
    log::info("# rtrs-ib selftest: %d failed", failed);
    if (failed) {
        (void)cxxrt_module_exit();
        return -cxxrt::err::kInval;
    }
    return 0;
}
