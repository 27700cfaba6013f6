// The per-IO trace event of rtrs-server (system rtrs_srv, Linux's format)
// as a C++ call over its TRACE_EVENT boundary (rtrs/kapi-trace.h,
// rtrs/kapi-rtrs-srv-trace.c). The printed symbols are the enums of
// rtrs/kapi-trace.h. Test send_io_resp_imm_enabled() first (one load and a
// branch) and call out of line.
#pragma once

#include <cxxrt/types.hpp>

#include "rtrs/kapi-trace.h"

namespace ktrace::rtrs_srv {

using cxxrt::u32;
using cxxrt::u8;

// Whether anyone listens to send_io_resp_imm (any context).
inline bool send_io_resp_imm_enabled() { return kapi_trace_send_io_resp_imm_enabled(); }
// One answer; call only while send_io_resp_imm_enabled(). Softirq.
inline void send_io_resp_imm(const char* path, u8 direction, bool need_invalidate, bool always_invalidate, u32 msg_id,
                             int unsignalled, u32 signal_interval, int state, int error)
{
    kapi_trace_send_io_resp_imm(path, direction, need_invalidate, always_invalidate, msg_id, unsignalled,
                                signal_interval, state, error);
}

}  // namespace ktrace::rtrs_srv
