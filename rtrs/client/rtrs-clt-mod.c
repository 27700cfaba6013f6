// SPDX-License-Identifier: GPL-2.0-or-later
/* rtrs-client: module entry points. All logic is C++ (rtrs-clt.cpp). */
#include <linux/module.h>
#include "rtrs-clt-upcalls.h"

static int __init rtrs_clt_module_init(void)
{
	return rtrs_clt_cxx_init();
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
