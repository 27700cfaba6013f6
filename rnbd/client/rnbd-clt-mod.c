// SPDX-License-Identifier: GPL-2.0-or-later
/* rnbd-client: module entry points. All logic is C++ (rnbd-clt.cpp). */
#include <linux/module.h>
#include "rnbd-clt-upcalls.h"

static int __init rnbd_clt_module_init(void)
{
	return rnbd_clt_cxx_init();
}

static void __exit rnbd_clt_module_exit(void)
{
	rnbd_clt_cxx_exit();
}

int rnbd_clt_module_get(void)
{
	return try_module_get(THIS_MODULE);
}

void rnbd_clt_module_put(void)
{
	module_put(THIS_MODULE);
}

module_init(rnbd_clt_module_init);
module_exit(rnbd_clt_module_exit);

MODULE_DESCRIPTION("RNBD client: network block device over RTRS (C++)");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");
