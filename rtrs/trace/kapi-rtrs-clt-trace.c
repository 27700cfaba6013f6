// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-client C boundary: instantiates the rtrs_clt trace events
 * (rtrs-clt-trace.h) and fires them for C++ (kapi-rtrs-trace.h). One
 * tracepoint call each.
 */
#define CREATE_TRACE_POINTS
#include "rtrs-clt-trace.h"

/* KAPI: any context. */
void kapi_trace_rtrs_clt_reconnect_work(const char *path, int state, int attempts, int max_attempts, int fail_cnt,
					int success_cnt)
{
	trace_rtrs_clt_reconnect_work(path, state, attempts, max_attempts, fail_cnt, success_cnt);
}

/* KAPI: any context. */
void kapi_trace_rtrs_clt_close_conns(const char *path, int state, int attempts, int max_attempts, int fail_cnt,
				     int success_cnt)
{
	trace_rtrs_clt_close_conns(path, state, attempts, max_attempts, fail_cnt, success_cnt);
}

/* KAPI: any context (a completion handler in softirq too). */
void kapi_trace_rtrs_rdma_error_recovery(const char *path, int state, int attempts, int max_attempts,
					 int fail_cnt, int success_cnt)
{
	trace_rtrs_rdma_error_recovery(path, state, attempts, max_attempts, fail_cnt, success_cnt);
}
