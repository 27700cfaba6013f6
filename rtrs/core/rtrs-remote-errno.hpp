// Errnos that come from the peer (CON_RSP reject data, IO answer
// immediates, RNBD answers) are untrusted numbers: a server may send any
// value, including kernel-internal ones (-ERESTARTSYS = -512) that must
// never reach userspace, or positive values. remote_errno() lets through a
// fixed set of meaningful storage errors and turns everything else into
// -EIO. Kernel-independent (host-tested); errno values are Linux's
// generic ones, the same on every architecture this builds for.
#pragma once

#include <cxxrt/errno.hpp>

namespace rtrs {

namespace remote_err {
inline constexpr int kNotBlk = 15;   // ENOTBLK
inline constexpr int kRoFs = 30;     // EROFS
}  // namespace remote_err

// The set, as positive values. Documented in Documentation/protocol.md
// ("Errnos from the peer"); keep both in sync.
inline constexpr int kRemoteErrnos[] = {
    cxxrt::err::kPerm,      cxxrt::err::kNoEnt,   cxxrt::err::kIo,          cxxrt::err::kNxio,
    cxxrt::err::kNoMem,     cxxrt::err::kAccess,  remote_err::kNotBlk,      cxxrt::err::kBusy,
    cxxrt::err::kExist,     cxxrt::err::kNoDev,   cxxrt::err::kInval,       cxxrt::err::kNoSpc,
    remote_err::kRoFs,      cxxrt::err::kNameTooLong, cxxrt::err::kProto,   cxxrt::err::kMsgSize,
    cxxrt::err::kOpNotSupp, cxxrt::err::kConnReset,
};

constexpr bool remote_errno_allowed(int positive)
{
    for (int allowed : kRemoteErrnos)
        if (positive == allowed)
            return true;
    return false;
}

// 0 stays 0; -E for E in the set stays; anything else (positive values,
// unknown or kernel-internal errnos) becomes -EIO.
constexpr int remote_errno(int value)
{
    if (value == 0)
        return 0;
    if (value < 0 && value > -4096 && remote_errno_allowed(-value))
        return value;
    return -cxxrt::err::kIo;
}

static_assert(remote_errno(0) == 0 && remote_errno(-2) == -2 && remote_errno(-512) == -5 && remote_errno(5) == -5);

}  // namespace rtrs
