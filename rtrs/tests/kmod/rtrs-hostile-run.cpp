// The hostile peer against our server: an RTRS client written on the RDMA
// layer (kernel::ib) and the wire codecs, which sends what a well-behaved
// client never sends and watches what the server does about it. Each case
// builds its own path (fresh UUIDs), provokes the server, observes one of
//   - the connect request rejected,
//   - the path closed (the server disconnects our connections),
//   - an IO answer carrying an errno,
//   - an IO answer saying "done" (the server accepted the bad input),
//   - nothing within the timeout,
// and tears its path down. Everything runs from module init (process
// context); CM events arrive on the CM's work queues, completions in softirq.
#include <cxxrt/array.hpp>
#include <cxxrt/atomic.hpp>
#include <cxxrt/kapi.h>
#include <cxxrt/log.hpp>
#include <cxxrt/module-api.h>
#include <cxxrt/new.hpp>
#include <cxxrt/time.hpp>
#include <cxxrt/unique_ptr.hpp>
#include <cxxrt/work.hpp>
#include <proto/rnbd-wire.hpp>
#include <proto/rtrs-wire.hpp>
#include "rnbd/core/rnbd-codec.hpp"
#include "kernel/ib/cm.hpp"
#include "kernel/ib/ib.hpp"
#include "kernel/ib/memory.hpp"
#include "kernel/ib/verbs.hpp"
#include "rtrs/core/rtrs-codec.hpp"
#include <cxxrt/enforce.hpp>

extern "C" {
int rtrs_hostile_run(const unsigned char* ipv4, unsigned short port, const char* only, const char* skip,
                     const char* dir, const char* blockdev, unsigned int flood,
                     unsigned int flood_paths, unsigned int flood_connections,
                     unsigned int flood_connections_budget, const unsigned char* ipv4_second) noexcept;
unsigned int rtrs_hostile_hold_ms(void) noexcept;
unsigned int rtrs_hostile_connect_ms(void) noexcept;
void rtrs_hostile_wake(void) noexcept;
int rtrs_hostile_wait(int (*done)(void* arg), void* arg, unsigned int timeout_ms) noexcept;
void rtrs_hostile_sleep_ms(unsigned int ms) noexcept;
}

namespace {

using namespace kernel::ib;
using cxxrt::Atomic;
using cxxrt::ByteSpan;
using cxxrt::Gfp;
using cxxrt::RefPtr;
using cxxrt::StringView;
using cxxrt::UniquePtr;
namespace log = cxxrt::log;
namespace rcodec = rtrs::codec;
namespace rwire = rtrs::wire;
namespace ncodec = rnbd::codec;
namespace nwire = rnbd::wire;

// How long a connect, an answer or a completion is waited for: the
// connect_ms parameter (10 s by default: TCG and rxe are slow; the debug
// kernel under TCG needs more).
unsigned connect_timeout_ms() { return rtrs_hostile_connect_ms(); }
constexpr unsigned kReactionMs = 4000;  // how long the server has to react to bad input
constexpr unsigned kTeardownMs = 5000;
constexpr u32 kSendBufferSize = 16384;
constexpr u32 kResponseBufferSize = 65536;

template <typename F>
bool wait_until(F condition, unsigned timeout_ms)
{
    auto thunk = [](void* arg) -> int { return (*static_cast<F*>(arg))() ? 1 : 0; };
    return rtrs_hostile_wait(thunk, &condition, timeout_ms) == 0;
}

// What the victim did; the text goes into the case's log line.
struct Observed {
    enum Kind { kNothing, kRejected, kClosed, kErrorAnswer, kOkAnswer, kEstablished, kSetupFailed, kCounted } kind =
        kNothing;
    int value = 0;  // errno of a reject or an answer; where setup failed; accepted (kCounted)
    int refused_count = 0;  // kCounted

    bool refused() const { return kind == kRejected || kind == kClosed || kind == kErrorAnswer; }
    void describe(char* out, size_t size) const;
};

// Appends to a fixed buffer, without printf (the kernel's snprintf is C).
class Text {
public:
    Text(char* out, size_t size) : out_(out), size_(size) { append(""); }
    Text& append(const char* s)
    {
        while (*s && length_ + 1 < size_)
            out_[length_++] = *s++;
        out_[length_] = '\0';
        return *this;
    }
    Text& number(long long v)
    {
        char digits[24];
        int n = 0;
        bool negative = v < 0;
        unsigned long long magnitude = negative ? 0ull - (unsigned long long)v : (unsigned long long)v;
        do {
            digits[n++] = char('0' + magnitude % 10);
            magnitude /= 10;
        } while (magnitude && n < 22);
        if (negative)
            digits[n++] = '-';
        char reversed[24];
        for (int i = 0; i < n; ++i)
            reversed[i] = digits[n - 1 - i];
        reversed[n] = '\0';
        return append(reversed);
    }

private:
    char* out_;
    size_t size_;
    size_t length_ = 0;
};

void Observed::describe(char* out, size_t size) const
{
    // The kinds that are a phrase, and the value after it where it says so.
    struct Phrase {
        Kind kind;
        const char* text;
        bool with_value;
    };
    static constexpr Phrase kPhrases[] = {
        {kRejected, "connect rejected, errno ", true},
        {kClosed, "path closed", false},
        {kErrorAnswer, "error answer ", true},
        {kOkAnswer, "accepted: answered with success", false},
        {kEstablished, "accepted: connection established", false},
        {kSetupFailed, "the case could not set up its path, step ", true},
    };
    Text text(out, size);
    if (kind == kNothing) {
        text.append("no reaction within ").number(kReactionMs).append(" ms");
        return;
    }
    if (kind == kCounted) {
        text.number(value).append(" accepted, ").number(refused_count).append(" refused");
        return;
    }
    for (const Phrase& phrase : kPhrases) {
        if (phrase.kind != kind)
            continue;
        text.append(phrase.text);
        if (phrase.with_value)
            text.number(value);
    }
}

class Path;
class Conn;

struct RecvSlot {
    void on_done(const WorkCompletion& wc);
    Completion done{Completion::member<RecvSlot, &RecvSlot::on_done>, this};
    Conn* conn = nullptr;
    u32 index = 0;
};

struct Op {
    void on_done(const WorkCompletion& wc)
    {
        status = wc.status;
        count.fetch_add(1);
        rtrs_hostile_wake();
    }
    bool wait_ok(unsigned timeout_ms)
    {
        return wait_until([this] { return count.load() > 0; }, timeout_ms) && status == WorkCompletion::kSuccess;
    }
    Completion done{Completion::member<Op, &Op::on_done>, this};
    int status = 0;
    Atomic<int> count{0};
};

// One RDMA connection of a hostile path, as the client side.
class Conn final : public CmEventHandler {
public:
    static constexpr u32 kSlots = 16;
    static constexpr u32 kSlotSize = 9216;  // an INFO_RSP of 512 chunks fits

    Conn(Path& path, u16 cid) : path_(path), cid_(cid)
    {
        for (u32 i = 0; i < kSlots; ++i) {
            slots_[i].conn = this;
            slots_[i].index = i;
        }
    }

    Result<void> start(const SockAddr& destination, ConstByteSpan private_data)
    {
        request_len_ = cxxrt::min(private_data.size(), sizeof(request_));
        cxxrt::copy_bytes(request_, private_data.data(), request_len_);
        last_send_ = cxxrt::allocate_array<u8>(Gfp::kernel(), kSlotSize);
        if (!last_send_)
            return Error(cxxrt::err::kNoMem);
        auto id = CXXRT_TRY(CmId::create(Gfp::kernel(), *this));
        conn_ = CXXRT_TRY(Connection::create(Gfp::kernel(), cxxrt::move(id)));
        return conn_->cm_id().resolve_addr(nullptr, destination, int(connect_timeout_ms()));
    }

    void on_cm_event(CmId& id, const CmEvent& event) override;
    void on_received(RecvSlot& slot, const WorkCompletion& wc);

    // Tears the connection down (process context); the object may then go.
    void teardown();

    bool is_established() const { return established.load() > 0; }
    QueuePair& qp() { return conn_->qp(); }
    u16 cid() const { return cid_; }

    Atomic<int> established{0}, rejected{0}, disconnected{0}, failed{0}, settled{0};
    Atomic<int> plain_sends{0}, answers{0}, heartbeats{0}, other_imms{0}, receive_errors{0};
    int reject_errno = 0;
    rcodec::ConnRspFields conn_rsp{};
    bool conn_rsp_valid = false;
    u32 last_send_length = 0;
    u8* last_send_ = nullptr;  // copy of the last plain SEND (INFO_RSP)
    u32 last_answer_imm = 0;

    ~Conn() { cxxrt::free_array(last_send_); }

private:
    Result<void> on_addr_resolved(CmId& id);
    Result<void> repost(RecvSlot& slot)
    {
        Sge sge = recv_buffer_->sge(conn_->pd().local_dma_lkey(), slot.index * kSlotSize, kSlotSize);
        return conn_->qp().post_recv(slot.done, Span<const Sge>(&sge, 1));
    }
    void fail()
    {
        failed.fetch_add(1);
        settled.fetch_add(1);
    }

    Path& path_;
    u16 cid_;
    UniquePtr<Connection> conn_;
    UniquePtr<DmaBuffer> recv_buffer_;
    RecvSlot slots_[kSlots];
    u8 request_[rwire::kConnReqPrivateDataMax] = {};
    size_t request_len_ = 0;
};

void RecvSlot::on_done(const WorkCompletion& wc)
{
    conn->on_received(*this, wc);
}

// A hostile client's path: up to kMaxConns connections with its own UUIDs
// (flood_connections opens a few dozen),
// one PD shared by them (the response buffer is written through any).
class Path final : cxxrt::Pinned {
public:
    static constexpr u16 kMaxConns = 64;

    Path(const SockAddr& server, u32 serial) : server_(server)
    {
        for (u32 i = 0; i < 16; ++i) {
            sess_uuid.bytes[i] = u8(0x48 + i + serial * 3);
            paths_uuid.bytes[i] = u8(0x90 + i * 5 + serial);
        }
        u64 now = kapi_ktime_ns();
        cxxrt::copy_bytes(sess_uuid.bytes, &now, sizeof(now));
        now ^= 0x5a5a5a5a5a5a5a5aull;
        cxxrt::copy_bytes(paths_uuid.bytes + 8, &now, sizeof(now));
    }
    ~Path() { teardown(); }

    // The CON_REQ a good client sends for connection cid.
    rcodec::ConnReqFields good_request(u16 cid) const
    {
        rcodec::ConnReqFields fields;
        fields.cid = cid;
        fields.cid_num = cid_num;
        fields.recon_cnt = 0;
        fields.sess_uuid = sess_uuid;
        fields.paths_uuid = paths_uuid;
        fields.first_conn = cid == 0;
        return fields;
    }

    // Connects conns_[slot] with the given private data; returns when the
    // connect settled (established, rejected, failed) or timed out.
    Observed connect_raw(u16 slot, ConstByteSpan private_data);
    Result<void> connect_good(u16 cid)
    {
        u8 message[rwire::kConnReqPrivateDataMax];
        auto built = rcodec::build_conn_req(ByteSpan(message), good_request(cid));
        if (built.is_error())
            return built.error();
        Observed seen = connect_raw(cid, ConstByteSpan(message, built.value()));
        return seen.kind == Observed::kEstablished ? Result<void>() : Error(cxxrt::err::kConnRefused);
    }
    Result<void> connect_all()
    {
        for (u16 cid = 0; cid < cid_num; ++cid)
            CXXRT_TRY(connect_good(cid));
        return {};
    }

    // Buffers and the response MR, on the PD of the connected device.
    Result<void> make_buffers();
    Result<RefPtr<ProtectionDomain>> pd_for(Device device)
    {
        if (!pd_)
            pd_ = CXXRT_TRY(ProtectionDomain::create(Gfp::kernel(), device));
        return pd_;
    }

    // Sends bytes as a plain SEND on connection cid.
    Result<void> send(u16 cid, ConstByteSpan bytes);
    // INFO_REQ/INFO_RSP; on success the chunks are known.
    Result<void> info(StringView name);
    // RDMA-writes bytes into chunk chunk_id with an immediate, on cid.
    Result<void> write_chunk(u16 cid, u32 chunk_id, ConstByteSpan bytes, u32 imm);
    // Writes a built IO request (`chunk`, its message at `msg_offset`) with its immediate.
    Result<void> send_io_request(u16 cid, u32 chunk_id, ConstByteSpan chunk, u32 msg_offset);
    // Zero-length RDMA write with an immediate (no chunk needed).
    Result<void> write_imm_only(u16 cid, u32 imm);
    // Writes a built IO request like send_io_request on `cid` while
    // connection `race_cid` of `racer` (this path, or another path of the
    // same session) RDMA-writes the 32-bit word at `field_offset` of the same
    // chunk, alternating `a` and `b`, in a burst before the request and in
    // bursts after it until the server reacts.
    Result<void> race_io_request(u16 cid, Path& racer, u16 race_cid, u32 chunk_id, ConstByteSpan chunk,
                                 u32 msg_offset, u32 field_offset, u32 a, u32 b);
    // One burst of the race: kBurst 4-byte RDMA writes of a and b in turn
    // into word `field_offset` of chunk chunk_id, through this path's key
    // for that chunk, on connection cid; the last one signals `done`.
    Result<void> post_word_burst(u16 cid, u32 chunk_id, u32 field_offset, u32 a, u32 b, Op& done);

    // An RTRS READ: user header usr, one descriptor over our response
    // buffer of desc_length bytes, flags. Uses a fresh chunk.
    Result<void> rtrs_read(u16 cid, ConstByteSpan usr, u32 desc_length, u16 flags = 0);
    // An RTRS WRITE of data_length bytes (pattern) and a user header.
    Result<void> rtrs_write(u16 cid, u32 data_length, ConstByteSpan usr);

    // Waits for the server's reaction on connection cid: an answer after
    // answers_before, or the path closed.
    Observed reaction(u16 cid, int answers_before, unsigned timeout_ms = kReactionMs);
    int answers(u16 cid) const { return conns_[cid] ? conns_[cid]->answers.load() : 0; }
    // The errno of the first connect the server rejected (0: none).
    int rejection() const
    {
        for (const auto& c : conns_)
            if (c && c->rejected.load())
                return c->reject_errno;
        return 0;
    }
    bool closed() const;

    // RNBD over this path: SESS_INFO, OPEN, CLOSE.
    Observed rnbd_sess_info();
    Observed rnbd_open(StringView device_path, u8 access_mode, u32* device_id, u64* sectors);
    Observed rnbd_close(u32 device_id);
    Observed rnbd_io(const ncodec::IoFields& fields, const u8* raw_usr = nullptr, u32 raw_usr_len = 0);

    void teardown();

    Conn* conn(u16 cid) { return conns_[cid].get(); }
    u32 next_chunk() { return chunk_counter_++ % queue_depth; }

    rwire::Uuid sess_uuid{};
    rwire::Uuid paths_uuid{};
    u16 cid_num = 2;
    u32 queue_depth = 0;
    u32 chunk_size = 0;
    rcodec::ChunkGeometry geometry{};
    rcodec::SgEntry* chunks = nullptr;
    u8* response = nullptr;  // CPU view of the response buffer after an answer
    u64 response_iova() const { return response_mr_->iova(); }
    u32 response_rkey() const { return response_mr_->rkey(); }

private:
    const SockAddr& server_;
    UniquePtr<Conn> conns_[kMaxConns];
    RefPtr<ProtectionDomain> pd_;
    UniquePtr<DmaBuffer> send_buffer_;
    UniquePtr<DmaBuffer> response_buffer_;
    UniquePtr<MemoryRegion> response_mr_;
    u32 chunk_counter_ = 0;
};

Result<void> Conn::on_addr_resolved(CmId& id)
{
    auto pd = CXXRT_TRY(path_.pd_for(id.device()));
    ConnectionConfig config{};
    config.qp.max_send_wr = 64 + 1;
    config.qp.max_recv_wr = kSlots + 1;
    config.qp.max_send_sge = 1;
    config.qp.max_recv_sge = 1;
    config.comp_vector = 0;
    config.poll = PollContext::kSoftirq;
    CXXRT_TRY(conn_->create_queues(Gfp::kernel(), cxxrt::move(pd), config));
    recv_buffer_ = CXXRT_TRY(DmaBuffer::create(Gfp::kernel(), id.device(), kSlots * kSlotSize, DmaDirection::kFromDevice));
    for (u32 i = 0; i < kSlots; ++i)
        CXXRT_TRY(repost(slots_[i]));
    return id.resolve_route(int(connect_timeout_ms()));
}

void Conn::on_cm_event(CmId& id, const CmEvent& event)
{
    switch (event.type) {
    case CmEventType::kAddrResolved:
        if (on_addr_resolved(id).is_error())
            fail();
        break;
    case CmEventType::kRouteResolved:
        if (id.connect_from_handler(ConstByteSpan(request_, request_len_), 7, 7).is_error())
            fail();
        break;
    case CmEventType::kEstablished: {
        auto rsp = rcodec::decode_conn_rsp(event.private_data);
        conn_rsp_valid = rsp.is_ok();
        if (rsp.is_ok())
            conn_rsp = rsp.value();
        established.fetch_add(1);
        settled.fetch_add(1);
        break;
    }
    case CmEventType::kRejected: {
        auto reason = rcodec::decode_conn_reject(event.private_data);
        reject_errno = reason.is_ok() ? reason.value() : -cxxrt::err::kConnReset;
        rejected.fetch_add(1);
        settled.fetch_add(1);
        break;
    }
    case CmEventType::kDisconnected:
        // Answer the server's DREQ (our DREP) so its side finishes at once.
        (void)id.disconnect();
        disconnected.fetch_add(1);
        break;
    case CmEventType::kTimewaitExit:
        break;
    default:
        log::info("# cid %u: CM event %s, status %d", unsigned(cid_), event.name(), event.status);
        if (is_established())
            disconnected.fetch_add(1);
        else
            fail();
        break;
    }
    rtrs_hostile_wake();
}

void Conn::on_received(RecvSlot& slot, const WorkCompletion& wc)
{
    if (!wc.ok()) {
        if (!wc.flushed())
            receive_errors.fetch_add(1);
        rtrs_hostile_wake();
        return;
    }
    recv_buffer_->sync_for_cpu();
    const u8* data = recv_buffer_->data() + slot.index * kSlotSize;
    if (wc.has_imm()) {
        u32 imm = wc.imm();
        u32 type = rwire::imm_type_bits(imm);
        if (type == u32(rwire::ImmType::kIoResponse) || type == u32(rwire::ImmType::kIoResponseInvalidate)) {
            // With always_invalidate the answer is a SEND carrying the
            // chunk's new key (RKEY_RSP): later IO on that chunk needs it.
            if (wc.opcode == WorkCompletion::kRecv && path_.chunks) {
                auto rkey = rcodec::decode_rkey_rsp(ConstByteSpan(data, cxxrt::min(wc.byte_len, kSlotSize)),
                                                    path_.queue_depth);
                if (rkey.is_ok())
                    path_.chunks[rkey.value().buf_id].key = rkey.value().rkey;
            }
            last_answer_imm = imm;
            answers.fetch_add(1);
        } else if (type == u32(rwire::ImmType::kHeartbeat)) {
            heartbeats.fetch_add(1);
            (void)conn_->qp().post_write_imm(nullptr, {}, RemoteBuffer{}, rwire::kHeartbeatAckImm, kUnsignaled);
        } else {
            other_imms.fetch_add(1);
        }
    } else {
        last_send_length = cxxrt::min(wc.byte_len, kSlotSize);
        cxxrt::copy_bytes(last_send_, data, last_send_length);
        plain_sends.fetch_add(1);
    }
    (void)repost(slot);
    rtrs_hostile_wake();
}

void Conn::teardown()
{
    if (!conn_)
        return;
    if (is_established() && disconnected.load() == 0) {
        (void)conn_->cm_id().disconnect();
        (void)wait_until([this] { return disconnected.load() > 0; }, kTeardownMs);
    }
    if (conn_->has_queues())
        conn_->drain();
    conn_.reset();
    recv_buffer_.reset();
}

Observed Path::connect_raw(u16 slot, ConstByteSpan private_data)
{
    Observed seen;
    if (slot >= kMaxConns) {
        seen.kind = Observed::kSetupFailed;
        return seen;
    }
    if (conns_[slot]) {
        conns_[slot]->teardown();
        conns_[slot].reset();
    }
    auto made = cxxrt::make_unique<Conn>(Gfp::kernel(), *this, slot);
    if (made.is_error()) {
        seen.kind = Observed::kSetupFailed;
        return seen;
    }
    conns_[slot] = made.release_value();
    Conn& c = *conns_[slot];
    if (c.start(server_, private_data).is_error()) {
        seen.kind = Observed::kSetupFailed;
        return seen;
    }
    if (!wait_until([&c] { return c.settled.load() > 0; }, connect_timeout_ms()))
        return seen;
    if (c.rejected.load()) {
        seen.kind = Observed::kRejected;
        seen.value = c.reject_errno;
    } else if (c.is_established()) {
        seen.kind = Observed::kEstablished;
    } else {
        seen.kind = Observed::kSetupFailed;
        seen.value = -1;
    }
    return seen;
}

Result<void> Path::make_buffers()
{
    if (send_buffer_)
        return {};
    if (!pd_ || !conns_[0] || !conns_[0]->is_established())
        return Error(cxxrt::err::kNotConn);
    Device device = pd_->device();
    send_buffer_ = CXXRT_TRY(DmaBuffer::create(Gfp::kernel(), device, kSendBufferSize, DmaDirection::kToDevice));
    response_buffer_ =
        CXXRT_TRY(DmaBuffer::create(Gfp::kernel(), device, kResponseBufferSize, DmaDirection::kBidirectional));
    response_mr_ = CXXRT_TRY(MemoryRegion::create(Gfp::kernel(), pd_, kResponseBufferSize / MemoryRegion::kPageSize));
    CXXRT_TRY(response_mr_->map(*response_buffer_, 0, kResponseBufferSize));
    Op reg;
    CXXRT_TRY(response_mr_->post_register(conns_[0]->qp(), &reg.done, kLocalWrite | kRemoteWrite, kSignaled));
    if (!reg.wait_ok(connect_timeout_ms()))
        return Error(cxxrt::err::kIo);
    response = response_buffer_->data();
    return {};
}

Result<void> Path::send(u16 cid, ConstByteSpan bytes)
{
    CXXRT_TRY(make_buffers());
    if (bytes.size() > kSendBufferSize || !conns_[cid])
        return Error(cxxrt::err::kInval);
    cxxrt::copy_bytes(send_buffer_->data(), bytes.data(), bytes.size());
    send_buffer_->sync_for_device();
    Sge sge = send_buffer_->sge(pd_->local_dma_lkey(), 0, bytes.size());
    Op op;
    CXXRT_TRY(conns_[cid]->qp().post_send(&op.done, Span<const Sge>(&sge, 1), kSignaled));
    (void)op.wait_ok(connect_timeout_ms());  // the server may close before it acknowledges
    (void)wait_until([&op] { return op.count.load() > 0; }, connect_timeout_ms());
    return {};
}

Result<void> Path::info(StringView name)
{
    u8 message[sizeof(rwire::InfoReq)];
    size_t length = CXXRT_TRY(rcodec::build_info_req(ByteSpan(message), name));
    Conn& service = *conns_[0];
    int before = service.plain_sends.load();
    CXXRT_TRY(send(0, ConstByteSpan(message, length)));
    if (!wait_until([&] { return service.plain_sends.load() > before || closed(); }, connect_timeout_ms()) ||
        service.plain_sends.load() == before)
        return Error(cxxrt::err::kTimedOut);
    if (!service.conn_rsp_valid)
        return Error(cxxrt::err::kProto);
    queue_depth = service.conn_rsp.queue_depth;
    chunk_size = u32(service.conn_rsp.chunk_size());
    rcodec::InfoRspLimits limits;
    limits.queue_depth = queue_depth;
    limits.chunk_size = chunk_size;
    auto view = CXXRT_TRY(rcodec::decode_info_rsp(ConstByteSpan(service.last_send_, service.last_send_length), limits));
    geometry = CXXRT_TRY(rcodec::make_chunk_geometry(queue_depth, chunk_size));
    chunks = cxxrt::allocate_array<rcodec::SgEntry>(Gfp::kernel(), queue_depth);
    if (!chunks)
        return Error(cxxrt::err::kNoMem);
    for (u32 i = 0; i < queue_depth; ++i)
        chunks[i] = CXXRT_TRY(rcodec::info_rsp_chunk(view, chunk_size, i));
    return {};
}

Result<void> Path::write_chunk(u16 cid, u32 chunk_id, ConstByteSpan bytes, u32 imm)
{
    CXXRT_TRY(make_buffers());
    if (!chunks || chunk_id >= queue_depth || bytes.size() > kSendBufferSize || !conns_[cid])
        return Error(cxxrt::err::kInval);
    cxxrt::copy_bytes(send_buffer_->data(), bytes.data(), bytes.size());
    send_buffer_->sync_for_device();
    Sge sge = send_buffer_->sge(pd_->local_dma_lkey(), 0, bytes.size());
    RemoteBuffer remote{chunks[chunk_id].addr, chunks[chunk_id].key};
    Op op;
    CXXRT_TRY(conns_[cid]->qp().post_write_imm(&op.done, Span<const Sge>(&sge, 1), remote, imm, kSignaled));
    (void)wait_until([&op] { return op.count.load() > 0; }, connect_timeout_ms());
    return {};
}

Result<void> Path::write_imm_only(u16 cid, u32 imm)
{
    if (!conns_[cid])
        return Error(cxxrt::err::kInval);
    Op op;
    CXXRT_TRY(conns_[cid]->qp().post_write_imm(&op.done, {}, RemoteBuffer{}, imm, kSignaled));
    (void)wait_until([&op] { return op.count.load() > 0; }, connect_timeout_ms());
    return {};
}

Result<void> Path::send_io_request(u16 cid, u32 chunk_id, ConstByteSpan chunk, u32 msg_offset)
{
    auto imm = CXXRT_TRY(rcodec::encode_io_request_imm(geometry, chunk_id, msg_offset));
    return write_chunk(cid, chunk_id, chunk, imm);
}

constexpr u32 kRaceValues = kSendBufferSize - 8;  // a, then b, behind a request's bytes

Result<void> Path::post_word_burst(u16 cid, u32 chunk_id, u32 field_offset, u32 a, u32 b, Op& done)
{
    constexpr u32 kBurst = 24;  // of 64 send slots
    CXXRT_TRY(make_buffers());
    if (!chunks || chunk_id >= queue_depth || !conns_[cid])
        return Error(cxxrt::err::kInval);
    cxxrt::store_le<u32>(send_buffer_->data() + kRaceValues, a);
    cxxrt::store_le<u32>(send_buffer_->data() + kRaceValues + 4, b);
    send_buffer_->sync_for_device();
    const RemoteBuffer word{chunks[chunk_id].addr + field_offset, chunks[chunk_id].key};
    for (u32 i = 0; i < kBurst; ++i) {
        const bool last = i + 1 == kBurst;
        Sge sge = send_buffer_->sge(pd_->local_dma_lkey(), kRaceValues + (i & 1) * 4, 4);
        CXXRT_TRY(conns_[cid]->qp().post_write(last ? &done.done : nullptr, Span<const Sge>(&sge, 1), word,
                                               last ? kSignaled : kUnsignaled));
    }
    return {};
}

Result<void> Path::race_io_request(u16 cid, Path& racer, u16 race_cid, u32 chunk_id, ConstByteSpan chunk,
                                   u32 msg_offset, u32 field_offset, u32 a, u32 b)
{
    CXXRT_TRY(make_buffers());
    if (!chunks || chunk_id >= queue_depth || chunk.size() > kRaceValues || !conns_[cid])
        return Error(cxxrt::err::kInval);
    const u32 imm = CXXRT_TRY(rcodec::encode_io_request_imm(geometry, chunk_id, msg_offset));
    cxxrt::copy_bytes(send_buffer_->data(), chunk.data(), chunk.size());
    send_buffer_->sync_for_device();
    // Every Op posted is waited for before it goes out of scope. Bursts go
    // on until the server reacts: its check and its use of the length may
    // come at any moment after the request lands.
    constexpr u32 kMaxBursts = 64;
    const int answers_before = conns_[cid]->answers.load();
    Op before, request;
    Result<void> posted = racer.post_word_burst(race_cid, chunk_id, field_offset, a, b, before);
    const bool before_posted = posted.is_ok();
    bool request_posted = false;
    if (posted.is_ok()) {
        Sge sge = send_buffer_->sge(pd_->local_dma_lkey(), 0, chunk.size());
        posted = conns_[cid]->qp().post_write_imm(&request.done, Span<const Sge>(&sge, 1),
                                                  RemoteBuffer{chunks[chunk_id].addr, chunks[chunk_id].key}, imm,
                                                  kSignaled);
        request_posted = posted.is_ok();
    }
    for (u32 n = 0; n < kMaxBursts && posted.is_ok(); ++n) {
        if (conns_[cid]->answers.load() > answers_before || closed() || racer.closed())
            break;
        Op after;
        posted = racer.post_word_burst(race_cid, chunk_id, field_offset, a, b, after);
        if (posted.is_ok())
            (void)wait_until([&] { return after.count.load() > 0; }, connect_timeout_ms());
    }
    (void)wait_until([&] {
        return (!before_posted || before.count.load() > 0) && (!request_posted || request.count.load() > 0);
    }, connect_timeout_ms());
    return posted;
}

Result<void> Path::rtrs_read(u16 cid, ConstByteSpan usr, u32 desc_length, u16 flags)
{
    CXXRT_TRY(make_buffers());
    if (!chunks)
        return Error(cxxrt::err::kNotConn);
    u32 chunk_id = next_chunk();
    auto plan = CXXRT_TRY(rcodec::plan_read(geometry, 0, u32(usr.size()), 1));
    u8* bytes = cxxrt::allocate_array<u8>(Gfp::kernel(), plan.total);
    if (!bytes)
        return Error(cxxrt::err::kNoMem);
    cxxrt::copy_bytes(bytes + plan.data_len, usr.data(), usr.size());
    rcodec::SgEntry desc{response_mr_->iova(), response_mr_->rkey(), desc_length};
    auto built = rcodec::build_rdma_read(ByteSpan(bytes + plan.msg_offset, plan.msg_len), u16(usr.size()), flags,
                                         Span<const rcodec::SgEntry>(&desc, 1));
    Result<void> result = built.is_error() ? Result<void>(built.error())
                                           : send_io_request(cid, chunk_id, ConstByteSpan(bytes, plan.total),
                                                             plan.msg_offset);
    cxxrt::free_array(bytes);
    return result;
}

Result<void> Path::rtrs_write(u16 cid, u32 data_length, ConstByteSpan usr)
{
    CXXRT_TRY(make_buffers());
    if (!chunks)
        return Error(cxxrt::err::kNotConn);
    u32 chunk_id = next_chunk();
    auto plan = CXXRT_TRY(rcodec::plan_write(geometry, data_length, u32(usr.size())));
    if (plan.total > kSendBufferSize)
        return Error(cxxrt::err::kInval);
    u8* bytes = cxxrt::allocate_array<u8>(Gfp::kernel(), plan.total);
    if (!bytes)
        return Error(cxxrt::err::kNoMem);
    for (u32 i = 0; i < data_length; ++i)
        bytes[i] = u8(i * 13 + 7);
    cxxrt::copy_bytes(bytes + plan.data_len, usr.data(), usr.size());
    auto built = rcodec::build_rdma_write(ByteSpan(bytes + plan.msg_offset, plan.msg_len), u16(usr.size()));
    Result<void> result = built.is_error() ? Result<void>(built.error())
                                           : send_io_request(cid, chunk_id, ConstByteSpan(bytes, plan.total),
                                                             plan.msg_offset);
    cxxrt::free_array(bytes);
    return result;
}

bool Path::closed() const
{
    for (const auto& c : conns_)
        if (c && (c->disconnected.load() > 0 || c->receive_errors.load() > 0))
            return true;
    return false;
}

Observed Path::reaction(u16 cid, int answers_before, unsigned timeout_ms)
{
    Observed seen;
    Conn* c = conns_[cid].get();
    if (!c) {
        seen.kind = Observed::kSetupFailed;
        return seen;
    }
    (void)wait_until([&] { return c->answers.load() > answers_before || closed(); }, timeout_ms);
    if (c->answers.load() > answers_before) {
        int error = rwire::io_response_errno(rwire::imm_payload(c->last_answer_imm));
        seen.kind = error ? Observed::kErrorAnswer : Observed::kOkAnswer;
        seen.value = error;
        if (!error && response_buffer_)
            response_buffer_->sync_for_cpu();
    } else if (closed()) {
        seen.kind = Observed::kClosed;
    }
    return seen;
}

Observed Path::rnbd_sess_info()
{
    u8 usr[sizeof(nwire::SessInfoMsg)];
    Observed seen;
    seen.kind = Observed::kSetupFailed;
    auto built = ncodec::build_sess_info(ByteSpan(usr));
    if (built.is_error())
        return seen;
    int before = answers(1);
    if (rtrs_read(1, ConstByteSpan(usr, built.value()), sizeof(nwire::SessInfoRspMsg)).is_error())
        return seen;
    return reaction(1, before);
}

Observed Path::rnbd_open(StringView device_path, u8 access_mode, u32* device_id, u64* sectors)
{
    u8 usr[sizeof(nwire::OpenMsg)];
    Observed seen;
    seen.kind = Observed::kSetupFailed;
    auto built = ncodec::build_open(ByteSpan(usr), nwire::AccessMode::kReadWrite, device_path);
    if (built.is_error())
        return seen;
    usr[__builtin_offsetof(nwire::OpenMsg, access_mode)] = access_mode;
    int before = answers(1);
    if (rtrs_read(1, ConstByteSpan(usr, built.value()), sizeof(nwire::OpenRspMsg)).is_error())
        return seen;
    seen = reaction(1, before);
    if (seen.kind == Observed::kOkAnswer && device_id) {
        auto rsp = ncodec::decode_open_rsp(ConstByteSpan(response, sizeof(nwire::OpenRspMsg)));
        if (rsp.is_ok()) {
            *device_id = rsp.value().device_id;
            if (sectors)
                *sectors = rsp.value().nsectors;
        }
    }
    return seen;
}

Observed Path::rnbd_close(u32 device_id)
{
    u8 usr[sizeof(nwire::CloseMsg)];
    Observed seen;
    seen.kind = Observed::kSetupFailed;
    auto built = ncodec::build_close(ByteSpan(usr), device_id);
    if (built.is_error())
        return seen;
    int before = answers(1);
    if (rtrs_write(1, 0, ConstByteSpan(usr, built.value())).is_error())
        return seen;
    return reaction(1, before);
}

Observed Path::rnbd_io(const ncodec::IoFields& fields, const u8* raw_usr, u32 raw_usr_len)
{
    u8 usr[sizeof(nwire::IoMsg)];
    Observed seen;
    seen.kind = Observed::kSetupFailed;
    ConstByteSpan header;
    if (raw_usr) {
        header = ConstByteSpan(raw_usr, raw_usr_len);
    } else {
        auto built = ncodec::build_io(ByteSpan(usr), fields);
        if (built.is_error())
            return seen;
        header = ConstByteSpan(usr, built.value());
    }
    int before = answers(1);
    Result<void> sent;
    u32 length = fields.bi_size;
    bool is_write = fields.op != nwire::IoOp::kRead;
    if (is_write)
        sent = rtrs_write(1, cxxrt::min<u32>(length, 4096), header);
    else
        sent = rtrs_read(1, header, cxxrt::max<u32>(cxxrt::min<u32>(length, kResponseBufferSize), 512));
    if (sent.is_error())
        return seen;
    return reaction(1, before);
}

void Path::teardown()
{
    for (auto& c : conns_)
        if (c)
            c->teardown();
    response_mr_.reset();  // after the QPs: no WR uses it any more
    for (auto& c : conns_)
        c.reset();
    send_buffer_.reset();
    response_buffer_.reset();
    pd_.reset();
    cxxrt::free_array(chunks);
    chunks = nullptr;
}

// ---- the cases ----

struct Env {
    SockAddr server;
    SockAddr server2;  // addr2=: the server's second address (another rxe netdev)
    bool has_server2 = false;
    const char* dir;
    const char* blockdev;
    unsigned flood;
    unsigned flood_paths;
    unsigned flood_connections;         // the server's max_connections_per_path
    unsigned flood_connections_budget;  // the server's max_connections_per_client
    u32 serial = 0;
};

struct Verdict {
    bool pass;
    Observed seen;
};

// The usual outcome expected of bad input: a reject, a close or an error.
Verdict expect_refusal(const Observed& seen)
{
    return Verdict{seen.refused(), seen};
}
Verdict setup_failed(int step)
{
    Observed seen;
    seen.kind = Observed::kSetupFailed;
    seen.value = step;
    return Verdict{false, seen};
}

// A path whose every connection is up, INFO done; optionally RNBD's
// SESS_INFO done too.
Result<UniquePtr<Path>> ready_path(Env& env, bool info, bool sess_info)
{
    auto path = CXXRT_TRY(cxxrt::make_unique<Path>(Gfp::kernel(), env.server, ++env.serial));
    CXXRT_TRY(path->connect_all());
    CXXRT_TRY(path->make_buffers());
    if (!info)
        return path;
    char name[32];
    Text(name, sizeof(name)).append("hostile-").number(env.serial);
    CXXRT_TRY(path->info(StringView(name)));
    if (sess_info && path->rnbd_sess_info().kind != Observed::kOkAnswer)
        return Error(cxxrt::err::kProto);
    return path;
}

#define READY_PATH(var, info, sess_info)                    \
    auto var##_made = ready_path(env, info, sess_info);     \
    if (var##_made.is_error())                              \
        return setup_failed(var##_made.to_errno());         \
    UniquePtr<Path> var = var##_made.release_value()

// CON_REQ with one field patched after a good build.
Verdict con_req_patched(Env& env, void (*patch)(rwire::ConnReq&))
{
    Path path(env.server, ++env.serial);
    rwire::ConnReq request{};
    auto built = rcodec::build_conn_req(ByteSpan(reinterpret_cast<u8*>(&request), sizeof(request)),
                                        path.good_request(0));
    if (built.is_error())
        return setup_failed(1);
    patch(request);
    return expect_refusal(path.connect_raw(0, ConstByteSpan(reinterpret_cast<u8*>(&request), sizeof(request))));
}

Verdict con_req_bad_magic(Env& env)
{
    return con_req_patched(env, [](rwire::ConnReq& r) { r.magic.set(0xdead); });
}
Verdict con_req_bad_version(Env& env)
{
    return con_req_patched(env, [](rwire::ConnReq& r) { r.version.set(u16((3 << 8) | 0)); });
}
Verdict con_req_cid_not_below_cid_num(Env& env)
{
    return con_req_patched(env, [](rwire::ConnReq& r) { r.cid.set(2); });
}
Verdict con_req_cid_num_zero(Env& env)
{
    return con_req_patched(env, [](rwire::ConnReq& r) {
        r.cid_num.set(0);
        r.cid.set(0);
    });
}
Verdict con_req_cid_num_huge(Env& env)
{
    return con_req_patched(env, [](rwire::ConnReq& r) { r.cid_num.set(65535); });
}
Verdict con_req_unknown_session_not_first(Env& env)
{
    return con_req_patched(env, [](rwire::ConnReq& r) { r.flags = 0; });
}

Verdict con_req_duplicate_cid(Env& env)
{
    Path path(env.server, ++env.serial);
    if (path.connect_good(0).is_error())
        return setup_failed(1);
    u8 message[rwire::kConnReqPrivateDataMax];
    auto request = path.good_request(0);
    request.first_conn = false;
    auto built = rcodec::build_conn_req(ByteSpan(message), request);
    if (built.is_error())
        return setup_failed(2);
    // Second connection with cid 0 on the same path, in another slot.
    Observed seen = path.connect_raw(2, ConstByteSpan(message, built.value()));
    if (seen.kind == Observed::kEstablished) {
        (void)wait_until([&path] { return path.closed(); }, kReactionMs);
        if (path.closed())
            seen.kind = Observed::kClosed;
    }
    return expect_refusal(seen);
}

Verdict con_req_cid_num_changes(Env& env)
{
    Path path(env.server, ++env.serial);
    if (path.connect_good(0).is_error())
        return setup_failed(1);
    u8 message[rwire::kConnReqPrivateDataMax];
    auto request = path.good_request(1);
    request.cid_num = 3;
    auto built = rcodec::build_conn_req(ByteSpan(message), request);
    if (built.is_error())
        return setup_failed(2);
    return expect_refusal(path.connect_raw(1, ConstByteSpan(message, built.value())));
}

Verdict info_req_twice(Env& env)
{
    READY_PATH(path, true, false);
    u8 message[sizeof(rwire::InfoReq)];
    char name[32];
    Text(name, sizeof(name)).append("hostile-").number(env.serial);
    auto length = rcodec::build_info_req(ByteSpan(message), StringView(name));
    if (length.is_error())
        return setup_failed(10);
    int before = path->conn(0)->plain_sends.load();
    if (path->send(0, ConstByteSpan(message, length.value())).is_error())
        return setup_failed(11);
    Conn& service = *path->conn(0);
    (void)wait_until([&] { return service.plain_sends.load() > before || path->closed(); }, kReactionMs);
    Observed seen;
    if (path->closed())
        seen.kind = Observed::kClosed;
    else if (service.plain_sends.load() > before)
        seen.kind = Observed::kOkAnswer;  // a second INFO_RSP
    return expect_refusal(seen);
}

// An INFO_REQ-like SEND of the given bytes on connection cid.
Verdict info_send(Env& env, u16 cid, ConstByteSpan bytes)
{
    READY_PATH(path, false, false);
    Conn& c = *path->conn(cid);
    int before = c.plain_sends.load();
    if (path->send(cid, bytes).is_error())
        return setup_failed(10);
    (void)wait_until([&] { return c.plain_sends.load() > before || path->closed(); }, kReactionMs);
    Observed seen;
    if (path->closed())
        seen.kind = Observed::kClosed;
    else if (c.plain_sends.load() > before)
        seen.kind = Observed::kOkAnswer;
    return expect_refusal(seen);
}

Verdict info_req_too_short(Env& env)
{
    u8 message[1] = {0};
    return info_send(env, 0, ConstByteSpan(message, 1));
}
Verdict info_req_too_long(Env& env)
{
    // Longer than any receive buffer the server may post for INFO_REQ.
    static constexpr u32 kLength = 12000;
    u8* message = cxxrt::allocate_array<u8>(Gfp::kernel(), kLength);
    if (!message)
        return setup_failed(1);
    auto built = rcodec::build_info_req(ByteSpan(message, kLength), "hostile-long");
    Verdict verdict = built.is_error() ? setup_failed(2) : info_send(env, 0, ConstByteSpan(message, kLength));
    cxxrt::free_array(message);
    return verdict;
}
Verdict info_req_name_without_nul(Env& env)
{
    u8 message[sizeof(rwire::InfoReq)];
    cxxrt::fill_bytes(message, 'a', sizeof(message));
    message[0] = u8(rwire::MsgType::kInfoReq);
    message[1] = 0;
    return info_send(env, 0, ConstByteSpan(message, sizeof(message)));
}
Verdict info_req_name_with_slash(Env& env)
{
    u8 message[sizeof(rwire::InfoReq)] = {};
    message[0] = u8(rwire::MsgType::kInfoReq);
    cxxrt::copy_bytes(message + 2, "../evil", 7);
    return info_send(env, 0, ConstByteSpan(message, sizeof(message)));
}
Verdict info_req_wrong_type(Env& env)
{
    u8 message[sizeof(rwire::InfoReq)];
    auto built = rcodec::build_info_req(ByteSpan(message), "hostile-type");
    if (built.is_error())
        return setup_failed(1);
    message[0] = u8(rwire::MsgType::kRkeyRsp);
    return info_send(env, 0, ConstByteSpan(message, built.value()));
}
Verdict info_req_on_io_connection(Env& env)
{
    u8 message[sizeof(rwire::InfoReq)];
    auto built = rcodec::build_info_req(ByteSpan(message), "hostile-ioconn");
    if (built.is_error())
        return setup_failed(1);
    return info_send(env, 1, ConstByteSpan(message, built.value()));
}

Verdict io_before_info(Env& env)
{
    READY_PATH(path, false, false);
    int before = path->answers(1);
    // Chunk 0, offset 0: the server has published no chunk yet.
    if (path->write_imm_only(1, rwire::make_imm(rwire::ImmType::kIoRequest, 0)).is_error())
        return setup_failed(10);
    return expect_refusal(path->reaction(1, before));
}

// Not bad input: RTRS lets a client send IO on the service connection, and
// Linux's rnbd-client sends its control messages (SESS_INFO, OPEN, CLOSE)
// there, so a server that refused it would break interop. Expected: served.
Verdict io_on_service_connection(Env& env)
{
    READY_PATH(path, true, false);
    u8 usr[sizeof(nwire::SessInfoMsg)];
    auto built = ncodec::build_sess_info(ByteSpan(usr));
    if (built.is_error())
        return setup_failed(10);
    int before = path->answers(0);
    if (path->rtrs_read(0, ConstByteSpan(usr, built.value()), sizeof(nwire::SessInfoRspMsg)).is_error())
        return setup_failed(11);
    const Observed seen = path->reaction(0, before);
    return Verdict{seen.kind == Observed::kOkAnswer, seen};
}

// A raw chunk message placed at offset with an immediate built from
// (chunk_id, offset) without the codec's range checks.
// chunk_id_override: the id the immediate names (0: the chunk written).
Verdict io_raw(Env& env, u32 chunk_id_override, u32 imm_offset, ConstByteSpan message, u32 message_offset)
{
    READY_PATH(path, true, false);
    u32 chunk_id = path->next_chunk();
    u32 bytes_length = message_offset + u32(message.size());
    u8* bytes = cxxrt::allocate_array<u8>(Gfp::kernel(), bytes_length ? bytes_length : 1);
    if (!bytes)
        return setup_failed(10);
    cxxrt::copy_bytes(bytes + message_offset, message.data(), message.size());
    u32 imm = rwire::make_imm(rwire::ImmType::kIoRequest,
                              rwire::io_request_payload(path->queue_depth, chunk_id_override ? chunk_id_override : chunk_id, imm_offset));
    int before = path->answers(1);
    auto written = path->write_chunk(1, chunk_id, ConstByteSpan(bytes, bytes_length), imm);
    cxxrt::free_array(bytes);
    if (written.is_error())
        return setup_failed(11);
    return expect_refusal(path->reaction(1, before));
}

Verdict io_imm_chunk_out_of_range(Env& env)
{
    u8 message[sizeof(rwire::RdmaWrite)] = {u8(rwire::MsgType::kWrite), 0, 0, 0};
    // The immediate names chunk queue_depth (one past the last), which the
    // id bits can express when the depth is not a power of two.
    READY_PATH(path, true, false);
    u32 depth = path->queue_depth;
    path.reset();
    if (rwire::io_request_chunk_id(depth, rwire::io_request_payload(depth, depth, 0)) != depth) {
        log::info("# queue depth %u: every chunk id the immediate can carry is valid", depth);
        return setup_failed(30);
    }
    return io_raw(env, depth, 0, ConstByteSpan(message, sizeof(message)), 0);
}
Verdict io_imm_offset_out_of_range(Env& env)
{
    u8 message[sizeof(rwire::RdmaWrite)] = {u8(rwire::MsgType::kWrite), 0, 0, 0};
    READY_PATH(path, true, false);
    u32 size = path->chunk_size;
    path.reset();
    return io_raw(env, 0, size + 16, ConstByteSpan(message, sizeof(message)), 0);
}
Verdict io_message_past_chunk_end(Env& env)
{
    // The message starts 2 bytes before the chunk's end: its header does not fit.
    u8 message[sizeof(rwire::RdmaWrite)] = {u8(rwire::MsgType::kWrite), 0, 0, 0};
    READY_PATH(path, true, false);
    u32 size = path->chunk_size;
    path.reset();
    return io_raw(env, 0, size - 2, ConstByteSpan(message, 0), 0);
}
Verdict io_unknown_message_type(Env& env)
{
    u8 message[8] = {9, 0, 0, 0, 0, 0, 0, 0};
    return io_raw(env, 0, 64, ConstByteSpan(message, sizeof(message)), 64);
}
Verdict io_usr_len_too_large(Env& env)
{
    // WRITE at offset 64 claiming a 1000-byte user header.
    u8 message[sizeof(rwire::RdmaWrite)] = {u8(rwire::MsgType::kWrite), 0, u8(1000 & 0xff), u8(1000 >> 8)};
    return io_raw(env, 0, 64, ConstByteSpan(message, sizeof(message)), 64);
}

// A READ message at offset 64 with the given header fields and one
// descriptor (addr, key, len) placed after it.
Verdict io_read_fields(Env& env, u16 sg_cnt, u16 flags, u32 desc_len, bool garbage_key)
{
    READY_PATH(path, true, false);
    u8 message[sizeof(rwire::RdmaReadHeader) + sizeof(rwire::SgDesc)] = {};
    rwire::RdmaReadHeader header{};
    header.type.set(u16(rwire::MsgType::kRead));
    header.usr_len.set(0);
    header.flags.set(flags);
    header.sg_cnt.set(sg_cnt);
    cxxrt::copy_bytes(message, &header, sizeof(header));
    rwire::SgDesc desc{};
    desc.addr.set(0x1000);
    desc.key.set(garbage_key ? 0x00abcdefu : 0u);
    desc.len.set(desc_len);
    cxxrt::copy_bytes(message + sizeof(header), &desc, sizeof(desc));
    u32 depth = path->queue_depth;
    (void)depth;
    path.reset();
    return io_raw(env, 0, 64, ConstByteSpan(message, sizeof(message)), 64);
}
Verdict io_read_sg_cnt_two(Env& env)
{
    return io_read_fields(env, 2, 0, 512, true);
}
Verdict io_read_sg_cnt_huge(Env& env)
{
    return io_read_fields(env, 0xffff, 0, 512, true);
}
Verdict io_read_desc_len_zero(Env& env)
{
    return io_read_fields(env, 1, 0, 0, true);
}
Verdict io_read_desc_len_too_large(Env& env)
{
    return io_read_fields(env, 1, 0, 0x7fffffff, true);
}
Verdict io_read_unknown_flags(Env& env)
{
    return io_read_fields(env, 1, 0x80, 512, true);
}
Verdict io_read_desc_bad_rkey(Env& env)
{
    // A well-formed SESS_INFO read whose descriptor names a key we never
    // registered: the server's RDMA write must fail without harm to it.
    READY_PATH(path, true, false);
    u8 usr[sizeof(nwire::SessInfoMsg)];
    auto built = ncodec::build_sess_info(ByteSpan(usr));
    if (built.is_error())
        return setup_failed(10);
    u32 chunk_id = path->next_chunk();
    auto plan = rcodec::plan_read(path->geometry, 0, u32(built.value()), 1);
    if (plan.is_error())
        return setup_failed(11);
    u8 bytes[256] = {};
    cxxrt::copy_bytes(bytes, usr, built.value());
    rcodec::SgEntry desc{0x10000, 0x00abcd00u, 64};
    if (rcodec::build_rdma_read(ByteSpan(bytes + plan.value().msg_offset, plan.value().msg_len), u16(built.value()), 0,
                                Span<const rcodec::SgEntry>(&desc, 1))
            .is_error())
        return setup_failed(12);
    auto imm = rcodec::encode_io_request_imm(path->geometry, chunk_id, plan.value().msg_offset);
    if (imm.is_error())
        return setup_failed(13);
    int before = path->answers(1);
    if (path->write_chunk(1, chunk_id, ConstByteSpan(bytes, plan.value().total), imm.value()).is_error())
        return setup_failed(14);
    return expect_refusal(path->reaction(1, before));
}
Verdict io_imm_unknown_type(Env& env)
{
    READY_PATH(path, true, false);
    int before = path->answers(1);
    if (path->write_imm_only(1, rwire::make_imm(rwire::ImmType(5), 0x1234)).is_error())
        return setup_failed(10);
    return expect_refusal(path->reaction(1, before));
}

// ---- RNBD over a good RTRS path ----

Verdict rnbd_unknown_message_type(Env& env)
{
    READY_PATH(path, true, true);
    u8 usr[sizeof(nwire::IoMsg)] = {9, 0};
    ncodec::IoFields fields;
    fields.bi_size = 512;
    return expect_refusal(path->rnbd_io(fields, usr, sizeof(usr)));
}

ncodec::IoFields read_io(u32 device_id, u64 sector, u32 bi_size)
{
    ncodec::IoFields fields;
    fields.device_id = device_id;
    fields.sector = sector;
    fields.op = nwire::IoOp::kRead;
    fields.bi_size = bi_size;
    return fields;
}

Verdict rnbd_io_unknown_device(Env& env)
{
    READY_PATH(path, true, true);
    return expect_refusal(path->rnbd_io(read_io(4242, 0, 4096)));
}

// Opens the block device on a ready path; device id and size out.
#define OPEN_BLOCKDEV(path, id, sectors)                                                                  \
    u32 id = 0;                                                                                         \
    u64 sectors = 0;                                                                                    \
    do {                                                                                                \
        Observed opened = path->rnbd_open(StringView(env.blockdev), u8(nwire::AccessMode::kReadWrite), \
                                          &id, &sectors);                                               \
        if (opened.kind != Observed::kOkAnswer)                                                         \
            return setup_failed(20);                                                                    \
    } while (0)

Verdict rnbd_io_closed_device(Env& env)
{
    READY_PATH(path, true, true);
    OPEN_BLOCKDEV(path, id, sectors);
    if (path->rnbd_close(id).kind != Observed::kOkAnswer)
        return setup_failed(21);
    return expect_refusal(path->rnbd_io(read_io(id, 0, 4096)));
}

Verdict rnbd_io_sector_wrap(Env& env)
{
    READY_PATH(path, true, true);
    OPEN_BLOCKDEV(path, id, sectors);
    return expect_refusal(path->rnbd_io(read_io(id, ~0ull - 3, 4096)));
}
Verdict rnbd_io_beyond_end(Env& env)
{
    READY_PATH(path, true, true);
    OPEN_BLOCKDEV(path, id, sectors);
    return expect_refusal(path->rnbd_io(read_io(id, sectors, 4096)));
}
Verdict rnbd_io_straddles_end(Env& env)
{
    READY_PATH(path, true, true);
    OPEN_BLOCKDEV(path, id, sectors);
    return expect_refusal(path->rnbd_io(read_io(id, sectors - 1, 4096)));
}

// An IO message built right, then one 32-bit/16-bit field patched.
Verdict rnbd_io_patched(Env& env, u32 rw, u16 prio, u32 bi_size)
{
    READY_PATH(path, true, true);
    OPEN_BLOCKDEV(path, id, sectors);
    ncodec::IoFields fields = read_io(id, 0, 4096);
    u8 usr[sizeof(nwire::IoMsg)];
    auto built = ncodec::build_io(ByteSpan(usr), fields);
    if (built.is_error())
        return setup_failed(22);
    nwire::IoMsg msg;
    cxxrt::copy_bytes(&msg, usr, sizeof(msg));
    msg.rw.set(rw);
    msg.prio.set(prio);
    msg.bi_size.set(bi_size);
    cxxrt::copy_bytes(usr, &msg, sizeof(msg));
    fields.bi_size = bi_size;
    return expect_refusal(path->rnbd_io(fields, usr, sizeof(usr)));
}
Verdict rnbd_io_unknown_op(Env& env)
{
    return rnbd_io_patched(env, 9, 0, 4096);
}
Verdict rnbd_io_unknown_flags(Env& env)
{
    return rnbd_io_patched(env, u32(nwire::IoOp::kRead) | (1u << 20), 0, 4096);
}
Verdict rnbd_io_bad_prio_class(Env& env)
{
    return rnbd_io_patched(env, u32(nwire::IoOp::kRead), u16(7u << 13), 4096);
}
Verdict rnbd_io_realtime_prio(Env& env)
{
    // IOPRIO_CLASS_RT, level 0: only an administrator may allow it.
    return rnbd_io_patched(env, u32(nwire::IoOp::kRead), u16(1u << 13), 4096);
}
Verdict rnbd_io_size_not_sector_multiple(Env& env)
{
    return rnbd_io_patched(env, u32(nwire::IoOp::kRead), 0, 4097);
}
Verdict rnbd_io_size_zero(Env& env)
{
    return rnbd_io_patched(env, u32(nwire::IoOp::kRead), 0, 0);
}
Verdict rnbd_io_write_size_mismatch(Env& env)
{
    // A WRITE whose bi_size claims more than the data the transport carried.
    READY_PATH(path, true, true);
    OPEN_BLOCKDEV(path, id, sectors);
    ncodec::IoFields fields = read_io(id, 0, 8192);
    fields.op = nwire::IoOp::kWrite;
    u8 usr[sizeof(nwire::IoMsg)];
    auto built = ncodec::build_io(ByteSpan(usr), fields);
    if (built.is_error())
        return setup_failed(22);
    int before = path->answers(1);
    if (path->rtrs_write(1, 4096, ConstByteSpan(usr, built.value())).is_error())
        return setup_failed(23);
    return expect_refusal(path->reaction(1, before));
}

Verdict rnbd_open_bad_access_mode(Env& env)
{
    READY_PATH(path, true, true);
    return expect_refusal(path->rnbd_open(StringView(env.blockdev), 9, nullptr, nullptr));
}

// OPEN of <dir>/<leaf> (or of leaf itself when it is absolute).
Verdict rnbd_open_object(Env& env, const char* leaf)
{
    READY_PATH(path, true, true);
    char name[200];
    Text text(name, sizeof(name));
    if (leaf[0] != '/')
        text.append(env.dir).append("/");
    text.append(leaf);
    u64 start = kapi_ktime_ns();
    u32 id = 0;
    Observed seen = path->rnbd_open(StringView(name), u8(nwire::AccessMode::kReadOnly), &id, nullptr);
    u64 elapsed_ms = (kapi_ktime_ns() - start) / 1000000;
    log::info("# OPEN %s: %llu ms", name, (unsigned long long)elapsed_ms);
    if (seen.kind == Observed::kOkAnswer)
        (void)path->rnbd_close(id);
    Verdict verdict = expect_refusal(seen);
    if (elapsed_ms >= 1000)
        verdict.pass = false;
    return verdict;
}

// The descriptor-length race (security review N1): a READ whose descriptor
// says `a` bytes (what the check must see) and whose RNBD header asks for
// `b` (more than a chunk), while the length in the chunk keeps being
// RDMA-written with a and b. A server that reads the length twice (checks
// a, uses b) accepts the IO and reads b bytes of the device into the chunk:
// a heap overflow. Who writes:
//  - io_read_desc_len_race: a second connection of the requesting path,
//    against rtrs-server always_invalidate=0 (the path's own key stays
//    valid while the server works);
//  - io_read_desc_len_race_second_path: a second path of the same session
//    from the server's second address (addr2=), against the default
//    always_invalidate=1: the server invalidates the requesting path's key
//    for the chunk, but the second path has a key of its own for it.
// The server's chunks must be no larger than our response buffer, so a
// successful answer reaches us and is counted. Run only when named. Pass:
// never a successful answer; every round refused (error answer, or the
// path closed: then new paths are made).
struct RacePaths {
    UniquePtr<Path> request;  // sends the READs (connection 1)
    UniquePtr<Path> second;   // the second path's racer, or null
    Path& racer() { return second ? *second : *request; }
    bool closed() const { return !request || request->closed() || (second && second->closed()); }
};

Result<RacePaths> race_paths(Env& env, bool second_path, u32* device_id)
{
    RacePaths paths;
    paths.request = CXXRT_TRY(cxxrt::make_unique<Path>(Gfp::kernel(), env.server, ++env.serial));
    char name[32];
    Text(name, sizeof(name)).append("hostile-race-").number(env.serial);
    CXXRT_TRY(paths.request->connect_all());
    CXXRT_TRY(paths.request->info(StringView(name)));
    if (paths.request->rnbd_sess_info().kind != Observed::kOkAnswer)
        return Error(cxxrt::err::kProto);
    // Read-only: the race only READs, and the mapping of the session
    // before (a writer) may still be closing on the server.
    u64 sectors = 0;
    if (paths.request->rnbd_open(StringView(env.blockdev), u8(nwire::AccessMode::kReadOnly), device_id, &sectors)
            .kind != Observed::kOkAnswer)
        return Error(cxxrt::err::kNoDev);
    if (second_path) {
        paths.second = CXXRT_TRY(cxxrt::make_unique<Path>(Gfp::kernel(), env.server2, ++env.serial));
        paths.second->paths_uuid = paths.request->paths_uuid;  // the same session
        CXXRT_TRY(paths.second->connect_all());
        CXXRT_TRY(paths.second->info(StringView(name)));
    }
    return paths;
}

Verdict desc_len_race(Env& env, bool second_path)
{
    constexpr u32 kRounds = 8000, kMinRounds = 20, kMaxRebuilds = 100, kSmall = 4096, kLarge = 1u << 20;
    // 30 s of racing, longer (up to 120 s) until kMinRounds rounds ran: on
    // the debug kernel with one vCPU beside other VMs a second-path round
    // (paths rebuilt after each close) took 1.6 s, and 19 rounds proved
    // nothing about the race.
    constexpr u64 kBudgetNs = 30ull * 1000 * 1000 * 1000, kMaxBudgetNs = 4 * kBudgetNs;
    u32 rounds = 0, builds = 0, successes = 0, error_answers = 0, closes = 0, silent = 0;
    const u64 start = kapi_ktime_ns();
    RacePaths paths;
    u32 id = 0;
    auto in_budget = [&] {
        const u64 elapsed = kapi_ktime_ns() - start;
        return elapsed < kBudgetNs || (rounds < kMinRounds && elapsed < kMaxBudgetNs);
    };
    while (rounds < kRounds && in_budget()) {
        if (paths.closed()) {
            paths = RacePaths{};
            if (builds == kMaxRebuilds)
                break;
            auto made = race_paths(env, second_path, &id);
            if (made.is_error())
                return setup_failed(made.to_errno());
            paths = made.release_value();
            ++builds;
            if (paths.request->chunk_size > kResponseBufferSize)
                return setup_failed(24);  // the server was not loaded with a small enough max_chunk_size
        }
        Path& path = *paths.request;
        u8 usr[sizeof(nwire::IoMsg)];
        if (ncodec::build_io(ByteSpan(usr), read_io(id, 0, kLarge)).is_error())
            return setup_failed(22);
        auto plan = rcodec::plan_read(path.geometry, 0, sizeof(usr), 1);
        if (plan.is_error())
            return setup_failed(23);
        u8 bytes[sizeof(usr) + sizeof(rwire::RdmaReadHeader) + sizeof(rwire::SgDesc) + 8] = {};
        if (plan.value().total > sizeof(bytes))
            return setup_failed(23);
        cxxrt::copy_bytes(bytes + plan.value().data_len, usr, sizeof(usr));
        const rcodec::SgEntry desc{path.response_iova(), path.response_rkey(), kSmall};
        if (rcodec::build_rdma_read(ByteSpan(bytes + plan.value().msg_offset, plan.value().msg_len), sizeof(usr), 0,
                                    Span<const rcodec::SgEntry>(&desc, 1))
                .is_error())
            return setup_failed(23);
        const u32 len_at = plan.value().msg_offset + sizeof(rwire::RdmaReadHeader) + __builtin_offsetof(rwire::SgDesc, len);
        const int before = path.answers(1);
        ++rounds;
        if (path.race_io_request(1, paths.racer(), 0, path.next_chunk(), ConstByteSpan(bytes, plan.value().total),
                                 plan.value().msg_offset, len_at, kSmall, kLarge)
                .is_error()) {
            ++closes;  // a post on a connection that is already gone
            paths = RacePaths{};
            continue;
        }
        Observed seen = path.reaction(1, before);
        if (seen.kind == Observed::kOkAnswer)
            ++successes;
        else if (seen.kind == Observed::kErrorAnswer)
            ++error_answers;
        else if (seen.kind == Observed::kClosed)
            ++closes;
        else
            ++silent;
    }
    log::info("# io_read_desc_len_race%s: %u rounds on %u sessions in %llu ms: %u answered with success, "
              "%u error answers, %u paths closed, %u without reaction",
              second_path ? "_second_path" : "", rounds, builds,
              (unsigned long long)((kapi_ktime_ns() - start) / 1000000), successes, error_answers, closes, silent);
    Observed seen;
    seen.kind = Observed::kCounted;
    seen.value = int(successes);
    seen.refused_count = int(error_answers + closes);
    return Verdict{successes == 0 && silent == 0 && rounds >= kMinRounds, seen};
}

Verdict io_read_desc_len_race(Env& env)
{
    return desc_len_race(env, false);
}

Verdict io_read_desc_len_race_second_path(Env& env)
{
    if (!env.has_server2)
        return setup_failed(25);  // addr2= not given
    return desc_len_race(env, true);
}

// ---- Two paths on one chunk (security review N6) ----
//
// The chunks are the session's, shared by all its paths; a client failing
// over re-sends the same chunk id on another path while the old path's
// backend IO may still use the chunk. io_same_chunk_two_paths: path A (the
// server's first address) sends READ(X) in chunk 0 of a slow device
// (blockdev= is dm-delay over brd: reads take kSameChunkReadMs, writes
// kSameChunkWriteMs, longer), then path B of the same session (the
// server's second address, addr2=) sends WRITE(Y, pattern) in chunk 0
// while A's READ is still in the backend. A server that lets B use the
// chunk writes to Y what A's READ put in the chunk meanwhile (B's bio
// reads the chunk after A's filled it). Pass: B's IO answered with ENOMEM
// (the retryable refusal), A's READ answered with X's data, Y unchanged;
// then B's retry in chunk 0 succeeds and Y reads back as B wrote it. Run
// only when named (selftests/hostile/013-same-chunk-two-paths.sh).
constexpr u32 kSameChunkIoBytes = 4096;
constexpr unsigned kSameChunkReadMs = 1500;   // the script's dm-delay read delay
constexpr unsigned kSameChunkWriteMs = 3000;  // and write delay
constexpr unsigned kSameChunkSettleMs = 500;  // A's IO is surely in the backend when B's comes
constexpr unsigned kSameChunkAnswerMs = 20000;
constexpr u64 kSameChunkSectorX = 0, kSameChunkSectorY = 2048;

u8 same_chunk_pattern(u32 seed, u32 i)
{
    return u8(seed * 37 + i * 11 + (i >> 8));
}

// An RNBD READ or WRITE of kSameChunkIoBytes in a chosen chunk, on
// connection 1; does not wait for the answer.
Result<void> post_chunk_io(Path& path, u32 chunk_id, u32 device_id, u64 sector, bool write, u32 seed)
{
    CXXRT_TRY(path.make_buffers());
    if (!path.chunks)
        return Error(cxxrt::err::kNotConn);
    ncodec::IoFields fields;
    fields.device_id = device_id;
    fields.sector = sector;
    fields.op = write ? nwire::IoOp::kWrite : nwire::IoOp::kRead;
    fields.bi_size = kSameChunkIoBytes;
    u8 usr[sizeof(nwire::IoMsg)];
    const size_t usr_len = CXXRT_TRY(ncodec::build_io(ByteSpan(usr), fields));
    rcodec::IoPlan plan;
    if (write)
        plan = CXXRT_TRY(rcodec::plan_write(path.geometry, kSameChunkIoBytes, u32(usr_len)));
    else
        plan = CXXRT_TRY(rcodec::plan_read(path.geometry, 0, u32(usr_len), 1));
    if (plan.total > kSendBufferSize)
        return Error(cxxrt::err::kInval);
    u8* bytes = cxxrt::allocate_array<u8>(Gfp::kernel(), plan.total);
    if (!bytes)
        return Error(cxxrt::err::kNoMem);
    for (u32 i = 0; write && i < kSameChunkIoBytes; ++i)
        bytes[i] = same_chunk_pattern(seed, i);
    cxxrt::copy_bytes(bytes + plan.data_len, usr, usr_len);
    const rcodec::SgEntry desc{path.response_iova(), path.response_rkey(), kSameChunkIoBytes};
    auto built = write ? rcodec::build_rdma_write(ByteSpan(bytes + plan.msg_offset, plan.msg_len), u16(usr_len))
                       : rcodec::build_rdma_read(ByteSpan(bytes + plan.msg_offset, plan.msg_len), u16(usr_len), 0,
                                                 Span<const rcodec::SgEntry>(&desc, 1));
    Result<void> sent = built.is_error() ? Result<void>(built.error())
                                         : path.send_io_request(1, chunk_id, ConstByteSpan(bytes, plan.total),
                                                                plan.msg_offset);
    cxxrt::free_array(bytes);
    return sent;
}

// One IO in a chosen chunk and its answer.
Observed chunk_io(Path& path, u32 chunk_id, u32 device_id, u64 sector, bool write, u32 seed)
{
    const int before = path.answers(1);
    if (post_chunk_io(path, chunk_id, device_id, sector, write, seed).is_error()) {
        Observed seen;
        seen.kind = Observed::kSetupFailed;
        return seen;
    }
    return path.reaction(1, before, kSameChunkAnswerMs);
}

// After an answered READ: the response buffer holds `seed`'s pattern.
bool holds_pattern(const Path& path, u32 seed)
{
    for (u32 i = 0; i < kSameChunkIoBytes; ++i)
        if (path.response[i] != same_chunk_pattern(seed, i))
            return false;
    return true;
}

Verdict io_same_chunk_two_paths(Env& env)
{
    constexpr u32 kSeedX = 1, kSeedY = 2, kSeedB = 3, kChunk = 0;
    if (!env.has_server2)
        return setup_failed(25);  // addr2= not given
    // Path A: the session, SESS_INFO and OPEN (chunks 0 and 1, answered).
    auto a_made = cxxrt::make_unique<Path>(Gfp::kernel(), env.server, ++env.serial);
    if (a_made.is_error())
        return setup_failed(1);
    UniquePtr<Path> a = a_made.release_value();
    char name[40];
    Text(name, sizeof(name)).append("hostile-chunk-").number(env.serial);
    if (a->connect_all().is_error() || a->info(StringView(name)).is_error() ||
        a->rnbd_sess_info().kind != Observed::kOkAnswer)
        return setup_failed(2);
    u32 id = 0;
    u64 sectors = 0;
    if (a->rnbd_open(StringView(env.blockdev), u8(nwire::AccessMode::kReadWrite), &id, &sectors).kind !=
            Observed::kOkAnswer ||
        sectors < kSameChunkSectorY + 8)
        return setup_failed(20);
    // Path B: the same session from the server's second address.
    auto b_made = cxxrt::make_unique<Path>(Gfp::kernel(), env.server2, ++env.serial);
    if (b_made.is_error())
        return setup_failed(3);
    UniquePtr<Path> b = b_made.release_value();
    b->paths_uuid = a->paths_uuid;
    if (b->connect_all().is_error() || b->info(StringView(name)).is_error() || b->make_buffers().is_error())
        return setup_failed(4);
    // Known contents at X and Y (through A, in chunks other than 0).
    if (chunk_io(*a, 2, id, kSameChunkSectorX, true, kSeedX).kind != Observed::kOkAnswer ||
        chunk_io(*a, 3, id, kSameChunkSectorY, true, kSeedY).kind != Observed::kOkAnswer)
        return setup_failed(5);

    // The two IOs in chunk 0: A's READ goes into the backend, B's WRITE
    // comes while it is there.
    const int a_before = a->answers(1), b_before = b->answers(1);
    const u64 start = kapi_ktime_ns();
    if (post_chunk_io(*a, kChunk, id, kSameChunkSectorX, false, 0).is_error())
        return setup_failed(6);
    rtrs_hostile_sleep_ms(kSameChunkSettleMs);
    if (post_chunk_io(*b, kChunk, id, kSameChunkSectorY, true, kSeedB).is_error())
        return setup_failed(7);
    Observed b_seen = b->reaction(1, b_before, kSameChunkAnswerMs);
    const u64 b_ms = (kapi_ktime_ns() - start) / 1000000;
    Observed a_seen = a->reaction(1, a_before, kSameChunkAnswerMs);
    const u64 a_ms = (kapi_ktime_ns() - start) / 1000000;
    const bool a_data = a_seen.kind == Observed::kOkAnswer && holds_pattern(*a, kSeedX);
    char seen_text[96];
    b_seen.describe(seen_text, sizeof(seen_text));
    log::info("# io_same_chunk_two_paths: B's WRITE in A's chunk: %s after %llu ms; A's READ: %s after %llu ms "
              "(backend delays %u/%u ms)",
              seen_text, (unsigned long long)b_ms,
              a_data ? "X's data" : a_seen.kind == Observed::kOkAnswer ? "WRONG DATA" : "not answered with success",
              (unsigned long long)a_ms, kSameChunkReadMs, kSameChunkWriteMs);
    // Y after both: still its own contents (not X's, not B's refused write).
    Observed y_seen = chunk_io(*a, 4, id, kSameChunkSectorY, false, 0);
    const bool y_kept = y_seen.kind == Observed::kOkAnswer && holds_pattern(*a, kSeedY);
    const bool y_has_x = y_seen.kind == Observed::kOkAnswer && holds_pattern(*a, kSeedX);
    // The client's retry on B, now that A's IO is answered, and Y read back.
    Observed retry = chunk_io(*b, kChunk, id, kSameChunkSectorY, true, kSeedB);
    Observed y_after = chunk_io(*a, 5, id, kSameChunkSectorY, false, 0);
    const bool y_written = y_after.kind == Observed::kOkAnswer && holds_pattern(*a, kSeedB);
    log::info("# io_same_chunk_two_paths: Y after the race: %s; B's retry in chunk 0: %s; Y then: %s",
              y_kept ? "unchanged" : y_has_x ? "X's data (B's WRITE used the chunk A's READ filled)" : "wrong",
              retry.kind == Observed::kOkAnswer ? "success" : "failed", y_written ? "B's data" : "wrong");
    const bool pass = b_seen.kind == Observed::kErrorAnswer && b_seen.value == -cxxrt::err::kNoMem && a_data &&
                      y_kept && retry.kind == Observed::kOkAnswer && y_written;
    return Verdict{pass, b_seen};
}

// ---- Names and paths: control characters, other spellings, probes ----

// A session name with a newline (it would forge log lines and become a
// sysfs directory): the path must be closed.
Verdict info_req_name_control_chars(Env& env)
{
    u8 message[sizeof(rwire::InfoReq)] = {};
    message[0] = u8(rwire::MsgType::kInfoReq);
    cxxrt::copy_bytes(message + 2, "a\nb", 3);
    return info_send(env, 0, ConstByteSpan(message, sizeof(message)));
}

// A read-only OPEN of `name` sent as it is (the codec's builder refuses
// what these cases need to send), `patch` (when not 0) written over the
// name's last byte.
Observed open_raw(Path& path, StringView name, char patch)
{
    Observed seen;
    seen.kind = Observed::kSetupFailed;
    u8 usr[sizeof(nwire::OpenMsg)];
    auto built = ncodec::build_open(ByteSpan(usr), nwire::AccessMode::kReadOnly, name);
    if (built.is_error() || name.is_empty())
        return seen;
    if (patch)
        usr[__builtin_offsetof(nwire::OpenMsg, dev_name) + name.length() - 1] = u8(patch);
    int before = path.answers(1);
    if (path.rtrs_read(1, ConstByteSpan(usr, built.value()), sizeof(nwire::OpenRspMsg)).is_error())
        return seen;
    return path.reaction(1, before);
}

// OPEN of the block device's path with a newline at its end: refused with
// -EINVAL (a path the server looked up would answer -ENOENT instead).
Verdict rnbd_open_name_control_chars(Env& env)
{
    READY_PATH(path, true, true);
    char name[200];
    Text(name, sizeof(name)).append(env.blockdev).append("x");
    Observed seen = open_raw(*path, StringView(name), '\n');
    return Verdict{seen.kind == Observed::kErrorAnswer && seen.value == -cxxrt::err::kInval, seen};
}

// One session maps the block device read-only, then asks for it again as
// "/" + path ("//dev/ram0") and with "./" before its last component
// ("/dev/./ram0"): the same object, which the session maps already, so
// both are refused with -EEXIST (before the server creates a second
// sessions/<name> directory under the device: the script checks the log
// for the kernel's duplicate-name dump). The same string again is a
// re-open and answers the mapping it has.
Verdict rnbd_open_same_device_two_spellings(Env& env)
{
    READY_PATH(path, true, true);
    StringView plain(env.blockdev);
    size_t last_slash = plain.length();
    for (size_t i = 0; i < plain.length(); ++i)
        if (plain[i] == '/')
            last_slash = i;
    if (plain.length() == 0 || plain[0] != '/' || last_slash == plain.length())
        return setup_failed(30);
    char doubled[200], dotted[200];
    Text(doubled, sizeof(doubled)).append("/").append(env.blockdev);
    Text dot(dotted, sizeof(dotted));
    for (size_t i = 0; i < plain.length(); ++i) {
        char c[2] = {plain[i], '\0'};
        dot.append(c);
        if (i == last_slash)
            dot.append("./");
    }
    u32 id = 0;
    if (path->rnbd_open(plain, u8(nwire::AccessMode::kReadOnly), &id, nullptr).kind != Observed::kOkAnswer)
        return setup_failed(31);
    bool pass = true;
    Observed seen;
    const char* const others[] = {doubled, dotted};
    for (const char* other : others) {
        seen = open_raw(*path, StringView(other), 0);
        log::info("# OPEN %s after %s: %s %d", other, env.blockdev,
                  seen.kind == Observed::kErrorAnswer ? "error answer" : "not an error answer", seen.value);
        if (seen.kind == Observed::kOkAnswer) {
            auto rsp = ncodec::decode_open_rsp(ConstByteSpan(path->response, sizeof(nwire::OpenRspMsg)));
            if (rsp.is_ok() && rsp.value().device_id != id)
                (void)path->rnbd_close(rsp.value().device_id);
        }
        pass = pass && seen.kind == Observed::kErrorAnswer && seen.value == -cxxrt::err::kExist;
    }
    u32 again = ~0u;
    Observed reopened = path->rnbd_open(plain, u8(nwire::AccessMode::kReadOnly), &again, nullptr);
    if (reopened.kind != Observed::kOkAnswer || again != id) {
        log::info("# re-OPEN of %s: device id %u, the mapping has %u", env.blockdev, again, id);
        pass = false;
        seen = reopened;
    }
    (void)path->rnbd_close(id);
    return Verdict{pass, seen};
}

// OPEN as a probe of the server's filesystem: an existing regular file, a
// path that does not exist, a path through a regular file, a directory.
// Each must be refused with one and the same errno (no existence oracle).
Verdict rnbd_open_probe_oracle(Env& env)
{
    READY_PATH(path, true, true);
    const char* const leaves[] = {"file", "no-such-object", "file/x", "dir"};
    Observed first;
    bool pass = true;
    for (const char* leaf : leaves) {
        char name[200];
        Text(name, sizeof(name)).append(env.dir).append("/").append(leaf);
        u32 id = 0;
        Observed seen = path->rnbd_open(StringView(name), u8(nwire::AccessMode::kReadOnly), &id, nullptr);
        log::info("# OPEN %s: %s %d", name, seen.kind == Observed::kErrorAnswer ? "error answer" : "not an error answer",
                  seen.value);
        if (seen.kind == Observed::kOkAnswer)
            (void)path->rnbd_close(id);
        if (leaf == leaves[0])
            first = seen;
        pass = pass && seen.kind == Observed::kErrorAnswer && seen.value == first.value;
    }
    return Verdict{pass, first};
}

// RNBD messages shorter than their type needs.
Verdict rnbd_io_header_too_short(Env& env)
{
    READY_PATH(path, true, true);
    OPEN_BLOCKDEV(path, id, sectors);
    u8 usr[sizeof(nwire::IoMsg)];
    auto built = ncodec::build_io(ByteSpan(usr), read_io(id, 0, 4096));
    if (built.is_error())
        return setup_failed(22);
    return expect_refusal(path->rnbd_io(read_io(id, 0, 4096), usr, 12));
}
Verdict rnbd_open_header_too_short(Env& env)
{
    READY_PATH(path, true, true);
    u8 usr[sizeof(nwire::OpenMsg)];
    auto built = ncodec::build_open(ByteSpan(usr), nwire::AccessMode::kReadOnly, StringView(env.blockdev));
    if (built.is_error())
        return setup_failed(22);
    int before = path->answers(1);
    if (path->rtrs_read(1, ConstByteSpan(usr, 8), sizeof(nwire::OpenRspMsg)).is_error())
        return setup_failed(23);
    return expect_refusal(path->reaction(1, before));
}
Verdict rnbd_sess_info_too_short(Env& env)
{
    READY_PATH(path, true, false);
    u8 usr[4] = {u8(nwire::MsgType::kSessInfo), 0, 0, 0};
    int before = path->answers(1);
    if (path->rtrs_read(1, ConstByteSpan(usr, sizeof(usr)), sizeof(nwire::SessInfoRspMsg)).is_error())
        return setup_failed(23);
    return expect_refusal(path->reaction(1, before));
}

// Connects `count` paths, each with its connections up and INFO done (so
// the server allocated and registered its chunk memory), all kept until the
// last one has been tried. `one_session`: paths of one session (the first
// path's paths UUID and name), else a session each. -ENOMEM if the
// array of paths could not be allocated.
struct FloodCount {
    u32 accepted = 0;
    u32 refused = 0;
    int first_refusal = 0;  // the errno of the first reject
};

// The floods keep what they opened for hold_ms (writable at run time, so
// a script can end the hold early) while a test script checks that other
// clients are still served.
void hold_flood(const char* what)
{
    u64 start = kapi_ktime_ns();
    if (rtrs_hostile_hold_ms() == 0)
        return;
    log::info("# flood: holding the %s", what);
    while (rtrs_hostile_hold_ms() != 0 && (kapi_ktime_ns() - start) / 1000000 < rtrs_hostile_hold_ms())
        rtrs_hostile_sleep_ms(100);
    log::info("# flood: released the %s", what);
}

Result<FloodCount> flood(Env& env, u32 count, bool one_session)
{
    auto paths = CXXRT_TRY(cxxrt::Array<UniquePtr<Path>>::create(Gfp::kernel(), count));
    FloodCount counted;
    char name[32];
    for (u32 i = 0; i < count; ++i) {
        auto made = cxxrt::make_unique<Path>(Gfp::kernel(), env.server, ++env.serial);
        if (made.is_error())
            break;
        paths[i] = made.release_value();
        if (!one_session)
            Text(name, sizeof(name)).append("flood-").number(env.serial);
        else if (i == 0)
            Text(name, sizeof(name)).append("flood-paths-").number(env.serial);
        else
            paths[i]->paths_uuid = paths[0]->paths_uuid;
        auto up = paths[i]->connect_all();
        if (up.is_ok())
            up = paths[i]->info(StringView(name));
        ++(up.is_ok() ? counted.accepted : counted.refused);
        if (up.is_error() && counted.first_refusal == 0)
            counted.first_refusal = paths[i]->rejection();
    }
    hold_flood(one_session ? "paths" : "sessions");
    return counted;
}

Verdict flood_verdict(const FloodCount& counted, bool passed)
{
    Observed seen;
    seen.kind = Observed::kCounted;
    seen.value = int(counted.accepted);
    seen.refused_count = int(counted.refused);
    return Verdict{passed, seen};
}

// Many paths in one session (one paths UUID, a path UUID each). Beyond the
// per-session path limit the server must refuse them.
Verdict flood_paths(Env& env)
{
    auto flooded = flood(env, env.flood_paths, true);
    if (flooded.is_error())
        return setup_failed(1);
    const FloodCount& count = flooded.value();
    log::info("# flood: %u paths of one session asked, %u accepted, %u refused", env.flood_paths, count.accepted,
              count.refused);
    return flood_verdict(count, count.refused > 0 && count.accepted > 0);
}

// Many sessions from one client. The server must refuse some of them (its
// session limit) and stay healthy.
Verdict flood_sessions(Env& env)
{
    auto flooded = flood(env, env.flood, false);
    if (flooded.is_error())
        return setup_failed(1);
    const FloodCount& count = flooded.value();
    log::info("# flood: %u sessions asked, %u accepted, %u refused (first refusal errno %d)", env.flood,
              count.accepted, count.refused, count.first_refusal);
    return flood_verdict(count, count.refused > 0);
}

// Connections from one client (review-2 N2). A path announcing one
// connection more than the server's max_connections_per_path
// (env.flood_connections) is refused at its first connect with -EINVAL;
// then paths of max_connections_per_path connections each (a session
// each, INFO done) are connected one cid after the other until the server
// refuses one: that happens at the client's budget,
// max_connections_per_client (env.flood_connections_budget), with -EBUSY.
Verdict flood_connections(Env& env)
{
    const u32 per_path = env.flood_connections, budget = env.flood_connections_budget;
    if (per_path == 0 || per_path + 1 > Path::kMaxConns || budget == 0)
        return setup_failed(1);
    Observed too_many;
    {
        Path path(env.server, ++env.serial);
        path.cid_num = u16(per_path + 1);
        u8 message[rwire::kConnReqPrivateDataMax];
        auto built = rcodec::build_conn_req(ByteSpan(message), path.good_request(0));
        if (built.is_error())
            return setup_failed(2);
        too_many = path.connect_raw(0, ConstByteSpan(message, built.value()));
    }
    const u32 most = budget / per_path + 2;
    auto made = cxxrt::Array<UniquePtr<Path>>::create(Gfp::kernel(), most);
    if (made.is_error())
        return setup_failed(3);
    auto paths = made.release_value();
    u32 accepted = 0;
    int refusal = 0;
    char name[32];
    for (u32 i = 0; i < most && refusal == 0; ++i) {
        auto path = cxxrt::make_unique<Path>(Gfp::kernel(), env.server, ++env.serial);
        if (path.is_error())
            return setup_failed(4);
        paths[i] = path.release_value();
        paths[i]->cid_num = u16(per_path);
        for (u16 cid = 0; cid < per_path; ++cid) {
            if (paths[i]->connect_good(cid).is_error()) {
                refusal = paths[i]->rejection();
                if (refusal == 0)
                    refusal = -cxxrt::err::kConnReset;  // not a reject: failed otherwise
                break;
            }
            ++accepted;
        }
        Text(name, sizeof(name)).append("flood-conns-").number(env.serial);
        if (refusal == 0 && (paths[i]->make_buffers().is_error() || paths[i]->info(StringView(name)).is_error()))
            return setup_failed(5);
    }
    log::info("# flood: a path of %u connections: %s (errno %d); paths of %u: %u connections accepted, then "
              "refused with errno %d (budget %u)",
              per_path + 1, too_many.kind == Observed::kRejected ? "refused" : "not refused", too_many.value,
              per_path, accepted, refusal, budget);
    hold_flood("connections");
    Observed seen;
    seen.kind = Observed::kCounted;
    seen.value = int(accepted);
    seen.refused_count = refusal != 0 ? 1 : 0;
    bool passed = too_many.kind == Observed::kRejected && too_many.value == -cxxrt::err::kInval &&
                  refusal == -cxxrt::err::kBusy && accepted == budget;
    return Verdict{passed, seen};
}

// ---- A reconnect from another address (security review N11) ----

// Path P connects to the server's first address, finishes INFO and opens
// the block device; then a CON_REQ with P's two UUIDs and recon_cnt + 1
// (what P's client sends to replace P after a blip) comes from another
// client address: a connection to the server's second address (addr2=)
// leaves from the second rxe netdev. A UUID travels in clear and proves
// nothing: the server must refuse the request (EPERM) and P must keep
// serving (a READ on it answered with success afterwards). Runs when
// addr2= is given.
Verdict con_req_reconnect_other_address(Env& env)
{
    READY_PATH(path, true, true);
    u32 id = 0;
    if (path->rnbd_open(StringView(env.blockdev), u8(nwire::AccessMode::kReadOnly), &id, nullptr).kind !=
        Observed::kOkAnswer)
        return setup_failed(30);
    Path other(env.server2, ++env.serial);
    other.sess_uuid = path->sess_uuid;
    other.paths_uuid = path->paths_uuid;
    auto request = path->good_request(0);
    request.recon_cnt = 1;
    u8 message[rwire::kConnReqPrivateDataMax];
    auto built = rcodec::build_conn_req(ByteSpan(message), request);
    if (built.is_error())
        return setup_failed(31);
    const Observed reconnect = other.connect_raw(0, ConstByteSpan(message, built.value()));
    // A replaced path is closed asynchronously: give the server time to.
    (void)wait_until([&] { return path->closed(); }, 1000);
    const Observed io = path->rnbd_io(read_io(id, 0, 4096));
    char seen_reconnect[96], seen_io[96];
    reconnect.describe(seen_reconnect, sizeof(seen_reconnect));
    io.describe(seen_io, sizeof(seen_io));
    log::info("# con_req_reconnect_other_address: the reconnect from the other address: %s; "
              "a READ on the path afterwards: %s", seen_reconnect, seen_io);
    const bool refused = reconnect.kind == Observed::kRejected && reconnect.value == -cxxrt::err::kPerm;
    const bool serving = io.kind == Observed::kOkAnswer && !path->closed();
    return Verdict{refused && serving, refused && !serving ? io : reconnect};
}

// A session that maps nothing is closed by the server (rnbd-server's
// idle_session_timeout_ms, which the script sets to a few seconds): one
// that never opens a device, and one whose only device was closed; a third
// that keeps a device open stays.
constexpr unsigned kIdleWaitMs = 30000;

Verdict session_maps_nothing(Env& env)
{
    // Each session maps its device as soon as it is up: a path takes seconds
    // to set up on a debug kernel under TCG, and one that waited for the
    // next path's setup could idle out (idle_session_timeout_ms) before its
    // OPEN, failing the setup instead of testing the server.
    READY_PATH(never, true, true);
    READY_PATH(closed, true, true);
    {
        OPEN_BLOCKDEV(closed, id, sectors);
        if (closed->rnbd_close(id).kind != Observed::kOkAnswer)
            return setup_failed(21);
    }
    READY_PATH(keeps, true, true);
    OPEN_BLOCKDEV(keeps, kept_id, kept_sectors);
    const bool both = wait_until([&] { return never->closed() && closed->closed(); }, kIdleWaitMs);
    const bool kept = !keeps->closed() && keeps->rnbd_io(read_io(kept_id, 0, 4096)).kind == Observed::kOkAnswer;
    log::info("# idle sessions: never mapped %s, last device closed %s; the mapping one %s",
              never->closed() ? "closed" : "still open", closed->closed() ? "closed" : "still open",
              kept ? "kept and served a READ" : "was closed or refused a READ");
    (void)keeps->rnbd_close(kept_id);
    Observed seen;
    seen.kind = both ? Observed::kClosed : Observed::kNothing;
    return Verdict{both && kept, seen};
}

struct Case {
    const char* name;
    Verdict (*run)(Env& env);
};

constexpr Case kServerCases[] = {
    {"con_req_bad_magic", con_req_bad_magic},
    {"con_req_bad_version", con_req_bad_version},
    {"con_req_cid_not_below_cid_num", con_req_cid_not_below_cid_num},
    {"con_req_cid_num_zero", con_req_cid_num_zero},
    {"con_req_cid_num_huge", con_req_cid_num_huge},
    {"con_req_unknown_session_not_first", con_req_unknown_session_not_first},
    {"con_req_duplicate_cid", con_req_duplicate_cid},
    {"con_req_cid_num_changes", con_req_cid_num_changes},
    {"info_req_twice", info_req_twice},
    {"info_req_too_short", info_req_too_short},
    {"info_req_too_long", info_req_too_long},
    {"info_req_name_without_nul", info_req_name_without_nul},
    {"info_req_name_with_slash", info_req_name_with_slash},
    {"info_req_wrong_type", info_req_wrong_type},
    {"info_req_on_io_connection", info_req_on_io_connection},
    {"io_before_info", io_before_info},
    {"io_on_service_connection", io_on_service_connection},
    {"io_imm_chunk_out_of_range", io_imm_chunk_out_of_range},
    {"io_imm_offset_out_of_range", io_imm_offset_out_of_range},
    {"io_message_past_chunk_end", io_message_past_chunk_end},
    {"io_unknown_message_type", io_unknown_message_type},
    {"io_usr_len_too_large", io_usr_len_too_large},
    {"io_read_sg_cnt_two", io_read_sg_cnt_two},
    {"io_read_sg_cnt_huge", io_read_sg_cnt_huge},
    {"io_read_desc_len_zero", io_read_desc_len_zero},
    {"io_read_desc_len_too_large", io_read_desc_len_too_large},
    {"io_read_unknown_flags", io_read_unknown_flags},
    {"io_read_desc_bad_rkey", io_read_desc_bad_rkey},
    {"io_imm_unknown_type", io_imm_unknown_type},
    {"rnbd_unknown_message_type", rnbd_unknown_message_type},
    {"rnbd_io_unknown_device", rnbd_io_unknown_device},
    {"rnbd_io_closed_device", rnbd_io_closed_device},
    {"rnbd_io_sector_wrap", rnbd_io_sector_wrap},
    {"rnbd_io_beyond_end", rnbd_io_beyond_end},
    {"rnbd_io_straddles_end", rnbd_io_straddles_end},
    {"rnbd_io_unknown_op", rnbd_io_unknown_op},
    {"rnbd_io_unknown_flags", rnbd_io_unknown_flags},
    {"rnbd_io_bad_prio_class", rnbd_io_bad_prio_class},
    {"rnbd_io_realtime_prio", rnbd_io_realtime_prio},
    {"rnbd_io_size_not_sector_multiple", rnbd_io_size_not_sector_multiple},
    {"rnbd_io_size_zero", rnbd_io_size_zero},
    {"rnbd_io_write_size_mismatch", rnbd_io_write_size_mismatch},
    {"rnbd_io_header_too_short", rnbd_io_header_too_short},
    {"rnbd_open_header_too_short", rnbd_open_header_too_short},
    {"rnbd_sess_info_too_short", rnbd_sess_info_too_short},
    {"rnbd_open_bad_access_mode", rnbd_open_bad_access_mode},
    {"rnbd_open_regular_file", [](Env& env) { return rnbd_open_object(env, "file"); }},
    {"rnbd_open_fifo", [](Env& env) { return rnbd_open_object(env, "fifo"); }},
    {"rnbd_open_socket", [](Env& env) { return rnbd_open_object(env, "sock"); }},
    {"rnbd_open_directory", [](Env& env) { return rnbd_open_object(env, "dir"); }},
    {"rnbd_open_char_device_zero", [](Env& env) { return rnbd_open_object(env, "/dev/zero"); }},
    {"rnbd_open_char_device_null", [](Env& env) { return rnbd_open_object(env, "/dev/null"); }},
    {"info_req_name_control_chars", info_req_name_control_chars},
    {"rnbd_open_name_control_chars", rnbd_open_name_control_chars},
    {"rnbd_open_same_device_two_spellings", rnbd_open_same_device_two_spellings},
    {"rnbd_open_probe_oracle", rnbd_open_probe_oracle},
    {"flood_sessions", flood_sessions},
    {"flood_paths", flood_paths},
    {"io_read_desc_len_race", io_read_desc_len_race},
    {"io_read_desc_len_race_second_path", io_read_desc_len_race_second_path},
    {"io_same_chunk_two_paths", io_same_chunk_two_paths},
    {"flood_connections", flood_connections},
    {"con_req_reconnect_other_address", con_req_reconnect_other_address},
    {"session_maps_nothing", session_maps_nothing},
};

// True when name is an element of the comma-separated list.
bool listed(const char* list, const char* name)
{
    StringView wanted(name);
    const char* p = list;
    while (p && *p) {
        const char* end = p;
        while (*end && *end != ',')
            ++end;
        if (StringView(p, size_t(end - p)) == wanted)
            return true;
        p = *end ? end + 1 : end;
    }
    return false;
}

}  // namespace

extern "C" int rtrs_hostile_run(const unsigned char* ipv4, unsigned short port, const char* only, const char* skip,
                                const char* dir, const char* blockdev, unsigned int flood,
                                unsigned int flood_paths_count, unsigned int flood_connections_count,
                                unsigned int flood_connections_budget, const unsigned char* ipv4_second) noexcept
{
    int rc = cxxrt_module_init();
    if (rc)
        return rc;
    u8 ip[4] = {ipv4[0], ipv4[1], ipv4[2], ipv4[3]};
    auto address = SockAddr::ipv4(ip, port);
    if (address.is_error()) {
        (void)cxxrt_module_exit();
        return address.to_errno();
    }
    auto env_made = cxxrt::make_unique<Env>(Gfp::kernel());
    if (env_made.is_error()) {
        (void)cxxrt_module_exit();
        return env_made.to_errno();
    }
    UniquePtr<Env> env = env_made.release_value();
    env->server = address.value();
    env->dir = dir;
    env->blockdev = blockdev;
    env->flood = flood;
    env->flood_paths = flood_paths_count;
    env->flood_connections = flood_connections_count;
    env->flood_connections_budget = flood_connections_budget;
    if (ipv4_second) {
        u8 ip2[4] = {ipv4_second[0], ipv4_second[1], ipv4_second[2], ipv4_second[3]};
        auto second = SockAddr::ipv4(ip2, port);
        if (second.is_ok()) {
            env->server2 = second.value();
            env->has_server2 = true;
        }
    }
    int failed = 0, run = 0;
    for (const Case& c : kServerCases) {
        if (only && *only && !listed(only, c.name))
            continue;
        if ((c.run == flood_sessions && flood == 0) || (c.run == flood_paths && flood_paths_count == 0) ||
            ((c.run == io_read_desc_len_race || c.run == io_read_desc_len_race_second_path ||
              c.run == session_maps_nothing) &&
             !listed(only, c.name)) ||
            (c.run == flood_connections && flood_connections_count == 0) ||
            (c.run == con_req_reconnect_other_address && !env->has_server2))
            continue;  // only when asked for, with its own server settings (or addr2=)
        if (c.run == io_same_chunk_two_paths && !listed(only, c.name))
            continue;  // only when named: blockdev= must be a slow device (dm-delay)
        if (listed(skip, c.name)) {
            log::info("case %s: skip", c.name);
            continue;
        }
        log::info("# case %s: start", c.name);
        Verdict verdict = c.run(*env);
        char observed[96];
        verdict.seen.describe(observed, sizeof(observed));
        log::info("case %s: %s (%s)", c.name, verdict.pass ? "pass" : "fail", observed);
        ++run;
        if (!verdict.pass)
            ++failed;
        // Let the server finish closing what the case left behind.
        rtrs_hostile_sleep_ms(200);
    }
    env.reset();
    log::info("# hostile: %d cases run, %d failed, %lld objects live", run, failed,
              (long long)cxxrt::live_allocations());
    return 0;
}

// ===========================================================================
// The hostile peer as a server, against our client (mode=client): an RTRS
// server listening on a port, with a small RNBD server on top (SESS_INFO,
// OPEN, IO, CLOSE), that answers one chosen case wrongly. The case is read
// from the client_case module parameter when a client's session starts.
// What the module sees is logged as "client case <name>: <event>"; the
// script (selftests/hostile/002-against-client.sh) adds what the client's
// map_device returned.
// ===========================================================================

extern "C" {
int rtrs_hostile_serve(unsigned short port) noexcept;
void rtrs_hostile_stop(void) noexcept;
const char* rtrs_hostile_client_case(void) noexcept;
}

namespace {

using cxxrt::DelayedWork;

enum class ClientCase {
    kGood,
    kConRspQueueDepthZero,
    kConRspQueueDepthHuge,
    kConRspMaxIoSizeZero,
    kConRspUnknownFlags,
    kConRspBadMagic,
    kRejectInternalErrno,
    kInfoRspSgCntHuge,
    kInfoRspSgCntZero,
    kInfoRspLengthMismatch,
    kInfoRspNever,
    kRkeyRspBadId,
    kAnswerNeverSent,
    kAnswerTwice,
    kReadFakeInvalidation,
    kOpenRspLogicalBlock32k,
    kOpenRspDiscardGranularityZero,
    kOpenRspPhysicalBelowLogical,
    kOpenRspZeroSegments,
    kOpenRspZeroMaxHwSectors,
    kOpenRspSizeNotRepresentable,
    // Key lifetime and retries (review N15, N14).
    kReadInvPostFailed,
    kReadInvFailed,
    kReadInvFlushed,
    kAnswerEnomem,
    kControlNeverAnswered,
};

struct ClientCaseName {
    const char* name;
    ClientCase value;
};

constexpr ClientCaseName kClientCases[] = {
    {"good", ClientCase::kGood},
    {"con_rsp_queue_depth_zero", ClientCase::kConRspQueueDepthZero},
    {"con_rsp_queue_depth_huge", ClientCase::kConRspQueueDepthHuge},
    {"con_rsp_max_io_size_zero", ClientCase::kConRspMaxIoSizeZero},
    {"con_rsp_unknown_flags", ClientCase::kConRspUnknownFlags},
    {"con_rsp_bad_magic", ClientCase::kConRspBadMagic},
    {"reject_internal_errno", ClientCase::kRejectInternalErrno},
    {"info_rsp_sg_cnt_huge", ClientCase::kInfoRspSgCntHuge},
    {"info_rsp_sg_cnt_zero", ClientCase::kInfoRspSgCntZero},
    {"info_rsp_length_mismatch", ClientCase::kInfoRspLengthMismatch},
    {"info_rsp_never", ClientCase::kInfoRspNever},
    {"rkey_rsp_bad_id", ClientCase::kRkeyRspBadId},
    {"answer_never_sent", ClientCase::kAnswerNeverSent},
    {"answer_twice", ClientCase::kAnswerTwice},
    {"read_fake_invalidation", ClientCase::kReadFakeInvalidation},
    {"open_rsp_logical_block_32k", ClientCase::kOpenRspLogicalBlock32k},
    {"open_rsp_discard_granularity_zero", ClientCase::kOpenRspDiscardGranularityZero},
    {"open_rsp_physical_below_logical", ClientCase::kOpenRspPhysicalBelowLogical},
    {"open_rsp_zero_segments", ClientCase::kOpenRspZeroSegments},
    {"open_rsp_zero_max_hw_sectors", ClientCase::kOpenRspZeroMaxHwSectors},
    {"open_rsp_size_not_representable", ClientCase::kOpenRspSizeNotRepresentable},
    {"read_inv_post_failed", ClientCase::kReadInvPostFailed},
    {"read_inv_failed", ClientCase::kReadInvFailed},
    {"read_inv_flushed", ClientCase::kReadInvFlushed},
    {"answer_enomem", ClientCase::kAnswerEnomem},
    // Queue depth 1; the first OPEN of a session is answered, no later one
    // (selftests/hostile/011: map/unmap/rmmod must not hang on it).
    {"control_never_answered", ClientCase::kControlNeverAnswered},
};

const char* client_case_name(ClientCase value)
{
    for (const auto& c : kClientCases)
        if (c.value == value)
            return c.name;
    return "?";
}

ClientCase current_client_case()
{
    const char* raw = rtrs_hostile_client_case();
    size_t length = 0;
    while (raw[length] && raw[length] != '\n')
        ++length;
    StringView name(raw, length);
    for (const auto& c : kClientCases)
        if (StringView(c.name) == name)
            return c.value;
    return ClientCase::kGood;
}

constexpr u32 kServeQueueDepth = 16;
constexpr u32 kServeChunkSize = 64 * 1024;
constexpr u32 kServeHeaderSize = 4096;
constexpr u64 kServeDeviceSectors = (64ull << 20) >> 9;
constexpr u64 kFakeSector = 4096;  // 2 MiB into the device
constexpr u16 kMaxServeConnections = 16;
constexpr u32 kMaxServeSessions = 64;

class ServeSession;

class ServeConn final : public CmEventHandler {
public:
    static constexpr u32 kSlots = 64;
    static constexpr u32 kSlotSize = 1024;

    ServeConn(ServeSession& session, u16 cid) : session_(session), cid_(cid)
    {
        for (u32 i = 0; i < kSlots; ++i)
            receive_slots_[i].index = i;
    }

    Result<void> accept(IncomingConnection& incoming, RefPtr<ProtectionDomain> pd, ConstByteSpan rsp);
    void on_cm_event(CmId& id, const CmEvent& event) override;
    void on_received(u32 index, const WorkCompletion& wc);
    void teardown();
    QueuePair& qp() { return connection_->qp(); }
    u16 cid() const { return cid_; }

    struct Slot {
        void on_done(const WorkCompletion& wc) { owner->on_received(index, wc); }
        Completion done{Completion::member<Slot, &Slot::on_done>, this};
        ServeConn* owner = nullptr;
        u32 index = 0;
    };

    Atomic<int> disconnected{0};

private:
    Result<void> repost(u32 index)
    {
        Sge sge = receive_buffer_->sge(connection_->pd().local_dma_lkey(), index * kSlotSize, kSlotSize);
        return connection_->qp().post_recv(receive_slots_[index].done, Span<const Sge>(&sge, 1));
    }

    ServeSession& session_;
    u16 cid_;
    UniquePtr<Connection> connection_;
    UniquePtr<DmaBuffer> receive_buffer_;
    Slot receive_slots_[kSlots];
};

// One client session (one path: our client opens one per path).
class ServeSession final : cxxrt::Pinned {
public:
    ServeSession(ClientCase which, const rwire::Uuid& paths_uuid, u16 connections)
        : which_(which), paths_uuid_(paths_uuid), connection_count_(connections),
          queue_depth_(which == ClientCase::kControlNeverAnswered ? 1 : kServeQueueDepth),
          probe_(cxxrt::lock_class<"rtrs::hostile::ServeSession::probe_">,
                 cxxrt::Callback::to<&ServeSession::probe>(this))
    {
    }
    ~ServeSession();

    Result<void> init(Device device);
    int add(IncomingConnection& incoming, const rcodec::ConnReqFields& request);
    bool matches(const rwire::Uuid& uuid) const { return cxxrt::compare_bytes(uuid.bytes, paths_uuid_.bytes, 16) == 0; }
    void on_info_request(ServeConn& conn, ConstByteSpan message);
    void on_io_request(ServeConn& conn, u32 imm);
    void on_disconnected();
    void note(const char* event) { log::info("client case %s: %s", client_case_name(which_), event); }
    void teardown();
    ClientCase which() const { return which_; }

private:
    void answer(ServeConn& conn, u32 chunk_id, int error, ConstByteSpan data, const rcodec::SgEntry* desc,
                bool need_invalidate, bool fake_candidate = false);
    void build_conn_rsp(u8 (&out)[sizeof(rwire::ConnRsp)]) const;
    void probe();
    void spray();
    bool spraying() const
    {
        return which_ == ClientCase::kReadInvPostFailed || which_ == ClientCase::kReadInvFailed ||
               which_ == ClientCase::kReadInvFlushed;
    }

    ClientCase which_;
    rwire::Uuid paths_uuid_;
    u16 connection_count_;
    u32 queue_depth_;  // announced; chunks_ has kServeQueueDepth
    Atomic<u32> opens_{0};
    RefPtr<ProtectionDomain> pd_;
    UniquePtr<ServeConn> conns_[kMaxServeConnections];
    UniquePtr<DmaBuffer> chunks_[kServeQueueDepth];
    UniquePtr<MemoryRegion> chunk_regions_[kServeQueueDepth];
    UniquePtr<DmaBuffer> out_;  // INFO_RSP, RKEY_RSP, answers' data
    rcodec::ChunkGeometry geometry_{};
    Atomic<int> closed_{0};
    Atomic<int> info_done_{0};
    Atomic<int> fake_done_{0};
    Atomic<int> enomem_noted_{0};
    // The READ answered with a fake invalidation: where the client's data went.
    rcodec::SgEntry probe_desc_{};
    ServeConn* probe_conn_ = nullptr;
    Op probe_op_;
    Op spray_op_;
    DelayedWork probe_;
    u8 zeros_[2048] = {};  // READ data (the device reads as zeros)
};

void ServeConn::on_received(u32 index, const WorkCompletion& wc)
{
    if (!wc.ok()) {
        if (!wc.flushed())
            session_.note("receive error (the client's QP failed)");
        return;
    }
    if (wc.has_imm()) {
        u32 imm = wc.imm();
        u32 type = rwire::imm_type_bits(imm);
        if (type == u32(rwire::ImmType::kIoRequest))
            session_.on_io_request(*this, imm);
        else if (type == u32(rwire::ImmType::kHeartbeat))
            (void)qp().post_write_imm(nullptr, {}, RemoteBuffer{}, rwire::kHeartbeatAckImm, kUnsignaled);
    } else {
        receive_buffer_->sync_for_cpu();
        session_.on_info_request(
            *this, ConstByteSpan(receive_buffer_->data() + index * kSlotSize, cxxrt::min(wc.byte_len, kSlotSize)));
    }
    (void)repost(index);
}

Result<void> ServeConn::accept(IncomingConnection& incoming, RefPtr<ProtectionDomain> pd, ConstByteSpan rsp)
{
    auto id = CXXRT_TRY(CmId::adopt(Gfp::kernel(), incoming, *this));
    connection_ = CXXRT_TRY(Connection::create(Gfp::kernel(), cxxrt::move(id)));
    ConnectionConfig config{};
    config.qp.max_send_wr = 4 * kSlots + 16;
    config.qp.max_recv_wr = kSlots + 1;
    config.qp.max_send_sge = 1;
    config.qp.max_recv_sge = 1;
    config.poll = PollContext::kSoftirq;
    CXXRT_TRY(connection_->create_queues(Gfp::kernel(), cxxrt::move(pd), config));
    receive_buffer_ = CXXRT_TRY(
        DmaBuffer::create(Gfp::kernel(), incoming.device(), kSlots * kSlotSize, DmaDirection::kFromDevice));
    for (u32 i = 0; i < kSlots; ++i) {
        receive_slots_[i].owner = this;
        CXXRT_TRY(repost(i));
    }
    return connection_->cm_id().accept(rsp, 7);
}

void ServeConn::on_cm_event(CmId& id, const CmEvent& event)
{
    switch (event.type) {
    case CmEventType::kEstablished:
        break;
    case CmEventType::kDisconnected:
        (void)id.disconnect();
        disconnected.fetch_add(1);
        session_.on_disconnected();
        break;
    case CmEventType::kTimewaitExit:
        break;
    default:
        disconnected.fetch_add(1);
        session_.on_disconnected();
        break;
    }
    rtrs_hostile_wake();
}

void ServeConn::teardown()
{
    if (!connection_)
        return;
    if (disconnected.load() == 0) {
        (void)connection_->cm_id().disconnect();
        (void)wait_until([this] { return disconnected.load() > 0; }, kTeardownMs);
    }
    if (connection_->has_queues())
        connection_->drain();
    connection_.reset();
    receive_buffer_.reset();
}

ServeSession::~ServeSession()
{
    teardown();
}

void ServeSession::teardown()
{
    probe_.cancel_sync();
    for (auto& c : conns_)
        if (c)
            c->teardown();
    for (auto& r : chunk_regions_)
        r.reset();
    for (auto& c : conns_)
        c.reset();
    for (auto& c : chunks_)
        c.reset();
    out_.reset();
    pd_.reset();
}

Result<void> ServeSession::init(Device device)
{
    pd_ = CXXRT_TRY(ProtectionDomain::create(Gfp::kernel(), device));
    geometry_ = CXXRT_TRY(rcodec::make_chunk_geometry(queue_depth_, kServeChunkSize));
    for (u32 i = 0; i < kServeQueueDepth; ++i) {
        chunks_[i] =
            CXXRT_TRY(DmaBuffer::create(Gfp::kernel(), device, kServeChunkSize, DmaDirection::kBidirectional));
        chunk_regions_[i] =
            CXXRT_TRY(MemoryRegion::create(Gfp::kernel(), pd_, kServeChunkSize / MemoryRegion::kPageSize));
        CXXRT_TRY(chunk_regions_[i]->map(*chunks_[i], 0, kServeChunkSize));
    }
    out_ = CXXRT_TRY(DmaBuffer::create(Gfp::kernel(), device, 64 * 1024, DmaDirection::kToDevice));
    return {};
}

void ServeSession::build_conn_rsp(u8 (&out)[sizeof(rwire::ConnRsp)]) const
{
    rwire::ConnRsp rsp{};
    rsp.magic.set(rwire::kMagic);
    rsp.version.set(rwire::kVersion);
    rsp.queue_depth.set(u16(queue_depth_));
    rsp.max_io_size.set(kServeChunkSize - kServeHeaderSize);
    rsp.max_hdr_size.set(kServeHeaderSize);
    rsp.flags.set(which_ == ClientCase::kRkeyRspBadId ? u32(rwire::kMsgFlagNewRkey) : 0u);
    switch (which_) {
    case ClientCase::kConRspQueueDepthZero:
        rsp.queue_depth.set(0);
        break;
    case ClientCase::kConRspQueueDepthHuge:
        rsp.queue_depth.set(65535);
        break;
    case ClientCase::kConRspMaxIoSizeZero:
        rsp.max_io_size.set(0);
        break;
    case ClientCase::kConRspUnknownFlags:
        rsp.flags.set(0x80);
        break;
    case ClientCase::kConRspBadMagic:
        rsp.magic.set(0xbad1);
        break;
    default:
        break;
    }
    cxxrt::copy_bytes(out, &rsp, sizeof(rsp));
}

int ServeSession::add(IncomingConnection& incoming, const rcodec::ConnReqFields& request)
{
    if (request.cid >= connection_count_ || request.cid >= kMaxServeConnections || conns_[request.cid])
        return -cxxrt::err::kInval;
    if (which_ == ClientCase::kRejectInternalErrno) {
        u8 message[sizeof(rwire::ConnRsp)];
        rwire::ConnRsp rsp{};
        rsp.magic.set(rwire::kMagic);
        rsp.version.set(rwire::kVersion);
        rsp.errno_value.set(u16(-512));  // -ERESTARTSYS: never meant for userspace
        cxxrt::copy_bytes(message, &rsp, sizeof(rsp));
        (void)incoming.reject(ConstByteSpan(message, sizeof(message)));
        note("connect rejected with errno -512");
        return -cxxrt::err::kConnRefused;
    }
    auto made = cxxrt::make_unique<ServeConn>(Gfp::kernel(), *this, request.cid);
    if (made.is_error())
        return made.to_errno();
    conns_[request.cid] = made.release_value();
    u8 rsp[sizeof(rwire::ConnRsp)];
    build_conn_rsp(rsp);
    auto accepted = conns_[request.cid]->accept(incoming, pd_, ConstByteSpan(rsp));
    if (accepted.is_error()) {
        log::err("# hostile server: accepting cid %u failed: %d", unsigned(request.cid), accepted.to_errno());
        return accepted.to_errno();
    }
    return 0;
}

void ServeSession::on_disconnected()
{
    if (closed_.exchange(1) == 0)
        note("the client closed the path");
}

void ServeSession::on_info_request(ServeConn& conn, ConstByteSpan message)
{
    auto request = rcodec::decode_info_req(message);
    if (request.is_error() || conn.cid() != 0) {
        note("malformed INFO_REQ from the client");
        return;
    }
    if (which_ == ClientCase::kInfoRspNever) {
        note("INFO_REQ left unanswered");
        return;
    }
    // Register every chunk, then describe them (send-queue order).
    rcodec::SgEntry descs[kServeQueueDepth];
    for (u32 i = 0; i < queue_depth_; ++i) {
        if (info_done_.load() == 0 &&
            chunk_regions_[i]->post_register(conn.qp(), nullptr, kLocalWrite | kRemoteWrite | kRemoteRead, kUnsignaled)
                .is_error())
            return;
        descs[i] = rcodec::SgEntry{chunk_regions_[i]->iova(), chunk_regions_[i]->rkey(), kServeChunkSize};
    }
    info_done_.store(1);
    u8* out = out_->data();
    size_t length = 0;
    auto built = rcodec::build_info_rsp(out_->bytes(), Span<const rcodec::SgEntry>(descs, queue_depth_));
    if (built.is_error())
        return;
    length = built.value();
    switch (which_) {
    case ClientCase::kInfoRspSgCntHuge:
        out[2] = 0xff;
        out[3] = 0xff;
        length = sizeof(rwire::InfoRspHeader) + sizeof(rwire::SgDesc);
        break;
    case ClientCase::kInfoRspSgCntZero:
        out[2] = 0;
        out[3] = 0;
        length = sizeof(rwire::InfoRspHeader);
        break;
    case ClientCase::kInfoRspLengthMismatch:
        // The first descriptor claims half a chunk.
        out[sizeof(rwire::InfoRspHeader) + 12] = u8((kServeChunkSize / 2) & 0xff);
        out[sizeof(rwire::InfoRspHeader) + 13] = u8((kServeChunkSize / 2) >> 8);
        out[sizeof(rwire::InfoRspHeader) + 14] = u8((kServeChunkSize / 2) >> 16);
        break;
    default:
        break;
    }
    out_->sync_for_device();
    Sge sge = out_->sge(pd_->local_dma_lkey(), 0, length);
    if (conn.qp().post_send(nullptr, Span<const Sge>(&sge, 1), kUnsignaled).is_error())
        note("cannot send INFO_RSP");
    if (which_ == ClientCase::kAnswerNeverSent && conns_[1]) {
        // An answer for msg id 3, which the client never sent.
        auto imm = rcodec::encode_io_response_imm(3, 0, false);
        if (imm.is_ok())
            (void)conns_[1]->qp().post_write_imm(nullptr, {}, RemoteBuffer{}, imm.value(), kUnsignaled);
        note("sent an answer for a request never made");
    }
}

void ServeSession::answer(ServeConn& conn, u32 chunk_id, int error, ConstByteSpan data, const rcodec::SgEntry* desc,
                          bool need_invalidate, bool fake_candidate)
{
    const u32 lkey = pd_->local_dma_lkey();
    if (desc && error == 0 && !data.is_empty()) {
        // Each chunk has its own 4 KiB of the out buffer (READ data up to that).
        u32 offset = 8192 + chunk_id * 2048;
        u32 length = cxxrt::min<u32>(u32(data.size()), 2048);
        length = cxxrt::min<u32>(length, desc->len);
        cxxrt::copy_bytes(out_->data() + offset, data.data(), length);
        out_->sync_for_device();
        Sge sge = out_->sge(lkey, offset, length);
        (void)conn.qp().post_write(nullptr, Span<const Sge>(&sge, 1), RemoteBuffer{desc->addr, desc->key},
                                   kUnsignaled);
    }
    bool fake = (which_ == ClientCase::kReadFakeInvalidation || spraying()) &&
                fake_candidate && need_invalidate && desc && fake_done_.exchange(1) == 0;
    if (need_invalidate && desc && !fake)
        (void)conn.qp().post_send_inv(nullptr, {}, desc->key, kUnsignaled);
    auto imm = rcodec::encode_io_response_imm(chunk_id, error, need_invalidate);
    if (imm.is_error())
        return;
    if (which_ == ClientCase::kRkeyRspBadId && info_done_.load()) {
        u32 offset = 4096 + chunk_id * 8;
        // The buffer id names no chunk of the session.
        (void)rcodec::build_rkey_rsp(out_->bytes().slice(offset, 8), u16(60000u), 0x1234);
        out_->data()[offset + 2] = u8(60000u & 0xff);
        out_->data()[offset + 3] = u8(60000u >> 8);
        out_->sync_for_device();
        Sge sge = out_->sge(lkey, offset, 8);
        (void)conn.qp().post_send_imm(nullptr, Span<const Sge>(&sge, 1), imm.value(), kUnsignaled);
        note("answered with an RKEY_RSP for buffer 60000");
        return;
    }
    (void)conn.qp().post_write_imm(nullptr, {}, RemoteBuffer{}, imm.value(), kUnsignaled);
    if (which_ == ClientCase::kAnswerTwice) {
        (void)conn.qp().post_write_imm(nullptr, {}, RemoteBuffer{}, imm.value(), kUnsignaled);
        note("answered one request twice");
    }
    if (fake && spraying()) {
        probe_desc_ = *desc;
        probe_conn_ = &conn;
        note("answered a READ without SEND_WITH_INV, spraying its rkey on the last connection");
        probe_.queue(0);
        return;
    }
    if (fake) {
        probe_desc_ = *desc;
        probe_conn_ = &conn;
        note("answered a READ with the invalidated immediate, without SEND_WITH_INV");
        // Late enough for the client to serve more IO first (a client that
        // did not invalidate fails its next registration of that MR).
        probe_.queue(3000);
    }
}

// After a fake invalidation: is the client's rkey still good? A one-byte
// RDMA write of the byte already there (zero) must fail.
void ServeSession::probe()
{
    if (!probe_conn_)
        return;
    if (spraying()) {
        spray();
        return;
    }
    u32 offset = 8192 + kServeQueueDepth * 2048;
    out_->data()[offset] = 0;
    out_->sync_for_device();
    Sge sge = out_->sge(pd_->local_dma_lkey(), offset, 1);
    if (probe_conn_->qp()
            .post_write(&probe_op_.done, Span<const Sge>(&sge, 1), RemoteBuffer{probe_desc_.addr, probe_desc_.key},
                        kSignaled)
            .is_error()) {
        note("probe: cannot post");
        return;
    }
    if (!wait_until([this] { return probe_op_.count.load() > 0; }, connect_timeout_ms())) {
        note("probe: no completion");
        return;
    }
    if (probe_op_.status == WorkCompletion::kSuccess)
        note("probe: an RDMA write through the old rkey succeeded: the client's MR is still valid");
    else
        note("probe: the old rkey is dead (the client invalidated it)");
}

// read_inv_post_failed, read_inv_failed, read_inv_flushed: RDMA writes of 1, 2, 3, ... (le32) to the first
// bytes of the READ's buffer through its rkey, one after the other, on the
// client's last connection (a polled one, drained last and slowly), until
// one fails. The script compares what its reader saw right after the READ
// completed with what the buffer holds seconds later: a client that gave
// the memory back with the key alive sees it change.
void ServeSession::spray()
{
    ServeConn* target = nullptr;
    for (u32 cid = kMaxServeConnections; cid-- > 0;)
        if (conns_[cid] && conns_[cid].get() != probe_conn_) {
            target = conns_[cid].get();
            break;
        }
    if (!target)
        target = probe_conn_;
    constexpr u32 kSprayMax = 100000;
    constexpr u64 kSprayNs = 20ull * 1000000000;
    const u32 offset = 8192 + kServeQueueDepth * 2048 + 64;
    const u64 until = cxxrt::monotonic_ns() + kSprayNs;
    u32 landed = 0;
    const char* stop = "limit reached";
    for (u32 i = 1; i <= kSprayMax; ++i) {
        const u8 value[4] = {u8(i), u8(i >> 8), u8(i >> 16), u8(i >> 24)};
        cxxrt::copy_bytes(out_->data() + offset, value, sizeof(value));
        out_->sync_for_device();
        Sge sge = out_->sge(pd_->local_dma_lkey(), offset, sizeof(value));
        if (target->qp()
                .post_write(&spray_op_.done, Span<const Sge>(&sge, 1),
                            RemoteBuffer{probe_desc_.addr, probe_desc_.key}, kSignaled)
                .is_error()) {
            stop = "cannot post";
            break;
        }
        if (!wait_until([this, i] { return u32(spray_op_.count.load()) >= i; }, connect_timeout_ms())) {
            stop = "no completion";
            break;
        }
        if (spray_op_.status != WorkCompletion::kSuccess) {
            stop = "a write failed";
            break;
        }
        landed = i;
        if (cxxrt::monotonic_ns() > until)
            break;
    }
    log::info("client case %s: spray on connection %u: %u writes landed, then %s", client_case_name(which_),
              u32(target->cid()), landed, stop);
}

void ServeSession::on_io_request(ServeConn& conn, u32 imm)
{
    auto request = rcodec::decode_io_request_imm(geometry_, imm);
    if (request.is_error()) {
        note("bad IO immediate from the client");
        return;
    }
    u32 chunk_id = request.value().chunk_id;
    DmaBuffer& chunk = *chunks_[chunk_id];
    chunk.sync_for_cpu();
    auto io = rcodec::decode_io_request(ConstByteSpan(chunk.data(), chunk.size()), request.value().offset);
    if (io.is_error()) {
        note("malformed IO message from the client");
        return;
    }
    const rcodec::IoRequest& view = io.value();
    const rcodec::SgEntry desc = view.sg_cnt ? view.desc(0) : rcodec::SgEntry{};
    const rcodec::SgEntry* descp = view.sg_cnt ? &desc : nullptr;
    const bool need_invalidate = (view.flags & rwire::kMsgFlagNeedInvalidate) != 0;
    auto type = ncodec::decode_type(view.usr);
    if (type.is_error()) {
        answer(conn, chunk_id, -cxxrt::err::kInval, {}, descp, need_invalidate);
        return;
    }
    switch (type.value()) {
    case nwire::MsgType::kSessInfo: {
        u8 rsp[sizeof(nwire::SessInfoRspMsg)];
        auto built = ncodec::build_sess_info_rsp(ByteSpan(rsp), nwire::kVersionMajor);
        answer(conn, chunk_id, built.to_errno(), ConstByteSpan(rsp, sizeof(rsp)), descp, need_invalidate);
        return;
    }
    case nwire::MsgType::kOpen: {
        if (which_ == ClientCase::kControlNeverAnswered && opens_.fetch_add(1) > 0) {
            note("OPEN left unanswered, its permit held");
            return;
        }
        nwire::OpenRspMsg rsp{};
        rsp.hdr.type.set(u16(nwire::MsgType::kOpenRsp));
        rsp.device_id.set(7);
        rsp.nsectors.set(kServeDeviceSectors);
        rsp.max_hw_sectors.set(256);
        rsp.max_discard_sectors.set(0);
        rsp.discard_granularity.set(0);
        rsp.physical_block_size.set(512);
        rsp.logical_block_size.set(512);
        rsp.max_segments.set(64);
        switch (which_) {
        case ClientCase::kOpenRspLogicalBlock32k:
            rsp.logical_block_size.set(32768);
            rsp.physical_block_size.set(32768);
            break;
        case ClientCase::kOpenRspDiscardGranularityZero:
            rsp.max_discard_sectors.set(1024);
            rsp.discard_granularity.set(0);
            break;
        case ClientCase::kOpenRspPhysicalBelowLogical:
            rsp.logical_block_size.set(4096);
            rsp.physical_block_size.set(512);
            break;
        case ClientCase::kOpenRspZeroSegments:
            rsp.max_segments.set(0);
            break;
        case ClientCase::kOpenRspZeroMaxHwSectors:
            rsp.max_hw_sectors.set(0);
            break;
        case ClientCase::kOpenRspSizeNotRepresentable:
            rsp.nsectors.set(~0ull);
            break;
        default:
            break;
        }
        answer(conn, chunk_id, 0, ConstByteSpan(reinterpret_cast<const u8*>(&rsp), sizeof(rsp)), descp,
               need_invalidate);
        return;
    }
    case nwire::MsgType::kIo: {
        if (which_ == ClientCase::kAnswerEnomem) {
            // Every IO of kFakeSector (the kernel's own reads at map time
            // stay answered): no room on the server, forever.
            nwire::IoMsg msg{};
            cxxrt::copy_bytes(&msg, view.usr.data(), cxxrt::min(view.usr.size(), sizeof(msg)));
            if (view.usr.size() >= nwire::kIoMsgV1Size && msg.sector.get() == kFakeSector) {
                if (enomem_noted_.exchange(1) == 0)
                    note("answering IO of sector 4096 with -ENOMEM");
                answer(conn, chunk_id, -cxxrt::err::kNoMem, {}, descp, need_invalidate);
                return;
            }
        }
        if (view.type == rwire::MsgType::kRead) {
            // Only the READ of kFakeSector is answered with the fake
            // invalidation: the test reads it on purpose (the kernel's own
            // reads at map time stay honest).
            nwire::IoMsg msg{};
            cxxrt::copy_bytes(&msg, view.usr.data(), cxxrt::min(view.usr.size(), sizeof(msg)));
            const bool fake_candidate = view.usr.size() >= nwire::kIoMsgV1Size && msg.sector.get() == kFakeSector;
            answer(conn, chunk_id, 0, ConstByteSpan(zeros_, cxxrt::min<u32>(desc.len, sizeof(zeros_))), descp,
                   need_invalidate, fake_candidate);
        } else {
            answer(conn, chunk_id, 0, {}, descp, need_invalidate);
        }
        return;
    }
    default:
        answer(conn, chunk_id, 0, {}, descp, need_invalidate);
        return;
    }
}

class HostileServer final : public CmEventHandler {
public:
    Result<void> listen(u16 port)
    {
        listener_ = CXXRT_TRY(CmId::create(Gfp::kernel(), *this));
        auto address = CXXRT_TRY(SockAddr::any_ipv6(port));
        CXXRT_TRY(listener_->bind(address));
        return listener_->listen(64);
    }

    void on_cm_event(CmId&, const CmEvent& event) override
    {
        log::info("# hostile server: listener event %s", event.name());
    }

    int on_connect_request(CmId&, IncomingConnection& incoming, const CmEvent& event) override
    {
        auto request = rcodec::decode_conn_req(event.private_data);
        if (request.is_error())
            return -cxxrt::err::kInval;
        const rcodec::ConnReqFields& fields = request.value();
        ServeSession* session = nullptr;
        for (u32 i = 0; i < count_; ++i)
            if (sessions_[i]->matches(fields.paths_uuid) && fields.cid != 0)
                session = sessions_[i].get();
        if (!session) {
            if (fields.cid != 0 || count_ >= kMaxServeSessions)
                return -cxxrt::err::kConnRefused;
            auto made = cxxrt::make_unique<ServeSession>(Gfp::kernel(), current_client_case(), fields.paths_uuid,
                                                         fields.cid_num);
            if (made.is_error())
                return made.to_errno();
            if (made.value()->init(incoming.device()).is_error())
                return -cxxrt::err::kNoMem;
            sessions_[count_] = made.release_value();
            session = sessions_[count_++].get();
            session->note("a client session starts");
        }
        return session->add(incoming, fields);
    }

    void stop()
    {
        listener_.reset();
        for (u32 i = 0; i < count_; ++i)
            sessions_[i].reset();
        count_ = 0;
    }

private:
    UniquePtr<CmId> listener_;
    UniquePtr<ServeSession> sessions_[kMaxServeSessions];
    u32 count_ = 0;
};

constinit HostileServer* g_hostile_server = nullptr;

}  // namespace

extern "C" int rtrs_hostile_serve(unsigned short port) noexcept
{
    int rc = cxxrt_module_init();
    if (rc)
        return rc;
    auto* server = cxxrt::allocate<HostileServer>(Gfp::kernel());
    if (!server) {
        (void)cxxrt_module_exit();
        return -cxxrt::err::kNoMem;
    }
    auto listening = server->listen(port);
    if (listening.is_error()) {
        log::err("cannot listen on port %u: %d", unsigned(port), listening.to_errno());
        server->stop();
        cxxrt::destroy(server);
        (void)cxxrt_module_exit();
        return listening.to_errno();
    }
    g_hostile_server = server;
    log::info("# hostile server listening on port %u", unsigned(port));
    return 0;
}

extern "C" void rtrs_hostile_stop(void) noexcept
{
    if (auto* server = cxxrt::exchange(g_hostile_server, nullptr)) {
        server->stop();
        cxxrt::destroy(server);
    }
}
