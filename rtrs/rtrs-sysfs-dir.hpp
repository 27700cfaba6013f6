// A sysfs directory owned by a C++ object: a cxxrt::sysfs::Kobject plus the
// wait for its release, so the owner is never freed while sysfs still holds
// the kobject. Used by the client and server trees alike.
#pragma once

#include <cxxrt/sysfs.hpp>
#include <cxxrt/wait.hpp>

namespace rtrs {

class SysfsDirectory : cxxrt::Pinned {
public:
    SysfsDirectory() : kobject_(cxxrt::Callback::to<&SysfsDirectory::released>(this)) {}
    ~SysfsDirectory() { remove(); }

    // Creates `name` under `parent` with the files of `group` (kobject
    // flavour) bound to `owner`. Process context.
    [[nodiscard]] cxxrt::Result<void> add(void* owner, cxxrt::sysfs::KobjRef parent, const char* name,
                                          const cxxrt::sysfs::Group* group)
    {
        CXXRT_TRY(kobject_.add(owner, parent, name));
        if (group) {
            auto files = kobject_.add_group(*group);
            if (files.is_error()) {
                remove();
                return files.error();
            }
        }
        kobject_.uevent_add();
        return {};
    }

    // Removes the directory and waits until the kernel let go of it (no
    // show/store of its files runs after this). Process context.
    void remove()
    {
        if (!kobject_.is_added())
            return;
        kobject_.del();
        kobject_.put();
        gone_.wait();
    }

    bool exists() const { return kobject_.is_added(); }
    cxxrt::sysfs::Kobject& kobject() { return kobject_; }

private:
    void released() { gone_.complete(); }

    cxxrt::sysfs::Kobject kobject_;
    cxxrt::Completion gone_{cxxrt::lock_class<"rtrs::SysfsDirectory::gone_">};
};

}  // namespace rtrs
