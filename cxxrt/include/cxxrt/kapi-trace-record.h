/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C boundary, for the trace event headers only (rtrs/rtrs-{clt,srv}-trace.h,
 * rnbd/rnbd-{clt,srv}-trace.h). Each event there describes its record once,
 * as a list macro taking three expanders:
 *
 *   #define SOME_EVENT_RECORD(scalar, name, string) \
 *           scalar(u32, msg_id, msg_id)  name(sessname, path)  ...
 *
 * one entry per field, in record order: its type (scalars), its name in the
 * record, and the tracepoint argument it is filled from. A `name` is a
 * NAME_MAX array filled with strscpy_pad(); a `string` is a dynamic string.
 * TP_STRUCT__entry(KAPI_TRACE_RECORD(list)) lays the record out and
 * TP_fast_assign(KAPI_TRACE_FILL(list)) fills it, so layout and filling
 * come from the same line and cannot drift apart. The layout (names, types,
 * order) is the ABI that trace scripts read from the format file.
 */
#ifndef CXXRT_KAPI_TRACE_RECORD_H
#define CXXRT_KAPI_TRACE_RECORD_H

#include <linux/limits.h>
#include <linux/string.h>
#include <linux/version.h>

#define KAPI_TRACE_RECORD(list) list(KAPI_TRACE_LAYOUT_SCALAR, KAPI_TRACE_LAYOUT_NAME, KAPI_TRACE_LAYOUT_STRING)
#define KAPI_TRACE_FILL(list) list(KAPI_TRACE_FILL_SCALAR, KAPI_TRACE_FILL_NAME, KAPI_TRACE_FILL_STRING)

#define KAPI_TRACE_LAYOUT_SCALAR(type, field, source) __field(type, field)
#define KAPI_TRACE_LAYOUT_NAME(field, source) __array(char, field, NAME_MAX)
#define KAPI_TRACE_LAYOUT_STRING(field, source) __string(field, source)

#define KAPI_TRACE_FILL_SCALAR(type, field, source) __entry->field = (source);
#define KAPI_TRACE_FILL_NAME(field, source) strscpy_pad(__entry->field, (source), NAME_MAX);
/* Linux 6.10 dropped __assign_str()'s source: it is the one given to __string(). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define KAPI_TRACE_FILL_STRING(field, source) __assign_str(field);
#else
#define KAPI_TRACE_FILL_STRING(field, source) __assign_str(field, source);
#endif

#endif
