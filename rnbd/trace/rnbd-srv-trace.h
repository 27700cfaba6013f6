/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace events of rnbd-server (C boundary; included only by
 * kapi-rnbd-srv-trace.c). System, event and field names, field types and
 * order, and the printed formats are the in-tree driver's ABI: its users'
 * scripts parse them (see Documentation/tracing.md), so they must not change.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rnbd_srv

#if !defined(RNBD_SRV_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define RNBD_SRV_TRACE_H

#include <linux/tracepoint.h>
#include <cxxrt/kapi-trace-record.h>
#include "kapi-rnbd-trace.h"

/* Keep kapi_trace_process_rdma_on in step with the probes (kapi-rnbd-srv-trace.c). */
int rnbd_srv_trace_io_register(void);
void rnbd_srv_trace_io_unregister(void);

#define RNBD_SRV_SESSION_RECORD(scalar, name, string)	\
	scalar(int, qdepth, queue_depth)		\
	string(sessname, session)

DECLARE_EVENT_CLASS(rnbd_srv_link_class,
	TP_PROTO(const char *session, int queue_depth),
	TP_ARGS(session, queue_depth),
	TP_STRUCT__entry(KAPI_TRACE_RECORD(RNBD_SRV_SESSION_RECORD)),
	TP_fast_assign(KAPI_TRACE_FILL(RNBD_SRV_SESSION_RECORD)),
	TP_printk("sessname: %s qdepth: %d", __get_str(sessname), __entry->qdepth)
);

DEFINE_EVENT(rnbd_srv_link_class, create_sess,
	TP_PROTO(const char *session, int queue_depth),
	TP_ARGS(session, queue_depth));
DEFINE_EVENT(rnbd_srv_link_class, destroy_sess,
	TP_PROTO(const char *session, int queue_depth),
	TP_ARGS(session, queue_depth));

TRACE_DEFINE_ENUM(RNBD_TRACE_DIR_READ);
TRACE_DEFINE_ENUM(RNBD_TRACE_DIR_WRITE);
TRACE_DEFINE_ENUM(RNBD_TRACE_OP_READ);
TRACE_DEFINE_ENUM(RNBD_TRACE_OP_WRITE);
TRACE_DEFINE_ENUM(RNBD_TRACE_OP_FLUSH);
TRACE_DEFINE_ENUM(RNBD_TRACE_OP_DISCARD);
TRACE_DEFINE_ENUM(RNBD_TRACE_OP_SECURE_ERASE);
TRACE_DEFINE_ENUM(RNBD_TRACE_F_SYNC);
TRACE_DEFINE_ENUM(RNBD_TRACE_F_FUA);
TRACE_DEFINE_ENUM(RNBD_TRACE_ACCESS_RO);
TRACE_DEFINE_ENUM(RNBD_TRACE_ACCESS_RW);
TRACE_DEFINE_ENUM(RNBD_TRACE_ACCESS_MIGRATION);

/* Linux prints the whole rw word as flags, the operation numbers included. */
#define rnbd_trace_rw_names(value)					\
	__print_flags(value, "|",					\
		      { RNBD_TRACE_OP_READ, "READ" },			\
		      { RNBD_TRACE_OP_WRITE, "WRITE" },			\
		      { RNBD_TRACE_OP_FLUSH, "FLUSH" },			\
		      { RNBD_TRACE_OP_DISCARD, "DISCARD" },		\
		      { RNBD_TRACE_OP_SECURE_ERASE, "SECURE_ERASE" },	\
		      { RNBD_TRACE_F_SYNC, "SYNC" },			\
		      { RNBD_TRACE_F_FUA, "FUA" })

#define rnbd_trace_access_name(value)					\
	__print_symbolic(value,						\
			 { RNBD_TRACE_ACCESS_RO, "RO" },		\
			 { RNBD_TRACE_ACCESS_RW, "RW" },		\
			 { RNBD_TRACE_ACCESS_MIGRATION, "MIGRATION" })

#define RNBD_SRV_PROCESS_RDMA_RECORD(scalar, name, string)	\
	string(sessname, session)				\
	scalar(u8, dir, dir)					\
	scalar(u8, ver, ver)					\
	scalar(u32, device_id, device_id)			\
	scalar(u64, sector, sector)				\
	scalar(u32, flags, flags)				\
	scalar(u32, bi_size, bi_size)				\
	scalar(u16, ioprio, ioprio)				\
	scalar(u32, datalen, datalen)				\
	scalar(size_t, usrlen, usrlen)

TRACE_EVENT_FN(process_rdma,
	TP_PROTO(const char *session, unsigned char dir, unsigned char ver, unsigned int device_id,
		 unsigned long long sector, unsigned int flags, unsigned int bi_size, unsigned short ioprio,
		 unsigned int datalen, unsigned long usrlen),
	TP_ARGS(session, dir, ver, device_id, sector, flags, bi_size, ioprio, datalen, usrlen),
	TP_STRUCT__entry(KAPI_TRACE_RECORD(RNBD_SRV_PROCESS_RDMA_RECORD)),
	TP_fast_assign(KAPI_TRACE_FILL(RNBD_SRV_PROCESS_RDMA_RECORD)),
	TP_printk("I/O req: sess: %s, type: %s, ver: %d, devid: %u, sector: %llu, bsize: %u, flags: %s, ioprio: %d, datalen: %u, usrlen: %zu",
		  __get_str(sessname),
		  __print_symbolic(__entry->dir, { RNBD_TRACE_DIR_READ, "READ" }, { RNBD_TRACE_DIR_WRITE, "WRITE" }),
		  __entry->ver, __entry->device_id, __entry->sector, __entry->bi_size, rnbd_trace_rw_names(__entry->flags),
		  __entry->ioprio, __entry->datalen, __entry->usrlen),
	rnbd_srv_trace_io_register, rnbd_srv_trace_io_unregister
);

#define RNBD_SRV_SESS_INFO_RECORD(scalar, name, string)		\
	scalar(u8, proto_ver, proto_ver)			\
	scalar(u8, clt_ver, clt_ver)				\
	scalar(u8, srv_ver, srv_ver)				\
	string(sessname, session)

TRACE_EVENT(process_msg_sess_info,
	TP_PROTO(const char *session, unsigned char proto_ver, unsigned char clt_ver, unsigned char srv_ver),
	TP_ARGS(session, proto_ver, clt_ver, srv_ver),
	TP_STRUCT__entry(KAPI_TRACE_RECORD(RNBD_SRV_SESS_INFO_RECORD)),
	TP_fast_assign(KAPI_TRACE_FILL(RNBD_SRV_SESS_INFO_RECORD)),
	TP_printk("Session %s using proto-ver %d (clt-ver: %d, srv-ver: %d)",
		  __get_str(sessname), __entry->proto_ver, __entry->clt_ver, __entry->srv_ver)
);

#define RNBD_SRV_OPEN_RECORD(scalar, name, string)	\
	scalar(u8, access_mode, access_mode)		\
	string(sessname, session)			\
	string(dev_name, device)

TRACE_EVENT(process_msg_open,
	TP_PROTO(const char *session, const char *device, unsigned char access_mode),
	TP_ARGS(session, device, access_mode),
	TP_STRUCT__entry(KAPI_TRACE_RECORD(RNBD_SRV_OPEN_RECORD)),
	TP_fast_assign(KAPI_TRACE_FILL(RNBD_SRV_OPEN_RECORD)),
	TP_printk("Open message received: session='%s' path='%s' access_mode=%s",
		  __get_str(sessname), __get_str(dev_name), rnbd_trace_access_name(__entry->access_mode))
);

#define RNBD_SRV_CLOSE_RECORD(scalar, name, string)	\
	scalar(u32, device_id, device_id)		\
	string(sessname, session)

TRACE_EVENT(process_msg_close,
	TP_PROTO(const char *session, unsigned int device_id),
	TP_ARGS(session, device_id),
	TP_STRUCT__entry(KAPI_TRACE_RECORD(RNBD_SRV_CLOSE_RECORD)),
	TP_fast_assign(KAPI_TRACE_FILL(RNBD_SRV_CLOSE_RECORD)),
	TP_printk("Close message received: session='%s' device id='%d'", __get_str(sessname), __entry->device_id)
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rnbd-srv-trace
#include <trace/define_trace.h>
