/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace events of rtrs-client (C boundary; included only by
 * kapi-rtrs-clt-trace.c). System, event and field names, field types and
 * order, and the printed format are the in-tree driver's ABI: its users'
 * scripts parse them (see Documentation/tracing.md), so they must not change.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rtrs_clt

#if !defined(RTRS_CLT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define RTRS_CLT_TRACE_H

#include <linux/tracepoint.h>
#include <cxxrt/kapi-trace-record.h>
#include "kapi-rtrs-trace.h"

/* The format file then shows the numbers, as Linux's does. */
TRACE_DEFINE_ENUM(RTRS_TRACE_CLT_CONNECTING);
TRACE_DEFINE_ENUM(RTRS_TRACE_CLT_CONNECTING_ERR);
TRACE_DEFINE_ENUM(RTRS_TRACE_CLT_RECONNECTING);
TRACE_DEFINE_ENUM(RTRS_TRACE_CLT_CONNECTED);
TRACE_DEFINE_ENUM(RTRS_TRACE_CLT_CLOSING);
TRACE_DEFINE_ENUM(RTRS_TRACE_CLT_CLOSED);
TRACE_DEFINE_ENUM(RTRS_TRACE_CLT_DEAD);

#define rtrs_trace_clt_state_name(value)					\
	__print_symbolic(value,							\
			 { RTRS_TRACE_CLT_CONNECTING, "CONNECTING" },		\
			 { RTRS_TRACE_CLT_CONNECTING_ERR, "CONNECTING_ERR" },	\
			 { RTRS_TRACE_CLT_RECONNECTING, "RECONNECTING" },	\
			 { RTRS_TRACE_CLT_CONNECTED, "CONNECTED" },		\
			 { RTRS_TRACE_CLT_CLOSING, "CLOSING" },			\
			 { RTRS_TRACE_CLT_CLOSED, "CLOSED" },			\
			 { RTRS_TRACE_CLT_DEAD, "DEAD" })

/* A path's state and reconnect counters, for the three path events below. */
#define RTRS_CLT_PATH_RECORD(scalar, name, string)			\
	scalar(int, state, state)					\
	scalar(int, reconnect_attempts, attempts)			\
	scalar(int, max_reconnect_attempts, max_attempts)		\
	scalar(int, fail_cnt, fail_cnt)					\
	scalar(int, success_cnt, success_cnt)				\
	name(sessname, path)

DECLARE_EVENT_CLASS(rtrs_clt_conn_class,
	TP_PROTO(const char *path, int state, int attempts, int max_attempts, int fail_cnt, int success_cnt),
	TP_ARGS(path, state, attempts, max_attempts, fail_cnt, success_cnt),
	TP_STRUCT__entry(KAPI_TRACE_RECORD(RTRS_CLT_PATH_RECORD)),
	TP_fast_assign(KAPI_TRACE_FILL(RTRS_CLT_PATH_RECORD)),
	TP_printk("RTRS-CLT: sess='%s' state=%s attempts='%d' max-attempts='%d' fail='%d' success='%d'",
		  __entry->sessname, rtrs_trace_clt_state_name(__entry->state), __entry->reconnect_attempts,
		  __entry->max_reconnect_attempts, __entry->fail_cnt, __entry->success_cnt)
);

#define RTRS_CLT_PATH_EVENT(event)								\
	DEFINE_EVENT(rtrs_clt_conn_class, event,						\
		TP_PROTO(const char *path, int state, int attempts, int max_attempts, int fail_cnt,	\
			 int success_cnt),							\
		TP_ARGS(path, state, attempts, max_attempts, fail_cnt, success_cnt))

RTRS_CLT_PATH_EVENT(rtrs_clt_reconnect_work);
RTRS_CLT_PATH_EVENT(rtrs_clt_close_conns);
RTRS_CLT_PATH_EVENT(rtrs_rdma_error_recovery);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rtrs-clt-trace
#include <trace/define_trace.h>
