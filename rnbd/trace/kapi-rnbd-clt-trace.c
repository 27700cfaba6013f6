// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rnbd-client C boundary: instantiates the rnbd_clt trace events
 * (rnbd-clt-trace.h) and fires them for C++ (kapi-rnbd-trace.h). One
 * tracepoint call each.
 */
#define CREATE_TRACE_POINTS
#include "rnbd-clt-trace.h"

/* KAPI: process context. */
void kapi_trace_rnbd_clt_map_device(const char *sessname, const char *device_path, const char *devname,
				    unsigned char access_mode, unsigned long long nsectors, int error)
{
	trace_map_device(sessname, device_path, devname, access_mode, nsectors, error);
}

/* KAPI: process context. */
void kapi_trace_rnbd_clt_unmap_device(const char *sessname, const char *device_path, const char *devname,
				      bool force)
{
	trace_unmap_device(sessname, device_path, devname, force);
}

/* KAPI: any context. */
void kapi_trace_rnbd_clt_dev_state(const char *sessname, const char *device_path, const char *devname,
				   unsigned char old_state, unsigned char new_state)
{
	trace_dev_state_change(sessname, device_path, devname, old_state, new_state);
}
