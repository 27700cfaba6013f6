// rnbd-client: the RTRS session shared by the devices mapped through it,
// its synchronous control messages, its link events and the blk-mq tag set
// its devices share.
#include <cxxrt/array.hpp>
#include <cxxrt/foreign.hpp>
#include <cxxrt/log.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/percpu.hpp>
#include "kernel/block/scatterlist.hpp"
#include "kernel/net/interface.hpp"
#include "rnbd/client/rnbd-clt-upcalls.h"
#include "rnbd/client/rnbd-clt.hpp"
#include <cxxrt/enforce.hpp>

namespace rnbd::clt {

namespace {

rtrs_address to_api(const rtrs::Address& address, u16 port)
{
    rtrs_address out{};
    switch (address.family) {
    case rtrs::AddressFamily::kIpv4: out.family = RTRS_ADDRESS_IPV4; break;
    case rtrs::AddressFamily::kIpv6: out.family = RTRS_ADDRESS_IPV6; break;
    case rtrs::AddressFamily::kGid: out.family = RTRS_ADDRESS_GID; break;
    default: out.family = RTRS_ADDRESS_NONE; break;
    }
    cxxrt::copy_bytes(out.bytes, address.bytes, sizeof(out.bytes));
    out.port = port;
    out.scope_id = address.scope_id;
    return out;
}

// rtrs_client_open answers a session or, as its API says, an ERR_PTR-style
// negative errno cast to the pointer (the top 4095 addresses): 0 or -errno.
int open_transport(const rtrs_client_callbacks& callbacks, const rtrs_client_open_params& params,
                   rtrs_client_session*& out)
{
    constexpr long kMaxErrno = 4095;
    rtrs_client_session* session = rtrs_client_open(&callbacks, &params);
    const long value = long(reinterpret_cast<cxxrt::uintptr_t>(session));
    if (value < 0 && value >= -kMaxErrno)
        return int(value);
    out = session;
    return 0;
}

// An address with an interface name as its scope gets the index here.
Result<void> resolve_scope(const rtrs::Address& address, rtrs_address& out)
{
    if (!address.has_scope_name())
        return {};
    auto index = knet::interface_index(address.scope_name);
    if (index.is_error()) {
        log::err_ratelimited("map_device: no network interface %s for the address scope", address.scope_name);
        return Error(err::kInval);
    }
    out.scope_id = index.value();
    return {};
}

}  // namespace

// One control message in flight: the reply room the transport fills, and
// the completion the sender waits on. Two references while in flight (the
// sender and the transport's done callback), so a sender that gives up
// after control_timeout_ms leaves the rest to the callback.
struct Session::Reply : cxxrt::RefCounted<Reply>, cxxrt::Pinned {
    static void done(void* context, int error)
    {
        RefPtr<Reply> reply = cxxrt::from_foreign<RefPtr<Reply>>(context);  // dropped last
        {
            // An abort() in progress finishes before the permit goes back
            // (and may be handed to another request).
            cxxrt::IrqSpinGuard guard(reply->lock);
            reply->finished = true;
        }
        reply->error = error;
        rtrs_client_put_permit(reply->rtrs, reply->permit);
        reply->completed.complete();
    }
    // The sender gave up: unless the answer already came, the transport
    // fails the path carrying the message, and done() then runs with
    // -ETIMEDOUT, which gives the permit back (a server that never answers
    // would otherwise keep it for as long as the session lives). The reply
    // room stays allocated until done(): the server may write it until the
    // path is drained.
    void abort()
    {
        cxxrt::IrqSpinGuard guard(lock);
        if (!finished)
            rtrs_client_abort(rtrs, permit, 1);
    }

    cxxrt::Completion completed{cxxrt::lock_class<"rnbd::clt::Session::Reply::completed">};
    rtrs_client_session* rtrs = nullptr;
    rtrs_client_permit* permit = nullptr;
    cxxrt::Array<u8> buffer;  // the reply room (kmalloc'd: DMA-able)
    kernel::block::SingleScatterlist sg;
    int error = 0;
    cxxrt::SpinLock lock{cxxrt::lock_class<"rnbd::clt::Session::Reply::lock">};
    bool finished CXXRT_GUARDED_BY(lock) = false;
};

Result<RefPtr<Session>> Session::open(Client& client, const MapOptions& options)
{
    if (options.path_count == 0 || options.session_name.length() > kMaxNameLength)
        return Error(err::kInval);
    RefPtr<Session> session = CXXRT_TRY(cxxrt::make_ref<Session>(Gfp::kernel(), client));
    cxxrt::copy_bytes(session->name_, options.session_name.data(), options.session_name.length());

    rtrs_path_address paths[kMaxPaths] = {};
    for (u32 i = 0; i < options.path_count; ++i) {
        const rtrs::PathAddress& path = options.paths[i];
        if (path.has_source) {
            paths[i].source = to_api(path.source, 0);
            CXXRT_TRY(resolve_scope(path.source, paths[i].source));
        }
        paths[i].destination = to_api(path.destination, path.port);
        CXXRT_TRY(resolve_scope(path.destination, paths[i].destination));
    }
    const rtrs_client_callbacks callbacks{session.get(), &Session::link_event};
    rtrs_client_open_params params{};
    params.session_name = session->name_;
    params.paths = paths;
    params.path_count = options.path_count;
    params.reconnect_delay_seconds = kReconnectDelaySeconds;
    params.max_reconnect_attempts = -1;
    params.user_header_size = kUserHeaderSize;
    params.poll_queues = options.poll_queues;
    params.io_hold_timeout_ms = options.io_hold_timeout_ms;
    int rc = open_transport(callbacks, params, session->rtrs_);
    if (rc) {
        log::err_ratelimited("map_device: session %s: RTRS open failed (%d)", session->name_, rc);
        return Error::from_errno(rc);
    }
    CXXRT_TRY(cxxrt::to_result(rtrs_client_query(session->rtrs_, &session->attributes_)));
    if (session->attributes_.queue_depth == 0 || session->attributes_.max_segments == 0 ||
        session->attributes_.max_io_size < wire::kSectorSize) {
        log::err("session %s: unusable transport limits (depth %u, segments %u, max IO %u)", session->name_,
                 session->attributes_.queue_depth, session->attributes_.max_segments,
                 session->attributes_.max_io_size);
        return Error(err::kInval);
    }
    CXXRT_TRY(session->create_tag_set());
    CXXRT_TRY(session->send_sess_info());
    client.add_session(*session);
    log::info("session %s: connected (queue depth %u, max IO %u bytes, %u segments)", session->name_,
              session->attributes_.queue_depth, session->attributes_.max_io_size,
              session->attributes_.max_segments);
    return session;
}

Result<void> Session::create_tag_set()
{
    // One hardware queue per CPU; the transport picks the connection of
    // the CPU that submits, so each queue rides its CPU's connection. The
    // polled queues (nr_poll_queues) follow, polled queue i riding the
    // session's polled connection i; reads share the default queues.
    default_queues_ = cxxrt::num_online_cpus();
    const kernel::block::TagSetShape shape{
        .hardware_queues = default_queues_ + poll_queues(),
        .maps = poll_queues() ? kernel::block::kQueueTypes : 1u,
        .depth = queue_depth(),
        .scatterlist_entries = max_segments(),
        // The server's own disk schedules the IO again; a scheduler here,
        // the kernel's default on a single-CPU host, would hand each
        // request to kblockd and keep 2 x 128 more requests per device
        // (each with its scatterlist table) for nothing.
        .no_scheduler_by_default = true,
    };
    return tag_set_.create(shape, rnbd_clt_mq_ops, this);
}

void Session::init_request(IoRequest& io)
{
    io.device = nullptr;
    io.rq = kernel::block::Request(nullptr);
    io.permit = nullptr;
    io.error = 0;
    io.owner.store(IoOwner::kIdle, cxxrt::MemoryOrder::kRelaxed);
    io.timeouts = 0;
    io.retry_deadline_ns = 0;
    io.sg = tag_set_.init_table(io);
}

void Session::map_queues(kernel::block::QueueMaps maps)
{
    const u32 polled = poll_queues();
    maps.map(kernel::block::QueueType::kDefault, default_queues_, 0);
    if (polled == 0)
        return;
    maps.map(kernel::block::QueueType::kRead, default_queues_, 0);
    maps.map(kernel::block::QueueType::kPoll, polled, default_queues_);
}

Session::~Session()
{
    cxxrt::MutexGuard guard(lock_);
    CXXRT_ASSERT(devices_.is_empty());
}

void Session::release_last_reference()
{
    client_.remove_session(*this);
    // A reconnect may report a link event at any time until RTRS is
    // closed, and its work uses rtrs_: stop queueing, wait for a running
    // one (it may be sending SESS_INFO), and only then close the session.
    closing_.store(true);
    event_work_.cancel_sync();
    if (rtrs_) {
        rtrs_client_close(rtrs_);
        rtrs_ = nullptr;
    }
    // One queued between the check and the flag above finds closing_ set.
    event_work_.cancel_sync();
    cxxrt::destroy(this);
}

Result<void> Session::send(rtrs_direction direction, ConstByteSpan message, ByteSpan reply_out)
{
    if (message.size() > kUserHeaderSize)
        return Error(err::kMsgSize);
    RefPtr<Reply> reply = CXXRT_TRY(cxxrt::make_ref<Reply>(Gfp::kernel()));
    reply->rtrs = rtrs_;
    if (reply_out.size()) {
        // Reply room must be DMA-able: kmalloc, not the stack.
        reply->buffer = CXXRT_TRY(cxxrt::Array<u8>::create_zeroed(Gfp::kernel(), u32(reply_out.size())));
        CXXRT_TRY(reply->sg.init(reply->buffer.data(), u32(reply_out.size()), Gfp::kernel()));
    }
    // Bounded and interruptible: a server that holds every permit (its
    // queue depth may be 1) must not hang map_device or unmap_device.
    const u32 timeout_ms = rnbd_clt_control_timeout_ms();
    int got = rtrs_client_get_permit_timeout(rtrs_, timeout_ms, &reply->permit);
    if (got) {
        log::err("session %s: no free permit for a control message in %u ms (%d)", name_, timeout_ms, got);
        return Error::from_errno(got);
    }
    cxxrt::copy_bytes(rtrs_client_permit_header(reply->permit), message.data(), message.size());
    void* context = cxxrt::into_foreign(RefPtr<Reply>(reply));  // the done callback's reference
    int rc = rtrs_client_request(rtrs_, reply->permit, direction, u32(message.size()), reply->sg.get(),
                                 reply->sg.get() ? 1 : 0, u32(reply_out.size()), &Reply::done, context);
    if (rc) {
        rtrs_client_put_permit(rtrs_, reply->permit);
        (void)cxxrt::from_foreign<RefPtr<Reply>>(context);  // never handed over: dropped here
        return Error::from_errno(rc);
    }
    if (!reply->completed.wait_timeout(timeout_ms)) {
        log::err("session %s: no answer from the server in %u ms; failing the path that carries it", name_,
                 timeout_ms);
        reply->abort();
        return Error(err::kTimedOut);
    }
    if (reply->error)
        return Error::from_errno(reply->error);
    if (reply_out.size())
        cxxrt::copy_bytes(reply_out.data(), reply->buffer.data(), reply_out.size());
    return {};
}

Result<void> Session::send_sess_info()
{
    u8 message[sizeof(wire::SessInfoMsg)];
    u8 answer[sizeof(wire::SessInfoRspMsg)];
    size_t length = CXXRT_TRY(codec::build_sess_info(ByteSpan(message)));
    CXXRT_TRY(send(RTRS_READ, ConstByteSpan(message, length), ByteSpan(answer)));
    auto version = codec::decode_sess_info_rsp(ConstByteSpan(answer));
    if (!version) {
        log::err("session %s: bad SESS_INFO_RSP (%d)", name_, version.to_errno());
        return version.error();
    }
    return {};
}

Result<codec::OpenRspFields> Session::open_device(cxxrt::StringView path, AccessMode access, IoMode io_mode)
{
    u8 message[sizeof(wire::OpenMsg)];
    u8 answer[sizeof(wire::OpenRspMsg)];
    const wire::IoMode mode = io_mode == IoMode::kFileIo ? wire::IoMode::kFileIo : wire::IoMode::kBlockIo;
    size_t length = CXXRT_TRY(codec::build_open(ByteSpan(message), wire::AccessMode(u8(access)), path, mode));
    CXXRT_TRY(send(RTRS_READ, ConstByteSpan(message, length), ByteSpan(answer)));
    // Malformed (short, wrong type, unknown cache bits): -EPROTO; a limit
    // out of range: -EINVAL (decode_open_rsp, then validate_open_rsp;
    // Documentation/protocol.md). The map_device write returns it.
    auto fields = codec::decode_open_rsp(ConstByteSpan(answer));
    if (!fields) {
        log::err("session %s: malformed OPEN_RSP for %.*s (%d)", name_, int(path.length()), path.data(),
                 fields.to_errno());
        return Error(fields.error().code() == err::kInval ? err::kInval : err::kProto);
    }
    const codec::OpenRspFields& f = fields.value();
    auto valid = codec::validate_open_rsp(f, KABI_PAGE_SIZE);
    if (!valid) {
        log::err("session %s: OPEN_RSP for %.*s refused (%d): logical block %u, physical block %u, max_hw_sectors "
                 "%u, max_segments %u, nsectors %llu, discard %u/%u/%u, cache policy 0x%x",
                 name_, int(path.length()), path.data(), valid.to_errno(), u32(f.logical_block_size),
                 u32(f.physical_block_size), f.max_hw_sectors, u32(f.max_segments),
                 (unsigned long long)f.nsectors, f.max_discard_sectors, f.discard_granularity,
                 f.discard_alignment, u32(f.cache_policy));
        return valid.error();
    }
    return fields;
}

Result<void> Session::close_device(u32 remote_id)
{
    u8 message[sizeof(wire::CloseMsg)];
    size_t length = CXXRT_TRY(codec::build_close(ByteSpan(message), remote_id));
    return send(RTRS_WRITE, ConstByteSpan(message, length), ByteSpan());
}

// KAPI: process context (an RTRS work item, under the RTRS session's setup
// lock: events arrive in order). Only records the event (atomics) and
// queues the work: the re-OPEN waits for the server, which must not block
// the transport's work.
void Session::link_event(void* context, rtrs_link_event event)
{
    Session* session = static_cast<Session*>(context);
    if (session->closing_.load())
        return;
    u32 state = session->link_state_.load();
    switch (event) {
    case RTRS_LINK_DISCONNECTED:
        session->connected_.store(false);
        // A new epoch: every device is stale until re-opened; IO is held.
        while (!session->link_state_.compare_exchange(state, (((state >> 2) + 1) << 2) | kHolding)) {
        }
        break;
    case RTRS_LINK_HOLD_EXPIRED:
        while ((state & 3) == kHolding && !session->link_state_.compare_exchange(state, (state & ~3u) | kFailing)) {
        }
        break;
    case RTRS_LINK_RECONNECTED:
        session->connected_.store(true);
        session->reopen_needed_.store(true);
        break;
    default:
        return;
    }
    session->event_work_.queue();
}

void Session::handle_link_events()
{
    if (closing_.load())
        return;
    cxxrt::MutexGuard guard(lock_);
    if (!connected_.load()) {
        const bool failing = link_mode() == kFailing;
        log::warn("session %s: disconnected, devices closed, IO %s", name_,
                  failing ? "fails (io_hold_timeout_ms passed)" : "held");
        for (Device& device : devices_) {
            device.set_closed();
            // Held IO fails now rather than at its next poll.
            if (failing)
                device.kick();
        }
        return;
    }
    if (!reopen_needed_.exchange(false))
        return;
    const u32 round = link_state_.load();
    // The server may have lost the session meanwhile: introduce it again.
    auto info = send_sess_info();
    if (!info) {
        log::err("session %s: SESS_INFO after reconnect failed (%d)", name_, info.to_errno());
    } else {
        for (Device& device : devices_) {
            auto reopened = device.reopen(Device::TakeSize::kDisk);
            if (!reopened)
                log::err("session %s: re-open of %s failed (%d)", name_, device.disk_name(), reopened.to_errno());
        }
    }
    // The outage is over (unless a new one started meanwhile): IO of a
    // device that could not be re-opened fails from here on; the others
    // carry their held IO now.
    u32 expected = round;
    (void)link_state_.compare_exchange(expected, round & ~3u);
    for (Device& device : devices_)
        device.kick();
}

}  // namespace rnbd::clt
