// SPDX-License-Identifier: GPL-2.0-or-later
/* C boundary: kernel log, WARN, formatting. Each function is one kernel call. */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/ratelimit.h>
#include <linux/bug.h>
#include <cxxrt/kapi.h>

/*
 * KAPI: any context. The level is a printk level digit; the module name
 * prefixes every line so logs from C++ read like any other driver's. The
 * name comes from THIS_MODULE, not KBUILD_MODNAME: this object is linked
 * into several modules.
 */
void kapi_vlog(int level, const char *fmt, va_list args)
{
	va_list copy;

	va_copy(copy, args);
	printk(KERN_SOH "%c%s: %pV\n", '0' + (level & 7), THIS_MODULE->name, &(struct va_format){ fmt, &copy });
	va_end(copy);
}

/* KAPI: any context; one shared ratelimit state per module is enough here. */
void kapi_vlog_ratelimited(int level, const char *fmt, va_list args)
{
	static DEFINE_RATELIMIT_STATE(state, DEFAULT_RATELIMIT_INTERVAL, DEFAULT_RATELIMIT_BURST);

	if (__ratelimit(&state))
		kapi_vlog(level, fmt, args);
}

/* KAPI: any context. A real WARN splat: tests fail on it. */
void kapi_warn(const char *message)
{
	WARN(1, "%s: %s\n", THIS_MODULE->name, message);
}

int kapi_scnprintf(char *buf, unsigned long size, const char *fmt, ...)
{
	va_list args;
	int n;

	va_start(args, fmt);
	n = vscnprintf(buf, size, fmt, args);
	va_end(args);
	return n;
}

const char *kapi_module_name(void)
{
	return THIS_MODULE->name;
}
