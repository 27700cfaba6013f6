// The tests of rtrs-clt-selftest: a user of our rtrs-client's C API that
// writes data to a server, reads it back and compares, with every IO size
// the session allows, a full queue of IO in flight, server-side errors and
// permit exhaustion. Two user protocols: the test store of
// rtrs-test-proto.hpp (our rtrs-srv-selftest) and RNBD 2.0 (Linux's
// rnbd-server), so the same tests run against our server and upstream's.
#include <cxxrt/atomic.hpp>
#include <cxxrt/log.hpp>
#include <cxxrt/module-api.h>
#include <cxxrt/new.hpp>
#include <cxxrt/seq.hpp>
#include <cxxrt/wait.hpp>
#include <rtrs/rtrs-api.h>
#include "rnbd/core/rnbd-codec.hpp"
#include "common/rtrs-addr.hpp"
#include "rtrs/tests/kmod/rtrs-test-proto.hpp"
#include "cxxrt/tests/kmod/expect.hpp"
#include <cxxrt/enforce.hpp>

extern "C" {
int rtrs_clt_selftest_run(const char* paths, const char* session, const char* proto, const char* device,
                          unsigned short port, bool keep_open, unsigned int reconnect_delay) noexcept;
void rtrs_clt_selftest_stop(void) noexcept;
void rtrs_clt_selftest_sg_fill(void* table, unsigned int count, void* buffer, unsigned int length) noexcept;
unsigned int rtrs_clt_selftest_sg_size(void) noexcept;
}

namespace {

using namespace cxxrt;

constexpr unsigned long kIoTimeoutMs = 30000;
constexpr u32 kUserHeaderSize = 512;
constexpr u32 kMaxSgEntries = 4;
constexpr int kServerError = 30;  // EROFS: what the store's kFail is asked to answer

// One IO's outcome; `calls` proves the done callback ran exactly once.
struct IoResult {
    Atomic<int> calls{0};
    Atomic<int> error{0};
};

// Counts outstanding IOs of one test step and wakes the waiter.
struct Waiter {
    Atomic<int> outstanding{0};
    WaitQueue queue{lock_class<"rtrs::clt_selftest::Waiter::queue">};
};

struct IoContext {
    Waiter* waiter = nullptr;
    IoResult result;
};

void on_done(void* context, int error)
{
    auto* io = static_cast<IoContext*>(context);
    io->result.error.store(error);
    io->result.calls.fetch_add(1);
    Waiter* waiter = io->waiter;
    if (waiter->outstanding.fetch_sub(1) == 1)
        waiter->queue.wake_up_all();
}

bool wait_all(Waiter& waiter)
{
    return waiter.queue.wait_timeout([&] { return waiter.outstanding.load() == 0; }, kIoTimeoutMs);
}

enum class Proto { kStore, kRnbd };

// A kernel buffer with its own scatterlist table.
struct Buffer {
    u8* data = nullptr;
    u8* sg = nullptr;
    u32 size = 0;
    ~Buffer()
    {
        free_array(data);
        free_array(sg);
    }
    bool allocate(u32 bytes)
    {
        size = bytes;
        data = allocate_array<u8>(Gfp::kernel(), bytes);
        sg = allocate_array<u8>(Gfp::kernel(), kMaxSgEntries * rtrs_clt_selftest_sg_size());
        return data && sg;
    }
    scatterlist* table(u32 length, u32 entries)
    {
        rtrs_clt_selftest_sg_fill(sg, entries, data, length);
        return reinterpret_cast<scatterlist*>(sg);
    }
};

struct Pending;

// A permit and the heap context of one synchronous request.
struct Request {
    rtrs_client_permit* permit = nullptr;
    Pending* pending = nullptr;
};

class Tester {
public:
    Tester(Proto proto, const char* device) : proto_(proto), device_(device) {}
    ~Tester()
    {
        if (session_)
            rtrs_client_close(session_);
    }

    bool open(const char* paths, const char* session, u16 port);
    bool query();
    bool rnbd_handshake();
    bool write_read_sizes();
    bool many_in_flight();
    bool server_error();
    bool permit_exhaustion();
    bool rnbd_close();
    bool close();
    // debugfs "check": IO for about check_ms with verification, and counters.
    void check(SeqFile& file, unsigned long check_ms);
    bool keep_open = false;
    u32 reconnect_delay_seconds = 2;

private:
    // Writes the user header of one IO into the permit; returns its length.
    u32 build_header(rtrs_client_permit* permit, rtrs_direction direction, u64 offset, u32 length, int fail_with);
    // Submits one IO on an already held permit.
    bool submit(rtrs_client_permit* permit, rtrs_direction direction, u64 offset, Buffer& buffer, u32 length,
                u32 entries, IoContext& io, Waiter& waiter, int fail_with = 0);
    // One IO from permit to completion; the done callback's errno.
    int io_sync(rtrs_direction direction, u64 offset, Buffer& buffer, u32 length, u32 entries, int fail_with = 0);
    // An RNBD control message sent as READ (reply into buffer) or WRITE.
    int rnbd_control(rtrs_direction direction, const u8* message, u32 message_length, Buffer& reply,
                     u32 reply_length);
    // Takes a permit (waiting) and allocates the context: 0, -9999 without
    // a permit, -ENOMEM (the permit given back). end_request() gives both
    // back; a request that never completed keeps them.
    int begin_request(Request& request);
    void end_request(Request& request);

    Proto proto_;
    const char* device_;
    rtrs_client_session* session_ = nullptr;
    rtrs_client_attributes attributes_{};
    u32 device_id_ = 0;
    u64 device_bytes_ = rtrs::selftest::kStoreSize;
    Atomic<int> disconnected_{0};
    Atomic<int> reconnected_{0};
    int reopened_ = 0;  // RECONNECTED events answered by a new RNBD handshake

    static void on_link_event(void* context, rtrs_link_event event)
    {
        auto* self = static_cast<Tester*>(context);
        // io_hold_timeout_ms is 0 here: HOLD_EXPIRED follows every
        // DISCONNECTED at once; this tester holds no IO.
        if (event == RTRS_LINK_HOLD_EXPIRED)
            return;
        (event == RTRS_LINK_DISCONNECTED ? self->disconnected_ : self->reconnected_).fetch_add(1);
        log::info("# link event: %s", event == RTRS_LINK_DISCONNECTED ? "disconnected" : "reconnected");
    }
};

bool Tester::open(const char* paths, const char* session, u16 port)
{
    rtrs_path_address addresses[8];
    unsigned int count = 0;
    StringView all(paths);
    while (!all.is_empty() && count < 8) {
        size_t comma = all.find(',');
        StringView item = all.substring(0, comma);
        all = all.substring(comma == all.length() ? comma : comma + 1);
        auto parsed = rtrs::parse_path(item, port);
        EXPECT(parsed.is_ok());
        const auto& path = parsed.value();
        rtrs_path_address& out = addresses[count++];
        fill_bytes(&out, 0, sizeof(out));
        out.destination.family = unsigned(path.destination.family);
        copy_bytes(out.destination.bytes, path.destination.bytes, 16);
        out.destination.port = path.port;
        out.destination.scope_id = path.destination.scope_id;
        if (path.has_source) {
            out.source.family = unsigned(path.source.family);
            copy_bytes(out.source.bytes, path.source.bytes, 16);
            out.source.scope_id = path.source.scope_id;
        }
    }
    EXPECT(count > 0);
    rtrs_client_callbacks callbacks{};
    callbacks.context = this;
    callbacks.link_event = on_link_event;
    rtrs_client_open_params params{};
    params.session_name = session;
    params.paths = addresses;
    params.path_count = count;
    params.reconnect_delay_seconds = reconnect_delay_seconds;
    params.max_reconnect_attempts = -1;
    params.user_header_size = kUserHeaderSize;
    auto* opened = rtrs_client_open(&callbacks, &params);
    long value = reinterpret_cast<long>(opened);
    if (value < 0 && value >= -4095) {
        log::err("#   rtrs_client_open: %ld", value);
        return false;
    }
    EXPECT(opened != nullptr);
    session_ = opened;
    log::info("# session %s open with %u path(s)", session, count);
    return true;
}

bool Tester::query()
{
    EXPECT(rtrs_client_query(session_, &attributes_) == 0);
    log::info("# queue depth %u, max IO %u bytes, max segments %u, name %s", attributes_.queue_depth,
              attributes_.max_io_size, attributes_.max_segments, attributes_.session_name);
    EXPECT(attributes_.queue_depth >= 1);
    EXPECT(attributes_.max_io_size >= 4096);
    EXPECT(attributes_.max_segments >= 1);
    return true;
}

u32 Tester::build_header(rtrs_client_permit* permit, rtrs_direction direction, u64 offset, u32 length,
                         int fail_with)
{
    auto* header = static_cast<u8*>(rtrs_client_permit_header(permit));
    if (proto_ == Proto::kStore) {
        rtrs::selftest::Header h{};
        h.magic.set(rtrs::selftest::kMagic);
        h.op.set(u32(fail_with ? rtrs::selftest::Op::kFail
                               : direction == RTRS_WRITE ? rtrs::selftest::Op::kWrite : rtrs::selftest::Op::kRead));
        h.offset.set(offset);
        h.length.set(length);
        h.error.set(u32(fail_with));
        copy_bytes(header, &h, sizeof(h));
        return sizeof(h);
    }
    rnbd::codec::IoFields fields;
    // An unknown device id is how the RNBD test provokes a server error.
    fields.device_id = fail_with ? 0x7ffffff0u : device_id_;
    fields.sector = offset / 512;
    fields.op = direction == RTRS_WRITE ? rnbd::wire::IoOp::kWrite : rnbd::wire::IoOp::kRead;
    fields.bi_size = length;
    auto built = rnbd::codec::build_io(ByteSpan(header, kUserHeaderSize), fields);
    return built ? u32(built.value()) : 0;
}

bool Tester::submit(rtrs_client_permit* permit, rtrs_direction direction, u64 offset, Buffer& buffer, u32 length,
                    u32 entries, IoContext& io, Waiter& waiter, int fail_with)
{
    u32 header_length = build_header(permit, direction, offset, length, fail_with);
    EXPECT(header_length > 0);
    io.waiter = &waiter;
    waiter.outstanding.fetch_add(1);
    int rc = rtrs_client_request(session_, permit, direction, header_length,
                                 length ? buffer.table(length, entries) : nullptr, length ? entries : 0, length,
                                 on_done, &io);
    if (rc) {
        waiter.outstanding.fetch_sub(1);
        log::err("#   rtrs_client_request: %d", rc);
        return false;
    }
    return true;
}

// One IO in flight: heap memory, because an IO that times out may still
// complete later (e.g. failed by the session's close), and then it must
// find its context alive. Such a context is leaked on purpose; the module's
// leak report at exit then fails the run, which is right.
struct Pending {
    Waiter waiter;
    IoContext io;
};

int Tester::begin_request(Request& request)
{
    request.permit = rtrs_client_get_permit(session_, RTRS_WAIT);
    if (!request.permit)
        return -9999;
    request.pending = allocate<Pending>(Gfp::kernel());
    if (!request.pending) {
        rtrs_client_put_permit(session_, request.permit);
        return -err::kNoMem;
    }
    return 0;
}

void Tester::end_request(Request& request)
{
    destroy(request.pending);
    rtrs_client_put_permit(session_, request.permit);
}

int Tester::io_sync(rtrs_direction direction, u64 offset, Buffer& buffer, u32 length, u32 entries, int fail_with)
{
    Request request;
    if (int rc = begin_request(request))
        return rc;
    rtrs_client_permit* permit = request.permit;
    Pending* pending = request.pending;
    int result = -9998;
    if (submit(permit, direction, offset, buffer, length, entries, pending->io, pending->waiter, fail_with)) {
        if (!wait_all(pending->waiter)) {
            log::err("#   IO did not complete within %lu ms", kIoTimeoutMs);
            return -9997;  // permit and context stay with the lost IO
        }
        result = pending->io.result.calls.load() == 1 ? pending->io.result.error.load() : -9996;
    }
    end_request(request);
    return result;
}

int Tester::rnbd_control(rtrs_direction direction, const u8* message, u32 message_length, Buffer& reply,
                         u32 reply_length)
{
    Request request;
    if (int rc = begin_request(request))
        return rc;
    rtrs_client_permit* permit = request.permit;
    Pending* pending = request.pending;
    copy_bytes(rtrs_client_permit_header(permit), message, message_length);
    pending->io.waiter = &pending->waiter;
    pending->waiter.outstanding.store(1);
    int rc = rtrs_client_request(session_, permit, direction, message_length,
                                 reply_length ? reply.table(reply_length, 1) : nullptr, reply_length ? 1 : 0,
                                 reply_length, on_done, &pending->io);
    if (rc == 0) {
        if (!wait_all(pending->waiter)) {
            log::err("#   control message did not complete within %lu ms", kIoTimeoutMs);
            return -9997;
        }
        rc = pending->io.result.error.load();
    }
    end_request(request);
    return rc;
}

bool Tester::rnbd_handshake()
{
    Buffer reply;
    EXPECT(reply.allocate(4096));
    u8 message[sizeof(rnbd::wire::OpenMsg)];
    auto info = rnbd::codec::build_sess_info(ByteSpan(message));
    EXPECT(info.is_ok());
    EXPECT(rnbd_control(RTRS_READ, message, u32(info.value()), reply, sizeof(rnbd::wire::SessInfoRspMsg)) == 0);
    auto version = rnbd::codec::decode_sess_info_rsp(ConstByteSpan(reply.data, sizeof(rnbd::wire::SessInfoRspMsg)));
    EXPECT(version.is_ok());
    log::info("# RNBD version %u negotiated", version.value());
    auto open = rnbd::codec::build_open(ByteSpan(message), rnbd::wire::AccessMode::kReadWrite, StringView(device_));
    EXPECT(open.is_ok());
    fill_bytes(reply.data, 0, reply.size);
    int rc = rnbd_control(RTRS_READ, message, u32(open.value()), reply, sizeof(rnbd::wire::OpenRspMsg));
    if (rc)
        log::err("#   OPEN %s: %d", device_, rc);
    EXPECT(rc == 0);
    auto response = rnbd::codec::decode_open_rsp(ConstByteSpan(reply.data, sizeof(rnbd::wire::OpenRspMsg)));
    EXPECT(response.is_ok());
    device_id_ = response.value().device_id;
    device_bytes_ = response.value().nsectors * 512;
    log::info("# opened %s: device id %u, %llu bytes", device_, device_id_, (unsigned long long)device_bytes_);
    EXPECT(device_bytes_ >= 8u << 20);
    return true;
}

bool Tester::rnbd_close()
{
    Buffer none;
    u8 message[sizeof(rnbd::wire::CloseMsg)];
    auto close = rnbd::codec::build_close(ByteSpan(message), device_id_);
    EXPECT(close.is_ok());
    EXPECT(rnbd_control(RTRS_WRITE, message, u32(close.value()), none, 0) == 0);
    return true;
}

u8 pattern(u64 offset, u32 index, u32 salt) { return u8((offset >> 9) * 131 + index * 7 + salt * 29 + (index >> 8)); }

bool Tester::write_read_sizes()
{
    const u32 max_io = attributes_.max_io_size;
    Buffer out;
    Buffer in;
    EXPECT(out.allocate(max_io));
    EXPECT(in.allocate(max_io));
    u32 sizes[32];
    u32 count = 0;
    for (u32 size = 512; size <= max_io && count < 24; size *= 2)
        sizes[count++] = size;
    // Sizes that are not a multiple of a page, where the session allows them.
    constexpr u32 kOddSizes[] = {4096 + 512, 3 * 4096 + 1536};
    for (u32 odd : kOddSizes)
        if (odd <= max_io)
            sizes[count++] = odd;
    sizes[count++] = max_io;
    for (u32 i = 0; i < count; ++i) {
        const u32 size = sizes[i];
        // Each size gets its own place, so a misdirected write shows.
        const u64 offset = (u64(i) * max_io) % (device_bytes_ - max_io);
        const u64 aligned = offset & ~u64(511);
        const u32 entries = (size >= 16384 && attributes_.max_segments >= kMaxSgEntries && (i & 1)) ? kMaxSgEntries : 1;
        for (u32 b = 0; b < size; ++b)
            out.data[b] = pattern(aligned, b, size);
        fill_bytes(in.data, 0xa5, size);
        int written = io_sync(RTRS_WRITE, aligned, out, size, entries);
        int read = io_sync(RTRS_READ, aligned, in, size, entries);
        if (written || read || compare_bytes(out.data, in.data, size) != 0) {
            log::err("#   size %u (%u sg entries) at %llu: write %d, read %d, data %s", size, entries,
                     (unsigned long long)aligned, written, read,
                     compare_bytes(out.data, in.data, size) ? "differs" : "equal");
            return false;
        }
    }
    log::info("# %u sizes from 512 to %u bytes written and read back", count, max_io);
    return true;
}

bool Tester::many_in_flight()
{
    const u32 depth = attributes_.queue_depth;
    const u32 size = 4096;
    const u32 n = depth < 512 ? depth : 512;
    auto* permits = allocate_array<rtrs_client_permit*>(Gfp::kernel(), n);
    auto* buffers = allocate_array<Buffer*>(Gfp::kernel(), n);
    auto* ios = allocate_array<IoContext*>(Gfp::kernel(), n);
    Waiter* waiter = allocate<Waiter>(Gfp::kernel());
    bool ok = permits && buffers && ios && waiter;
    bool lost = false;  // IO timed out: its memory must stay
    for (u32 i = 0; ok && i < n; ++i) {
        buffers[i] = allocate<Buffer>(Gfp::kernel());
        ios[i] = allocate<IoContext>(Gfp::kernel());
        ok = buffers[i] && ios[i] && buffers[i]->allocate(size);
        if (ok) {
            permits[i] = rtrs_client_get_permit(session_, RTRS_NO_WAIT);
            ok = permits[i] != nullptr;
        }
    }
    for (int phase = 0; ok && phase < 2; ++phase) {
        const rtrs_direction direction = phase == 0 ? RTRS_WRITE : RTRS_READ;
        // Hold the count up until everything is submitted, so completions
        // cannot see zero while submissions still run.
        waiter->outstanding.store(1);
        for (u32 i = 0; i < n; ++i) {
            Buffer& buffer = *buffers[i];
            for (u32 b = 0; b < size; ++b)
                buffer.data[b] = phase == 0 ? pattern(u64(i) * size, b, 99) : 0;
            ios[i]->result.calls.store(0);
            ios[i]->result.error.store(0);
            if (!submit(permits[i], direction, u64(i) * size, buffer, size, 1, *ios[i], *waiter)) {
                ok = false;
                break;
            }
        }
        if (waiter->outstanding.fetch_sub(1) == 1)
            waiter->queue.wake_up_all();
        if (!wait_all(*waiter)) {
            log::err("#   %d IOs still outstanding after %lu ms", waiter->outstanding.load(), kIoTimeoutMs);
            ok = false;
            lost = true;
            break;
        }
        for (u32 i = 0; ok && i < n; ++i) {
            if (ios[i]->result.calls.load() != 1 || ios[i]->result.error.load() != 0) {
                log::err("#   IO %u: %d calls, error %d", i, ios[i]->result.calls.load(), ios[i]->result.error.load());
                ok = false;
            }
            if (ok && phase == 1) {
                for (u32 b = 0; b < size; ++b) {
                    if (buffers[i]->data[b] != pattern(u64(i) * size, b, 99)) {
                        log::err("#   IO %u: byte %u differs", i, b);
                        ok = false;
                        break;
                    }
                }
            }
        }
    }
    if (ok)
        log::info("# %u IOs of %u bytes in flight at once, written and read back", n, size);
    if (lost)
        return false;
    for (u32 i = 0; permits && i < n; ++i)
        if (permits[i])
            rtrs_client_put_permit(session_, permits[i]);
    for (u32 i = 0; buffers && i < n; ++i)
        destroy(buffers[i]);
    for (u32 i = 0; ios && i < n; ++i)
        destroy(ios[i]);
    destroy(waiter);
    free_array(permits);
    free_array(buffers);
    free_array(ios);
    return ok;
}

bool Tester::server_error()
{
    Buffer buffer;
    EXPECT(buffer.allocate(4096));
    int written = io_sync(RTRS_WRITE, 0, buffer, 512, 1, kServerError);
    int read = io_sync(RTRS_READ, 0, buffer, 512, 1, kServerError);
    log::info("# server answered write %d, read %d", written, read);
    if (proto_ == Proto::kStore) {
        EXPECT(written == -kServerError);
        EXPECT(read == -kServerError);
    } else {
        EXPECT(written < 0 && written > -4096);
        EXPECT(read < 0 && read > -4096);
    }
    // The session still works after an error.
    EXPECT(io_sync(RTRS_WRITE, 0, buffer, 512, 1) == 0);
    return true;
}

bool Tester::permit_exhaustion()
{
    const u32 depth = attributes_.queue_depth;
    auto* permits = allocate_array<rtrs_client_permit*>(Gfp::kernel(), depth);
    EXPECT(permits);
    u32 taken = 0;
    while (taken < depth) {
        permits[taken] = rtrs_client_get_permit(session_, RTRS_NO_WAIT);
        if (!permits[taken])
            break;
        ++taken;
    }
    rtrs_client_permit* extra = rtrs_client_get_permit(session_, RTRS_NO_WAIT);
    for (u32 i = 0; i < taken; ++i)
        rtrs_client_put_permit(session_, permits[i]);
    free_array(permits);
    rtrs_client_permit* again = rtrs_client_get_permit(session_, RTRS_NO_WAIT);
    if (again)
        rtrs_client_put_permit(session_, again);
    if (extra)
        rtrs_client_put_permit(session_, extra);
    log::info("# %u of %u permits taken, the next one %s", taken, depth, extra ? "too (wrong)" : "refused");
    EXPECT(taken == depth);
    EXPECT(extra == nullptr);
    EXPECT(again != nullptr);
    return true;
}

bool Tester::close()
{
    if (proto_ == Proto::kRnbd && !keep_open && !rnbd_close())
        return false;
    if (keep_open) {
        log::info("# keep_open=1: the session stays open until rmmod");
        return true;
    }
    rtrs_client_close(exchange(session_, nullptr));
    return true;
}

void Tester::check(SeqFile& file, unsigned long check_ms)
{
    constexpr u32 kBatch = 32;
    constexpr u32 kSize = 4096;
    // A server that lost every path of a session forgot it, and with it
    // the RNBD device: like rnbd-client, open the device again.
    if (proto_ == Proto::kRnbd && reconnected_.load() > reopened_) {
        reopened_ = reconnected_.load();
        if (!rnbd_handshake())
            file.print("%s", "rnbd re-open failed\n");
    }
    // The last 1 MiB of the store/device: apart from the load-time tests.
    const u64 base = device_bytes_ - (1u << 20);
    // Placement-constructed: a wait queue needs its initialisation.
    auto* buffers = reinterpret_cast<Buffer*>(allocate_array<u8>(Gfp::kernel(), kBatch * sizeof(Buffer)));
    auto* pending = reinterpret_cast<Pending*>(allocate_array<u8>(Gfp::kernel(), kBatch * sizeof(Pending)));
    for (u32 i = 0; buffers && pending && i < kBatch; ++i) {
        new (&buffers[i]) Buffer();
        new (&pending[i]) Pending();
    }
    rtrs_client_permit* permits[kBatch] = {};
    u64 ios = 0, errors = 0, mismatches = 0, refused = 0;
    int first_error = 0;
    bool lost = false;
    bool ok = buffers && pending;
    for (u32 i = 0; ok && i < kBatch; ++i)
        ok = buffers[i].allocate(kSize);
    const u64 end = kapi_ktime_ns() + u64(check_ms) * 1000000;
    for (u32 round = 0; ok && !lost && !refused && (round == 0 || kapi_ktime_ns() < end); ++round) {
        for (int phase = 0; phase < 2 && !lost; ++phase) {
            const rtrs_direction direction = phase == 0 ? RTRS_WRITE : RTRS_READ;
            Waiter& waiter = pending[0].waiter;
            waiter.outstanding.store(1);
            for (u32 i = 0; i < kBatch; ++i) {
                const u64 offset = base + u64(i) * kSize;
                for (u32 b = 0; b < kSize; ++b)
                    buffers[i].data[b] = phase == 0 ? pattern(offset, b, round) : 0;
                pending[i].io.result.calls.store(0);
                pending[i].io.result.error.store(0);
                permits[i] = rtrs_client_get_permit(session_, RTRS_WAIT);
                const u32 header_length = build_header(permits[i], direction, offset, kSize, 0);
                pending[i].io.waiter = &waiter;
                waiter.outstanding.fetch_add(1);
                int rc = rtrs_client_request(session_, permits[i], direction, header_length,
                                             buffers[i].table(kSize, 1), 1, kSize, on_done, &pending[i].io);
                if (rc) {
                    waiter.outstanding.fetch_sub(1);
                    pending[i].io.result.calls.store(1);
                    pending[i].io.result.error.store(rc);
                    ++refused;
                }
            }
            if (waiter.outstanding.fetch_sub(1) == 1)
                waiter.queue.wake_up_all();
            if (!wait_all(waiter)) {
                lost = true;  // memory stays with the IO
                break;
            }
            for (u32 i = 0; i < kBatch; ++i) {
                ++ios;
                const int error = pending[i].io.result.error.load();
                if (pending[i].io.result.calls.load() != 1 || error) {
                    ++errors;
                    if (!first_error)
                        first_error = error ? error : -9995;
                } else if (phase == 1) {
                    const u64 offset = base + u64(i) * kSize;
                    for (u32 b = 0; b < kSize; ++b)
                        if (buffers[i].data[b] != pattern(offset, b, round)) {
                            ++mismatches;
                            break;
                        }
                }
                rtrs_client_put_permit(session_, permits[i]);
            }
        }
    }
    file.print("ios %llu errors %llu refused %llu mismatches %llu first_error %d lost %d disconnected %d "
               "reconnected %d\n",
               (unsigned long long)ios, (unsigned long long)errors, (unsigned long long)refused,
               (unsigned long long)mismatches, first_error, lost ? 1 : 0, disconnected_.load(), reconnected_.load());
    if (lost)
        return;
    for (u32 i = 0; buffers && pending && i < kBatch; ++i) {
        buffers[i].~Buffer();
        pending[i].~Pending();
    }
    free_array(reinterpret_cast<u8*>(buffers));
    free_array(reinterpret_cast<u8*>(pending));
}


// The session kept open with keep_open=1, and the debugfs file that runs
// Tester::check() when read.
constinit Tester* g_kept = nullptr;
constexpr unsigned long kCheckMs = 4000;

class CheckFile final : public SeqSource {
public:
    constexpr CheckFile() = default;
    int show(SeqFile& file) override
    {
        if (g_kept)
            g_kept->check(file, kCheckMs);
        return 0;
    }
};
constinit CheckFile g_check_file;

}  // namespace

extern "C" int rtrs_clt_selftest_run(const char* paths, const char* session, const char* proto, const char* device,
                                     unsigned short port, bool keep_open, unsigned int reconnect_delay) noexcept
{
    int rc = cxxrt_module_init();
    if (rc)
        return rc;
    Proto which = StringView(proto) == StringView("rnbd") ? Proto::kRnbd : Proto::kStore;
    if (which == Proto::kStore && StringView(proto) != StringView("store")) {
        log::err("proto=%s: expected store or rnbd", proto);
        (void)cxxrt_module_exit();
        return -err::kInval;
    }
    Tester* tester = allocate<Tester>(Gfp::kernel(), which, device);
    if (!tester) {
        (void)cxxrt_module_exit();
        return -err::kNoMem;
    }
    tester->keep_open = keep_open;
    tester->reconnect_delay_seconds = reconnect_delay;
    struct Step {
        const char* name;
        bool (Tester::*run)();
        bool rnbd_only;
    };
    static constexpr Step kSteps[] = {
        {"rnbd_session_info_and_open", &Tester::rnbd_handshake, true},
        {"query_attributes", &Tester::query, false},
        {"write_read_back_every_size", &Tester::write_read_sizes, false},
        {"queue_depth_ios_in_flight", &Tester::many_in_flight, false},
        {"server_error_reaches_done_callback", &Tester::server_error, false},
        {"permit_exhaustion_no_wait_returns_null", &Tester::permit_exhaustion, false},
        {"close_session", &Tester::close, false},
    };
    constexpr int kCount = int(sizeof(kSteps) / sizeof(kSteps[0]));
    // A step of the RNBD pairing does not apply to the store: it is not in
    // the plan (not a skip: nothing is missing).
    auto applies = [which](const Step& step) { return !step.rnbd_only || which == Proto::kRnbd; };
    int planned = 1;
    for (const Step& step : kSteps)
        planned += applies(step) ? 1 : 0;
    log::info("KTAP version 1");
    log::info("1..%d", planned);
    int failed = 0;
    bool opened = tester->open(paths, session, port);
    log::info("%s 1 open_session", opened ? "ok" : "not ok");
    failed += opened ? 0 : 1;
    int number = 1;
    for (int i = 0; i < kCount; ++i) {
        const Step& step = kSteps[i];
        if (!applies(step))
            continue;
        ++number;
        if (!opened) {
            log::info("not ok %d %s # session did not open", number, step.name);
            ++failed;
            continue;
        }
        bool ok = (tester->*step.run)();
        log::info("%s %d %s", ok ? "ok" : "not ok", number, step.name);
        failed += ok ? 0 : 1;
    }
    log::info("# rtrs-clt selftest: %d failed", failed);
    if (failed || !keep_open) {
        destroy(tester);
        if (failed) {
            (void)cxxrt_module_exit();
            return -err::kInval;
        }
        return 0;
    }
    g_kept = tester;
    kapi_debugfs_create_seq_file("check", cxxrt_module_debugfs_dir(), static_cast<SeqSource*>(&g_check_file));
    return 0;
}

// Module exit: the kept session closes (RNBD: its device is closed first).
extern "C" void rtrs_clt_selftest_stop(void) noexcept
{
    if (Tester* tester = exchange(g_kept, nullptr)) {
        tester->keep_open = false;
        (void)tester->close();
        destroy(tester);
    }
    (void)cxxrt_module_exit();
}
