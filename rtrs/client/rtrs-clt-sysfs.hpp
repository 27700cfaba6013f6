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

#include <cxxrt/unique_ptr.hpp>
#include "rtrs/rtrs-sysfs.hpp"

namespace rtrs::clt {

class Path;
class Session;

// Module-wide: the class and the attribute groups.
[[nodiscard]] cxxrt::Result<void> sysfs_init();
void sysfs_exit();

// The session's directory: a device of the class, named after the session.
class SessionSysfs : public SessionDirectory {
public:
    SessionSysfs();
    [[nodiscard]] cxxrt::Result<void> create(Session& session);
};

// One path's directory and its stats/ subdirectory.
class PathSysfs : public PathDirectory {
public:
    PathSysfs();
    [[nodiscard]] cxxrt::Result<void> create(Path& path, SessionSysfs& session, const char* name);
};

// Made here so that only this file constructs the directories.
cxxrt::Result<cxxrt::UniquePtr<SessionSysfs>> make_session_sysfs();
cxxrt::Result<cxxrt::UniquePtr<PathSysfs>> make_path_sysfs();

}  // namespace rtrs::clt
