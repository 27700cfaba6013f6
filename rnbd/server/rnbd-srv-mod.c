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
#include "rnbd-srv-upcalls.h"

static ushort port_nr = 1234;
module_param(port_nr, ushort, 0444);
MODULE_PARM_DESC(port_nr, "Port the RTRS server listens on (default 1234, 1..65535)");

/*
 * Both path parameters: C++ checks a new value and copies it into the
 * parameter's buffer (its arg, PATH_MAX bytes), which reads back as it is.
 */
static int path_param_set(const char *value, const struct kernel_param *kp)
{
	return rnbd_srv_cxx_set_path_param(kp->name, value, kp->arg, PATH_MAX);
}

static int path_param_get(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%s\n", (const char *)kp->arg);
}

static const struct kernel_param_ops path_param_ops = {
	.set = path_param_set,
	.get = path_param_get,
};

/* The dev_search_path parameter's value; fixed after load (mode 0444). */
static char search_path[PATH_MAX] = "/";
module_param_cb(dev_search_path, &path_param_ops, search_path, 0444);
MODULE_PARM_DESC(dev_search_path,
		 "Directory prepended to the device path a client maps; %SESSNAME% in it stands for the session name (default /; an absolute path below PATH_MAX bytes)");

const char *rnbd_srv_dev_search_path(void)
{
	return search_path;
}

/* The file_export_dir parameter's value: empty (file export off) or a directory. */
static char file_export_dir[PATH_MAX];
module_param_cb(file_export_dir, &path_param_ops, file_export_dir, 0644);
MODULE_PARM_DESC(file_export_dir,
		 "Directory whose regular files (disk images) may be exported; empty (default): block devices only. "
		 "An absolute path to an existing directory; a file is served only if its resolved path stays inside it");

const char *rnbd_srv_file_export_dir(void)
{
	return file_export_dir;
}

void rnbd_srv_params_lock(void)
{
	kernel_param_lock(THIS_MODULE);
}

void rnbd_srv_params_unlock(void)
{
	kernel_param_unlock(THIS_MODULE);
}

static bool allow_realtime_ioprio;
module_param(allow_realtime_ioprio, bool, 0644);
MODULE_PARM_DESC(allow_realtime_ioprio,
		 "Submit a client's real-time (class 1) IO priority as it is; when off (default) it is lowered to best-effort at the same level");

int rnbd_srv_allow_realtime_ioprio(void)
{
	return READ_ONCE(allow_realtime_ioprio);
}

static bool allow_fileio_of_block_devices;
module_param(allow_fileio_of_block_devices, bool, 0644);
MODULE_PARM_DESC(allow_fileio_of_block_devices,
		 "Serve a client's io_mode=fileio map of a block device through the VFS; when off (default) such an OPEN is refused "
		 "(the client sees ENOENT, the log says why) and block devices are served as blockio only. Applies to later OPENs");

int rnbd_srv_allow_fileio_of_block_devices(void)
{
	return READ_ONCE(allow_fileio_of_block_devices);
}

static bool exports_only;
module_param(exports_only, bool, 0644);
MODULE_PARM_DESC(exports_only,
		 "Y: only exports (ctl/exports/) can be opened, even while none is defined; N (default): with no export defined, what dev_search_path leads to");

int rnbd_srv_exports_only(void)
{
	return READ_ONCE(exports_only);
}

static unsigned int idle_session_timeout_ms = 60000;

static int idle_session_timeout_set(const char *value, const struct kernel_param *kp)
{
	return rnbd_srv_cxx_set_idle_session_timeout(value, kp->arg);
}

static const struct kernel_param_ops idle_session_timeout_ops = {
	.set = idle_session_timeout_set,
	.get = param_get_uint,
};
module_param_cb(idle_session_timeout_ms, &idle_session_timeout_ops, &idle_session_timeout_ms, 0644);
MODULE_PARM_DESC(idle_session_timeout_ms,
		 "A session that maps no device for this long (after it connects, or after its last device is closed) is closed, in ms (default 60000, 1000..86400000; EINVAL outside)");

unsigned int rnbd_srv_idle_session_timeout_ms(void)
{
	return READ_ONCE(idle_session_timeout_ms);
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

MODULE_DESCRIPTION("RNBD server: exports block devices (and, if enabled, image files) over RTRS (C++)");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");
