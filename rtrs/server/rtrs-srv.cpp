// rtrs-server module: parameters, lifecycle, and the rtrs_server_*
// functions of include/rtrs/rtrs-api.h (exported from rtrs-srv-mod.c).
#include <cxxrt/log.hpp>
#include <cxxrt/text.hpp>
#include <cxxrt/module-api.h>
#include "rtrs/server/rtrs-srv-upcalls.h"
#include "rtrs/server/rtrs-srv.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::srv {

using namespace cxxrt;

namespace {
constinit Params g_params{};
}

constinit Faults g_faults = {};
constinit Counters g_counters = {};

const Params& params()
{
    return g_params;
}

void set_params(const Params& chosen)
{
    g_params = chosen;
}

namespace {
constinit Admission* g_admission = nullptr;
constexpr u32 kMaxClients = 16384;
}

Result<void> Admission::create()
{
    auto* made = allocate<Admission>(Gfp::kernel());
    if (!made)
        return Error(err::kNoMem);
    // Every listed client holds a session; a listener holds at most
    // max_sessions, and the module has one listener per user (rnbd-server)
    // in practice: room for four, at most 16384 clients (a 448 KiB table).
    u32 capacity = min<u32>(params().max_sessions * 4u, kMaxClients);
    Result<void> ready;
    {
        MutexGuard guard(made->mutex_);
        ready = made->ledger_.init(capacity, Gfp::kernel());
    }
    if (ready.is_error()) {
        cxxrt::destroy(made);
        return ready;
    }
    g_admission = made;
    return {};
}

void Admission::destroy()
{
    cxxrt::destroy(g_admission);
    g_admission = nullptr;
}

Admission& admission()
{
    return *g_admission;
}

Refusal Admission::charge_session(const ClientKey& client)
{
    MutexGuard guard(mutex_);
    Refusal why = ledger_.charge_session(params(), client);
    g_counters.clients.set(ledger_.clients());
    return why;
}

void Admission::release_session(const ClientKey& client)
{
    MutexGuard guard(mutex_);
    ledger_.release_session(client);
    g_counters.clients.set(ledger_.clients());
}

Refusal Admission::check_connection(const ClientKey& client)
{
    MutexGuard guard(mutex_);
    return ledger_.check_connection(params(), client);
}

Refusal Admission::charge_connection(const ClientKey& client)
{
    MutexGuard guard(mutex_);
    Refusal why = ledger_.charge_connection(params(), client);
    g_counters.connections.set(ledger_.total().connections);
    return why;
}

void Admission::release_connections(const ClientKey& client, u32 count)
{
    if (count == 0)
        return;
    MutexGuard guard(mutex_);
    ledger_.release_connections(client, count);
    g_counters.connections.set(ledger_.total().connections);
    g_counters.clients.set(ledger_.clients());
}

}  // namespace rtrs::srv

using namespace cxxrt;
using namespace rtrs::srv;

namespace {

// Validates the per-client limits into `chosen`; logs what is wrong.
Result<void> choose_client_limits(Params& chosen, const rtrs_srv_client_limits& limits)
{
    ParamError why = ParamError::kNone;
    auto set = set_client_limits(chosen, limits.sessions_per_client, limits.connections_per_path,
                                 limits.connections_per_client, limits.connections, &why);
    if (set.is_ok())
        return {};
    switch (why) {
    case ParamError::kMaxSessionsPerClient:
        log::err("max_sessions_per_client=%d: must be 1..%u", limits.sessions_per_client, Params::kMaxMaxSessions);
        break;
    case ParamError::kMaxConnectionsPerPath:
        log::err("max_connections_per_path=%d: must be 1..%u", limits.connections_per_path,
                 rtrs::wire::kMaxConnectionsPerPath);
        break;
    case ParamError::kMaxConnectionsPerClient:
        log::err("max_connections_per_client=%d: must be 1..%u", limits.connections_per_client,
                 Params::kMaxMaxConnections);
        break;
    default:
        log::err("max_connections=%d: must be 1..%u", limits.connections, Params::kMaxMaxConnections);
        break;
    }
    return set;
}

}  // namespace

extern "C" int rtrs_srv_cxx_init(int max_chunk_size, int sess_queue_depth, bool always_invalidate, int max_sessions,
                                 int info_timeout_ms, const rtrs_srv_client_limits* client_limits) noexcept
{
    ParamError why = ParamError::kNone;
    auto checked = make_params(max_chunk_size, sess_queue_depth, always_invalidate, &why);
    Params chosen = checked.is_ok() ? checked.value() : Params{};
    if (checked.is_ok()) {
        auto limits = set_limits(chosen, max_sessions, info_timeout_ms, &why);
        if (limits.is_error()) {
            if (why == ParamError::kMaxSessions)
                log::err("max_sessions=%d: must be 1..%u", max_sessions, Params::kMaxMaxSessions);
            else
                log::err("info_timeout_ms=%d: must be %u..%u", info_timeout_ms, Params::kMinInfoTimeoutMs,
                         Params::kMaxInfoTimeoutMs);
            return limits.to_errno();
        }
        if (auto limited = choose_client_limits(chosen, *client_limits); limited.is_error())
            return limited.to_errno();
    }
    if (checked.is_error()) {
        switch (why) {
        case ParamError::kChunkSize:
            log::err("max_chunk_size=%d: must be a power of two >= %u", max_chunk_size, Params::kMinChunkSize);
            break;
        case ParamError::kQueueDepth:
            log::err("sess_queue_depth=%d: must be 1..%u", sess_queue_depth, Params::kMaxQueueDepth);
            break;
        default:
            log::err("sess_queue_depth=%d with max_chunk_size=%d needs more than 28 immediate bits", sess_queue_depth,
                     max_chunk_size);
            break;
        }
        return checked.to_errno();
    }
    set_params(chosen);
    int rc = cxxrt_module_init();
    if (rc)
        return rc;
    if (auto admitting = Admission::create(); admitting.is_error()) {
        (void)cxxrt_module_exit();
        return admitting.to_errno();
    }
    // /sys/kernel/debug/rtrs_server/: the fault knobs and the resource counters.
    const cxxrt::debugfs::File files[] = {
        {"fault_drop_heartbeats", &g_faults.drop_heartbeats},
        {"fault_drop_heartbeat_acks", &g_faults.drop_heartbeat_acks},
        {"fault_id_delay_ms", &g_faults.id_delay_ms},
        {"fault_ack_timeout", &g_faults.ack_timeout},
        {"sessions", &g_counters.sessions},
        {"paths", &g_counters.paths},
        {"chunk_bytes", &g_counters.chunk_bytes},
        {"registered_chunk_bytes", &g_counters.registered_chunk_bytes},
        {"refused_connects", &g_counters.refused_connects},
        {"connections", &g_counters.connections},
        {"clients", &g_counters.clients},
        {"chunk_conflicts", &g_counters.chunk_conflicts},
    };
    cxxrt::debugfs::create_files(cxxrt_module_debugfs_dir(), files);
    auto sysfs = sysfs_init();
    if (sysfs.is_error()) {
        Admission::destroy();
        (void)cxxrt_module_exit();
        return sysfs.to_errno();
    }
    log::info("loaded, protocol 2.0: max_chunk_size %u (IO %u + headers %u), sess_queue_depth %u, always_invalidate %d, "
              "max_sessions %u, info_timeout_ms %u",
              params().chunk_size, params().max_io_size(), Params::kMaxHeaderSize, params().queue_depth,
              int(params().always_invalidate), params().max_sessions, params().info_timeout_ms);
    log::info("per client: max_sessions_per_client %u, max_connections_per_client %u; max_connections_per_path %u, "
              "max_connections %u",
              params().max_sessions_per_client, params().max_connections_per_client,
              params().max_connections_per_path, params().max_connections);
    return 0;
}

extern "C" void rtrs_srv_cxx_exit(void) noexcept
{
    rtrs::SysfsTree::exit();
    Admission::destroy();
    (void)cxxrt_module_exit();
    log::info("unloaded");
}

namespace {

// A context listening on port, for rtrs_server_open.
Result<Context*> open_context(const rtrs_server_callbacks* callbacks, unsigned short port)
{
    if (!callbacks || !callbacks->io)
        return Error(err::kInval);
    Context* context = allocate<Context>(Gfp::kernel(), *callbacks, port);
    if (!context)
        return Error(err::kNoMem);
    auto listening = context->listen();
    if (listening.is_error()) {
        destroy(context);
        return listening.error();
    }
    return context;
}

}  // namespace

extern "C" rtrs_server_context* rtrs_server_open(const rtrs_server_callbacks* callbacks, unsigned short port) noexcept
{
    return to_handle_or_err_ptr(open_context(callbacks, port));
}

extern "C" void rtrs_server_close(rtrs_server_context* handle) noexcept
{
    auto* context = from_handle(handle);
    context->shut_down();
    destroy(context);
}

extern "C" void rtrs_server_set_session_context(rtrs_server_session* handle, void* user_context) noexcept
{
    from_handle(handle)->user_context = user_context;
}

extern "C" int rtrs_server_session_name(rtrs_server_session* handle, char* buffer, unsigned int size) noexcept
{
    if (!size)
        return -err::kInval;
    cxxrt::TextBuffer text(cxxrt::Span<char>(buffer, size));
    text.append(cxxrt::StringView(from_handle(handle)->name()));
    return int(text.length());
}

extern "C" unsigned int rtrs_server_queue_depth(rtrs_server_session*) noexcept
{
    return params().queue_depth;
}

extern "C" unsigned int rtrs_server_chunk_size(rtrs_server_session*) noexcept
{
    return params().chunk_size;
}

extern "C" void rtrs_server_close_session(rtrs_server_session* handle) noexcept
{
    auto* session = from_handle(handle);
    MutexGuard guard(session->context().mutex());
    for (Path& path : session->paths)
        path.schedule_close("closed by the server's user");
}

extern "C" int rtrs_server_session_client_addresses(rtrs_server_session* handle, rtrs_address* out,
                                                    unsigned int max) noexcept
{
    auto* session = from_handle(handle);
    MutexGuard guard(session->context().mutex());
    unsigned int count = 0;
    for (Path& path : session->paths) {
        if (count < max)
            out[count] = path.client_address();
        ++count;
    }
    return int(count);
}

extern "C" void rtrs_server_respond(rtrs_server_io* handle, int error) noexcept
{
    auto* io = from_handle(handle);
    io->path->respond(*io, error);
}

extern "C" unsigned int rtrs_server_io_chunk(rtrs_server_io* handle) noexcept
{
    return from_handle(handle)->chunk_id;
}
