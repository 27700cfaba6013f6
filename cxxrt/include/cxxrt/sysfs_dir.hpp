// sysfs::Directory: a sysfs directory owned by a C++ object — a kobject, its
// optional attribute group, and the wait for its release, so the owner is
// never freed while the kernel still holds the kobject (an open file of the
// directory, a running show/store). Replaces writing "del, put, wait for
// the release callback" by hand at every teardown.
//
//     sysfs::Directory stats_;                               // a member of the owner
//     CXXRT_TRY(stats_.add(this, device_, "stats", &stats_group_));
//     stats_.announce();                                     // KOBJ_ADD, if udev should hear of it
//     ...
//     stats_.remove();   // or let the destructor do it; children before parents
//
// The release completion takes one lockdep class for every Directory: one
// directory never waits for another's release while holding its own.
// Process context throughout (may sleep).
#pragma once

#include <cxxrt/sysfs.hpp>
#include <cxxrt/wait.hpp>

namespace cxxrt::sysfs {

class Directory : Pinned {
public:
    Directory() : kobject_(Callback::to<&Directory::released>(this)) {}
    ~Directory() { remove(); }

    // Creates `name` under `parent`, with the files of `group` (kobject
    // flavour) bound to `owner` when given. On failure nothing is left.
    [[nodiscard]] Result<void> add(void* owner, KobjRef parent, const char* name, const Group* group = nullptr)
    {
        if (auto added = kobject_.add(owner, parent, name); added.is_error()) {
            (void)gone_.try_wait();  // its release already ran: nothing to wait for later
            return added.error();
        }
        if (group) {
            auto files = kobject_.add_group(*group);
            if (files.is_error()) {
                remove();
                return files.error();
            }
        }
        return {};
    }
    // Tells udev the directory exists (KOBJ_ADD), once its files do.
    void announce() { kobject_.uevent_add(); }

    // Removes the directory and waits until the kernel let go of it (no
    // show/store of its files runs after this). Nothing if not added.
    void remove()
    {
        if (!unlink())
            return;
        gone_.wait();
    }
    // Like remove(), waiting at most timeout_ms; false if the kernel still
    // holds the kobject then (a leak the caller reports).
    [[nodiscard]] bool remove_within(unsigned long timeout_ms)
    {
        if (!unlink())
            return true;
        return gone_.wait_timeout(timeout_ms);
    }

    bool exists() const { return kobject_.is_added(); }
    Kobject& kobject() { return kobject_; }
    operator KobjRef() { return KobjRef(kobject_); }

private:
    bool unlink()
    {
        if (!kobject_.is_added())
            return false;
        kobject_.del();
        kobject_.put();
        return true;
    }
    void released() { gone_.complete(); }

    Kobject kobject_;
    Completion gone_{lock_class<"cxxrt::sysfs::Directory::gone_">};
};

}  // namespace cxxrt::sysfs
