/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace events of rtrs-server (C boundary; included only by
 * kapi-rtrs-srv-trace.c). System, event and field names, field types and
 * order, and the printed format are the in-tree driver's ABI: its users'
 * scripts parse them (see Documentation/tracing.md), so they must not change.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rtrs_srv

#if !defined(RTRS_SRV_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define RTRS_SRV_TRACE_H

#include <linux/tracepoint.h>
#include <cxxrt/kapi-trace-record.h>
#include "kapi-rtrs-trace.h"

/* Keep kapi_trace_send_io_resp_imm_on in step with the probes (kapi-rtrs-srv-trace.c). */
int rtrs_srv_trace_io_register(void);
void rtrs_srv_trace_io_unregister(void);

TRACE_DEFINE_ENUM(RTRS_TRACE_SRV_CONNECTING);
TRACE_DEFINE_ENUM(RTRS_TRACE_SRV_CONNECTED);
TRACE_DEFINE_ENUM(RTRS_TRACE_SRV_CLOSING);
TRACE_DEFINE_ENUM(RTRS_TRACE_SRV_CLOSED);
TRACE_DEFINE_ENUM(RTRS_TRACE_DIR_READ);
TRACE_DEFINE_ENUM(RTRS_TRACE_DIR_WRITE);

#define rtrs_trace_srv_state_name(value)				\
	__print_symbolic(value,						\
			 { RTRS_TRACE_SRV_CONNECTING, "CONNECTING" },	\
			 { RTRS_TRACE_SRV_CONNECTED, "CONNECTED" },	\
			 { RTRS_TRACE_SRV_CLOSING, "CLOSING" },		\
			 { RTRS_TRACE_SRV_CLOSED, "CLOSED" })

/* The answer to an IO went out without READ data (WRITE, READ without a buffer, error). */
#define RTRS_SRV_SEND_IO_RESP_IMM_RECORD(scalar, name, string)	\
	scalar(u8, dir, dir)						\
	scalar(bool, need_inval, need_inval)				\
	scalar(bool, always_invalidate, always_invalidate)		\
	scalar(u32, msg_id, msg_id)					\
	scalar(int, wr_cnt, wr_cnt)					\
	scalar(u32, signal_interval, signal_interval)			\
	scalar(int, state, state)					\
	scalar(int, errno, error)					\
	name(sessname, path)

TRACE_EVENT_FN(send_io_resp_imm,
	TP_PROTO(const char *path, unsigned char dir, bool need_inval, bool always_invalidate, unsigned int msg_id,
		 int wr_cnt, unsigned int signal_interval, int state, int error),
	TP_ARGS(path, dir, need_inval, always_invalidate, msg_id, wr_cnt, signal_interval, state, error),
	TP_STRUCT__entry(KAPI_TRACE_RECORD(RTRS_SRV_SEND_IO_RESP_IMM_RECORD)),
	TP_fast_assign(KAPI_TRACE_FILL(RTRS_SRV_SEND_IO_RESP_IMM_RECORD)),
	TP_printk("sess='%s' state='%s' dir=%s err='%d' inval='%d' glob-inval='%d' msgid='%u' wrcnt='%d' sig-interval='%u'",
		  __entry->sessname, rtrs_trace_srv_state_name(__entry->state),
		  __print_symbolic(__entry->dir, { RTRS_TRACE_DIR_READ, "READ" }, { RTRS_TRACE_DIR_WRITE, "WRITE" }),
		  __entry->errno, __entry->need_inval, __entry->always_invalidate, __entry->msg_id, __entry->wr_cnt,
		  __entry->signal_interval),
	rtrs_srv_trace_io_register, rtrs_srv_trace_io_unregister
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rtrs-srv-trace
#include <trace/define_trace.h>
