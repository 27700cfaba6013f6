// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-hostile: a hostile RTRS/RNBD peer, for tests only (make
 * selftest-modules). With mode=server it plays a client against our
 * rtrs-server + rnbd-server at addr:port and sends each class of bad input
 * the server must survive; every case prints one line
 * "case <name>: pass|fail (<what the server did>)" in the kernel log,
 * which the scripts in selftests/hostile/ turn into TAP lines. The cases run at load
 * time; the load itself succeeds whatever the cases found.
 *
 * With mode=client it is an RTRS server (with a small RNBD server on top)
 * listening on port, for our rnbd-client to map from; the case it plays is
 * read from client_case (writable at run time) when a client session
 * starts, and what it sees is logged as "client case <name>: <event>".
 */
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/wait.h>
#include <cxxrt/module-api.h>

int rtrs_hostile_run(const unsigned char *ipv4, unsigned short port, const char *only, const char *skip,
		     const char *dir, const char *blockdev, unsigned int flood, unsigned int flood_paths,
		     unsigned int flood_connections, unsigned int flood_connections_budget,
		     const unsigned char *ipv4_second);
unsigned int rtrs_hostile_hold_ms(void);
unsigned int rtrs_hostile_connect_ms(void);
void rtrs_hostile_wake(void);
int rtrs_hostile_wait(int (*done)(void *arg), void *arg, unsigned int timeout_ms);
void rtrs_hostile_sleep_ms(unsigned int ms);
int rtrs_hostile_serve(unsigned short port);
void rtrs_hostile_stop(void);
const char *rtrs_hostile_client_case(void);

static char *mode = "server";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "server: attack our server at addr:port (default); client: listen on port for our client");

static char client_case[64] = "good";
module_param_string(client_case, client_case, sizeof(client_case), 0644);
MODULE_PARM_DESC(client_case, "mode=client: the case played for the next client session (default good)");

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address of the victim (an rxe netdev's address)");

static char *addr2 = "";
module_param(addr2, charp, 0444);
MODULE_PARM_DESC(addr2, "A second IPv4 address of the victim (another rxe netdev's), for a second path of one session from another client address (io_read_desc_len_race_second_path, con_req_reconnect_other_address)");

static ushort port = 1234;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "Victim's RDMA-CM port (default 1234)");

static char *only = "";
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "Comma-separated case names to run (default: all)");

static char *skip = "";
module_param(skip, charp, 0444);
MODULE_PARM_DESC(skip, "Comma-separated case names not to run (reported as skipped)");

static char *dir = "/tmp/hostile";
module_param(dir, charp, 0444);
MODULE_PARM_DESC(dir, "Folder holding the non-block objects to OPEN: file, fifo, sock, dir (default /tmp/hostile)");

static char *blockdev = "/dev/ram0";
module_param(blockdev, charp, 0444);
MODULE_PARM_DESC(blockdev, "A block device the server exports, for the IO cases (default /dev/ram0)");

static uint flood;
module_param(flood, uint, 0444);
MODULE_PARM_DESC(flood, "Sessions the flood case opens (0: the flood case is skipped)");

static uint flood_paths;
module_param(flood_paths, uint, 0444);
MODULE_PARM_DESC(flood_paths, "Paths of one session the flood_paths case opens (0: the case is skipped)");

static uint flood_connections;
module_param(flood_connections, uint, 0444);
MODULE_PARM_DESC(flood_connections, "The server's max_connections_per_path, for the flood_connections case (0: the case is skipped; at most 63)");

static uint flood_connections_budget;
module_param(flood_connections_budget, uint, 0444);
MODULE_PARM_DESC(flood_connections_budget, "The server's max_connections_per_client, for the flood_connections case");

static uint hold_ms;
module_param(hold_ms, uint, 0644);
MODULE_PARM_DESC(hold_ms, "The flood cases keep what they opened this long (writable while they hold: 0 ends the hold)");

static uint connect_ms = 10000;
module_param(connect_ms, uint, 0444);
MODULE_PARM_DESC(connect_ms, "How long a connect, an answer or a completion is waited for, in ms (default 10000; 1000 to 600000; the debug kernel under TCG needs more)");

static DECLARE_WAIT_QUEUE_HEAD(rtrs_hostile_wq);

/* KAPI: process context. */
unsigned int rtrs_hostile_hold_ms(void)
{
	return READ_ONCE(hold_ms);
}

/* KAPI: any context. */
unsigned int rtrs_hostile_connect_ms(void)
{
	return clamp_t(uint, connect_ms, 1000, 600000);
}

/* KAPI: any context (completion handlers call it from softirq). */
void rtrs_hostile_wake(void)
{
	wake_up_all(&rtrs_hostile_wq);
}

/* KAPI: process context; 0 once done(arg) is true, -ETIMEDOUT otherwise. */
int rtrs_hostile_wait(int (*done)(void *arg), void *arg, unsigned int timeout_ms)
{
	return wait_event_timeout(rtrs_hostile_wq, done(arg), msecs_to_jiffies(timeout_ms)) ? 0 : -ETIMEDOUT;
}

/* KAPI: process context. */
void rtrs_hostile_sleep_ms(unsigned int ms)
{
	msleep(ms);
}

/* KAPI: process context; the parameter's buffer (a racing write may tear it: tests only). */
const char *rtrs_hostile_client_case(void)
{
	return client_case;
}

static int __init rtrs_hostile_init(void)
{
	u8 ip[4], ip2[4];
	bool second;

	if (mode && !strcmp(mode, "client"))
		return rtrs_hostile_serve(port);

	if (!addr || !in4_pton(addr, -1, ip, -1, NULL)) {
		pr_err("addr=<IPv4 of the victim> is required\n");
		return -EINVAL;
	}
	second = addr2 && *addr2;
	if (second && !in4_pton(addr2, -1, ip2, -1, NULL)) {
		pr_err("addr2=%s is not an IPv4 address\n", addr2);
		return -EINVAL;
	}
	return rtrs_hostile_run(ip, port, only, skip, dir, blockdev, flood, flood_paths, flood_connections,
				flood_connections_budget, second ? ip2 : NULL);
}

static void __exit rtrs_hostile_exit(void)
{
	rtrs_hostile_stop();
	cxxrt_module_exit();
}

module_init(rtrs_hostile_init);
module_exit(rtrs_hostile_exit);

MODULE_DESCRIPTION("A hostile RTRS/RNBD peer for the selftests (tests only)");
MODULE_LICENSE("GPL");
