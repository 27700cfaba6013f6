// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-server C boundary: instantiates the rtrs_srv trace events
 * (rtrs-srv-trace.h) and fires them for C++ (kapi-rtrs-trace.h). One
 * tracepoint call each; the register hooks only flip a word.
 */
#define CREATE_TRACE_POINTS
#include "rtrs-srv-trace.h"

int kapi_trace_send_io_resp_imm_on;

/* KAPI: the tracepoint's first probe is being attached (tracepoints_mutex held). */
int rtrs_srv_trace_io_register(void)
{
	WRITE_ONCE(kapi_trace_send_io_resp_imm_on, 1);
	return 0;
}

/* KAPI: its last probe is being detached (tracepoints_mutex held). */
void rtrs_srv_trace_io_unregister(void)
{
	WRITE_ONCE(kapi_trace_send_io_resp_imm_on, 0);
}

/* KAPI: any context (softirq). */
void kapi_trace_send_io_resp_imm(const char *path, unsigned char dir, bool need_inval, bool always_invalidate,
				 unsigned int msg_id, int wr_cnt, unsigned int signal_interval, int state, int error)
{
	trace_send_io_resp_imm(path, dir, need_inval, always_invalidate, msg_id, wr_cnt, signal_interval, state,
			       error);
}
