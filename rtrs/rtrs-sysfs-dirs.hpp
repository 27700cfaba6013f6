// The two directory pairs the client's and the server's sysfs trees share
// (Documentation/upstream-facts.md sections 9 and 10):
//   /sys/class/rtrs-<side>/<session>/ with its paths/, and
//   paths/<path>/ with its stats/.
// Each pair is made together and removed together, the child first, and a
// failure leaves neither; udev hears of a directory (KOBJ_ADD) once its
// files exist. Which files a directory holds (the groups) and who answers
// them (the owner the handlers are bound to) are each side's
// (rtrs-clt-sysfs.cpp, rtrs-srv-sysfs.cpp). Process context (may sleep).
#pragma once

#include <cxxrt/sysfs.hpp>
#include <cxxrt/sysfs_dir.hpp>

namespace rtrs {

// The session's directory: a device of the class, and its paths/.
class SessionDirectory : cxxrt::Pinned {
public:
    ~SessionDirectory() { remove(); }

    // <device_class>/<name>/ with `files` (device flavour, may be null)
    // bound to `session`.
    [[nodiscard]] cxxrt::Result<void> create(cxxrt::sysfs::DeviceClass& device_class, const char* name, void* session,
                                             const cxxrt::sysfs::Group* files)
    {
        device_ = CXXRT_TRY(cxxrt::sysfs::Device::create(device_class, nullptr, name, session, files));
        // paths/ holds only the path directories: no files, no owner.
        auto paths = paths_.add(nullptr, cxxrt::sysfs::KobjRef(device_), "paths");
        if (paths.is_error()) {
            device_.reset();
            return paths.error();
        }
        paths_.announce();
        return {};
    }
    void remove()
    {
        paths_.remove();
        device_.reset();
    }
    cxxrt::sysfs::KobjRef paths_dir() { return paths_; }
    bool exists() const { return bool(device_); }

private:
    cxxrt::sysfs::Device device_;
    cxxrt::sysfs::Directory paths_;
};

// One path's directory under the session's paths/, and its stats/.
class PathDirectory : cxxrt::Pinned {
public:
    ~PathDirectory() { remove(); }

    // paths/<name>/ with `files` and stats/ with `stats` (kobject flavour),
    // both bound to `path`.
    [[nodiscard]] cxxrt::Result<void> create(void* path, SessionDirectory& session, const char* name,
                                             const cxxrt::sysfs::Group& files, const cxxrt::sysfs::Group& stats)
    {
        CXXRT_TRY(directory_.add(path, session.paths_dir(), name, &files));
        directory_.announce();
        auto added = stats_.add(path, directory_, "stats", &stats);
        if (added.is_error()) {
            directory_.remove();
            return added.error();
        }
        stats_.announce();
        return {};
    }
    void remove()
    {
        stats_.remove();
        directory_.remove();
    }
    bool exists() const { return directory_.exists(); }

private:
    cxxrt::sysfs::Directory directory_;
    cxxrt::sysfs::Directory stats_;
};

}  // namespace rtrs
