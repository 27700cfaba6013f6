// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-ib-selftest: exercises the RDMA layer (kernel/ib/kapi-rdma*.c and the
 * kernel::ib C++ wrappers) over Soft-RoCE loopback at load time: a listener
 * and a client on the address given by addr=, connect/accept/reject with
 * private data, RDMA writes with immediate both ways, heartbeats, send,
 * send-with-invalidate, fast registration. Results are KTAP lines in the
 * kernel log; any failure makes the load fail with -EINVAL. Tests only
 * (make selftest-modules).
 */
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/wait.h>
#include <cxxrt/module-api.h>

int rtrs_ib_selftest_run(const unsigned char *ipv4, unsigned short port, unsigned short peer_port);
void rtrs_ib_selftest_wake(void);
int rtrs_ib_selftest_wait(int (*done)(void *arg), void *arg, unsigned int timeout_ms);

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address of a local Soft-RoCE netdev (the test loops back to it)");

static ushort port = 1235;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "RDMA-CM port of the test listener (default 1235)");

static ushort peer_port;
module_param(peer_port, ushort, 0444);
MODULE_PARM_DESC(peer_port, "Port the clients connect to (default: port); another one makes the connect fail (tests the failure paths)");

static DECLARE_WAIT_QUEUE_HEAD(rtrs_ib_selftest_wq);

/* KAPI: any context (completion handlers call it from softirq). */
void rtrs_ib_selftest_wake(void)
{
	wake_up_all(&rtrs_ib_selftest_wq);
}

/* KAPI: process context; 0 once done(arg) is true, -ETIMEDOUT otherwise. */
int rtrs_ib_selftest_wait(int (*done)(void *arg), void *arg, unsigned int timeout_ms)
{
	return wait_event_timeout(rtrs_ib_selftest_wq, done(arg), msecs_to_jiffies(timeout_ms)) ? 0 : -ETIMEDOUT;
}

static int __init rtrs_ib_selftest_init(void)
{
	u8 ip[4];

	if (!addr || !in4_pton(addr, -1, ip, -1, NULL)) {
		pr_err("addr=<IPv4 of an rxe netdev> is required\n");
		return -EINVAL;
	}
	return rtrs_ib_selftest_run(ip, port, peer_port);
}

static void __exit rtrs_ib_selftest_exit(void)
{
	cxxrt_module_exit();
}

module_init(rtrs_ib_selftest_init);
module_exit(rtrs_ib_selftest_exit);

MODULE_DESCRIPTION("In-kernel self-test of the RTRS RDMA layer over Soft-RoCE (tests only)");
MODULE_LICENSE("GPL");
