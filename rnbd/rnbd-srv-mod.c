// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rnbd-server: module entry points and parameters. All logic is C++
 * (rnbd-srv*.cpp); the block layer and VFS are reached through kapi-*.c.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <linux/kernel.h>
#include "rnbd-srv-kapi.h"

static ushort port_nr = 1234;
module_param(port_nr, ushort, 0444);
MODULE_PARM_DESC(port_nr, "Port the RTRS server listens on (default 1234)");

/* The dev_search_path parameter's value; fixed after load (mode 0444). */
static char search_path[PATH_MAX] = "/";

/* Rejects values of PATH_MAX bytes or more; drops what follows a newline. */
static int search_path_param_set(const char *value, const struct kernel_param *kp)
{
	size_t length = strcspn(value, "\n");

	if (strlen(value) >= sizeof(search_path))
		return -EINVAL;
	strscpy(search_path, value, length + 1);
	return 0;
}

static int search_path_param_get(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%s\n", search_path);
}

static const struct kernel_param_ops search_path_param_ops = {
	.set = search_path_param_set,
	.get = search_path_param_get,
};

module_param_cb(dev_search_path, &search_path_param_ops, NULL, 0444);
MODULE_PARM_DESC(dev_search_path,
		 "Directory prepended to the device path a client maps; %SESSNAME% in it stands for the session name (default /)");

const char *rnbd_srv_dev_search_path(void)
{
	return search_path;
}

void rnbd_srv_module_get(void)
{
	__module_get(THIS_MODULE);
}

void rnbd_srv_module_put(void)
{
	module_put(THIS_MODULE);
}

static int __init rnbd_srv_module_init(void)
{
	return rnbd_srv_cxx_init(port_nr);
}

static void __exit rnbd_srv_module_exit(void)
{
	rnbd_srv_cxx_exit();
}

module_init(rnbd_srv_module_init);
module_exit(rnbd_srv_module_exit);

MODULE_DESCRIPTION("RNBD server: exports block devices and image files over RTRS (C++)");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");
