// rtrs-client: what every client type shares: the names it uses, the
// implementation's limits, the module-wide functions and the address
// conversion. See rtrs-clt.hpp for the objects and their contexts.
#pragma once

#include <cxxrt/atomic.hpp>
#include <cxxrt/debugfs.hpp>
#include <cxxrt/random.hpp>
#include <cxxrt/time.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/percpu.hpp>
#include <cxxrt/sync.hpp>
#include <cxxrt/unique_ptr.hpp>
#include <cxxrt/wait.hpp>
#include <cxxrt/work.hpp>
#include <proto/rtrs-wire.hpp>
#include <rtrs/rtrs-api.h>
#include "kernel/ib/cm.hpp"
#include "kernel/ib/memory.hpp"
#include "kernel/ib/verbs.hpp"
#include "rtrs/trace/rtrs-events.hpp"
#include "common/rtrs-addr.hpp"
#include "rtrs/core/rtrs-clt-hold.hpp"
#include "rtrs/core/rtrs-clt-state.hpp"
#include "rtrs/client/rtrs-clt-sysfs.hpp"
#include "rtrs/core/rtrs-clt-policy.hpp"
#include "rtrs/core/rtrs-clt-proto.hpp"
#include "rtrs/core/rtrs-codec.hpp"
#include "rtrs/core/rtrs-heartbeat.hpp"
#include "rtrs/core/rtrs-permits.hpp"
#include "rtrs/core/rtrs-stats.hpp"
#include "rtrs/rtrs-names.hpp"

namespace rtrs::clt {

using cxxrt::Atomic;
using cxxrt::RefPtr;

class Session;
class Path;
class ClientConnection;

// Limits of this implementation.
inline constexpr u32 kMaxPaths = RTRS_MAX_PATHS;  // paths per session (upstream: 128)
inline constexpr u32 kMaxPollQueues = RTRS_MAX_POLL_QUEUES;  // polled connections per path
// Completions one rtrs_client_poll reaps per path at most: a poller gets
// back to its caller (which checks its own IO) soon.
inline constexpr int kPollBudget = 64;
inline constexpr u32 kMaxSegments = 128;         // pages of one fast-reg MR (upstream's value)
inline constexpr u32 kMaxSge = 32;               // SGEs of one WRITE (data entries + 1)
inline constexpr u32 kServiceReceives = 64;      // heartbeats on cid 0
inline constexpr u32 kConnectTimeoutMs = 30000;  // per connection, and for INFO_RSP
inline constexpr int kResolveTimeoutMs = 2000;
// Teardown waits this long per path, in total, for the CM to report every
// connected connection disconnected (the server has processed the DREQ).
inline constexpr u32 kDisconnectTimeoutMs = 5000;
inline constexpr u32 kReceiveSlotSize = sizeof(wire::RkeyRsp);

// A path end as common/rtrs-addr.hpp formats it, from the C API's
// rtrs_address or the RDMA layer's address (both carry the same fields).
template <typename RawAddress>
Address to_address(const RawAddress& raw)
{
    Address address;
    address.family = AddressFamily(raw.family);
    cxxrt::copy_bytes(address.bytes, raw.bytes, sizeof(address.bytes));
    address.scope_id = raw.scope_id;
    return address;
}

// Completion handlers of polled connections run in the polling task, those
// of the others in softirq: per-CPU statistics both update are changed
// with bottom halves off, so a softirq on the same CPU cannot interleave.
using cxxrt::BottomHalvesOff;

// The module's workqueue (rtrs-clt.cpp): error, reconnect and heartbeat work.
cxxrt::Workqueue& workqueue();
// The names of the module's sessions (rtrs-clt.cpp).
SessionNames& session_names();
// "now" for heartbeats and latency.
u64 now_ns();

}  // namespace rtrs::clt
