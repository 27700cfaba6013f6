// The trace events of rnbd-server (system rnbd_srv, Linux's formats) and
// rnbd-client (system rnbd_clt, ours) as C++ calls: one function per event,
// plain values in, over the TRACE_EVENT boundary (kapi-rnbd-trace.h,
// kapi-rnbd-{srv,clt}-trace.c). The printed symbols (directions, access
// modes, ops, states) are the enums of kapi-rnbd-trace.h; callers
// static_assert their own values against them. Control events: a direct
// call to a static branch. The per-IO event: test process_rdma_enabled()
// first (one load and a branch) and call out of line.
#pragma once

#include <cxxrt/types.hpp>

#include "rnbd/trace/kapi-rnbd-trace.h"

namespace ktrace {

namespace rnbd_srv {

using namespace cxxrt::integers;

enum class Direction : u8 { kRead = RNBD_TRACE_DIR_READ, kWrite = RNBD_TRACE_DIR_WRITE };

// Process context (a session's link event).
inline void create_sess(const char* session, int queue_depth) { kapi_trace_create_sess(session, queue_depth); }
inline void destroy_sess(const char* session, int queue_depth) { kapi_trace_destroy_sess(session, queue_depth); }
// Softirq (the transport's IO callback).
inline void process_msg_sess_info(const char* session, u8 proto_ver, u8 clt_ver, u8 srv_ver)
{
    kapi_trace_process_msg_sess_info(session, proto_ver, clt_ver, srv_ver);
}
// Process context (the control work).
inline void process_msg_open(const char* session, const char* device, u8 access_mode)
{
    kapi_trace_process_msg_open(session, device, access_mode);
}
inline void process_msg_close(const char* session, u32 device_id) { kapi_trace_process_msg_close(session, device_id); }

// Whether anyone listens to process_rdma (any context).
inline bool process_rdma_enabled() { return kapi_trace_process_rdma_enabled(); }
// One IO message; call only while process_rdma_enabled(). `rw` is the op
// and its flag bits as the wire carries them.
inline void process_rdma(const char* session, Direction direction, u8 version, u32 device_id, u64 sector, u32 rw,
                         u32 bi_size, u16 prio, u32 data_length, unsigned long user_length)
{
    kapi_trace_process_rdma(session, u8(direction), version, device_id, sector, rw, bi_size, prio, data_length,
                            user_length);
}

}  // namespace rnbd_srv

namespace rnbd_clt {

using namespace cxxrt::integers;

// Process context. error: 0 or the map's negative errno.
inline void map_device(const char* session, const char* path, const char* disk, u8 access_mode, u64 sectors,
                       int error)
{
    kapi_trace_rnbd_clt_map_device(session, path, disk, access_mode, sectors, error);
}
// Process context.
inline void unmap_device(const char* session, const char* path, const char* disk, bool force)
{
    kapi_trace_rnbd_clt_unmap_device(session, path, disk, force);
}
// Any context.
inline void dev_state(const char* session, const char* path, const char* disk, u8 old_state, u8 new_state)
{
    kapi_trace_rnbd_clt_dev_state(session, path, disk, old_state, new_state);
}

}  // namespace rnbd_clt

}  // namespace ktrace
