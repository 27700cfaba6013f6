// Random bytes from the kernel's CSPRNG (get_random_bytes): identities
// that must not repeat across hosts and reboots (session and path UUIDs).
#pragma once

#include <cxxrt/kapi.h>
#include <cxxrt/span.hpp>
#include <cxxrt/types.hpp>

namespace cxxrt {

// Any context.
inline void random_bytes(Span<u8> out) { kapi_get_random_bytes(out.data(), u32(out.size())); }

}  // namespace cxxrt
