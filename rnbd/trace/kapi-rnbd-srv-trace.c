// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rnbd-server C boundary: instantiates the rnbd_srv trace events
 * (rnbd-srv-trace.h) and fires them for C++ (kapi-rnbd-trace.h). One
 * tracepoint call each; the register hooks only flip a word.
 */
#define CREATE_TRACE_POINTS
#include "rnbd-srv-trace.h"

int kapi_trace_process_rdma_on;

/* KAPI: the tracepoint's first probe is being attached (tracepoints_mutex held). */
int rnbd_srv_trace_io_register(void)
{
	WRITE_ONCE(kapi_trace_process_rdma_on, 1);
	return 0;
}

/* KAPI: its last probe is being detached (tracepoints_mutex held). */
void rnbd_srv_trace_io_unregister(void)
{
	WRITE_ONCE(kapi_trace_process_rdma_on, 0);
}

/* KAPI: softirq (the RTRS IO callback). */
void kapi_trace_process_rdma(const char *sessname, unsigned char dir, unsigned char ver, unsigned int device_id,
			     unsigned long long sector, unsigned int flags, unsigned int bi_size, unsigned short ioprio,
			     unsigned int datalen, unsigned long usrlen)
{
	trace_process_rdma(sessname, dir, ver, device_id, sector, flags, bi_size, ioprio, datalen, usrlen);
}

/* KAPI: process context (the session's link event). */
void kapi_trace_create_sess(const char *sessname, int queue_depth)
{
	trace_create_sess(sessname, queue_depth);
}

/* KAPI: process context (the session's link event). */
void kapi_trace_destroy_sess(const char *sessname, int queue_depth)
{
	trace_destroy_sess(sessname, queue_depth);
}

/* KAPI: softirq (the RTRS IO callback). */
void kapi_trace_process_msg_sess_info(const char *sessname, unsigned char proto_ver, unsigned char clt_ver,
				      unsigned char srv_ver)
{
	trace_process_msg_sess_info(sessname, proto_ver, clt_ver, srv_ver);
}

/* KAPI: process context (the control work). */
void kapi_trace_process_msg_open(const char *sessname, const char *dev_name, unsigned char access_mode)
{
	trace_process_msg_open(sessname, dev_name, access_mode);
}

/* KAPI: process context (the control work). */
void kapi_trace_process_msg_close(const char *sessname, unsigned int device_id)
{
	trace_process_msg_close(sessname, device_id);
}
