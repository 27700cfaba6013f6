// SPDX-License-Identifier: GPL-2.0-or-later
/* rtrs-client: module entry points. All logic is C++ (rtrs-clt.cpp). */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include "rtrs-clt-upcalls.h"

static int read_slots = 64;
module_param(read_slots, int, 0444);
MODULE_PARM_DESC(read_slots, "Pre-registered 4 KiB slots per path for READs of at most 4096 bytes: such a READ of a permit below this number lands in its slot and is copied to the caller's pages, instead of registering them for the one IO (no memory registration, no invalidation, two packets fewer). 4 KiB of memory per slot and path; 0 registers every READ (default 64, 0..4096, at most the queue depth is used)");

static int __init rtrs_clt_module_init(void)
{
	return rtrs_clt_cxx_init(read_slots);
}

static void __exit rtrs_clt_module_exit(void)
{
	rtrs_clt_cxx_exit();
}

module_init(rtrs_clt_module_init);
module_exit(rtrs_clt_module_exit);

MODULE_DESCRIPTION("RTRS client: RDMA transport, client side (C++)");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");
