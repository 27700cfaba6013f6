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

#include <cxxrt/sysfs.hpp>
#include <cxxrt/unique_ptr.hpp>
#include <cxxrt/sysfs_dir.hpp>

namespace rtrs::clt {

class Path;
class Session;

// Module-wide: the class and the attribute groups.
[[nodiscard]] cxxrt::Result<void> sysfs_init();
void sysfs_exit();

// The session's directory: a device of the class, named after the session.
class SessionSysfs : cxxrt::Pinned {
public:
    SessionSysfs();
    ~SessionSysfs() { remove(); }
    [[nodiscard]] cxxrt::Result<void> create(Session& session);
    void remove();
    cxxrt::sysfs::KobjRef paths_dir() { return paths_; }
    bool exists() const { return bool(device_); }

private:
    cxxrt::sysfs::Device device_;
    cxxrt::sysfs::Directory paths_;
};

// One path's directory and its stats/ subdirectory.
class PathSysfs : cxxrt::Pinned {
public:
    PathSysfs();
    ~PathSysfs() { remove(); }
    [[nodiscard]] cxxrt::Result<void> create(Path& path, SessionSysfs& session, const char* name);
    void remove();
    bool exists() const { return directory_.exists(); }

private:
    cxxrt::sysfs::Directory directory_;
    cxxrt::sysfs::Directory stats_;
};

// Made here so that only this file constructs the directories.
cxxrt::Result<cxxrt::UniquePtr<SessionSysfs>> make_session_sysfs();
cxxrt::Result<cxxrt::UniquePtr<PathSysfs>> make_path_sysfs();

}  // namespace rtrs::clt
