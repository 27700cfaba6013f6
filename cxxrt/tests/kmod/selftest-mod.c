// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxxrt-selftest: runs the C++ runtime's tests inside the real kernel at
 * load time (the kselftest-module pattern, since Debian's kernel has no
 * KUnit). Results are TAP lines in the kernel log; a failure makes the
 * load fail with -EINVAL. Built only for tests (make selftest-modules).
 */
#include <linux/module.h>
#include <cxxrt/module-api.h>

int cxxrt_selftest_run(bool leak_on_exit);
void cxxrt_selftest_lock_inversion(void);
/* The sysfs demo tree (selftest-sysfs.cpp), kept while the module is loaded. */
int cxxrt_selftest_sysfs_init(void);
void cxxrt_selftest_sysfs_exit(void);

/* For the negative test of the leak check: keep one object past exit. */
static bool leak_on_exit;
module_param(leak_on_exit, bool, 0444);
MODULE_PARM_DESC(leak_on_exit, "Deliberately leak one object so module exit must report it (tests only)");

/* For the negative test of lockdep classes: an AB-BA order of two mutexes. */
static bool lock_inversion;
module_param(lock_inversion, bool, 0444);
MODULE_PARM_DESC(lock_inversion, "Take two C++ mutexes A->B then B->A so lockdep must report it (tests only)");

static int __init cxxrt_selftest_init(void)
{
	int rc;

	if (lock_inversion)
		cxxrt_selftest_lock_inversion();
	rc = cxxrt_selftest_run(leak_on_exit);
	if (rc)
		return rc;
	rc = cxxrt_selftest_sysfs_init();
	if (rc)
		cxxrt_module_exit();
	return rc;
}

static void __exit cxxrt_selftest_exit(void)
{
	cxxrt_selftest_sysfs_exit();
	cxxrt_module_exit();
}

module_init(cxxrt_selftest_init);
module_exit(cxxrt_selftest_exit);

MODULE_DESCRIPTION("In-kernel self-test of the cxxrt C++ runtime (tests only)");
MODULE_LICENSE("GPL");
