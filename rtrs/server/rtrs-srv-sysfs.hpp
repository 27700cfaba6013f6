// /sys/class/rtrs-server/<session>/paths/<client>@<server>/ : what the
// server shows of its sessions and paths (the ABI of seeds/002 and
// Documentation/upstream-facts.md section 10).
#pragma once

#include "common/rtrs-addr.hpp"
#include "rtrs/rtrs-sysfs.hpp"

namespace rtrs::srv {

class Path;

// Module-wide: the class and the attribute groups (SysfsTree::exit() frees
// them). Process context. A session's directory is a SessionDirectory bound
// to the server's Session.
[[nodiscard]] cxxrt::Result<void> sysfs_init();

// One path's directory and its stats/ subdirectory.
class PathSysfs : public PathDirectory {
public:
    [[nodiscard]] cxxrt::Result<void> create(Path& path, SessionDirectory& session);
    // The directory's name, "<client>@<server>" ("" until create() made
    // the directory); the rtrs_srv trace events print it. Set once; a
    // reader racing with that sees a prefix of it (the rest of the array
    // stays zero).
    const char* name() const { return name_; }

private:
    char name_[kMaxPathNameLength + 1] = {};
};

}  // namespace rtrs::srv
