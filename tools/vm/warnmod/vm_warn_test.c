// SPDX-License-Identifier: GPL-2.0
/* Test-runner self-check only: provokes one real WARN() at load time so that
 * tools/vm/selftest-warn.sh can prove tools/vm/run.sh fails on kernel warnings. */
#include <linux/module.h>
#include <linux/bug.h>

static int __init vm_warn_test_init(void)
{
	WARN(1, "vm_warn_test: deliberate warning from tools/vm/selftest-warn.sh\n");
	return 0;
}

static void __exit vm_warn_test_exit(void)
{
}

module_init(vm_warn_test_init);
module_exit(vm_warn_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("provokes one WARN() (VM test runner self-check)");
