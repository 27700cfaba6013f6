// Network interfaces of the initial namespace, by name. Process context.
#pragma once

#include <cxxrt/result.hpp>
#include <cxxrt/types.hpp>

#include "kernel/net/kapi-net.h"

namespace knet {

// The interface index of `name`, or -ENODEV if there is none.
[[nodiscard]] inline cxxrt::Result<cxxrt::u32> interface_index(const char* name)
{
    int index = kapi_net_ifindex(name);
    if (index < 0)
        return cxxrt::Error::from_errno(index);
    return cxxrt::u32(index);
}

}  // namespace knet
