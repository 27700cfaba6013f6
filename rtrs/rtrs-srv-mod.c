// SPDX-License-Identifier: GPL-2.0-or-later
/* rtrs-server: module entry points. All logic is C++ (rtrs-srv.cpp). */
#include <linux/module.h>
#include "rtrs-srv-kapi.h"

static int __init rtrs_srv_module_init(void)
{
	return rtrs_srv_cxx_init();
}

static void __exit rtrs_srv_module_exit(void)
{
	rtrs_srv_cxx_exit();
}

module_init(rtrs_srv_module_init);
module_exit(rtrs_srv_module_exit);

MODULE_DESCRIPTION("RTRS server: RDMA transport, server side (C++)");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");
