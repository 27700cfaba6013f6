// rtrs-client: fault injection knobs and client-wide request counters (debugfs).
#pragma once

#include "rtrs/client/rtrs-clt-common.hpp"

namespace rtrs::clt {

// Fault injection for tests: debugfs /sys/kernel/debug/rtrs_client/fault_*
// (u64 each, all 0 = inert). A "paths" value is a mask of path indices
// (bit n = the session's path n, as created: the paths given at open in
// order, then add_path taking the lowest free index); ~0 (write
// 18446744073709551615) means
// every path, including indices above 63.
struct Faults {
    cxxrt::debugfs::Number drop_heartbeats;      // paths that send no heartbeats
    cxxrt::debugfs::Number drop_heartbeat_acks;  // paths that answer no heartbeats of the server
    cxxrt::debugfs::Number qp_error;             // one-shot: the next IO or heartbeat tick moves all QPs of these paths to ERR
    cxxrt::debugfs::Number delay_ms;             // IO completions of delay_paths are held back this long (and
    cxxrt::debugfs::Number delay_paths;          //   their heartbeat round trip counts that much longer)
    cxxrt::debugfs::Number drop_responses;       // paths whose IO answers are ignored: the IO stays in flight (a stuck server)
    cxxrt::debugfs::Number ack_timeout;          // non-zero: local ACK timeout (4.096 us * 2^n) of connections made from now on;
                              //   1 fires the retransmit timer after a jiffy: rxe retransmits (spuriously) often
    cxxrt::debugfs::Number inv_post_fail;        // paths whose local invalidations (of a READ the server answered without
                              //   proving it invalidated the key) fail to post: the path fails
    cxxrt::debugfs::Number inv_bad_key;          // paths whose local invalidations (as above) name a key the MR does not
                              //   hold: the HCA fails them (an error completion, the QP in the error state)
    cxxrt::debugfs::Number inv_flush;            // paths whose local invalidations (as above) are posted on a QP just moved
                              //   to the error state: they complete flushed, never executed, while the
                              //   path's other QPs are still connected
    cxxrt::debugfs::Number id_delay_ms;          // teardown sleeps this long right after destroying a path's cm_ids: anything
                              //   freed later would outlive a removed device (rxe_pool_cleanup WARN)
};
extern constinit Faults g_faults;

// Client-wide request counters (debugfs /sys/kernel/debug/rtrs_client/;
// updated atomically). Unlike a path's stats/rdma they survive remove_path,
// so a test can account for every request:
//   submitted - (failovers - failover_errors) = requests of the users that
//   reached a path.
struct Counters {
    cxxrt::debugfs::Number submitted;        // requests posted on a path (a failed-over one counts again)
    cxxrt::debugfs::Number failovers;        // in-flight requests taken off a failed path
    cxxrt::debugfs::Number failover_errors;  // of those, the ones no other path took (completed with an error)
};
extern constinit Counters g_counters;
// A fault knob's path mask: ~0 means every path, else bit i means path i.
inline bool fault_applies(u64 mask, u32 path_index)
{
    if (mask == 0)
        return false;
    if (mask == ~u64(0))
        return true;
    return path_index < 64 && ((mask >> path_index) & 1) != 0;
}
inline bool fault_applies(const cxxrt::debugfs::Number& knob, u32 path_index)
{
    return fault_applies(knob.get(), path_index);
}

}  // namespace rtrs::clt
