/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace events of rnbd-client (C boundary; included only by
 * kapi-rnbd-clt-trace.c). Ours: Linux's rnbd-client has no tracepoints.
 * Their names, fields and formats are documented in Documentation/tracing.md
 * and kept stable like the rnbd_srv ones.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rnbd_clt

#if !defined(RNBD_CLT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define RNBD_CLT_TRACE_H

#include <linux/tracepoint.h>
#include <cxxrt/kapi-trace-record.h>
#include "kapi-rnbd-trace.h"

TRACE_DEFINE_ENUM(RNBD_TRACE_ACCESS_RO);
TRACE_DEFINE_ENUM(RNBD_TRACE_ACCESS_RW);
TRACE_DEFINE_ENUM(RNBD_TRACE_ACCESS_MIGRATION);
TRACE_DEFINE_ENUM(RNBD_TRACE_CLT_INIT);
TRACE_DEFINE_ENUM(RNBD_TRACE_CLT_OPEN);
TRACE_DEFINE_ENUM(RNBD_TRACE_CLT_CLOSED);
TRACE_DEFINE_ENUM(RNBD_TRACE_CLT_UNMAPPING);

#define rnbd_trace_clt_access_name(value)				\
	__print_symbolic(value,						\
			 { RNBD_TRACE_ACCESS_RO, "ro" },		\
			 { RNBD_TRACE_ACCESS_RW, "rw" },		\
			 { RNBD_TRACE_ACCESS_MIGRATION, "migration" })

#define rnbd_trace_clt_state_name(value)				\
	__print_symbolic(value,						\
			 { RNBD_TRACE_CLT_INIT, "init" },		\
			 { RNBD_TRACE_CLT_OPEN, "open" },		\
			 { RNBD_TRACE_CLT_CLOSED, "closed" },		\
			 { RNBD_TRACE_CLT_UNMAPPING, "unmapped" })

#define RNBD_CLT_MAP_RECORD(scalar, name, string)	\
	string(sessname, session)			\
	string(device_path, path)			\
	string(devname, disk)				\
	scalar(u64, nsectors, nsectors)			\
	scalar(int, errno, error)			\
	scalar(u8, access_mode, access_mode)

/* A map_device write ended: mapped (err 0) or undone (its errno). */
TRACE_EVENT(map_device,
	TP_PROTO(const char *session, const char *path, const char *disk, unsigned char access_mode,
		 unsigned long long nsectors, int error),
	TP_ARGS(session, path, disk, access_mode, nsectors, error),
	TP_STRUCT__entry(KAPI_TRACE_RECORD(RNBD_CLT_MAP_RECORD)),
	TP_fast_assign(KAPI_TRACE_FILL(RNBD_CLT_MAP_RECORD)),
	TP_printk("sess='%s' path='%s' dev='%s' access_mode=%s nsectors=%llu err=%d",
		  __get_str(sessname), __get_str(device_path), __get_str(devname),
		  rnbd_trace_clt_access_name(__entry->access_mode), __entry->nsectors, __entry->errno)
);

#define RNBD_CLT_UNMAP_RECORD(scalar, name, string)	\
	string(sessname, session)			\
	string(device_path, path)			\
	string(devname, disk)				\
	scalar(bool, force, force)

/* An unmap starts (unmap_device, module unload, a failed map's undo). */
TRACE_EVENT(unmap_device,
	TP_PROTO(const char *session, const char *path, const char *disk, bool force),
	TP_ARGS(session, path, disk, force),
	TP_STRUCT__entry(KAPI_TRACE_RECORD(RNBD_CLT_UNMAP_RECORD)),
	TP_fast_assign(KAPI_TRACE_FILL(RNBD_CLT_UNMAP_RECORD)),
	TP_printk("sess='%s' path='%s' dev='%s' force=%d",
		  __get_str(sessname), __get_str(device_path), __get_str(devname), __entry->force)
);

#define RNBD_CLT_STATE_RECORD(scalar, name, string)	\
	string(sessname, session)			\
	string(device_path, path)			\
	string(devname, disk)				\
	scalar(u8, old_state, old_state)		\
	scalar(u8, new_state, new_state)

/* A device's state changed (the state sysfs file shows the same words). */
TRACE_EVENT(dev_state_change,
	TP_PROTO(const char *session, const char *path, const char *disk, unsigned char old_state,
		 unsigned char new_state),
	TP_ARGS(session, path, disk, old_state, new_state),
	TP_STRUCT__entry(KAPI_TRACE_RECORD(RNBD_CLT_STATE_RECORD)),
	TP_fast_assign(KAPI_TRACE_FILL(RNBD_CLT_STATE_RECORD)),
	TP_printk("sess='%s' path='%s' dev='%s' old=%s new=%s",
		  __get_str(sessname), __get_str(device_path), __get_str(devname),
		  rnbd_trace_clt_state_name(__entry->old_state), rnbd_trace_clt_state_name(__entry->new_state))
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rnbd-clt-trace
#include <trace/define_trace.h>
