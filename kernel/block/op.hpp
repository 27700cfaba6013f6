// The block layer's ops (REQ_OP_*, the kernel's own values from the
// generated header), as a request carries them and as a bio is made with.
// A request's op may be one not named here (zone or driver ops): switch
// with a default.
#pragma once

#include <cxxrt/types.hpp>

#include "cxxrt-kabi.h"

namespace kernel::block {

enum class Op : cxxrt::u32 {
    kRead = KABI_REQ_OP_READ,
    kWrite = KABI_REQ_OP_WRITE,
    kFlush = KABI_REQ_OP_FLUSH,
    kDiscard = KABI_REQ_OP_DISCARD,
    kSecureErase = KABI_REQ_OP_SECURE_ERASE,
    kWriteZeroes = KABI_REQ_OP_WRITE_ZEROES,
};

}  // namespace kernel::block
