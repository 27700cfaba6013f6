/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracepoints of rnbd-server (system rnbd_srv, rnbd/trace/rnbd-srv-trace.h) and
 * rnbd-client (system rnbd_clt, rnbd/trace/rnbd-clt-trace.h): what C++ calls.
 * rnbd_srv's events, fields and printed formats are Linux's (6.1 and 6.12
 * have the same), so scripts written for the in-tree server read ours;
 * rnbd_clt is ours (Linux's client has no tracepoints). Documentation/tracing.md
 * lists them. C++ passes plain values; each function fires one tracepoint.
 *
 * Cost when nothing listens: see rtrs/trace/kapi-rtrs-trace.h. Control-path events are
 * a direct call to a static branch; the per-IO event (process_rdma) is
 * guarded by kapi_trace_process_rdma_enabled(), one load and a branch.
 */
#ifndef KAPI_RNBD_TRACE_H
#define KAPI_RNBD_TRACE_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values the events print symbolically (Linux's rnbd-proto.h has the same). */
enum rnbd_trace_value {
	RNBD_TRACE_DIR_READ = 0, /* the RTRS direction: Linux's READ and WRITE */
	RNBD_TRACE_DIR_WRITE = 1,
	RNBD_TRACE_ACCESS_RO = 0,
	RNBD_TRACE_ACCESS_RW = 1,
	RNBD_TRACE_ACCESS_MIGRATION = 2,
	RNBD_TRACE_OP_READ = 0,
	RNBD_TRACE_OP_WRITE = 1,
	RNBD_TRACE_OP_FLUSH = 2,
	RNBD_TRACE_OP_DISCARD = 3,
	RNBD_TRACE_OP_SECURE_ERASE = 4,
	RNBD_TRACE_F_SYNC = 1 << 8,
	RNBD_TRACE_F_FUA = 1 << 9,
};

/* rnbd-server. KAPI: create/destroy, open and close in process context; the rest in softirq. */
void kapi_trace_create_sess(const char *sessname, int queue_depth) KAPI_NOEXCEPT;
void kapi_trace_destroy_sess(const char *sessname, int queue_depth) KAPI_NOEXCEPT;
void kapi_trace_process_msg_sess_info(const char *sessname, unsigned char proto_ver, unsigned char clt_ver,
				      unsigned char srv_ver) KAPI_NOEXCEPT;
void kapi_trace_process_msg_open(const char *sessname, const char *dev_name, unsigned char access_mode) KAPI_NOEXCEPT;
void kapi_trace_process_msg_close(const char *sessname, unsigned int device_id) KAPI_NOEXCEPT;
/* One IO message: call only while kapi_trace_process_rdma_enabled(). */
extern int kapi_trace_process_rdma_on;
static inline bool kapi_trace_process_rdma_enabled(void)
{
	return __atomic_load_n(&kapi_trace_process_rdma_on, __ATOMIC_RELAXED) != 0;
}
void kapi_trace_process_rdma(const char *sessname, unsigned char dir, unsigned char ver, unsigned int device_id,
			     unsigned long long sector, unsigned int flags, unsigned int bi_size, unsigned short ioprio,
			     unsigned int datalen, unsigned long usrlen) KAPI_NOEXCEPT;

/* rnbd-client (ours). A device's state, as the events print it. */
enum rnbd_trace_clt_state {
	RNBD_TRACE_CLT_INIT = 0,
	RNBD_TRACE_CLT_OPEN = 1,
	RNBD_TRACE_CLT_CLOSED = 2,
	RNBD_TRACE_CLT_UNMAPPING = 3,
};
/* KAPI: process context. error: 0 or the map's negative errno. */
void kapi_trace_rnbd_clt_map_device(const char *sessname, const char *device_path, const char *devname,
				    unsigned char access_mode, unsigned long long nsectors, int error) KAPI_NOEXCEPT;
/* KAPI: process context. */
void kapi_trace_rnbd_clt_unmap_device(const char *sessname, const char *device_path, const char *devname,
				      bool force) KAPI_NOEXCEPT;
/* KAPI: any context. */
void kapi_trace_rnbd_clt_dev_state(const char *sessname, const char *device_path, const char *devname,
				   unsigned char old_state, unsigned char new_state) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
