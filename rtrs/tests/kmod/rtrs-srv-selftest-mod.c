// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-srv-selftest: a user of our rtrs-server for tests, serving the tiny
 * remote store of rtrs-test-proto.hpp. Built only for tests.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

int rtrs_srv_selftest_start(unsigned short port, int respond_cpu);
void rtrs_srv_selftest_stop(void);

static ushort port = 1234;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "Port to listen on (default 1234)");

static int respond_cpu = -1;
module_param(respond_cpu, int, 0444);
MODULE_PARM_DESC(respond_cpu, "Answer every IO from a work item on this CPU (-1, the default: from the completion that brought it)");

static int __init rtrs_srv_selftest_init(void)
{
	return rtrs_srv_selftest_start(port, respond_cpu);
}

static void __exit rtrs_srv_selftest_exit(void)
{
	rtrs_srv_selftest_stop();
}

module_init(rtrs_srv_selftest_init);
module_exit(rtrs_srv_selftest_exit);

MODULE_DESCRIPTION("Test user of rtrs-server: an in-memory store (tests only)");
MODULE_LICENSE("GPL");
