// rtrs-server's per-client accounting: which client a connect request
// belongs to, and whether the sessions and connections it already holds
// (and the server's total) leave room for one more. Kernel-independent and
// host-tested; the server keeps one ClientLedger under its own lock and
// charges a session when it creates one, a connection before it allocates
// its queues, and releases both when they go.
//
// A client is its source address: an IPv4 address (an IPv4-mapped IPv6
// address counts as that IPv4 address, as the dual-stack listener sees
// IPv4 clients), an IPv6 /64 prefix (one host usually owns a whole /64, so
// per address would be no bound), or an InfiniBand GID (AF_IB: the whole
// GID, its low half names the port).
#pragma once

#include <cxxrt/array.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/types.hpp>
#include "common/rtrs-addr.hpp"
#include "rtrs/core/rtrs-srv-params.hpp"

namespace rtrs::srv {

struct ClientKey {
    AddressFamily family = AddressFamily::kNone;
    cxxrt::u8 bytes[16] = {};  // the part of the address that names the client; the rest zero

    bool operator==(const ClientKey& other) const;
};

// The key of a client address (family one of AddressFamily's values, bytes
// in network order as the CM gives them).
ClientKey client_key(AddressFamily family, const cxxrt::u8 (&bytes)[16]);

// Why a session or connection is refused (kNone: admitted).
enum class Refusal : cxxrt::u8 {
    kNone,
    kClientSessions,     // max_sessions_per_client
    kPathConnections,    // max_connections_per_path (the path's cid_num)
    kClientConnections,  // max_connections_per_client
    kConnections,        // max_connections (server-wide)
    kClients,            // the ledger lists as many clients as it can
};

// The errno the connect reject carries (from the set a client passes on,
// rtrs-remote-errno.hpp): -EBUSY for a client at one of its own limits,
// -EINVAL for a path asking more connections than a path may have,
// -ENOSPC when a server-wide bound is reached. 0 for kNone.
int refusal_errno(Refusal why);
// The module parameter that set the limit, for the log line ("clients"
// for the ledger's capacity).
const char* refusal_limit_name(Refusal why);
// That parameter's value (0 for kClients: the caller knows the capacity).
cxxrt::u32 refusal_limit(const Params& params, Refusal why);

// A new path announcing cid_num connections.
Refusal admit_path(const Params& params, cxxrt::u32 cid_num);

// Sessions and connections per client and in total. Not thread-safe: the
// caller serialises (the server holds one lock around every call). Holds
// at most `capacity` clients at once; a client is listed while it holds a
// session (connections belong to a session, so it holds one then too).
class ClientLedger {
public:
    struct Usage {
        cxxrt::u32 sessions = 0;
        cxxrt::u32 connections = 0;
    };

    ClientLedger() = default;
    ClientLedger(const ClientLedger&) = delete;
    ClientLedger& operator=(const ClientLedger&) = delete;

    // capacity: the most clients listed at once (each holds a session, so
    // the server's max_sessions summed over its listeners bounds it; more
    // are refused as kClients).
    [[nodiscard]] cxxrt::Result<void> init(cxxrt::u32 capacity, cxxrt::Gfp gfp);

    // Counts a session of `client` if its limit allows.
    Refusal charge_session(const Params& params, const ClientKey& client);
    void release_session(const ClientKey& client);
    // Counts a connection of a session of `client` if the client's and the
    // server's budgets allow.
    Refusal charge_connection(const Params& params, const ClientKey& client);
    // Would charge_connection admit one now (changes nothing)?
    Refusal check_connection(const Params& params, const ClientKey& client) const;
    void release_connections(const ClientKey& client, cxxrt::u32 count);

    Usage usage(const ClientKey& client) const;
    Usage total() const { return total_; }
    cxxrt::u32 clients() const { return used_; }
    cxxrt::u32 capacity() const { return capacity_; }

private:
    struct Entry {
        ClientKey key;
        Usage usage;
    };
    Entry* find(const ClientKey& client) const;
    void drop_if_idle(Entry& entry);

    cxxrt::Array<Entry> entries_;
    cxxrt::u32 capacity_ = 0;
    cxxrt::u32 used_ = 0;  // entries_[0 .. used_) are listed
    Usage total_;
};

}  // namespace rtrs::srv
