/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracepoints of rtrs-client (system rtrs_clt, rtrs/trace/rtrs-clt-trace.h) and
 * rtrs-server (system rtrs_srv, rtrs/trace/rtrs-srv-trace.h): what C++ calls.
 * The events, their fields and their printed formats are Linux's (6.1 and
 * 6.12 have the same), so perf and trace-cmd scripts written for the
 * in-tree driver read ours; Documentation/tracing.md lists them. C++ passes
 * plain values; each function below fires one tracepoint.
 *
 * Cost when nothing listens: a tracepoint is a static branch (a 5-byte nop)
 * inside the boundary function, so a control-path event costs the direct
 * call and its return. The per-IO event (send_io_resp_imm) is not even
 * called: its tracepoint's register/unregister hooks keep
 * kapi_trace_send_io_resp_imm_on nonzero while a probe (ftrace, perf, BPF)
 * is attached, and C++ tests that word first (one load and a
 * predicted-not-taken branch, no call, no argument set-up).
 */
#ifndef KAPI_RTRS_TRACE_H
#define KAPI_RTRS_TRACE_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A client path's state as the events print it (Linux's enum rtrs_clt_state). */
enum rtrs_trace_clt_state {
	RTRS_TRACE_CLT_CONNECTING = 0,
	RTRS_TRACE_CLT_CONNECTING_ERR = 1,
	RTRS_TRACE_CLT_RECONNECTING = 2,
	RTRS_TRACE_CLT_CONNECTED = 3,
	RTRS_TRACE_CLT_CLOSING = 4,
	RTRS_TRACE_CLT_CLOSED = 5,
	RTRS_TRACE_CLT_DEAD = 6,
};

/* A server path's state as the events print it (Linux's enum rtrs_srv_state). */
enum rtrs_trace_srv_state {
	RTRS_TRACE_SRV_CONNECTING = 0,
	RTRS_TRACE_SRV_CONNECTED = 1,
	RTRS_TRACE_SRV_CLOSING = 2,
	RTRS_TRACE_SRV_CLOSED = 3,
};

/* The direction field of both servers' IO events: Linux's READ and WRITE. */
enum rtrs_trace_dir {
	RTRS_TRACE_DIR_READ = 0,
	RTRS_TRACE_DIR_WRITE = 1,
};

/*
 * rtrs-client: its three events share one record (a path's name, state,
 * reconnect attempts made and allowed, reconnects failed and succeeded).
 * KAPI: any context.
 */
/* The reconnect work item starts. */
void kapi_trace_rtrs_clt_reconnect_work(const char *path, int state, int attempts, int max_attempts, int fail_cnt,
					int success_cnt) KAPI_NOEXCEPT;
/* A path is being closed (session close, path removal, disconnect, reconnects exhausted). */
void kapi_trace_rtrs_clt_close_conns(const char *path, int state, int attempts, int max_attempts, int fail_cnt,
				     int success_cnt) KAPI_NOEXCEPT;
/* A connection of a path failed. */
void kapi_trace_rtrs_rdma_error_recovery(const char *path, int state, int attempts, int max_attempts,
					 int fail_cnt, int success_cnt) KAPI_NOEXCEPT;

/*
 * rtrs-server: the answer to an IO goes out without READ data (a WRITE, a
 * READ without a client buffer, or an error). KAPI: any context (softirq).
 * Call only while kapi_trace_send_io_resp_imm_on is nonzero (see above).
 */
extern int kapi_trace_send_io_resp_imm_on;
static inline bool kapi_trace_send_io_resp_imm_enabled(void)
{
	return __atomic_load_n(&kapi_trace_send_io_resp_imm_on, __ATOMIC_RELAXED) != 0;
}
void kapi_trace_send_io_resp_imm(const char *path, unsigned char dir, bool need_inval, bool always_invalidate,
				 unsigned int msg_id, int wr_cnt, unsigned int signal_interval, int state,
				 int error) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
