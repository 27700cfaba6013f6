// The trace events of rtrs-client (system rtrs_clt) and rtrs-server
// (system rtrs_srv), Linux's formats, as C++ calls over their TRACE_EVENT
// boundary (rtrs/trace/kapi-rtrs-trace.h, kapi-rtrs-{clt,srv}-trace.c).
// The printed symbols are the enums of kapi-rtrs-trace.h. On the server,
// test send_io_resp_imm_enabled() first (one load and a branch) and call
// out of line.
#pragma once

#include <cxxrt/types.hpp>

#include "rtrs/trace/kapi-rtrs-trace.h"

namespace ktrace::rtrs_clt {

// The client's three path events; they share one record (a path's name,
// state, reconnect attempts made and allowed, reconnects failed and
// succeeded).
enum class PathEvent {
    kReconnectWork,       // the reconnect work item starts
    kCloseConns,          // a path is being closed
    kRdmaErrorRecovery,   // a connection of a path failed
};

// Any context.
inline void path_event(PathEvent event, const char* path, int state, int attempts, int max_attempts, int failed,
                       int succeeded)
{
    switch (event) {
    case PathEvent::kReconnectWork:
        kapi_trace_rtrs_clt_reconnect_work(path, state, attempts, max_attempts, failed, succeeded);
        return;
    case PathEvent::kCloseConns:
        kapi_trace_rtrs_clt_close_conns(path, state, attempts, max_attempts, failed, succeeded);
        return;
    case PathEvent::kRdmaErrorRecovery:
        kapi_trace_rtrs_rdma_error_recovery(path, state, attempts, max_attempts, failed, succeeded);
        return;
    }
}

}  // namespace ktrace::rtrs_clt

namespace ktrace::rtrs_srv {

using namespace cxxrt::integers;

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
