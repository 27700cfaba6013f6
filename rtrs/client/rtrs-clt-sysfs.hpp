// /sys/class/rtrs-client/<session>/ : the client's administration tree (the
// ABI of seeds/002 and Documentation/upstream-facts.md section 9): the
// session's max_reconnect_attempts, mpath_policy and io_hold_timeout_ms
// (ours: how long the user holds IO with no path), and per path
// paths/<src@dst>/{state, hca_name, hca_port, src_addr, dst_addr,
// cur_latency, disconnect, reconnect, remove_path, stats/{rdma, reconnects,
// cpu_migration[_from|_to], sg_entries, rdma_lat, wc_completion, reset_all}}
// and the session's add_path.
// Everything here is process context.
#pragma once

#include "rtrs/rtrs-sysfs.hpp"

namespace rtrs::clt {

// Module-wide: the class and the attribute groups (SysfsTree::exit() frees
// them). A session's directory is a SessionDirectory, a path's a
// PathDirectory, bound to the client's Session and Path.
[[nodiscard]] cxxrt::Result<void> sysfs_init();

}  // namespace rtrs::clt
