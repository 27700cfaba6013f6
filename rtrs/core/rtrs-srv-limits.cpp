// rtrs-server's per-client accounting (see rtrs-srv-limits.hpp).
#include "rtrs/core/rtrs-srv-limits.hpp"

#include <cxxrt/utility.hpp>
#include <cxxrt/errno.hpp>

namespace rtrs::srv {

using namespace cxxrt::integers;

bool ClientKey::operator==(const ClientKey& other) const
{
    return family == other.family && cxxrt::compare_bytes(bytes, other.bytes, sizeof(bytes)) == 0;
}

ClientKey client_key(AddressFamily family, const u8 (&bytes)[16])
{
    ClientKey key;
    switch (family) {
    case AddressFamily::kIpv4:
        key.family = AddressFamily::kIpv4;
        cxxrt::copy_bytes(key.bytes, bytes, 4);
        break;
    case AddressFamily::kIpv6: {
        if (is_ipv4_mapped(family, bytes)) {
            key.family = AddressFamily::kIpv4;
            cxxrt::copy_bytes(key.bytes, bytes + 12, 4);
        } else {
            key.family = AddressFamily::kIpv6;
            cxxrt::copy_bytes(key.bytes, bytes, 8);  // the /64 prefix
        }
        break;
    }
    case AddressFamily::kGid:
        key.family = AddressFamily::kGid;
        cxxrt::copy_bytes(key.bytes, bytes, 16);
        break;
    case AddressFamily::kNone:
        break;  // every client of unknown family shares one key
    }
    return key;
}

int refusal_errno(Refusal why)
{
    switch (why) {
    case Refusal::kNone:
        return 0;
    case Refusal::kClientSessions:
    case Refusal::kClientConnections:
        return -cxxrt::err::kBusy;
    case Refusal::kPathConnections:
        return -cxxrt::err::kInval;
    case Refusal::kConnections:
    case Refusal::kClients:
        return -cxxrt::err::kNoSpc;
    }
    return -cxxrt::err::kInval;
}

const char* refusal_limit_name(Refusal why)
{
    switch (why) {
    case Refusal::kNone:
        return "none";
    case Refusal::kClientSessions:
        return "max_sessions_per_client";
    case Refusal::kPathConnections:
        return "max_connections_per_path";
    case Refusal::kClientConnections:
        return "max_connections_per_client";
    case Refusal::kConnections:
        return "max_connections";
    case Refusal::kClients:
        return "clients";
    }
    return "?";
}

u32 refusal_limit(const Params& params, Refusal why)
{
    switch (why) {
    case Refusal::kNone:
        return 0;
    case Refusal::kClientSessions:
        return params.max_sessions_per_client;
    case Refusal::kPathConnections:
        return params.max_connections_per_path;
    case Refusal::kClientConnections:
        return params.max_connections_per_client;
    case Refusal::kConnections:
        return params.max_connections;
    case Refusal::kClients:
        return 0;
    }
    return 0;
}

Refusal admit_path(const Params& params, u32 cid_num)
{
    return cid_num > params.max_connections_per_path ? Refusal::kPathConnections : Refusal::kNone;
}

cxxrt::Result<void> ClientLedger::init(u32 capacity, cxxrt::Gfp gfp)
{
    entries_ = CXXRT_TRY(cxxrt::Array<Entry>::create(gfp, capacity));
    capacity_ = capacity;
    return {};
}

ClientLedger::Entry* ClientLedger::find(const ClientKey& client) const
{
    for (u32 i = 0; i < used_; ++i)
        if (entries_[i].key == client)
            return &entries_[i];
    return nullptr;
}

// A client with neither sessions nor connections leaves the list (the last
// entry takes its place).
void ClientLedger::drop_if_idle(Entry& entry)
{
    if (entry.usage.sessions != 0 || entry.usage.connections != 0)
        return;
    Entry& last = entries_[used_ - 1];
    if (&entry != &last)
        entry = last;
    --used_;
}

Refusal ClientLedger::charge_session(const Params& params, const ClientKey& client)
{
    Entry* entry = find(client);
    if (entry && entry->usage.sessions >= params.max_sessions_per_client)
        return Refusal::kClientSessions;
    if (!entry) {
        if (used_ >= capacity_)
            return Refusal::kClients;
        entry = &entries_[used_++];
        *entry = Entry{client, Usage{}};
    }
    ++entry->usage.sessions;
    ++total_.sessions;
    return Refusal::kNone;
}

void ClientLedger::release_session(const ClientKey& client)
{
    Entry* entry = find(client);
    if (!entry || entry->usage.sessions == 0)
        return;
    --entry->usage.sessions;
    --total_.sessions;
    drop_if_idle(*entry);
}

Refusal ClientLedger::check_connection(const Params& params, const ClientKey& client) const
{
    const Entry* entry = find(client);
    if (!entry)
        return Refusal::kClientConnections;  // only a session's connections are charged
    if (entry->usage.connections >= params.max_connections_per_client)
        return Refusal::kClientConnections;
    if (total_.connections >= params.max_connections)
        return Refusal::kConnections;
    return Refusal::kNone;
}

Refusal ClientLedger::charge_connection(const Params& params, const ClientKey& client)
{
    Refusal why = check_connection(params, client);
    if (why != Refusal::kNone)
        return why;
    ++find(client)->usage.connections;
    ++total_.connections;
    return Refusal::kNone;
}

void ClientLedger::release_connections(const ClientKey& client, u32 count)
{
    Entry* entry = find(client);
    if (!entry)
        return;
    count = count < entry->usage.connections ? count : entry->usage.connections;
    entry->usage.connections -= count;
    total_.connections -= count;
    drop_if_idle(*entry);
}

ClientLedger::Usage ClientLedger::usage(const ClientKey& client) const
{
    const Entry* entry = find(client);
    return entry ? entry->usage : Usage{};
}

}  // namespace rtrs::srv
