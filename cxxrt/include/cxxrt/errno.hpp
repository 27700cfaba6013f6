// Linux errno values used by the C++ code. They are part of the kernel's
// user ABI (include/uapi/asm-generic/errno-base.h), stable on every
// architecture we build for, and needed in host builds too.
#pragma once

namespace cxxrt::err {

inline constexpr int kPerm = 1;
inline constexpr int kNoEnt = 2;
inline constexpr int kIo = 5;
inline constexpr int kNxio = 6;
inline constexpr int k2Big = 7;
inline constexpr int kAgain = 11;
inline constexpr int kNoMem = 12;
inline constexpr int kAccess = 13;
inline constexpr int kFault = 14;
inline constexpr int kBusy = 16;
inline constexpr int kExist = 17;
inline constexpr int kNoDev = 19;
inline constexpr int kInval = 22;
inline constexpr int kNoSpc = 28;
inline constexpr int kRange = 34;
inline constexpr int kNameTooLong = 36;
inline constexpr int kNoSys = 38;
inline constexpr int kNotEmpty = 39;
inline constexpr int kProto = 71;
inline constexpr int kBadMsg = 74;
inline constexpr int kOverflow = 75;
inline constexpr int kMsgSize = 90;
inline constexpr int kOpNotSupp = 95;
inline constexpr int kNetUnreach = 101;
inline constexpr int kConnAborted = 103;
inline constexpr int kConnReset = 104;
inline constexpr int kNotConn = 107;
inline constexpr int kShutdown = 108;
inline constexpr int kTimedOut = 110;
inline constexpr int kConnRefused = 111;
inline constexpr int kHostUnreach = 113;
inline constexpr int kAlready = 114;
inline constexpr int kInProgress = 115;
inline constexpr int kCanceled = 125;

}  // namespace cxxrt::err
