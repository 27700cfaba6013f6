// The user protocol of the RTRS self-test modules: a tiny remote memory
// store. The client's test module (rtrs-clt-selftest) writes and reads
// byte ranges of a per-session store kept by the server's test module
// (rtrs-srv-selftest). The user header travels with each RTRS IO.
#pragma once

#include <cxxrt/endian.hpp>

namespace rtrs::selftest {

inline constexpr cxxrt::u32 kMagic = 0x52545354;  // "RTST"
inline constexpr cxxrt::u32 kStoreSize = 8u << 20;  // bytes per session on the server

enum class Op : cxxrt::u32 {
    kWrite = 1,  // RTRS WRITE: store data at offset
    kRead = 2,   // RTRS READ: return length bytes from offset
    kFail = 3,   // RTRS WRITE or READ: the server answers with -error
};

struct Header {
    cxxrt::le32 magic;
    cxxrt::le32 op;
    cxxrt::le64 offset;
    cxxrt::le32 length;
    cxxrt::le32 error;  // kFail: the positive errno to answer with
};
static_assert(sizeof(Header) == 24);

}  // namespace rtrs::selftest
