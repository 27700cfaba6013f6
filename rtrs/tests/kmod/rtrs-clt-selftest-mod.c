// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-clt-selftest: exercises our rtrs-client through its exported C API
 * at load time, against a running server: our rtrs-server with
 * rtrs-srv-selftest (proto=store, the store of rtrs-test-proto.hpp), or
 * Linux's rtrs-server with rnbd-server (proto=rnbd, RNBD 2.0 on a block
 * device). Results are KTAP lines in the kernel log; any failure makes the
 * load fail with -EINVAL. With keep_open=1 the session stays open and
 * reading debugfs rtrs_clt_selftest/check runs verified IO on it (for
 * fail-over tests). Tests only (make selftest-modules).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/scatterlist.h>
#include <cxxrt/module-api.h>

int rtrs_clt_selftest_run(const char *paths, const char *session, const char *proto, const char *device,
			  unsigned short port, bool keep_open, unsigned int reconnect_delay);
void rtrs_clt_selftest_stop(void);
/* Called from the C++ tests (rtrs-clt-selftest-run.cpp), defined below. */
void rtrs_clt_selftest_sg_fill(void *table, unsigned int count, void *buffer, unsigned int length);
unsigned int rtrs_clt_selftest_sg_size(void);

static char *paths;
module_param(paths, charp, 0444);
MODULE_PARM_DESC(paths, "Destinations, comma separated, e.g. ip:192.0.2.1,ip:198.51.100.1 ([src@]dst each)");

static char *session = "clt-selftest";
module_param(session, charp, 0444);
MODULE_PARM_DESC(session, "RTRS session name (default clt-selftest)");

static char *proto = "store";
module_param(proto, charp, 0444);
MODULE_PARM_DESC(proto, "User protocol: store (rtrs-srv-selftest) or rnbd (an RNBD 2.0 server)");

static char *device = "/dev/ram0";
module_param(device, charp, 0444);
MODULE_PARM_DESC(device, "proto=rnbd: device to open on the server (default /dev/ram0)");

static ushort port = 1234;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "Server port (default 1234)");

static unsigned int reconnect_delay = 2;
module_param(reconnect_delay, uint, 0444);
MODULE_PARM_DESC(reconnect_delay, "Seconds between reconnect attempts of the session (default 2; rnbd-client uses 30)");

static bool keep_open;
module_param(keep_open, bool, 0444);
MODULE_PARM_DESC(keep_open, "Keep the session open after the tests; reading debugfs <module>/check runs IO on it");

/*
 * KAPI: any context. Makes @table (@count entries) describe @length bytes
 * of kernel memory at @buffer, cut into @count pieces of whole pages (the
 * last takes the rest), the shape a block layer request has.
 */
void rtrs_clt_selftest_sg_fill(void *table, unsigned int count, void *buffer, unsigned int length)
{
	struct scatterlist *sg = table;
	unsigned int piece = count > 1 ? PAGE_ALIGN(length / count) : length;
	unsigned int i, offset = 0;

	sg_init_table(sg, count);
	for (i = 0; i < count; i++) {
		unsigned int this = i + 1 == count ? length - offset : min(piece, length - offset);

		sg_set_buf(&sg[i], (char *)buffer + offset, this);
		offset += this;
	}
}

/* KAPI: process context. */
unsigned int rtrs_clt_selftest_sg_size(void)
{
	return sizeof(struct scatterlist);
}

static int __init rtrs_clt_selftest_init(void)
{
	if (!paths) {
		pr_err("paths=<address>[,<address>] is required\n");
		return -EINVAL;
	}
	return rtrs_clt_selftest_run(paths, session, proto, device, port, keep_open, reconnect_delay);
}

static void __exit rtrs_clt_selftest_exit(void)
{
	rtrs_clt_selftest_stop();
}

module_init(rtrs_clt_selftest_init);
module_exit(rtrs_clt_selftest_exit);

MODULE_DESCRIPTION("In-kernel self-test of rtrs-client against a server (tests only)");
MODULE_LICENSE("GPL");
