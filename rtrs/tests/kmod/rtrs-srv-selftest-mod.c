// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-srv-selftest: a user of our rtrs-server for tests, serving the tiny
 * remote store of rtrs-test-proto.hpp. Built only for tests.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

int rtrs_srv_selftest_start(unsigned short port);
void rtrs_srv_selftest_stop(void);

static ushort port = 1234;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "Port to listen on (default 1234)");

static int __init rtrs_srv_selftest_init(void)
{
	return rtrs_srv_selftest_start(port);
}

static void __exit rtrs_srv_selftest_exit(void)
{
	rtrs_srv_selftest_stop();
}

module_init(rtrs_srv_selftest_init);
module_exit(rtrs_srv_selftest_exit);

MODULE_DESCRIPTION("Test user of rtrs-server: an in-memory store (tests only)");
MODULE_LICENSE("GPL");
