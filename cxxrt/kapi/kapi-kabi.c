// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Generates cxxrt-kabi.h: sizes and alignments of the kernel objects that
 * C++ embeds as opaque storage, and the GFP constants, taken from the real
 * headers of the kernel being built for (the asm-offsets technique). Never
 * hand-write these: they change with the config (lockdep, debug options).
 * Compiled to assembly only, never linked.
 */
#include <linux/kbuild.h>
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#define KABI_OBJECT(name, type)                          \
	DEFINE(KABI_SIZEOF_##name, sizeof(type));        \
	DEFINE(KABI_ALIGNOF_##name, __alignof__(type))

int main(void);
int main(void)
{
	KABI_OBJECT(SPINLOCK, spinlock_t);
	KABI_OBJECT(MUTEX, struct mutex);
	KABI_OBJECT(COMPLETION, struct completion);
	KABI_OBJECT(WORK, struct work_struct);
	KABI_OBJECT(DELAYED_WORK, struct delayed_work);
	KABI_OBJECT(TIMER, struct timer_list);
	KABI_OBJECT(WAIT_QUEUE_HEAD, wait_queue_head_t);
	KABI_OBJECT(KOBJECT, struct kobject);
	BLANK();
	DEFINE(KABI_GFP_KERNEL, GFP_KERNEL);
	DEFINE(KABI_GFP_ATOMIC, GFP_ATOMIC);
	DEFINE(KABI_GFP_NOIO, GFP_NOIO);
	DEFINE(KABI_GFP_NOWAIT, GFP_NOWAIT);
	DEFINE(KABI___GFP_ZERO, __GFP_ZERO);
	DEFINE(KABI_PAGE_SIZE, PAGE_SIZE);
	return 0;
}
