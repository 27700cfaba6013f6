// /sys/class/rtrs-server/<session>/paths/<client>@<server>/ : what the
// server shows of its sessions and paths (the ABI of seeds/002 and
// Documentation/upstream-facts.md section 10).
#pragma once

#include <cxxrt/sysfs.hpp>
#include "common/rtrs-addr.hpp"
#include <cxxrt/sysfs_dir.hpp>

namespace rtrs::srv {

class Path;
class Session;

// Module-wide: the class and the attribute groups. Process context.
[[nodiscard]] cxxrt::Result<void> sysfs_init();
void sysfs_exit();

// The session's directory (a device of the class, named after the session).
class SessionSysfs : cxxrt::Pinned {
public:
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
    [[nodiscard]] cxxrt::Result<void> create(Path& path, SessionSysfs& session);
    void remove();
    // The directory's name, "<client>@<server>" ("" before create()); the
    // rtrs_srv trace events print it. Set once; a reader racing with that
    // sees a prefix of it (the rest of the array stays zero).
    const char* name() const { return name_; }

private:
    cxxrt::sysfs::Directory directory_;
    cxxrt::sysfs::Directory stats_;
    char name_[kMaxPathNameLength + 1] = {};
};

}  // namespace rtrs::srv
