// SPDX-License-Identifier: GPL-2.0-or-later
/* rnbd-client: module entry points. All logic is C++ (rnbd-clt.cpp). */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include "rnbd-clt-upcalls.h"

static unsigned int control_timeout_ms = 120000;

static int control_timeout_set(const char *value, const struct kernel_param *kp)
{
	return rnbd_clt_cxx_set_control_timeout(value, kp->arg);
}

static const struct kernel_param_ops control_timeout_ops = {
	.set = control_timeout_set,
	.get = param_get_uint,
};
module_param_cb(control_timeout_ms, &control_timeout_ops, &control_timeout_ms, 0644);
MODULE_PARM_DESC(control_timeout_ms,
		 "How long a control message (SESS_INFO, OPEN, CLOSE) and the wait for its permit may take before map_device, unmap_device or a re-open fails with ETIMEDOUT and the path carrying it is failed, in ms (default 120000, 1000..600000; EINVAL outside)");

unsigned int rnbd_clt_control_timeout_ms(void)
{
	return READ_ONCE(control_timeout_ms);
}

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
