// A block device major number, registered under a name (register_blkdev
// with a dynamic major) for as long as this object holds it: the
// destructor, or reset(), unregisters it. Process context.
#pragma once

#include <cxxrt/result.hpp>
#include <cxxrt/utility.hpp>

#include "kernel/block/kapi-blk.h"

namespace kernel::block {

class Major : cxxrt::Pinned {
public:
    ~Major() { reset(); }

    // `name` must outlive the registration (a string literal).
    [[nodiscard]] cxxrt::Result<void> register_dynamic(const char* name)
    {
        reset();
        int major = kapi_register_major(name);
        if (major < 0)
            return cxxrt::Error::from_errno(major);
        number_ = major;
        name_ = name;
        return {};
    }
    void reset()
    {
        if (number_ > 0)
            kapi_unregister_major(number_, name_);
        number_ = 0;
        name_ = nullptr;
    }
    // The major, or 0 while none is registered.
    int number() const { return number_; }

private:
    int number_ = 0;
    const char* name_ = nullptr;
};

}  // namespace kernel::block
