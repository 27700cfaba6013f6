/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C boundary, for the trace headers of this folder: __assign_str() lost its
 * source argument in Linux 6.10 (the source is the one given to __string()).
 */
#ifndef RNBD_KAPI_TRACE_COMPAT_H
#define RNBD_KAPI_TRACE_COMPAT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define rnbd_trace_assign_str(field, source) __assign_str(field)
#else
#define rnbd_trace_assign_str(field, source) __assign_str(field, source)
#endif

#endif
