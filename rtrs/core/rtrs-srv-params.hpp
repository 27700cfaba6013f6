// rtrs-server module parameters: their bounds and what follows from them.
// Kernel-independent, so the rules are host-tested; the C module file only
// declares the parameters and hands their values here at load.
#pragma once

#include <cxxrt/bits.hpp>
#include <cxxrt/result.hpp>
#include "rtrs/core/rtrs-codec.hpp"

namespace rtrs::srv {

struct Params {
    static constexpr cxxrt::u32 kDefaultChunkSize = 128 * 1024;
    static constexpr cxxrt::u32 kMinChunkSize = 8192;
    static constexpr cxxrt::u32 kDefaultQueueDepth = 512;
    static constexpr cxxrt::u32 kMaxQueueDepth = 65535;
    // Header room the client gets in each chunk (user message + RTRS
    // message); the rest carries data.
    static constexpr cxxrt::u32 kMaxHeaderSize = 4096;
    // Paths one session may have, closing ones included (upstream's
    // MAX_PATHS_NUM; further paths are refused with -ECONNRESET).
    static constexpr cxxrt::u32 kMaxPathsPerSession = 128;
    // Sessions the server keeps at once (module parameter max_sessions).
    // Each holds queue_depth * chunk_size bytes of chunks (64 MiB with the
    // defaults), so this bounds the chunk memory clients can pin.
    static constexpr cxxrt::u32 kDefaultMaxSessions = 64;
    static constexpr cxxrt::u32 kMaxMaxSessions = 65535;
    // A path must finish its INFO exchange this long after its first
    // connect request (module parameter info_timeout_ms).
    static constexpr cxxrt::u32 kDefaultInfoTimeoutMs = 10000;
    static constexpr cxxrt::u32 kMinInfoTimeoutMs = 1000;
    static constexpr cxxrt::u32 kMaxInfoTimeoutMs = 300000;
    // Per-client bounds (a client: an IPv4 address, an IPv6 /64, a GID;
    // rtrs-srv-limits.hpp), so that one client at its limits leaves room
    // for the others. Sessions one client may hold (max_sessions_per_client):
    // a client host opens one session per session name it maps under,
    // usually one or two per server; 8 leaves room for several, and 8
    // clients at their limit fill the default max_sessions (64).
    static constexpr cxxrt::u32 kDefaultMaxSessionsPerClient = 8;
    // Connections one path may have (max_connections_per_path). A client
    // opens one per possible CPU plus the service connection (plus its poll
    // queues, at most one per CPU): 512 serves a client with 511 possible
    // CPUs, or 255 with as many poll queues. The wire allows 4096.
    static constexpr cxxrt::u32 kDefaultMaxConnectionsPerPath = 512;
    // Connections of all the sessions of one client
    // (max_connections_per_client): two full-size paths.
    static constexpr cxxrt::u32 kDefaultMaxConnectionsPerClient = 1024;
    // Connections the server holds at once (max_connections). Each has a CQ
    // and a QP sized by sess_queue_depth (about 1 MiB at the defaults on
    // rxe), so this bounds their memory and QPs: 8192 is 8 clients at their
    // own limit.
    static constexpr cxxrt::u32 kDefaultMaxConnections = 8192;
    static constexpr cxxrt::u32 kMaxMaxConnections = 1u << 20;

    cxxrt::u32 chunk_size = kDefaultChunkSize;
    cxxrt::u32 queue_depth = kDefaultQueueDepth;
    bool always_invalidate = true;
    cxxrt::u32 max_sessions = kDefaultMaxSessions;
    cxxrt::u32 info_timeout_ms = kDefaultInfoTimeoutMs;
    cxxrt::u32 max_sessions_per_client = kDefaultMaxSessionsPerClient;
    cxxrt::u32 max_connections_per_path = kDefaultMaxConnectionsPerPath;
    cxxrt::u32 max_connections_per_client = kDefaultMaxConnectionsPerClient;
    cxxrt::u32 max_connections = kDefaultMaxConnections;

    cxxrt::u32 max_io_size() const { return chunk_size - kMaxHeaderSize; }
};

enum class ParamError : cxxrt::u8 {
    kNone,
    kChunkSize,
    kQueueDepth,
    kTooManyBits,
    kMaxSessions,
    kInfoTimeout,
    kMaxSessionsPerClient,
    kMaxConnectionsPerPath,
    kMaxConnectionsPerClient,
    kMaxConnections,
};

// Validates raw module parameter values (ints, as the kernel stores them).
inline cxxrt::Result<Params> make_params(int chunk_size, int queue_depth, bool always_invalidate,
                                         ParamError* why = nullptr)
{
    auto fail = [why](ParamError e) {
        if (why)
            *why = e;
        return cxxrt::Error(cxxrt::err::kInval);
    };
    if (chunk_size < int(Params::kMinChunkSize) || !cxxrt::is_power_of_two(cxxrt::u64(chunk_size)))
        return fail(ParamError::kChunkSize);
    if (queue_depth < 1 || queue_depth > int(Params::kMaxQueueDepth))
        return fail(ParamError::kQueueDepth);
    // Chunk id and offset share the 28 payload bits of an immediate.
    if (codec::make_chunk_geometry(cxxrt::u32(queue_depth), cxxrt::u32(chunk_size)).is_error())
        return fail(ParamError::kTooManyBits);
    Params params;
    params.chunk_size = cxxrt::u32(chunk_size);
    params.queue_depth = cxxrt::u32(queue_depth);
    params.always_invalidate = always_invalidate;
    return params;
}

// Validates the resource limits (raw module parameter values) into params.
inline cxxrt::Result<void> set_limits(Params& params, int max_sessions, int info_timeout_ms,
                                      ParamError* why = nullptr)
{
    auto fail = [why](ParamError e) {
        if (why)
            *why = e;
        return cxxrt::Error(cxxrt::err::kInval);
    };
    if (max_sessions < 1 || max_sessions > int(Params::kMaxMaxSessions))
        return fail(ParamError::kMaxSessions);
    if (info_timeout_ms < int(Params::kMinInfoTimeoutMs) || info_timeout_ms > int(Params::kMaxInfoTimeoutMs))
        return fail(ParamError::kInfoTimeout);
    params.max_sessions = cxxrt::u32(max_sessions);
    params.info_timeout_ms = cxxrt::u32(info_timeout_ms);
    return {};
}

// The per-client limits and the server-wide connection budget (raw module
// parameter values): sessions per client 1..kMaxMaxSessions, connections
// per path 1..the wire's 4096, per client and in total 1..kMaxMaxConnections.
inline cxxrt::Result<void> set_client_limits(Params& params, int sessions_per_client, int connections_per_path,
                                             int connections_per_client, int connections, ParamError* why = nullptr)
{
    auto fail = [why](ParamError e) {
        if (why)
            *why = e;
        return cxxrt::Error(cxxrt::err::kInval);
    };
    if (sessions_per_client < 1 || sessions_per_client > int(Params::kMaxMaxSessions))
        return fail(ParamError::kMaxSessionsPerClient);
    if (connections_per_path < 1 || connections_per_path > int(wire::kMaxConnectionsPerPath))
        return fail(ParamError::kMaxConnectionsPerPath);
    if (connections_per_client < 1 || connections_per_client > int(Params::kMaxMaxConnections))
        return fail(ParamError::kMaxConnectionsPerClient);
    if (connections < 1 || connections > int(Params::kMaxMaxConnections))
        return fail(ParamError::kMaxConnections);
    params.max_sessions_per_client = cxxrt::u32(sessions_per_client);
    params.max_connections_per_path = cxxrt::u32(connections_per_path);
    params.max_connections_per_client = cxxrt::u32(connections_per_client);
    params.max_connections = cxxrt::u32(connections);
    return {};
}

}  // namespace rtrs::srv
