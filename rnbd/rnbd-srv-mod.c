// SPDX-License-Identifier: GPL-2.0-or-later
/* rnbd-server: module entry points. All logic is C++ (rnbd-srv.cpp). */
#include <linux/module.h>
#include "rnbd-srv-kapi.h"

static int __init rnbd_srv_module_init(void)
{
	return rnbd_srv_cxx_init();
}

static void __exit rnbd_srv_module_exit(void)
{
	rnbd_srv_cxx_exit();
}

module_init(rnbd_srv_module_init);
module_exit(rnbd_srv_module_exit);

MODULE_DESCRIPTION("RNBD server: exports block devices over RTRS (C++)");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");
